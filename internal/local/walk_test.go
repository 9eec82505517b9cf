package local

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
)

// docsByLSN returns every document c holds, expired or not, by LSN. Call
// with mu held.
func docsByLSN(c *Collection) []*engine.Doc {
	var docs []*engine.Doc
	c.local.prim.keys.each(func(d *engine.Doc, _ *entry) { docs = append(docs, d) })
	slices.SortFunc(docs, func(a, b *engine.Doc) int { return cmp.Compare(c.local.seqOf(a), c.local.seqOf(b)) })
	return docs
}

// reopenSame closes c, opens its directory in mem again, and checks that
// the collection has exactly what c had (R12). The test's end closes the
// collection it returns.
func reopenSame(t *testing.T, c *Collection, mem *vfs.Mem, clk *fakeClock, msg string) *Collection {
	t.Helper()
	want, o := durableState(c), sameOptions(c)
	require.NoError(t, c.Close())
	c, err := openDurable(t, mem, "db", clk, o)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.Equal(t, want, durableState(c), msg)
	return c
}

// walkNow runs a compaction's walk of c, as compact does, and returns the
// documents it found and those c held when it began, by LSN.
func walkNow(t *testing.T, c *Collection) (got, want []*engine.Doc) {
	t.Helper()
	c.local.lock()
	s, w := c.local.openView(), c.local.startWalk()
	want = docsByLSN(c)
	n := uint64(c.local.prim.len())
	c.local.mu.Unlock()
	got, err := c.local.snapshotDocs(context.Background(), "Compact", s, w, n)
	s.release()
	require.NoError(t, err)
	return got, want
}

// TestCompactionWalk: the documents a compaction writes are the collection's
// at the instant it began, whatever the writes and sweeps made while it
// reads the key map a few tables per hold of the lock: a create is not
// there; a document deleted, before or after the walk read its table, is;
// an overwritten one is there as it was; a key deleted and created again
// has its old document; documents swept are there, expired; tables split
// and shrink meanwhile. The walk builds no key order.
func TestCompactionWalk(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, &vfs.Mem{}, "db", clk, Options{DefaultTTL: TTLNoDefault()})
	require.NoError(t, err)
	defer c.Close()
	const n = 20_000
	doc := func(i int, note string) string {
		ttl := ""
		if i%10 == 0 {
			ttl = `,"ttl":5`
		}
		return fmt.Sprintf(`{"id":"k%06d","pk":"p%d","note":%q%s}`, i, i%10, note, ttl)
	}
	for i := range n {
		mustCreate(t, c, doc(i, "first"))
	}
	key := func(i int) (PartitionKey, string) { return StringKey(fmt.Sprint("p", i%10)), fmt.Sprintf("k%06d", i) }

	holds, changed := 0, 0
	walkHook = func(hc *collection, read int) {
		holds++
		if holds > 4 {
			return
		}
		// Each round touches keys all over the map, in tables read and not
		// yet read; the keys of one round are its own.
		for i := holds; i < n; i += 97 {
			if i%10 == 0 {
				continue // its document expires in round 2
			}
			switch i % 4 {
			case 0, 1:
				pk, id := key(i)
				require.NoError(t, c.Delete(bg, pk, id))
			case 2:
				_, err := c.Upsert(bg, []byte(doc(i, "second")))
				require.NoError(t, err)
			case 3: // deleted and created again: a new entry
				pk, id := key(i)
				require.NoError(t, c.Delete(bg, pk, id))
				mustCreate(t, c, doc(i, "again"))
			}
			changed++
		}
		for i := range 50 {
			mustCreate(t, c, fmt.Sprintf(`{"id":"new%d-%d","pk":"p1"}`, holds, i))
		}
		switch holds {
		case 1: // enough creates to split most tables, read and not
			for i := range n {
				mustCreate(t, c, fmt.Sprintf(`{"id":"more%d","pk":"p2"}`, i))
			}
		case 3: // and their deletes, to shrink them
			for i := range n {
				require.NoError(t, c.Delete(bg, StringKey("p2"), fmt.Sprint("more", i)))
			}
		}
		if holds == 2 { // the documents with ttl 5 expire, and go
			clk.Advance(10 * time.Second)
			swept, err := c.Sweep(bg)
			require.NoError(t, err)
			require.Greater(t, swept, n/20)
		}
	}
	rebuilds := 0
	rebuildHook = func(int) { rebuilds++ }
	t.Cleanup(func() { walkHook, rebuildHook = nil, nil })

	got, want := walkNow(t, c)
	require.Greater(t, holds, 4, "the key map is read in more than four holds")
	require.Greater(t, changed, 500)
	require.Greater(t, rebuilds, 20, "tables split and shrink during the walk")
	require.Equal(t, n, len(want))
	require.Equal(t, len(want), len(got), "documents written")
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("document %d of %d by LSN: got %s (LSN %d), want %s (LSN %d), the collection's when the walk began",
				i, n, got[i].AppendJSON(nil), c.local.seqOf(got[i]), want[i].AppendJSON(nil), c.local.seqOf(want[i]))
		}
	}
	c.local.mu.RLock()
	defer c.local.mu.RUnlock()
	require.Nil(t, c.local.prim.walk, "the walk ended")
	require.False(t, c.local.prim.order.built(), "the walk built no key order")
}

// TestCompactionHoldsBriefly: a compaction holds the lock for a bounded
// part of the key map at a time, as the sweeper's batches are bounded (R5,
// R12: no foreground call waits longer than about one sweep batch); a
// durable collection never listed compacts without building the key order,
// and reopens with every document (R12).
func TestCompactionHoldsBriefly(t *testing.T) { // R5, R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	mem := &vfs.Mem{}
	c, err := openDurable(t, mem, "db", clk, Options{DefaultTTL: TTLNoDefault()})
	require.NoError(t, err)
	for i := range 20_000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%06d","pk":"p%d"}`, i, i%10))
	}
	var reads []int
	walkHook = func(_ *collection, read int) { reads = append(reads, read) }
	t.Cleanup(func() { walkHook = nil })
	require.NoError(t, c.Compact(context.Background()))
	require.Greater(t, len(reads), 1, "the key map is read in more than one hold")
	require.LessOrEqual(t, slices.Max(reads), orderReadSlots+maxKeyGroups*groupSlots, "a hold reads at most its budget and one table")
	c.local.mu.RLock()
	built := c.local.prim.order.built()
	c.local.mu.RUnlock()
	require.False(t, built, "Compact built the key order")
	c = reopenSame(t, c, mem, clk, "the reopen after the compaction")
	require.NotEmpty(t, c.Recovery().Snapshot)
	require.Zero(t, c.Recovery().Changes, "the reopen read the snapshot, and no change after it")
}

// TestCompactionWalkRandom: random operations of every kind between the
// walk's holds (deletes, upserts over live and expired documents, Touch,
// Patch, batches, bursts of creates that split tables, sweeps, listings
// that build the key order and open views of their own, keys absent at the
// start), the change feed on and off: the walk finds exactly the documents
// of its start.
func TestCompactionWalkRandom(t *testing.T) { // R12
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { walkRandom(t, seed, seed%2 == 1) })
	}
}

func walkRandom(t *testing.T, seed uint64, feedOff bool) {
	r := rand.New(rand.NewPCG(seed, 7))
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, &vfs.Mem{}, "db", clk, Options{DefaultTTL: TTLNoDefault(), Feed: FeedOptions{Off: feedOff}})
	require.NoError(t, err)
	defer c.Close()
	const n = 6000
	doc := func(i int, note string, ttl int) []byte {
		s := ""
		if ttl > 0 {
			s = fmt.Sprintf(`,"ttl":%d`, ttl)
		}
		return fmt.Appendf(nil, `{"id":"k%06d","pk":"p%d","note":%q,"n":1%s}`, i, i%10, note, s)
	}
	key := func(i int) (PartitionKey, string) { return StringKey(fmt.Sprint("p", i%10)), fmt.Sprintf("k%06d", i) }
	ttl := func(one int) int { // a ttl of one time in one, else none
		if r.IntN(one) == 0 {
			return 1 + r.IntN(20)
		}
		return 0
	}
	for i := range n {
		_, err := c.Upsert(bg, doc(i, "first", ttl(4)))
		require.NoError(t, err)
	}
	clk.Advance(5 * time.Second) // some expired, not swept
	holds, made := 0, 0
	walkHook = func(_ *collection, _ int) {
		if holds++; holds > 200 {
			return
		}
		// Errors are expected (a key not there, a create over a live
		// one): only what the walk finds is checked.
		for range 40 + r.IntN(200) {
			i := r.IntN(n + n/2) // beyond n: keys absent at the start
			pk, id := key(i)
			switch r.IntN(12) {
			case 0, 1:
				_ = c.Delete(bg, pk, id)
			case 2, 3:
				_, _ = c.Upsert(bg, doc(i, fmt.Sprint("up", holds), ttl(3)))
			case 4:
				_, _ = c.Touch(bg, pk, id)
			case 5:
				_, _ = c.Patch(bg, pk, id, []PatchOp{PatchSet("/note", fmt.Sprint("patched", holds))})
			case 6, 7:
				b := NewBatch(pk)
				if r.IntN(2) == 0 {
					b.Delete(id)
					b.Create(doc(i, "batch", 0))
				} else {
					b.Upsert(doc(i, "batch", 0))
					b.Delete(id)
				}
				_, _ = c.ExecuteBatch(bg, b)
			case 8:
				for range 300 {
					made++
					_, _ = c.Create(bg, fmt.Appendf(nil, `{"id":"x%d","pk":"p1"}`, made))
				}
			case 9:
				clk.Advance(time.Duration(1+r.IntN(3)) * time.Second)
				_, err := c.Sweep(bg)
				require.NoError(t, err)
			case 10:
				_, err := c.List(bg, Query{Limit: 5})
				require.NoError(t, err)
			case 11:
				_, _ = c.Replace(bg, doc(i, "replaced", 0))
			}
		}
	}
	t.Cleanup(func() { walkHook = nil })
	got, want := walkNow(t, c)
	require.Greater(t, holds, 5, "the key map is read in more holds as it grows")
	require.Equal(t, len(want), len(got), "documents written")
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("document %d by LSN: got %s, want %s", i, got[i].AppendJSON(nil), want[i].AppendJSON(nil))
		}
	}
}

// TestCompactionWalkCountsDocuments: a walk that misses a document (here,
// one whose removal it was not told of) fails with ErrCorrupt rather than
// write a snapshot without it; the collection goes on, reopens with every
// change, and compacts again.
func TestCompactionWalkCountsDocuments(t *testing.T) { // R12
	clk, mem := &fakeClock{t: time.Unix(1_000_000, 0)}, &vfs.Mem{}
	c, err := openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err)
	for i := range 5000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%04d","pk":"p"}`, i))
	}
	walkHook = func(hc *collection, _ int) {
		hc.mu.Lock()
		hc.prim.walk = nil // the walk loses track of removals
		hc.mu.Unlock()
		for i := range 5000 {
			_ = c.Delete(bg, StringKey("p"), fmt.Sprintf("k%04d", i))
		}
	}
	t.Cleanup(func() { walkHook = nil })
	err = c.Compact(context.Background())
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "of the 5000 it held")
	walkHook = nil
	mustCreate(t, c, `{"id":"after","pk":"p"}`)
	c = reopenSame(t, c, mem, clk, "the reopen has every change")
	require.NoError(t, c.Compact(context.Background()), "a later compaction works")
}

// TestCompactionBesideWriters: compactions while two goroutines write,
// delete, touch and run batches without pause (run with -race); a reopen
// then has exactly what the collection had at Close (R12).
func TestCompactionBesideWriters(t *testing.T) { // R12
	clk, mem := &fakeClock{t: time.Unix(1_000_000, 0)}, &vfs.Mem{}
	c, err := openDurable(t, mem, "db", clk, Options{DefaultTTL: TTLNoDefault()})
	require.NoError(t, err)
	const n = 20_000
	for i := range n {
		ttl := ""
		if i%7 == 0 {
			ttl = `,"ttl":3`
		}
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%06d","pk":"p%d"%s}`, i, i%10, ttl))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := r.IntN(n + n/10) // beyond n: keys absent at the start
				pk, id := StringKey(fmt.Sprint("p", i%10)), fmt.Sprintf("k%06d", i)
				switch r.IntN(5) { // errors are expected: a key not there
				case 0:
					_ = c.Delete(bg, pk, id)
				case 1, 2:
					_, _ = c.Upsert(bg, fmt.Appendf(nil, `{"id":%q,"pk":"p%d","v":%d}`, id, i%10, r.IntN(1000)))
				case 3:
					_, _ = c.Touch(bg, pk, id)
				case 4:
					b := NewBatch(pk)
					b.Delete(id)
					b.Create(fmt.Appendf(nil, `{"id":%q,"pk":"p%d","b":1}`, id, i%10))
					_, _ = c.ExecuteBatch(bg, b)
				}
			}
		})
	}
	for range 8 {
		if err := c.Compact(context.Background()); err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	clk.Advance(10 * time.Second) // expired and not swept: they reopen too
	reopenSame(t, c, mem, clk, "the reopen after the compactions")
}

// TestCompactionCloseDuringWalk: Close while a compaction walks the key map
// ends the compaction with ErrClosed, and the walk with it.
func TestCompactionCloseDuringWalk(t *testing.T) { // R12
	c, err := openDurable(t, &vfs.Mem{}, "db", &fakeClock{t: time.Unix(1_000_000, 0)}, Options{})
	require.NoError(t, err)
	for i := range 20_000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%06d","pk":"p%d"}`, i, i%10))
	}
	holds := 0
	closed := make(chan error, 1)
	walkHook = func(hc *collection, _ int) {
		if holds++; holds == 2 {
			go func() { closed <- c.Close() }() // it waits for the compaction
			for !hc.closed.Load() {
				runtime.Gosched()
			}
		}
	}
	t.Cleanup(func() { walkHook = nil })
	err = c.Compact(context.Background())
	require.ErrorIs(t, err, ErrClosed)
	require.Equal(t, 2, holds, "the walk ends at the first hold after Close")
	require.NoError(t, <-closed)
	require.Nil(t, c.local.prim.walk)
}
