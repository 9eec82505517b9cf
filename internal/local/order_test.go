package local

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// TestSortKeys checks the key order's sort against sorting the strings,
// on keys that share long prefixes, end inside a word, or go on with zero
// bytes after another key ends.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"", "\x00", "\x00\x00", "a", "b", "\xff", "key:", "0000000", "\x05", "zz"}
	for round := range 300 {
		seen := map[string]bool{}
		var ks []orderKey
		for range r.IntN(200) {
			var b strings.Builder
			for range r.IntN(12) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			if k := b.String(); !seen[k] {
				seen[k] = true
				ks = append(ks, orderKey{k: k})
			}
		}
		want := make([]string, len(ks))
		for i := range ks {
			want[i] = ks[i].k
		}
		slices.Sort(want)
		sortKeys(ks, 0)
		for i := range ks {
			require.Equal(t, want[i], ks[i].k, "round %d, key %d of %d", round, i, len(ks))
		}
	}
}

// orderFixture is a collection of n documents, every third with a ttl of
// 5 seconds, and its clock.
func orderFixture(t *testing.T, n int) (*Collection, *fakeClock) {
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	for i := range n {
		ttl := -1
		if i%3 == 0 {
			ttl = 5
		}
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%04d","pk":"p%d","ttl":%d}`, i, i%7, ttl))
	}
	return c, clk
}

// listIDs returns the ids that List returns, all pages of Limit 7.
func listIDs(t *testing.T, c *Collection) []string {
	t.Helper()
	var ids []string
	q := Query{Limit: 7}
	for {
		p, err := c.List(bg, q)
		require.NoError(t, err)
		for _, d := range p.Documents {
			ids = append(ids, d.ID())
		}
		if p.Continuation == "" {
			return ids
		}
		q.Continuation = p.Continuation
	}
}

// TestKeyOrderOnDemand: writes, reads and sweeps keep no key order; the
// first listing builds it, and every change after keeps it (R4, R5).
func TestKeyOrderOnDemand(t *testing.T) {
	c, clk := orderFixture(t, 300)
	require.NoError(t, c.Delete(bg, StringKey("p1"), "d0001"))
	clk.Advance(5 * time.Second)
	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 100, n)
	_ = mustGet(t, c, StringKey("p2"), "d0002")
	c.local.mu.RLock()
	built := c.local.prim.order.built()
	c.local.mu.RUnlock() // before require, which ends the goroutine holding the lock on failure
	require.False(t, built, "nothing has needed the key order")

	ids := listIDs(t, c)
	require.Len(t, ids, 199)
	c.local.mu.RLock()
	built = c.local.prim.order.built()
	c.local.mu.RUnlock()
	require.True(t, built)
	checkInvariants(t, c)

	// Kept from now on: creates, deletes, sweeps.
	mustCreate(t, c, `{"id":"new","pk":"p0","ttl":5}`)
	require.NoError(t, c.Delete(bg, StringKey("p4"), "d0004"))
	checkInvariants(t, c)
	clk.Advance(5 * time.Second)
	_, err = c.Sweep(bg)
	require.NoError(t, err)
	checkInvariants(t, c)
	require.Len(t, listIDs(t, c), 198) // new expired; d0004 deleted
}

// TestKeyOrderBuildMeetsWrites: what writers do while the order is built
// (creates, deletes, writes over expired documents, sweeps, a new entry for
// a deleted key) is in the order it publishes.
func TestKeyOrderBuildMeetsWrites(t *testing.T) {
	c, clk := orderFixture(t, 300)
	ran := false
	orderHook = func(hc *collection) {
		if hc != c.local || ran {
			return
		}
		ran = true
		mustCreate(t, c, `{"id":"during","pk":"p9","ttl":-1}`)
		require.NoError(t, c.Delete(bg, StringKey("p1"), "d0001"))
		mustCreate(t, c, `{"id":"d0001","pk":"p1","ttl":-1}`) // a new entry for the deleted key
		require.NoError(t, c.Delete(bg, StringKey("p2"), "d0002"))
		clk.Advance(5 * time.Second)
		_, err := c.Upsert(bg, []byte(`{"id":"d0003","pk":"p3","ttl":-1}`)) // over an expired document
		require.NoError(t, err)
		_, err = c.Sweep(bg)
		require.NoError(t, err)
		mustCreate(t, c, `{"id":"gone","pk":"p9","ttl":-1}`)
		require.NoError(t, c.Delete(bg, StringKey("p9"), "gone")) // created and deleted during the build
	}
	t.Cleanup(func() { c.local.building.Wait(); orderHook = nil })
	ids := listIDs(t, c)
	require.True(t, ran)
	checkInvariants(t, c)
	require.Contains(t, ids, "during")
	require.Contains(t, ids, "d0001")
	require.Contains(t, ids, "d0003")
	require.NotContains(t, ids, "d0002")
	require.NotContains(t, ids, "gone")
	require.NotContains(t, ids, "d0006") // expired, swept
	require.Len(t, ids, 300-100+1+1-1)   // 100 expired, but d0003 written again; during; d0002 deleted
}

// TestKeyOrderBuildWaiters: calls that need the order while another builds
// it wait for that build, and Close during a build ends it and them with
// ErrClosed, leaving nothing behind.
func TestKeyOrderBuildWaiters(t *testing.T) {
	t.Run("waiters", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := orderFixture(t, 50)
			release := make(chan struct{})
			builds := 0
			orderHook = func(hc *collection) {
				if hc == c.local {
					builds++
					<-release
				}
			}
			t.Cleanup(func() { c.local.building.Wait(); orderHook = nil })
			var wg sync.WaitGroup
			counts := make([]int, 4)
			for i := range counts {
				wg.Go(func() {
					p, err := c.List(bg, Query{})
					require.NoError(t, err)
					counts[i] = len(p.Documents)
				})
			}
			synctest.Wait() // one builds, in the hook; the others wait for it
			require.Equal(t, 1, builds, "one build for all of them")
			close(release)
			wg.Wait()
			require.Equal(t, []int{50, 50, 50, 50}, counts)
		})
	})
	t.Run("close", func(t *testing.T) {
		c, _ := orderFixture(t, 50)
		closed := make(chan error, 1)
		orderHook = func(hc *collection) {
			if hc == c.local {
				// Close from another goroutine, as a program would: it
				// waits for this build, which is the hook's caller, to
				// stop at its next hold. The hook returns once the
				// collection is marked closed.
				go func() { closed <- c.Close() }()
				for !c.local.unusable() {
					runtime.Gosched()
				}
			}
		}
		t.Cleanup(func() { c.local.building.Wait(); orderHook = nil })
		_, err := c.List(bg, Query{})
		require.ErrorIs(t, err, ErrClosed)
		require.NoError(t, <-closed)
		pk := StringKey("p1")
		_, err = c.Count(bg, Query{Partition: &pk})
		require.ErrorIs(t, err, ErrClosed)
		require.False(t, c.local.prim.order.built())
		require.Nil(t, c.local.prim.order.build)
	})
}

// TestKeyOrderBuildUnderLoad: writers that create, overwrite and delete
// while the first listings build the order leave it agreeing with the key
// map (run it with -race).
func TestKeyOrderBuildUnderLoad(t *testing.T) {
	c, _ := orderFixture(t, 2000)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 3000 {
				id := fmt.Sprintf("w%04d", r.IntN(500))
				if r.IntN(3) == 0 {
					err := c.Delete(bg, StringKey("pw"), id)
					if err != nil && !errors.Is(err, ErrNotFound) {
						t.Error(err)
						return
					}
					continue
				}
				if _, err := c.Upsert(bg, []byte(`{"id":"`+id+`","pk":"pw"}`)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for range 3 {
		wg.Go(func() {
			for range 5 {
				if _, err := c.List(bg, Query{Limit: 10}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	checkInvariants(t, c)
	n, err := c.Count(bg, Query{Filter: func(Document) bool { return true }})
	require.NoError(t, err)
	st, err := c.Stats(bg)
	require.NoError(t, err)
	require.Equal(t, st.Live, n)
}

// TestKeyOrderBuildHoldsBriefly: a build reads the key map and applies the
// writes made during its sort a bounded chunk per hold of the lock, as the
// sweeper's batches are bounded (R5, R12: no foreground call waits longer
// than one sweep batch). (A compaction needs no key order: see
// TestCompactionHoldsBriefly.)
func TestKeyOrderBuildHoldsBriefly(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, &vfs.Mem{}, "db", clk, Options{DefaultTTL: TTLNoDefault()})
	require.NoError(t, err)
	defer c.Close()
	for i := range 20_000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"base%06d","pk":"p%d"}`, i, i%10))
	}
	orderHook = func(hc *collection) {
		for i := range 3000 { // while the build sorts, off the lock
			mustCreate(t, c, fmt.Sprintf(`{"id":"new%06d","pk":"p%d"}`, i, i%10))
		}
	}
	var reads, applies []int
	orderHoldHook = func(_ *collection, read, applied int) {
		if read > 0 {
			reads = append(reads, read)
		}
		if applied > 0 {
			applies = append(applies, applied)
		}
	}
	t.Cleanup(func() { c.local.building.Wait(); orderHook, orderHoldHook = nil, nil })
	_, err = c.List(bg, Query{Limit: 1})
	require.NoError(t, err)
	c.local.building.Wait() // the build's goroutine, and its hooks, are done
	require.Greater(t, len(reads), 1, "the key map is read in more than one hold")
	require.LessOrEqual(t, slices.Max(reads), orderReadSlots+maxKeyGroups*groupSlots, "a hold reads at most its budget and one table")
	require.Greater(t, len(applies), 1, "the writes made meanwhile are applied in more than one hold")
	require.LessOrEqual(t, slices.Max(applies), orderApplied)
	underRLock(&c.local.mu, func() { require.Equal(t, 23_000, c.local.prim.order.t.Len()) })
	require.NoError(t, c.x.Check())
}

// TestKeyOrderBuildEndsUnderWriters: writers that note more changes between
// two holds of a build than a hold applies do not keep it from ending, for
// each change they note once the build has sorted applies orderHelp of
// them (R5: the build's holds stay bounded, so it is the writers' help, not
// a long hold, that ends it). Between every two holds, 200 creates and 100
// deletes run, more than the orderApplied changes a hold applies: without
// the help the backlog grows by 44 a hold and the build never ends (the
// test stops its writers after 200 holds); with it the build ends within a
// hold or two more than the backlog at the end of the sort over the 300
// changes a round, and each change noted after the sort applies orderHelp
// changes, no more, so that a write's hold stays short.
func TestKeyOrderBuildEndsUnderWriters(t *testing.T) { // R5
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for i := range 5000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"base%05d","pk":"p%d"}`, i, i%7))
	}
	const perRound, capHolds = 300, 200
	created, deleted := 0, 0
	writeRound := func() {
		for range perRound * 2 / 3 {
			mustCreate(t, c, fmt.Sprintf(`{"id":"new%06d","pk":"pn"}`, created))
			created++
		}
		for range perRound / 3 {
			require.NoError(t, c.Delete(bg, StringKey("pn"), fmt.Sprintf("new%06d", deleted)))
			deleted++
		}
	}
	orderHook = func(hc *collection) {
		if hc == c.local {
			for range 10 { // while the build sorts: 3000 changes to catch up with
				writeRound()
			}
		}
	}
	readHolds, applyHolds, backlog := 0, 0, 0
	orderHoldHook = func(hc *collection, read, applied int) {
		if hc != c.local {
			return
		}
		if read > 0 {
			readHolds++
		} else if applyHolds++; applyHolds == 1 {
			// No require under the lock: a failure would end the goroutine
			// holding it, and the Close of the cleanup would wait forever.
			c.local.mu.RLock()
			b := c.local.prim.order.build
			c.local.mu.RUnlock()
			require.NotNil(t, b)
			c.local.mu.RLock()
			had := b.applied
			backlog = applied + b.changes.n
			c.local.mu.RUnlock()
			writeRound()
			c.local.mu.RLock()
			now := b.applied
			c.local.mu.RUnlock()
			require.Equal(t, had+orderHelp*perRound, now, "each change a writer notes applies orderHelp, no more (R5)")
		}
		if readHolds+applyHolds < capHolds {
			writeRound()
		}
	}
	t.Cleanup(func() { c.local.building.Wait(); orderHook, orderHoldHook = nil, nil })
	_, err := c.List(bg, Query{Limit: 10})
	require.NoError(t, err)
	c.local.building.Wait() // the build's goroutine, and its hooks, are done
	require.Greater(t, readHolds, 1)
	require.GreaterOrEqual(t, backlog, 3000, "the changes made during the read and the sort")
	require.LessOrEqual(t, applyHolds, 2+backlog/perRound,
		"the build ends once the writers' changes have applied its backlog; %d holds read, %d applied", readHolds, applyHolds)
	underRLock(&c.local.mu, func() {
		require.Nil(t, c.local.prim.order.build)
		require.Equal(t, 5000+created-deleted, c.local.prim.order.t.Len())
	})
	require.NoError(t, c.x.Check())
}

// TestWaitForKeyOrderStopsWithItsContext: a listing waiting for another's
// build of the key order returns when its context ends, and the build goes
// on for the call that started it (R16).
func TestWaitForKeyOrderStopsWithItsContext(t *testing.T) { // R16
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("order", "/pk", &Options{ManualSweep: true})
		require.NoError(t, err)
		defer c.Close()
		for i := range 100 {
			mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
		}
		release := make(chan struct{})
		orderHoldHook = func(hc *collection, _, _ int) {
			if hc == c.local {
				<-release
			}
		}
		defer func() { c.local.building.Wait(); orderHoldHook = nil }()
		first := make(chan error, 1)
		go func() {
			page, err := c.List(bg, Query{})
			if err == nil && len(page.Documents) != 100 {
				err = fmt.Errorf("%d documents", len(page.Documents))
			}
			first <- err
		}()
		synctest.Wait() // the build is held in its hook
		ctx, cancel := context.WithCancel(bg)
		second := make(chan error, 1)
		go func() {
			_, err := c.List(ctx, Query{})
			second <- err
		}()
		synctest.Wait() // the second waits for the build
		require.Empty(t, second)
		cancel()
		require.ErrorIs(t, <-second, context.Canceled)
		close(release)
		require.NoError(t, <-first)
	})
}
