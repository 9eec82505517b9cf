package ttldb

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkInvariants checks that the indexes agree with each other, that every
// live document is readable, that nothing expired is visible, and that
// Stats adds up.
func checkInvariants(t *testing.T, c *Collection) {
	t.Helper()
	c.mu.RLock()
	p, x := &c.prim, &c.exp
	require.Equal(t, p.tree.Len(), p.len(), "map and B-tree hold the same number of documents")
	expiring := 0
	p.tree.Ascend(func(d *doc) bool {
		inNew := p.byKey.get([]byte(d.key())) == d
		inOld := p.old != nil && p.old.get([]byte(d.key())) == d
		require.True(t, inNew != inOld, "%q is in exactly one map", d.key())
		require.Same(t, d, p.get([]byte(d.key())))
		if tr, it := x.tree(d); tr != nil {
			expiring++
			got, ok := tr.Get(it)
			require.True(t, ok, "%q is in its expiry tree", d.key())
			require.Same(t, d, got.d)
		}
		return true
	})
	require.Equal(t, expiring, x.own.Len()+x.inherit.Len(), "the expiry trees hold exactly the documents that can expire")
	total := p.len()
	c.mu.RUnlock()

	live := 0
	for d, err := range c.All(Query{}) {
		require.NoError(t, err)
		live++
		got, err := c.Get(d.PartitionKey(), d.ID())
		if err == nil { // a concurrent sweep may have expired it since the snapshot
			require.Equal(t, d.JSON(), got.JSON())
		}
	}
	st, err := c.Stats()
	require.NoError(t, err)
	assert.Equal(t, total, st.Live+st.Expired, "Stats adds up")
	n, err := c.Count(Query{})
	require.NoError(t, err)
	assert.Equal(t, st.Live, n)
	assert.Equal(t, live, n, "All and Count agree")
}

// TestConcurrentUse: many goroutines write, read, list, touch and change
// DefaultTTL while the sweeper deletes; afterwards the invariants hold. Run
// it with -race.
func TestConcurrentUse(t *testing.T) { // R4, R5, R7
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("busy", "/pk", &Options{DefaultTTL: TTLSeconds(3), SweepBatch: 16})
		require.NoError(t, err)
		defer c.Close()
		const workers, steps = 8, 400
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 1))
				for range steps {
					pk := StringKey(fmt.Sprint("p", r.IntN(3)))
					id := fmt.Sprint("d", r.IntN(50))
					doc := fmt.Sprintf(`{"id":%q,"pk":%q,"ttl":%d}`, id, pk.s, []int{-1, 1, 2, 5}[r.IntN(4)])
					switch r.IntN(10) {
					case 0:
						c.Create([]byte(doc))
					case 1:
						c.Upsert([]byte(fmt.Sprintf(`{"id":%q,"pk":%q}`, id, pk.s)))
					case 2:
						c.Upsert([]byte(doc))
					case 3:
						if d, err := c.Get(pk, id); err == nil {
							c.Replace([]byte(doc), IfMatch(d.ETag()))
						}
					case 4:
						c.Touch(pk, id)
					case 5:
						c.Delete(pk, id)
					case 6:
						page, err := c.List(Query{Partition: &pk, Limit: 5})
						if err == nil && page.Continuation != "" {
							_, err = c.List(Query{Partition: &pk, Continuation: page.Continuation})
						}
						assert.NoError(t, err)
					case 7:
						_, err := c.Count(Query{})
						assert.NoError(t, err)
					case 8:
						if w == 0 {
							c.SetDefaultTTL([]DefaultTTL{TTLOff(), TTLNoDefault(), TTLSeconds(1), TTLSeconds(4)}[r.IntN(4)])
						} else {
							c.Get(pk, id)
						}
					case 9:
						time.Sleep(time.Duration(r.IntN(700)) * time.Millisecond) // let expiry and the sweeper happen
					}
				}
			})
		}
		wg.Wait()
		checkInvariants(t, c)
		require.NoError(t, c.SetDefaultTTL(TTLSeconds(1)))
		time.Sleep(10 * time.Second) // past every expiry
		synctest.Wait()
		checkInvariants(t, c)
		st, err := c.Stats()
		require.NoError(t, err)
		assert.Zero(t, st.Expired, "the sweeper caught up")
	})
}

// TestListingSnapshotUnderLoad: an All iteration in progress while another
// goroutine writes thousands of documents and a mass expiry is swept sees
// exactly the documents live when it started.
func TestListingSnapshotUnderLoad(t *testing.T) { // R4, R5
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("snap", "/pk", &Options{DefaultTTL: TTLNoDefault(), SweepBatch: 64})
		require.NoError(t, err)
		defer c.Close()
		want := map[string]bool{}
		for i := range 4000 {
			id := fmt.Sprintf("a%05d", i)
			ttl := []int{-1, 5}[i%2] // half of them expire at +5 s
			mustCreate(t, c, fmt.Sprintf(`{"id":%q,"pk":"p%d","ttl":%d}`, id, i%7, ttl))
			want[id] = true
		}
		started := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			<-started
			for i := range 3000 {
				c.Upsert([]byte(fmt.Sprintf(`{"id":"b%05d","pk":"p%d"}`, i, i%7)))
				c.Delete(StringKey(fmt.Sprint("p", i%7)), fmt.Sprintf("a%05d", i))
			}
			time.Sleep(6 * time.Second) // the mass expiry; the sweeper deletes it
		})
		seen := map[string]bool{}
		for d, err := range c.All(Query{}) {
			require.NoError(t, err)
			if len(seen) == 0 {
				close(started)
			}
			require.False(t, seen[d.ID()], "each document once")
			seen[d.ID()] = true
			if len(seen)%500 == 0 {
				runtime.Gosched()
			}
		}
		wg.Wait()
		assert.Equal(t, want, seen)
		synctest.Wait()
		st, err := c.Stats()
		require.NoError(t, err)
		// Of the 4000, 3000 were deleted and half of the other 1000 expired;
		// the 3000 upserted never expire.
		assert.Equal(t, Stats{Live: 3000 + 500, Swept: 500}, Stats{Live: st.Live, Swept: st.Swept})
		checkInvariants(t, c)
	})
}

// TestMemoryGivenBack: after a mass expiry is swept, the live heap returns
// near its level before the documents were written (R5).
func TestMemoryGivenBack(t *testing.T) { // R5, R15
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("mem", "/pk", &Options{DefaultTTL: TTLSeconds(10), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	keep := mustCreate(t, c, `{"id":"keep","pk":"p","ttl":-1}`)

	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	before := heap()
	const n = 200_000
	pad := fmt.Sprintf("%0150d", 0)
	for i := range n {
		_, err := c.Create([]byte(fmt.Sprintf(`{"id":"key:%010d","pk":"p%d","v":%q}`, i, i%100, pad)))
		require.NoError(t, err)
	}
	full := heap()
	clk.Advance(10 * time.Second)
	swept, err := c.Sweep()
	require.NoError(t, err)
	require.Equal(t, n, swept)
	after := heap()
	grew := full - before
	t.Logf("heap: before %d MB, full %d MB (+%d B/document), after sweep %d MB", before>>20, full>>20, grew/n, after>>20)
	require.Greater(t, grew, int64(n*200), "the documents took memory")
	// Without the map's move the map alone keeps about 8% of it.
	assert.Less(t, after-before, grew/50, "at least 98%% of it is given back")
	_, err = c.Get(StringKey("p"), keep.ID())
	require.NoError(t, err)
	checkInvariants(t, c)
}

// TestMapShrinks: the point-read map is moved to a smaller one after most
// documents are deleted, a bounded number at a time, and lookups stay right
// throughout.
func TestMapShrinks(t *testing.T) {
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	const n = 4 * shrinkBelow
	for i := range n {
		ttl := -1
		if i%8 != 0 {
			ttl = 5 // 7 in 8 expire
		}
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%05d","pk":"p","ttl":%d}`, i, ttl))
	}
	clk.Advance(5 * time.Second)
	first := c.prim.byKey
	for {
		n, _, err := c.sweepBatch()
		require.NoError(t, err)
		assert.LessOrEqual(t, n, DefaultSweepBatch)
		checkInvariants(t, c)
		if n == 0 {
			break
		}
	}
	assert.NotSame(t, first, c.prim.byKey, "the map was moved to a new one")
	// Writes and deletes during a move keep the maps right: start one by hand.
	c.mu.Lock()
	c.prim.old, c.prim.byKey, c.prim.cursor = c.prim.byKey, newDocMap(), ""
	c.mu.Unlock()
	mustCreate(t, c, `{"id":"new","pk":"p"}`)
	require.NoError(t, c.Delete(StringKey("p"), "d00000"))
	_, err := c.Upsert([]byte(`{"id":"d00008","pk":"p","v":1}`))
	require.NoError(t, err)
	checkInvariants(t, c)
	c.mu.RLock()
	assert.NotNil(t, c.prim.old, "the move goes on a few entries per write")
	c.mu.RUnlock()
	for range n {
		_, err := c.Touch(StringKey("p"), "new")
		require.NoError(t, err)
	}
	c.mu.RLock()
	assert.Nil(t, c.prim.old, "the move ends")
	assert.Equal(t, n/8, c.prim.byKey.len(), "one created, one deleted")
	c.mu.RUnlock()
	checkInvariants(t, c)
}

// TestSweepLetsWritersIn: a foreground call that waits for the lock while
// the sweeper works through a backlog gets it after at most the batch in
// progress, not after the sweeper took the lock back again and again (R5).
func TestSweepLetsWritersIn(t *testing.T) { // R5
	synctest.Test(t, func(t *testing.T) {
		const batch, n = 16, 4000
		c, err := NewCollection("backlog", "/pk", &Options{DefaultTTL: TTLSeconds(1), ManualSweep: true, SweepBatch: batch})
		require.NoError(t, err)
		defer c.Close()
		for i := range n {
			mustCreate(t, c, fmt.Sprintf(`{"id":"d%05d","pk":"p%d"}`, i, i%10))
		}
		time.Sleep(time.Second)
		// A caller is waiting for the lock, as lock counts it, when the sweep
		// starts: the sweeper does one batch and then waits for the caller.
		c.waiting.Add(1)
		done := make(chan int)
		go func() {
			swept, err := c.Sweep()
			assert.NoError(t, err)
			done <- swept
		}()
		synctest.Wait()
		stopped := c.swept.Load()
		assert.Equal(t, uint64(batch), stopped, "one batch, then the caller's turn")
		// The caller takes the lock, as lock does, and the sweep goes on.
		c.mu.Lock()
		c.waiting.Add(-1)
		c.turn <- struct{}{}
		assert.Equal(t, stopped, c.swept.Load(), "no batch while the caller holds the lock")
		c.mu.Unlock()
		assert.Equal(t, n, <-done)
	})
}

// TestConcurrentSweepsYield: two sweeps waiting for the same caller both go
// on once it has the lock; neither waits for another caller that may never
// come.
func TestConcurrentSweepsYield(t *testing.T) { // R5
	synctest.Test(t, func(t *testing.T) {
		const batch, n = 16, 2000
		c, err := NewCollection("two", "/pk", &Options{DefaultTTL: TTLSeconds(1), ManualSweep: true, SweepBatch: batch})
		require.NoError(t, err)
		defer c.Close()
		for i := range n {
			mustCreate(t, c, fmt.Sprintf(`{"id":"d%05d","pk":"p"}`, i))
		}
		time.Sleep(time.Second)
		c.waiting.Add(1) // a caller waits for the lock, as lock counts it
		done := make(chan int)
		for range 2 {
			go func() {
				swept, err := c.Sweep()
				assert.NoError(t, err)
				done <- swept
			}()
		}
		synctest.Wait() // both sweeps wait for the caller's turn
		c.mu.Lock()     // the caller takes the lock, as lock does
		c.waiting.Add(-1)
		select {
		case c.turn <- struct{}{}:
		default:
		}
		c.mu.Unlock()
		assert.Equal(t, n, <-done+<-done)
	})
}
