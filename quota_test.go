package ttldb

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// quotaCollection opens a collection on a fake clock, without a sweeper,
// with the quota q and the DefaultTTL def, closed when the test ends.
func quotaCollection(t *testing.T, q QuotaOptions, def DefaultTTL, dir string) (*Collection, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("quota", "/pk", &Options{DefaultTTL: def, Now: clk.Now, ManualSweep: true, Quota: q, Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, clk
}

// quotaBytes returns what c counts against its quota.
func quotaBytes(t *testing.T, c *Collection) int64 {
	t.Helper()
	s, err := c.Stats(bg)
	require.NoError(t, err)
	return s.QuotaBytes
}

// costOf returns what doc alone counts against a quota in bytes.
func costOf(t *testing.T, doc string) int64 {
	t.Helper()
	c, _ := quotaCollection(t, QuotaOptions{MaxBytes: 1 << 40}, TTLOff(), "")
	mustCreate(t, c, doc)
	return quotaBytes(t, c)
}

// TestQuotaRefuseAtTheBoundary: a write that brings the collection exactly
// to its quota passes; one byte over is refused, with a message naming
// the quota, the size and what the write adds, and changes nothing.
func TestQuotaRefuseAtTheBoundary(t *testing.T) { // R17
	a := `{"id":"a","pk":"p","v":"` + strings.Repeat("x", 100) + `"}`
	b := `{"id":"b","pk":"p","v":"` + strings.Repeat("y", 300) + `"}`
	ca, cb := costOf(t, a), costOf(t, b)
	require.Greater(t, cb, ca)

	c, _ := quotaCollection(t, QuotaOptions{MaxBytes: ca + cb}, TTLOff(), "")
	mustCreate(t, c, a)
	mustCreate(t, c, b) // exactly at the quota
	require.Equal(t, ca+cb, quotaBytes(t, c))
	_, err := c.Create(bg, []byte(`{"id":"c","pk":"p"}`))
	require.ErrorIs(t, err, ErrQuotaExceeded)

	c, _ = quotaCollection(t, QuotaOptions{MaxBytes: ca + cb - 1}, TTLOff(), "")
	mustCreate(t, c, a)
	lsn := c.LastLSN()
	_, err = c.Create(bg, []byte(b)) // one byte over
	require.ErrorIs(t, err, ErrQuotaExceeded)
	for _, want := range []string{fmt.Sprint(ca + cb - 1), fmt.Sprint(ca), fmt.Sprint(cb), "Quota.MaxBytes", `Create of document "b"`} {
		require.Contains(t, err.Error(), want)
	}
	_, err = c.Get(bg, StringKey("p"), "b")
	require.ErrorIs(t, err, ErrNotFound)
	require.Equal(t, lsn, c.LastLSN(), "a refused write changes nothing")
	require.Equal(t, ca, quotaBytes(t, c))
	// Upsert and a replace that grows are refused alike; a smaller one,
	// and a delete, pass.
	_, err = c.Upsert(bg, []byte(b))
	require.ErrorIs(t, err, ErrQuotaExceeded)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p","v":"`+strings.Repeat("x", 1000)+`"}`))
	require.ErrorIs(t, err, ErrQuotaExceeded)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p"}`))
	require.NoError(t, err)
	require.Less(t, quotaBytes(t, c), ca)
	require.NoError(t, c.Delete(bg, StringKey("p"), "a"))
	require.Zero(t, quotaBytes(t, c))
}

// TestQuotaPatch: a patch that grows the document beyond the quota is
// refused and changes nothing; one that shrinks it passes, also over a
// quota (a collection reopened with a lower one).
func TestQuotaPatch(t *testing.T) { // R17
	doc := `{"id":"a","pk":"p","v":"` + strings.Repeat("x", 100) + `"}`
	c, _ := quotaCollection(t, QuotaOptions{MaxBytes: costOf(t, doc)}, TTLOff(), "")
	d := mustCreate(t, c, doc)
	_, err := c.Patch(bg, StringKey("p"), "a", []PatchOp{PatchSet("/w", strings.Repeat("z", 200))})
	require.ErrorIs(t, err, ErrQuotaExceeded)
	got, err := c.Get(bg, StringKey("p"), "a")
	require.NoError(t, err)
	require.Equal(t, d.ETag(), got.ETag())
	_, err = c.Patch(bg, StringKey("p"), "a", []PatchOp{PatchRemove("/v")})
	require.NoError(t, err)
}

// TestQuotaDocuments: MaxDocuments counts documents, expired ones not yet
// swept included; a write at the bound deletes those first, as the
// sweeper would, and a replace adds none.
func TestQuotaDocuments(t *testing.T) { // R17
	c, clk := quotaCollection(t, QuotaOptions{MaxDocuments: 2}, TTLSeconds(10), "")
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	mustCreate(t, c, `{"id":"b","pk":"p","ttl":-1}`)
	_, err := c.Create(bg, []byte(`{"id":"c","pk":"p"}`))
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Contains(t, err.Error(), "Quota.MaxDocuments")
	_, err = c.Upsert(bg, []byte(`{"id":"a","pk":"p","v":1}`))
	require.NoError(t, err, "a replace adds no document")

	clk.Advance(10 * time.Second) // a expires; the sweeper is off
	mustCreate(t, c, `{"id":"c","pk":"p"}`)
	changes, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true})
	del := changes[len(changes)-2]
	require.Equal(t, OpDelete, del.Op)
	require.Equal(t, "a", del.ID)
	require.True(t, del.TimeToLiveExpired)
	require.False(t, del.Evicted)
	s, err := c.Stats(bg)
	require.NoError(t, err)
	require.Equal(t, uint64(1), s.Swept)
	require.Zero(t, s.Evicted)
}

// evictions returns the IDs of the evicted deletes of c's feed, checking
// that none is also marked expired.
func evictions(t *testing.T, c *Collection) []string {
	t.Helper()
	changes, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true})
	var ids []string
	for _, ch := range changes {
		if ch.Evicted {
			require.Equal(t, OpDelete, ch.Op)
			require.False(t, ch.TimeToLiveExpired)
			ids = append(ids, ch.ID)
		}
	}
	return ids
}

// TestQuotaEvictSoonest: the evict policy deletes the document that
// expires soonest, by its own ttl or the DefaultTTL, never one that does
// not expire; each eviction is in the feed as such, survives a reopen of
// a durable directory, and is counted; with no document left that
// expires, the write is refused.
func TestQuotaEvictSoonest(t *testing.T) { // R17
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprint("durable=", durable), func(t *testing.T) {
			dir := ""
			if durable {
				dir = t.TempDir()
			}
			q := QuotaOptions{MaxDocuments: 4, Policy: QuotaEvictSoonest}
			c, clk := quotaCollection(t, q, TTLSeconds(100), dir)
			mustCreate(t, c, `{"id":"own50","pk":"p","ttl":50}`) // expires at +50
			mustCreate(t, c, `{"id":"never","pk":"p","ttl":-1}`)
			mustCreate(t, c, `{"id":"inherit","pk":"p"}`)        // at +100
			mustCreate(t, c, `{"id":"own10","pk":"p","ttl":10}`) // at +10
			clk.Advance(time.Second)
			mustCreate(t, c, `{"id":"e","pk":"p","ttl":-1}`)
			mustCreate(t, c, `{"id":"f","pk":"p","ttl":-1}`)
			mustCreate(t, c, `{"id":"g","pk":"p","ttl":-1}`)
			require.Equal(t, []string{"own10", "own50", "inherit"}, evictions(t, c))
			_, err := c.Create(bg, []byte(`{"id":"h","pk":"p"}`))
			require.ErrorIs(t, err, ErrQuotaExceeded)
			require.Contains(t, err.Error(), "never expire")
			for _, id := range []string{"never", "e", "f", "g"} {
				_, err := c.Get(bg, StringKey("p"), id)
				require.NoError(t, err, id)
			}
			s, err := c.Stats(bg)
			require.NoError(t, err)
			require.Equal(t, uint64(3), s.Evicted)
			require.Equal(t, uint64(3), c.Metrics().Evicted, "Metrics counts the evictions as Stats does")
			require.Equal(t, 4, s.Live)
			if !durable {
				return
			}
			require.NoError(t, c.Close())
			c, _ = quotaCollection(t, q, TTLSeconds(100), dir)
			require.Equal(t, []string{"own10", "own50", "inherit"}, evictions(t, c), "the flag survives the log")
			require.NoError(t, c.Compact(bg))
		})
	}
}

// TestQuotaEvictNeverTheWritesOwn: an eviction never takes the document
// the write replaces, nor one a batch writes, though it expires soonest.
func TestQuotaEvictNeverTheWritesOwn(t *testing.T) { // R17
	c, _ := quotaCollection(t, QuotaOptions{MaxDocuments: 3, Policy: QuotaEvictSoonest}, TTLSeconds(100), "")
	mustCreate(t, c, `{"id":"a","pk":"p","ttl":5}`)
	mustCreate(t, c, `{"id":"b","pk":"p","ttl":50}`)
	mustCreate(t, c, `{"id":"c","pk":"p","ttl":60}`)
	// A batch that replaces a (the soonest) and adds d evicts b.
	b := NewBatch(StringKey("p"))
	b.Upsert([]byte(`{"id":"a","pk":"p","ttl":5,"v":1}`))
	b.Create([]byte(`{"id":"d","pk":"p","ttl":-1}`))
	_, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, evictions(t, c))
	// One that adds two, where only a (its own) and c expire, is refused
	// whole, and says why.
	b = NewBatch(StringKey("p"))
	b.Upsert([]byte(`{"id":"a","pk":"p","ttl":5,"v":2}`))
	b.Create([]byte(`{"id":"e","pk":"p","ttl":-1}`))
	b.Create([]byte(`{"id":"f","pk":"p","ttl":-1}`))
	_, err = c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Contains(t, err.Error(), "a batch of 3 operations")
	require.Contains(t, err.Error(), "the write itself changes")
	got, err := c.Get(bg, StringKey("p"), "a")
	require.NoError(t, err)
	require.NotContains(t, got.JSON(), `"v":2`)
	_, err = c.Get(bg, StringKey("p"), "e")
	require.ErrorIs(t, err, ErrNotFound)
}

// TestQuotaBatchRefusedWhole: under the refuse policy a batch is judged as
// a whole: one over the quota changes nothing, one whose deletes make
// room passes.
func TestQuotaBatchRefusedWhole(t *testing.T) { // R17
	c, _ := quotaCollection(t, QuotaOptions{MaxDocuments: 2}, TTLOff(), "")
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	lsn := c.LastLSN()
	b := NewBatch(StringKey("p"))
	b.Create([]byte(`{"id":"b","pk":"p"}`))
	b.Create([]byte(`{"id":"c","pk":"p"}`))
	_, err := c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Equal(t, lsn, c.LastLSN())
	_, err = c.Get(bg, StringKey("p"), "b")
	require.ErrorIs(t, err, ErrNotFound)
	b.Delete("a")
	_, err = c.ExecuteBatch(bg, b)
	require.NoError(t, err, "its delete makes room")
}

// TestQuotaConcurrentWriters: writers racing on a quota never take the
// collection beyond it.
func TestQuotaConcurrentWriters(t *testing.T) { // R17
	const max = 50
	c, err := NewCollection("quota", "/pk", &Options{DefaultTTL: TTLSeconds(3600), ManualSweep: true,
		Quota: QuotaOptions{MaxDocuments: max, MaxBytes: 64 << 10, Policy: QuotaEvictSoonest}})
	require.NoError(t, err)
	defer c.Close()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 300 {
				_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"w%d-%d","pk":"p%d","v":%q}`, w, i, i%3, strings.Repeat("x", i%200)))
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := c.Stats(bg); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	s, err := c.Stats(bg)
	require.NoError(t, err)
	require.LessOrEqual(t, s.Live+s.Expired, max)
	require.LessOrEqual(t, s.QuotaBytes, int64(64<<10))
	require.Equal(t, uint64(4*300-s.Live), s.Evicted)
}

// TestQuotaOptionsValidated: a negative bound, an unknown policy or a
// policy without a bound is refused, naming the field.
func TestQuotaOptionsValidated(t *testing.T) { // R17
	for _, tc := range []struct {
		q     QuotaOptions
		field string
	}{
		{QuotaOptions{MaxBytes: -1}, "Quota.MaxBytes -1"},
		{QuotaOptions{MaxDocuments: -5}, "Quota.MaxDocuments -5"},
		{QuotaOptions{MaxBytes: 1, Policy: 7}, "Quota.Policy 7"},
		{QuotaOptions{Policy: QuotaEvictSoonest}, "without Quota.MaxBytes or Quota.MaxDocuments"},
	} {
		_, err := NewCollection("quota", "/pk", &Options{Quota: tc.q})
		require.ErrorIs(t, err, ErrInvalidOption, tc.field)
		require.Contains(t, err.Error(), tc.field)
	}
	require.True(t, errors.Is(ErrQuotaExceeded, ErrQuotaExceeded))
}

// TestQuotaCountsIndexes: the bytes counted follow the secondary indexes
// through writes, an index built on a live collection and one dropped,
// and come back to zero once every document is deleted.
func TestQuotaCountsIndexes(t *testing.T) { // R17
	c, err := NewCollection("quota", "/pk", &Options{ManualSweep: true, Indexes: []string{"/n"},
		Quota: QuotaOptions{MaxBytes: 1 << 30}})
	require.NoError(t, err)
	defer c.Close()
	for i := range 200 {
		_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"d%d","pk":"p","n":%d,"s":"%s"}`, i%50, i, strings.Repeat("x", i%20)))
		require.NoError(t, err)
	}
	unlisted := quotaBytes(t, c)
	for _, err := range c.All(bg, Query{}) { // builds the key order, which counts from then on
		require.NoError(t, err)
	}
	one := quotaBytes(t, c)
	require.Equal(t, unlisted+50*19, one, "the key order counts 19 bytes a document once built")
	require.NoError(t, c.CreateIndex(bg, "/s"))
	two := quotaBytes(t, c)
	require.Greater(t, two, one, "the new index counts")
	require.NoError(t, c.DropIndex(bg, "/s"))
	require.Equal(t, one, quotaBytes(t, c))
	for i := range 50 {
		require.NoError(t, c.Delete(bg, StringKey("p"), fmt.Sprintf("d%d", i)))
	}
	require.Zero(t, quotaBytes(t, c))
}

// TestQuotaRefusesBeforeEvicting: a write that could not fit even after
// every eviction (more documents than the quota, a document larger than
// it) is refused before it evicts anything (R17). It once emptied the
// collection of every document that expires, then was refused.
func TestQuotaRefusesBeforeEvicting(t *testing.T) { // R17
	c, _ := quotaCollection(t, QuotaOptions{MaxDocuments: 5, Policy: QuotaEvictSoonest}, TTLSeconds(100), "")
	for i := range 5 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	b := NewBatch(StringKey("p"))
	for i := range 6 { // six new documents: more than the quota holds
		b.Create(fmt.Appendf(nil, `{"id":"n%d","pk":"p"}`, i))
	}
	_, err := c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Empty(t, evictions(t, c), "a batch that could never fit evicted documents")

	small := `{"id":"a","pk":"p"}`
	c, _ = quotaCollection(t, QuotaOptions{MaxBytes: 10 * costOf(t, small), Policy: QuotaEvictSoonest}, TTLSeconds(100), "")
	for i := range 5 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	_, err = c.Create(bg, []byte(`{"id":"big","pk":"p","v":"`+strings.Repeat("x", 10_000)+`"}`))
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Empty(t, evictions(t, c), "a document larger than the quota evicted documents")
	mustCreate(t, c, `{"id":"fits","pk":"p"}`) // and the collection is as it was
}

// TestQuotaBatchReadIsNotEvicted: a batch's Read of a document is not
// evicted to make room for the same batch's writes (R17, R14: the batch
// returned a document that its own change removed before it).
func TestQuotaBatchReadIsNotEvicted(t *testing.T) { // R17, R14
	c, _ := quotaCollection(t, QuotaOptions{MaxDocuments: 2, Policy: QuotaEvictSoonest}, TTLSeconds(100), "")
	mustCreate(t, c, `{"id":"x","pk":"p","ttl":10}`) // the soonest to go
	mustCreate(t, c, `{"id":"w","pk":"p","ttl":50}`)
	b := NewBatch(StringKey("p"))
	b.Read("x")
	b.Create([]byte(`{"id":"y","pk":"p"}`))
	_, err := c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	require.Equal(t, []string{"w"}, evictions(t, c), "x, which the batch read, stays")
}

// TestQuotaBytesAcrossReopen: what a quota counts is the same after a
// reopen from the log and from a compacted snapshot (R17, R12).
func TestQuotaBytesAcrossReopen(t *testing.T) { // R17, R12
	dir := t.TempDir()
	q := QuotaOptions{MaxBytes: 40_000, MaxDocuments: 120, Policy: QuotaEvictSoonest}
	open := func() *Collection {
		c, err := NewCollection("quota", "/pk", &Options{DefaultTTL: TTLSeconds(1000), ManualSweep: true, Quota: q, Dir: dir, Indexes: []string{"/n"}})
		require.NoError(t, err)
		return c
	}
	c := open()
	for i := range 400 {
		_, err := c.UpsertJSON(bg, fmt.Appendf(nil, `{"id":"d%d","pk":"p","n":%d,"s":"%s","ttl":%d}`, i%150, i, strings.Repeat("x", i%90), 1+i%500))
		require.NoError(t, err)
		if i%7 == 0 {
			err := c.Delete(bg, StringKey("p"), fmt.Sprintf("d%d", (i*3)%150))
			if !errors.Is(err, ErrNotFound) {
				require.NoError(t, err)
			}
		}
	}
	before := quotaBytes(t, c)
	require.NoError(t, c.Close())
	c = open()
	require.Equal(t, before, quotaBytes(t, c), "after a reopen from the log")
	require.NoError(t, c.Compact(bg))
	require.NoError(t, c.Close())
	c = open()
	defer c.Close()
	require.Equal(t, before, quotaBytes(t, c), "after a reopen from a compacted snapshot")
}

// TestQuotaRefusalNamesTheBound: with both bounds, a refusal names the one
// that evicting cannot meet, with its figures. It once named MaxBytes for
// a batch that evicting one large document would have let fit in bytes,
// and that two new documents took beyond MaxDocuments: the message sent
// the operator to the wrong bound.
func TestQuotaRefusalNamesTheBound(t *testing.T) { // R17
	big := `{"id":"big","pk":"p","ttl":100,"s":"` + strings.Repeat("x", 600) + `"}`
	c, _ := quotaCollection(t, QuotaOptions{MaxDocuments: 3, MaxBytes: 1200, Policy: QuotaEvictSoonest}, TTLNoDefault(), "")
	mustCreate(t, c, big) // the one candidate: evicting it makes room in bytes
	mustCreate(t, c, `{"id":"n1","pk":"p"}`)
	mustCreate(t, c, `{"id":"n2","pk":"p"}`)
	held := quotaBytes(t, c)
	b := NewBatch(StringKey("p"))
	b.Create([]byte(`{"id":"a","pk":"p","s":"` + strings.Repeat("y", 300) + `"}`))
	b.Create([]byte(`{"id":"b","pk":"p"}`))
	_, err := c.ExecuteBatch(bg, b)
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Greater(t, held+costOf(t, `{"id":"a","pk":"p","s":"`+strings.Repeat("y", 300)+`"}`), int64(1200), "the batch is over in bytes too, before evicting")
	require.Contains(t, err.Error(), "holds 3 documents, the write would add 2, and its quota is 3 documents (Quota.MaxDocuments)")
	require.Empty(t, evictions(t, c))

	// Over in bytes after every eviction: the bytes are named.
	c, _ = quotaCollection(t, QuotaOptions{MaxDocuments: 3, MaxBytes: 1200, Policy: QuotaEvictSoonest}, TTLNoDefault(), "")
	mustCreate(t, c, `{"id":"n1","pk":"p","s":"`+strings.Repeat("x", 600)+`"}`)
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"p","s":"`+strings.Repeat("y", 600)+`"}`))
	require.ErrorIs(t, err, ErrQuotaExceeded)
	require.Contains(t, err.Error(), "Quota.MaxBytes")
}
