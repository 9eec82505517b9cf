package local

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// atomicClock is a clock a test moves, safe for several goroutines.
type atomicClock struct{ ns atomic.Int64 }

func (a *atomicClock) Now() time.Time          { return time.Unix(0, a.ns.Load()) }
func (a *atomicClock) Advance(d time.Duration) { a.ns.Add(int64(d)) }

// orderOps makes random changes to c: creates, upserts, replaces, touches
// and deletes of keys from a small set (so that keys are created, deleted
// and created again), batches of them, and sweeps after moving the clock.
// Errors a change may meet by the state it finds (not found, conflict) are
// expected; any other fails the test.
func orderOps(t *testing.T, c *Collection, clk *atomicClock, r *rand.Rand, n int, manual, closable bool) {
	ok := func(err error) {
		var be *BatchError
		if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrConflict) && !errors.As(err, &be) && !(closable && errors.Is(err, ErrClosed)) {
			t.Errorf("unexpected error: %v", err)
		}
	}
	doc := func(pk, id string) string {
		return fmt.Sprintf(`{"id":%q,"pk":%q,"ttl":%d}`, id, pk, []int{-1, -1, 1, 3, 10}[r.IntN(5)])
	}
	for range n {
		pk := fmt.Sprint("p", r.IntN(4))
		id := fmt.Sprint("k", r.IntN(400))
		switch r.IntN(12) {
		case 0, 1:
			_, err := c.Create(bg, []byte(doc(pk, id)))
			ok(err)
		case 2, 3:
			_, err := c.Upsert(bg, []byte(doc(pk, id)))
			ok(err)
		case 4:
			_, err := c.Replace(bg, []byte(doc(pk, id)))
			ok(err)
		case 5:
			_, err := c.Touch(bg, StringKey(pk), id)
			ok(err)
		case 6, 7:
			ok(c.Delete(bg, StringKey(pk), id))
		case 8, 9:
			b := NewBatch(StringKey(pk))
			for range 1 + r.IntN(8) {
				id := fmt.Sprint("k", r.IntN(400))
				switch r.IntN(4) {
				case 0:
					b.Create([]byte(doc(pk, id)))
				case 1:
					b.Upsert([]byte(doc(pk, id)))
				case 2:
					b.Delete(id)
				case 3:
					b.Read(id)
				}
			}
			_, err := c.ExecuteBatch(bg, b)
			ok(err)
		case 10:
			clk.Advance(time.Duration(r.IntN(3000)) * time.Millisecond)
			if manual {
				_, err := c.Sweep(bg)
				ok(err)
			}
		case 11:
			ok(c.SetDefaultTTL(bg, []DefaultTTL{TTLNoDefault(), TTLSeconds(2), TTLSeconds(20)}[r.IntN(3)]))
		}
	}
}

// TestKeyOrderBuildRandomWriters: random creates, upserts, replaces,
// deletes, batches, sweeps on a moved clock and changes of DefaultTTL,
// made between every two holds of a build of the key order (and during
// its sort), with calls waiting for the build, leave the order it
// publishes holding exactly the key map's entries, whether the build or a
// writer's help publishes it; and every change after keeps it so (R4, R5).
func TestKeyOrderBuildRandomWriters(t *testing.T) {
	seeds, helped := sized(40, 150), 0
	defer func() { t.Logf("%d builds of %d published by a writer's help", helped, seeds) }()
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		clk := &atomicClock{}
		clk.ns.Store(1_000_000 * int64(time.Second))
		manual := seed%2 == 0 // else the sweeper runs, and writes help it
		c, err := NewCollection("test", "/pk", &Options{DefaultTTL: TTLNoDefault(), Now: clk.Now, ManualSweep: manual})
		require.NoError(t, err)
		for i := range 2000 + r.IntN(4000) {
			mustCreate(t, c, fmt.Sprintf(`{"id":"base%05d","pk":"p%d","ttl":%d}`, i, i%4, []int{-1, 2, 7}[i%3]))
		}
		var waiters sync.WaitGroup
		holds, published := 0, -1
		perHold := []int{0, 10, 100, 400}[r.IntN(4)]
		orderHook = func(hc *collection) {
			if hc == c.local {
				orderOps(t, c, clk, r, r.IntN(4*perHold+1), manual, false)
			}
		}
		orderHoldHook = func(hc *collection, _, _ int) {
			if hc != c.local {
				return
			}
			holds++
			if holds%3 == 1 { // a call that needs the order while it is built
				waiters.Go(func() {
					_, err := c.List(bg, Query{Limit: 3})
					if err != nil {
						t.Error(err)
					}
				})
			}
			c.local.mu.RLock()
			if published < 0 && c.local.prim.order.built() {
				published = holds
				if err := orderAgrees(c); err != nil {
					t.Errorf("published at hold %d: %v", holds, err)
				}
			}
			c.local.mu.RUnlock()
			orderOps(t, c, clk, r, r.IntN(2*perHold+1), manual, false)
		}
		_, err = c.List(bg, Query{Limit: 5})
		c.local.building.Wait() // the build's goroutine may outlive a publication by a writer's help
		orderHook, orderHoldHook = nil, nil
		require.NoError(t, err)
		waiters.Wait()
		c.local.mu.RLock() // no require under the lock: Close would wait for it
		if err := orderAgrees(c); err != nil {
			t.Errorf("when the build ends: %v", err)
		}
		c.local.mu.RUnlock()
		orderOps(t, c, clk, r, 200, manual, false) // kept from now on
		settle(t, c)
		if seed%10 == 0 {
			checkInvariants(t, c)
		} else {
			c.local.mu.RLock()
			if err := orderAgrees(c); err != nil {
				t.Errorf("after the build: %v", err)
			}
			c.local.mu.RUnlock()
		}
		require.NoError(t, c.Close())
		if published < 0 {
			helped++ // a writer's help published it, between the build's last two holds
		}
		if t.Failed() {
			t.Fatalf("seed %d (published at hold %d of %d)", seed, published, holds)
		}
	}
}

// TestKeyOrderBuildRandomConcurrent: the same, with writers in their own
// goroutines while listings, counts, CreateIndex and DropIndex need the
// order, and a Close during the build in some seeds: every call ends, and
// the order, when it is built, holds exactly the key map's entries (run it
// with -race).
func TestKeyOrderBuildRandomConcurrent(t *testing.T) {
	seeds := sized(12, 50)
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		clk := &atomicClock{}
		clk.ns.Store(1_000_000 * int64(time.Second))
		manual := seed%2 == 0
		c, err := NewCollection("test", "/pk", &Options{DefaultTTL: TTLNoDefault(), Now: clk.Now, ManualSweep: manual})
		require.NoError(t, err)
		for i := range 3000 + r.IntN(3000) {
			mustCreate(t, c, fmt.Sprintf(`{"id":"base%05d","pk":"p%d","ttl":%d,"n":%d}`, i, i%4, []int{-1, 2, 7}[i%3], i))
		}
		closeAt := -1
		if seed%5 == 4 {
			closeAt = 1 + r.IntN(8)
		}
		var holds atomic.Int64
		orderHoldHook = func(hc *collection, _, _ int) {
			if hc != c.local {
				return
			}
			if h := holds.Add(1); int(h) == closeAt {
				go c.Close() // while the build is between two holds
			}
		}
		stop := make(chan struct{})
		var writers, readers sync.WaitGroup
		for w := range 2 {
			writers.Go(func() {
				r := rand.New(rand.NewPCG(uint64(seed), uint64(w)))
				for {
					select {
					case <-stop:
						return
					default:
					}
					orderOps(t, c, clk, r, 1, manual, closeAt > 0)
				}
			})
		}
		for i := range 3 {
			readers.Go(func() {
				var err error
				pk := StringKey("p1")
				switch i {
				case 0:
					_, err = c.List(bg, Query{Limit: 5})
				case 1:
					_, err = c.Count(bg, Query{Partition: &pk})
				case 2:
					err = c.CreateIndex(context.Background(), "/n")
					if err == nil {
						err = c.DropIndex(bg, "/n")
					}
				}
				if err != nil && !(closeAt > 0 && errors.Is(err, ErrClosed)) {
					t.Errorf("reader %d: %v", i, err)
				}
			})
		}
		readers.Wait()
		close(stop)
		writers.Wait()
		c.local.building.Wait()
		orderHoldHook = nil
		if closeAt < 0 || !c.local.closed.Load() {
			c.local.mu.RLock()
			if c.local.prim.order.build != nil {
				t.Errorf("a build outlives the calls that needed it")
			}
			c.local.mu.RUnlock()
			if !c.local.closed.Load() {
				settle(t, c)
				checkInvariants(t, c)
			}
		}
		require.NoError(t, c.Close())
		c.local.mu.RLock()
		if o := &c.local.prim.order; o.build != nil || o.t != nil || o.ready.Load() {
			t.Errorf("Close leaves a key order or a build")
		}
		c.local.mu.RUnlock()
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

// settle sweeps what is due, so that the background sweeper, if any, has
// nothing left to change while checkInvariants counts (the clock stands).
func settle(t *testing.T, c *Collection) {
	_, err := c.Sweep(bg)
	require.NoError(t, err)
}

// orderAgrees says how c's key order, built, differs from its key map, or
// nil: it holds exactly the map's entries, by increasing key, each the
// map's entry of its key. Call with c.mu held.
func orderAgrees(c *Collection) error {
	tree := c.local.prim.order.t
	if tree == nil {
		return errors.New("the order is not built")
	}
	if !c.local.prim.order.ready.Load() {
		return errors.New("the order is built, and ready says it is not")
	}
	if c.local.prim.order.build != nil {
		return errors.New("the order is built, and a build is still in progress")
	}
	if tree.Len() != c.local.prim.len() {
		return fmt.Errorf("the order holds %d keys, the map %d", tree.Len(), c.local.prim.len())
	}
	var err error
	var prev *entry
	tree.Ascend(func(e *entry) bool {
		if got, _ := c.local.prim.get([]byte(e.key())); got != e {
			err = fmt.Errorf("%q's entry in the order is not its entry in the map (%p)", e.key(), got)
		} else if prev != nil && prev.key() >= e.key() {
			err = fmt.Errorf("%q after %q", e.key(), prev.key())
		}
		prev = e
		return err == nil
	})
	return err
}
