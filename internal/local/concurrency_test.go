package local

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// checkInvariants checks that the indexes agree with each other, that every
// live document is readable, that nothing expired is visible, and that
// Stats adds up.
// underRLock runs f holding mu's read lock, and releases it however f
// ends: a require that fails in f ends the test's goroutine (Goexit), and a
// lock left held would make the test's Close, in its cleanup, wait until
// go test's timeout instead of failing.
func underRLock(mu *sync.RWMutex, f func()) {
	mu.RLock()
	defer mu.RUnlock()
	f()
}

// checkInvariants checks the engine's structures (Check, and the key
// map's own) and that its reads agree: All, Get, Stats and Count.
func checkInvariants(t *testing.T, c *Collection) {
	t.Helper()
	var total int
	underRLock(&c.local.mu, func() {
		c.local.prim.keys.check(t)
		for _, e := range c.local.sortedEntries() {
			d := e.doc()
			sd, se := c.local.prim.keys.slotOf(d.Key())
			require.True(t, sd == d && se == e, "%q's slot in the key map holds its entry and the entry's document", d.Key())
		}
		total = c.local.prim.len()
	})
	require.NoError(t, c.x.Check())

	live := 0
	for d, err := range c.All(bg, Query{}) {
		require.NoError(t, err)
		live++
		got, err := c.Get(bg, d.PartitionKey(), d.ID())
		if err == nil { // a concurrent sweep may have expired it since the snapshot
			require.Equal(t, d.JSON(), got.JSON())
		}
	}
	st, err := c.Stats(bg)
	require.NoError(t, err)
	require.Equal(t, total, st.Live+st.Expired, "Stats adds up")
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, st.Live, n)
	require.Equal(t, live, n, "All and Count agree")
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
		errs := make([]error, workers) // each worker's first unexpected error
		for w := range workers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 1))
				for range steps {
					pk := StringKey(fmt.Sprint("p", r.IntN(3)))
					id := fmt.Sprint("d", r.IntN(50))
					doc := fmt.Sprintf(`{"id":%q,"pk":%q,"ttl":%d}`, id, pk.s, []int{-1, 1, 2, 5}[r.IntN(4)])
					switch r.IntN(10) {
					case 0:
						c.Create(bg, []byte(doc))
					case 1:
						c.Upsert(bg, []byte(fmt.Sprintf(`{"id":%q,"pk":%q}`, id, pk.s)))
					case 2:
						c.Upsert(bg, []byte(doc))
					case 3:
						if d, err := c.Get(bg, pk, id); err == nil {
							c.Replace(bg, []byte(doc), IfMatch(d.ETag()))
						}
					case 4:
						c.Touch(bg, pk, id)
					case 5:
						c.Delete(bg, pk, id)
					case 6:
						page, err := c.List(bg, Query{Partition: &pk, Limit: 5})
						if err == nil && page.Continuation != "" {
							_, err = c.List(bg, Query{Partition: &pk, Continuation: page.Continuation})
						}
						errs[w] = cmp.Or(errs[w], err)
					case 7:
						_, err := c.Count(bg, Query{})
						errs[w] = cmp.Or(errs[w], err)
					case 8:
						if w == 0 {
							c.SetDefaultTTL(bg, []DefaultTTL{TTLOff(), TTLNoDefault(), TTLSeconds(1), TTLSeconds(4)}[r.IntN(4)])
						} else {
							c.Get(bg, pk, id)
						}
					case 9:
						time.Sleep(time.Duration(r.IntN(700)) * time.Millisecond) // let expiry and the sweeper happen
					}
				}
			})
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "listings and counts under load")
		checkInvariants(t, c)
		require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(1)))
		time.Sleep(10 * time.Second) // past every expiry
		synctest.Wait()
		checkInvariants(t, c)
		st, err := c.Stats(bg)
		require.NoError(t, err)
		require.Zero(t, st.Expired, "the sweeper caught up")
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
				c.Upsert(bg, []byte(fmt.Sprintf(`{"id":"b%05d","pk":"p%d"}`, i, i%7)))
				c.Delete(bg, StringKey(fmt.Sprint("p", i%7)), fmt.Sprintf("a%05d", i))
			}
			time.Sleep(6 * time.Second) // the mass expiry; the sweeper deletes it
		})
		seen := map[string]bool{}
		for d, err := range c.All(bg, Query{}) {
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
		require.Equal(t, want, seen)
		synctest.Wait()
		st, err := c.Stats(bg)
		require.NoError(t, err)
		// Of the 4000, 3000 were deleted and half of the other 1000 expired;
		// the 3000 upserted never expire.
		require.Equal(t, Stats{Live: 3000 + 500, Swept: 500}, Stats{Live: st.Live, Swept: st.Swept})
		checkInvariants(t, c)
	})
}
