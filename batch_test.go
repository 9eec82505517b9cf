package ttldb

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBatchCosmosScenario is the specification's own test: under a
// DefaultTTL of one day, a batch creates A with ttl 3, creates B without
// ttl, replaces C with ttl 3 and upserts D with ttl -1; four seconds later
// A and C are gone, B and D are there.
func TestBatchCosmosScenario(t *testing.T) { // R14, R3, R4
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("orders", "/pk", &Options{DefaultTTL: TTLSeconds(86400)})
		require.NoError(t, err)
		defer c.Close()
		pk := StringKey("p")
		_, err = c.Create(bg, []byte(`{"id":"C","pk":"p"}`))
		require.NoError(t, err)
		time.Sleep(time.Second)

		b := NewBatch(pk)
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

		time.Sleep(4 * time.Second)
		for id, live := range map[string]bool{"A": false, "B": true, "C": false, "D": true} {
			_, err := c.Get(bg, pk, id)
			if live {
				require.NoError(t, err, id)
			} else {
				require.ErrorIs(t, err, ErrNotFound, id)
			}
		}
	})
}

// TestBatchFailureChangesNothing: operation 37 of 50 fails, and the batch
// leaves every document, every etag and the feed as they were.
func TestBatchFailureChangesNothing(t *testing.T) { // R14, R11
	c, _ := newTestCollection(t, "/pk", TTLSeconds(100))
	pk := StringKey("p")
	for i := range 20 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p","v":%d}`, i, i))
	}
	was, lsn := state(t, c), c.LastLSN()

	b := NewBatch(pk)
	for i := range 50 {
		switch {
		case i == 36:
			b.Replace([]byte(`{"id":"missing","pk":"p"}`))
		case i < 20:
			b.Patch(fmt.Sprintf("d%d", i), []PatchOp{PatchIncrement("/v", 100)})
		default:
			b.Create([]byte(fmt.Sprintf(`{"id":"n%d","pk":"p"}`, i)))
		}
	}
	_, err := c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrNotFound)
	var be *BatchError
	require.ErrorAs(t, err, &be)
	require.Equal(t, 36, be.Index)
	require.Equal(t, 50, be.Len)
	require.Equal(t, "Replace", be.Op)
	require.Equal(t, "missing", be.ID)
	require.Contains(t, err.Error(), "operation 37 of 50")
	require.Equal(t, was, state(t, c))
	require.Equal(t, lsn, c.LastLSN(), "a failed batch writes nothing to the feed")

	// The same batch without its bad operation applies whole.
	b.ops[36] = batchOp{kind: batchRead, id: "d3"}
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Equal(t, `{"id":"d3","pk":"p","v":103}`, docs[36].Body(), "a read sees the batch's earlier operations")
	require.Equal(t, lsn+49, c.LastLSN())
}

// TestBatchErrors checks each way an operation fails: the sentinel it
// would get alone, its position, and that nothing changed.
func TestBatchErrors(t *testing.T) { // R14, R2, R10
	c, clk := newTestCollection(t, "/pk", TTLSeconds(100))
	pk := StringKey("p")
	mustCreate(t, c, `{"id":"gone","pk":"p","ttl":1}`)
	clk.Advance(time.Second)
	x := mustCreate(t, c, `{"id":"x","pk":"p","n":1}`)
	mustCreate(t, c, `{"id":"y","pk":"q"}`)
	good := func(b *Batch) { b.Upsert([]byte(`{"id":"u","pk":"p"}`)) }
	cases := []struct {
		name string
		add  func(b *Batch)
		err  error
	}{
		{"create over a live document", func(b *Batch) { b.Create([]byte(`{"id":"x","pk":"p"}`)) }, ErrConflict},
		{"replace of a missing document", func(b *Batch) { b.Replace([]byte(`{"id":"m","pk":"p"}`)) }, ErrNotFound},
		{"replace of an expired document", func(b *Batch) { b.Replace([]byte(`{"id":"gone","pk":"p"}`)) }, ErrNotFound},
		{"delete of a missing document", func(b *Batch) { b.Delete("m") }, ErrNotFound},
		{"read of a missing document", func(b *Batch) { b.Read("m") }, ErrNotFound},
		{"patch of a missing document", func(b *Batch) { b.Patch("m", []PatchOp{PatchSet("/a", 1)}) }, ErrNotFound},
		{"a stale etag", func(b *Batch) { b.Delete("x", IfMatch("0123456789abcdef")) }, ErrPreconditionFailed},
		{"an etag of the batch's own write", func(b *Batch) {
			b.Upsert([]byte(`{"id":"x","pk":"p"}`))
			b.Delete("x", IfMatch("0000000000000000"))
		}, ErrPreconditionFailed},
		{"a bad ttl", func(b *Batch) { b.Create([]byte(`{"id":"t","pk":"p","ttl":0}`)) }, ErrInvalidTTL},
		{"a bad patch", func(b *Batch) { b.Patch("x", []PatchOp{PatchIncrement("/id", 1)}) }, ErrInvalidPatch},
		{"a patch that does not apply", func(b *Batch) { b.Patch("x", []PatchOp{PatchRemove("/nope")}) }, ErrInvalidPatch},
		{"a patch to a bad ttl", func(b *Batch) { b.Patch("x", []PatchOp{PatchSet("/ttl", 1.5)}) }, ErrInvalidTTL},
		{"another partition key", func(b *Batch) { b.Upsert([]byte(`{"id":"y","pk":"q"}`)) }, ErrInvalidPartitionKey},
		{"a document without the partition key", func(b *Batch) { b.Upsert([]byte(`{"id":"y"}`)) }, ErrInvalidPartitionKey},
		{"a bad id", func(b *Batch) { b.Delete("a/b") }, ErrInvalidID},
		{"not JSON", func(b *Batch) { b.Create([]byte(`{`)) }, ErrInvalidDocument},
		{"a value that does not encode", func(b *Batch) { b.Create(func() {}) }, ErrInvalidDocument},
		{"a create after a delete in the batch, then a conflict", func(b *Batch) {
			b.Delete("x")
			b.Create([]byte(`{"id":"x","pk":"p"}`))
			b.Create([]byte(`{"id":"x","pk":"p"}`))
		}, ErrConflict},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			was, lsn := state(t, c), c.LastLSN()
			b := NewBatch(pk)
			good(b)
			tc.add(b)
			good(b)
			_, err := c.ExecuteBatch(bg, b)
			require.ErrorIs(t, err, tc.err)
			var be *BatchError
			require.ErrorAs(t, err, &be)
			require.Equal(t, be.Len-2, be.Index, "the last of the case's operations fails")
			require.Equal(t, was, state(t, c))
			require.Equal(t, lsn, c.LastLSN())
			require.Equal(t, x.ETag(), mustGet(t, c, pk, "x").ETag())
		})
	}

	// The batch as a whole.
	_, err := c.ExecuteBatch(bg, NewBatch(pk))
	require.ErrorIs(t, err, ErrInvalidBatch)
	_, err = c.ExecuteBatch(bg, nil)
	require.ErrorIs(t, err, ErrInvalidBatch)
	_, err = c.ExecuteBatch(bg, &Batch{})
	require.ErrorIs(t, err, ErrInvalidBatch)
	b := NewBatch(pk)
	for i := range MaxBatchOperations + 1 {
		b.Upsert([]byte(`{"id":"b` + strconv.Itoa(i) + `","pk":"p"}`))
	}
	_, err = c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrInvalidBatch)
	require.Contains(t, err.Error(), "101 operations")
	b.ops = b.ops[:MaxBatchOperations]
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Len(t, docs, MaxBatchOperations)
	long := NewBatch(StringKey(string(make([]byte, MaxPartitionKeyLength+1))))
	long.Delete("x")
	_, err = c.ExecuteBatch(bg, long)
	require.ErrorIs(t, err, ErrInvalidPartitionKey)
	require.NoError(t, c.Close())
	_, err = c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrClosed)
}

// TestBatchIsSequential checks that each operation sees the ones before
// it, and that the feed shows them in order (R11).
func TestBatchIsSequential(t *testing.T) { // R14, R11
	c, _ := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")
	old := mustCreate(t, c, `{"id":"e","pk":"p","n":1}`)
	src := []byte(`{"id":"a","pk":"p","n":1}`)
	b := NewBatch(pk)
	b.Create(src)
	src[len(src)-2] = '9' // the batch copied the text
	b.Patch("a", []PatchOp{PatchIncrement("/n", 1)})
	b.Read("a")
	b.Delete("a")
	b.Create([]byte(`{"id":"a","pk":"p","n":7}`))
	b.Delete("e", IfMatch(old.ETag()))
	b.Upsert([]byte(`{"id":"e","pk":"p","n":8}`))
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Equal(t, `{"id":"a","pk":"p","n":1}`, docs[0].Body())
	require.Equal(t, `{"id":"a","pk":"p","n":2}`, docs[1].Body())
	require.Equal(t, docs[1].ETag(), docs[2].ETag(), "the read returns the patched document, stamped")
	require.Equal(t, Document{}, docs[3])
	require.Equal(t, `{"id":"a","pk":"p","n":7}`, mustGet(t, c, pk, "a").Body())
	require.Equal(t, docs[4].ETag(), mustGet(t, c, pk, "a").ETag())
	require.Equal(t, `{"id":"e","pk":"p","n":8}`, mustGet(t, c, pk, "e").Body())

	page, err := c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: old.LSN()})
	require.NoError(t, err)
	var got []string
	for i, ch := range page.Changes {
		require.Equal(t, old.LSN()+uint64(i)+1, ch.LSN)
		got = append(got, ch.Op.String()+" "+ch.ID)
	}
	require.Equal(t, []string{"create a", "replace a", "delete a", "create a", "delete e", "create e"}, got)
}

// TestBatchIsAtomicToGet checks that readers see all of a batch or none of
// it, Get included, which takes no collection lock: each batch writes X
// and then Y with the same number, so a reader that reads X and then Y can
// never find Y older than X.
func TestBatchIsAtomicToGet(t *testing.T) { // R14
	c, _ := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")
	mustCreate(t, c, `{"id":"X","pk":"p","v":0}`)
	mustCreate(t, c, `{"id":"Y","pk":"p","v":0}`)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Value
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				x, err1 := c.Get(bg, pk, "X")
				y, err2 := c.Get(bg, pk, "Y")
				if err := errors.Join(err1, err2); err != nil {
					bad.Store(err.Error())
					return
				}
				if vx, vy := x.Body(), y.Body(); len(vy) < len(vx) || (len(vy) == len(vx) && vy[len(vy)-8:] < vx[len(vx)-8:]) {
					bad.Store(fmt.Sprintf("read X %s and then Y %s: half a batch", vx, vy))
					return
				}
			}
		}()
	}
	for i := 1; i <= 3000 && bad.Load() == nil; i++ {
		b := NewBatch(pk)
		v := fmt.Sprintf(`%08d`, i)
		b.Replace([]byte(`{"id":"X","pk":"p","v":"` + v + `"}`))
		b.Replace([]byte(`{"id":"Y","pk":"p","v":"` + v + `"}`))
		_, err := c.ExecuteBatch(bg, b)
		require.NoError(t, err)
	}
	stop.Store(true)
	wg.Wait()
	require.Nil(t, bad.Load())
}

// TestBatchIsDurable checks that a batch survives a reopen whole (R12).
func TestBatchIsDurable(t *testing.T) { // R12, R14
	dir := t.TempDir()
	opts := &Options{Dir: dir, Sync: SyncAlways, ManualSweep: true}
	c, err := NewCollection("b", "/pk", opts)
	require.NoError(t, err)
	pk := StringKey("p")
	b := NewBatch(pk)
	for i := range 10 {
		b.Create([]byte(fmt.Sprintf(`{"id":"%d","pk":"p"}`, i)))
	}
	b.Patch("3", []PatchOp{PatchAdd("/x", []int{1})})
	b.Delete("4")
	docs, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	want := state(t, c)
	require.NoError(t, c.Close())

	c, err = NewCollection("b", "/pk", opts)
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, want, state(t, c))
	require.Equal(t, docs[10].ETag(), mustGet(t, c, pk, "3").ETag())
	require.Equal(t, `{"id":"3","pk":"p","x":[1]}`, mustGet(t, c, pk, "3").Body())
}
