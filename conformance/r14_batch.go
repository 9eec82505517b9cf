package conformance

// R14's transactional batch: Cosmos DB's scenario, all or nothing, each
// way an operation fails, operations in order, and a batch kept whole
// across a reopen (R12). Moved from the root package's batch_test.go; the
// root keeps the readers that race a batch (Get without a lock), which the
// race detector and the engine's timing decide.

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// R14, R3, R4: the specification's own scenario. Under a DefaultTTL of a
// day, a batch creates A with ttl 3, creates B without ttl, replaces C
// with ttl 3 and upserts D with ttl -1; its writes share one _ts and take
// consecutive LSNs; four seconds later A and C are gone, B and D there.
func checkBatchCosmosScenario(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLSeconds(86400))
	pk := ttldb.StringKey("p")
	ruleCreate(t, c, `{"id":"C","pk":"p"}`)
	clk.Advance(time.Second)

	b := ttldb.NewBatch(pk)
	b.Create([]byte(`{"id":"A","pk":"p","ttl":3}`))
	b.Create(map[string]any{"id": "B", "pk": "p"})
	b.Replace([]byte(`{"id":"C","pk":"p","ttl":3}`))
	b.Upsert([]byte(`{"id":"D","pk":"p","ttl":-1}`))
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Len(t, docs, 4)
	for _, d := range docs[1:] {
		require.Equal(t, docs[0].TS(), d.TS(), "all writes of a batch share one _ts")
	}
	for i := 1; i < 4; i++ {
		require.Equal(t, docs[i-1].LSN()+1, docs[i].LSN(), "a batch's changes have consecutive LSNs")
	}

	clk.Advance(4 * time.Second)
	for id, live := range map[string]bool{"A": false, "B": true, "C": false, "D": true} {
		_, err := c.Get(bg, pk, id)
		if live {
			require.NoError(t, err, id)
		} else {
			require.ErrorIs(t, err, ttldb.ErrNotFound, id)
		}
	}
}

// R14, R11: operation 37 of 50 fails, and the batch leaves every document,
// every etag and the feed as they were; the same batch with a read in its
// place applies whole, the read seeing the batch's earlier operations.
func checkBatchFailureChangesNothing(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLSeconds(100))
	pk := ttldb.StringKey("p")
	for i := range 20 {
		ruleCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p","v":%d}`, i, i))
	}
	was, lsn := ruleState(t, c), c.LastLSN()

	batch := func(bad bool) *ttldb.Batch {
		b := ttldb.NewBatch(pk)
		for i := range 50 {
			switch {
			case i == 36 && bad:
				b.Replace([]byte(`{"id":"missing","pk":"p"}`))
			case i == 36:
				b.Read("d3")
			case i < 20:
				b.Patch(fmt.Sprintf("d%d", i), []ttldb.PatchOp{ttldb.PatchIncrement("/v", 100)})
			default:
				b.Create([]byte(fmt.Sprintf(`{"id":"n%d","pk":"p"}`, i)))
			}
		}
		return b
	}
	_, err := c.ExecuteBatch(bg, batch(true))
	require.ErrorIs(t, err, ttldb.ErrNotFound)
	var be *ttldb.BatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 36, be.Index)
	require.Equal(t, 50, be.Len)
	require.Equal(t, "Replace", be.Op)
	require.Equal(t, "missing", be.ID)
	require.Contains(t, err.Error(), "operation 37 of 50")
	require.Equal(t, was, ruleState(t, c))
	require.Equal(t, lsn, c.LastLSN(), "a failed batch writes nothing to the feed")

	docs, err := c.ExecuteBatch(bg, batch(false))
	require.NoError(t, err)
	require.Equal(t, `{"id":"d3","pk":"p","v":103}`, docs[36].Body(), "a read sees the batch's earlier operations")
	require.Equal(t, lsn+49, c.LastLSN())
}

// R14, R2, R10: each way an operation fails gets the sentinel it would get
// alone, in a BatchError at its position, and changes nothing; and the
// batch as a whole: empty, nil, too long, a bad partition key, closed.
func checkBatchErrors(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLSeconds(100))
	pk := ttldb.StringKey("p")
	ruleCreate(t, c, `{"id":"gone","pk":"p","ttl":1}`)
	clk.Advance(time.Second)
	x := ruleCreate(t, c, `{"id":"x","pk":"p","n":1}`)
	ruleCreate(t, c, `{"id":"y","pk":"q"}`)
	good := func(b *ttldb.Batch) { b.Upsert([]byte(`{"id":"u","pk":"p"}`)) }
	cases := []struct {
		name string
		add  func(b *ttldb.Batch)
		err  error
	}{
		{"create over a live document", func(b *ttldb.Batch) { b.Create([]byte(`{"id":"x","pk":"p"}`)) }, ttldb.ErrConflict},
		{"replace of a missing document", func(b *ttldb.Batch) { b.Replace([]byte(`{"id":"m","pk":"p"}`)) }, ttldb.ErrNotFound},
		{"replace of an expired document", func(b *ttldb.Batch) { b.Replace([]byte(`{"id":"gone","pk":"p"}`)) }, ttldb.ErrNotFound},
		{"delete of a missing document", func(b *ttldb.Batch) { b.Delete("m") }, ttldb.ErrNotFound},
		{"read of a missing document", func(b *ttldb.Batch) { b.Read("m") }, ttldb.ErrNotFound},
		{"patch of a missing document", func(b *ttldb.Batch) { b.Patch("m", []ttldb.PatchOp{ttldb.PatchSet("/a", 1)}) }, ttldb.ErrNotFound},
		{"a stale etag", func(b *ttldb.Batch) { b.Delete("x", ttldb.IfMatch("0123456789abcdef")) }, ttldb.ErrPreconditionFailed},
		{"an etag of the batch's own write", func(b *ttldb.Batch) {
			b.Upsert([]byte(`{"id":"x","pk":"p"}`))
			b.Delete("x", ttldb.IfMatch("0000000000000000"))
		}, ttldb.ErrPreconditionFailed},
		{"a bad ttl", func(b *ttldb.Batch) { b.Create([]byte(`{"id":"t","pk":"p","ttl":0}`)) }, ttldb.ErrInvalidTTL},
		{"a bad patch", func(b *ttldb.Batch) { b.Patch("x", []ttldb.PatchOp{ttldb.PatchIncrement("/id", 1)}) }, ttldb.ErrInvalidPatch},
		{"a patch that does not apply", func(b *ttldb.Batch) { b.Patch("x", []ttldb.PatchOp{ttldb.PatchRemove("/nope")}) }, ttldb.ErrInvalidPatch},
		{"a patch to a bad ttl", func(b *ttldb.Batch) { b.Patch("x", []ttldb.PatchOp{ttldb.PatchSet("/ttl", 1.5)}) }, ttldb.ErrInvalidTTL},
		{"another partition key", func(b *ttldb.Batch) { b.Upsert([]byte(`{"id":"y","pk":"q"}`)) }, ttldb.ErrInvalidPartitionKey},
		{"a document without the partition key", func(b *ttldb.Batch) { b.Upsert([]byte(`{"id":"y"}`)) }, ttldb.ErrInvalidPartitionKey},
		{"a bad id", func(b *ttldb.Batch) { b.Delete("a/b") }, ttldb.ErrInvalidID},
		{"not JSON", func(b *ttldb.Batch) { b.Create([]byte(`{`)) }, ttldb.ErrInvalidDocument},
		{"a value that does not encode", func(b *ttldb.Batch) { b.Create(func() {}) }, ttldb.ErrInvalidDocument},
		{"a create after a delete in the batch, then a conflict", func(b *ttldb.Batch) {
			b.Delete("x")
			b.Create([]byte(`{"id":"x","pk":"p"}`))
			b.Create([]byte(`{"id":"x","pk":"p"}`))
		}, ttldb.ErrConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			was, lsn := ruleState(t, c), c.LastLSN()
			b := ttldb.NewBatch(pk)
			good(b)
			tc.add(b)
			good(b)
			_, err := c.ExecuteBatch(bg, b)
			require.ErrorIs(t, err, tc.err)
			var be *ttldb.BatchError
			require.ErrorAs(t, err, &be)
			require.Equal(t, be.Len-2, be.Index, "the last of the case's operations fails")
			require.Equal(t, was, ruleState(t, c))
			require.Equal(t, lsn, c.LastLSN())
			now, err := c.Get(bg, pk, "x")
			require.NoError(t, err)
			require.Equal(t, x.ETag(), now.ETag())
		})
	}

	// The batch as a whole.
	_, err := c.ExecuteBatch(bg, ttldb.NewBatch(pk))
	require.ErrorIs(t, err, ttldb.ErrInvalidBatch)
	_, err = c.ExecuteBatch(bg, nil)
	require.ErrorIs(t, err, ttldb.ErrInvalidBatch)
	_, err = c.ExecuteBatch(bg, &ttldb.Batch{})
	require.ErrorIs(t, err, ttldb.ErrInvalidBatch)
	upserts := func(n int) *ttldb.Batch {
		b := ttldb.NewBatch(pk)
		for i := range n {
			b.Upsert([]byte(`{"id":"b` + strconv.Itoa(i) + `","pk":"p"}`))
		}
		return b
	}
	_, err = c.ExecuteBatch(bg, upserts(ttldb.MaxBatchOperations+1))
	require.ErrorIs(t, err, ttldb.ErrInvalidBatch)
	require.Contains(t, err.Error(), "101 operations")
	docs, err := c.ExecuteBatch(bg, upserts(ttldb.MaxBatchOperations))
	require.NoError(t, err)
	require.Len(t, docs, ttldb.MaxBatchOperations)
	long := ttldb.NewBatch(ttldb.StringKey(string(make([]byte, ttldb.MaxPartitionKeyLength+1))))
	long.Delete("x")
	_, err = c.ExecuteBatch(bg, long)
	require.ErrorIs(t, err, ttldb.ErrInvalidPartitionKey)
	require.NoError(t, c.Close())
	_, err = c.ExecuteBatch(bg, upserts(1))
	require.ErrorIs(t, err, ttldb.ErrClosed)
}

// R14, R11: each operation sees the ones before it; the batch copied the
// documents it was given; the feed shows the operations in order, at
// consecutive LSNs.
func checkBatchIsSequential(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	pk := ttldb.StringKey("p")
	old := ruleCreate(t, c, `{"id":"e","pk":"p","n":1}`)
	src := []byte(`{"id":"a","pk":"p","n":1}`)
	b := ttldb.NewBatch(pk)
	b.Create(src)
	src[len(src)-2] = '9' // the batch copied the text
	b.Patch("a", []ttldb.PatchOp{ttldb.PatchIncrement("/n", 1)})
	b.Read("a")
	b.Delete("a")
	b.Create([]byte(`{"id":"a","pk":"p","n":7}`))
	b.Delete("e", ttldb.IfMatch(old.ETag()))
	b.Upsert([]byte(`{"id":"e","pk":"p","n":8}`))
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Equal(t, `{"id":"a","pk":"p","n":1}`, docs[0].Body())
	require.Equal(t, `{"id":"a","pk":"p","n":2}`, docs[1].Body())
	require.Equal(t, docs[1].ETag(), docs[2].ETag(), "the read returns the patched document, stamped")
	require.Equal(t, ttldb.Document{}, docs[3])
	a, err := c.Get(bg, pk, "a")
	require.NoError(t, err)
	require.Equal(t, `{"id":"a","pk":"p","n":7}`, a.Body())
	require.Equal(t, docs[4].ETag(), a.ETag())
	e, err := c.Get(bg, pk, "e")
	require.NoError(t, err)
	require.Equal(t, `{"id":"e","pk":"p","n":8}`, e.Body())

	page, err := c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: old.LSN()})
	require.NoError(t, err)
	var got []string
	for i, ch := range page.Changes {
		require.Equal(t, old.LSN()+uint64(i)+1, ch.LSN)
		got = append(got, ch.Op.String()+" "+ch.ID)
	}
	require.Equal(t, []string{"create a", "replace a", "delete a", "create a", "delete e", "create e"}, got)
}

// R12, R14: a batch survives a reopen whole. Needs Harness.Reopen.
func checkBatchIsDurable(t *testing.T, h Harness) {
	if h.Reopen == nil {
		t.Skip("the engine has no Harness.Reopen: it keeps nothing once closed (R12 does not apply)")
	}
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	pk := ttldb.StringKey("p")
	b := ttldb.NewBatch(pk)
	for i := range 10 {
		b.Create([]byte(fmt.Sprintf(`{"id":"%d","pk":"p"}`, i)))
	}
	b.Patch("3", []ttldb.PatchOp{ttldb.PatchAdd("/x", []int{1})})
	b.Delete("4")
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	want := ruleState(t, c)
	require.NoError(t, c.Close())

	c, err = h.Reopen(t, c, &ttldb.Options{DefaultTTL: ttldb.TTLOff(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	require.Equal(t, want, ruleState(t, c))
	d, err := c.Get(bg, pk, "3")
	require.NoError(t, err)
	require.Equal(t, docs[10].ETag(), d.ETag())
	require.Equal(t, `{"id":"3","pk":"p","x":[1]}`, d.Body())
}
