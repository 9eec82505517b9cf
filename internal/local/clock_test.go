package local

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExtremeClocks: a clock far beyond any real date counts as the bound
// maxClock, so that no instant overflows; documents behave as usual.
func TestExtremeClocks(t *testing.T) { // R3, R4
	for _, sec := range []int64{-maxClock - 5, -maxClock, maxClock, maxClock + 5, math.MaxInt64 / 2} {
		clk := &fakeClock{t: time.Unix(sec, 0)}
		c, err := NewCollection("x", "/pk", &Options{DefaultTTL: TTLSeconds(MaxTTL), Now: clk.Now, ManualSweep: true})
		require.NoError(t, err)
		own := mustCreate(t, c, `{"id":"own","ttl":2147483647}`)
		inherit := mustCreate(t, c, `{"id":"inherit"}`)
		want := min(max(sec, -maxClock), maxClock)
		require.Equal(t, want, own.TS(), "clock %d", sec)
		for _, d := range []Document{own, inherit} {
			at, ok := c.ExpiresAt(d)
			require.True(t, ok)
			require.Equal(t, want+MaxTTL, at.Unix(), "clock %d", sec)
		}
		clk.Advance(MaxTTL * time.Second)
		n, err := c.Sweep(bg)
		require.NoError(t, err)
		if min(sec+MaxTTL, maxClock) >= want+MaxTTL {
			require.Equal(t, 2, n, "clock %d: both expired", sec)
		} else {
			require.Zero(t, n, "clock %d: time stands still at the bound", sec)
		}
		c.Close()
	}
}

// R4: the collection's "now" never goes backward: a document expired at the
// latest instant seen stays expired when the clock steps back, and new
// writes get that latest instant as _ts.
func TestClockNeverGoesBackward(t *testing.T) {
	clock := newSweepClock(1000)
	e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault(), Now: clock.Now, ManualSweep: true})
	require.Equal(t, int64(1000), e.create("a", "10").TS())

	clock.set(1010)
	e.requireGone("a")

	clock.set(1005)
	e.requireGone("a")
	e.requireCounts(sweepCounts{Expired: 1})
	page, err := e.c.List(bg, Query{})
	require.NoError(t, err)
	require.Empty(t, page.Documents)
	_, err = e.c.Replace(bg, sweepDoc("a", "10"))
	require.ErrorIs(t, err, ErrNotFound)

	b := e.create("b", "10")
	require.Equal(t, int64(1010), b.TS(), "_ts of a write after the clock stepped back")

	e.sweep(1) // the sweeper agrees that a is expired
	e.requireCounts(sweepCounts{Live: 1, Swept: 1})

	clock.set(1019)
	e.requireLive("b")
	clock.set(1020)
	e.requireGone("b")
}

// TestClockCalledConcurrently: Options.Now is called by many goroutines at
// once, as its documentation says; a clock that is safe for concurrent use
// (here one that ticks a second on every call) works, and the collection's
// "now" never goes backward for any of them (R4). Run it with -race.
func TestClockCalledConcurrently(t *testing.T) { // R4
	var tick, inside, most atomic.Int64
	tick.Store(1_000_000)
	clock := func() time.Time {
		n := inside.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		runtime.Gosched() // widen the window in which calls overlap
		inside.Add(-1)
		return time.Unix(tick.Add(1), 0)
	}
	// The clock ticks some 10,000 times in all: no document expires.
	c, err := NewCollection("ticking", "/pk", &Options{DefaultTTL: TTLSeconds(1_000_000), Now: clock, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	const workers, steps = 8, 300
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			id := fmt.Sprint("w", w)
			last := int64(math.MinInt64)
			for i := range steps {
				d, err := c.Upsert(bg, []byte(fmt.Sprintf(`{"id":%q,"i":%d}`, id, i)))
				if err == nil && d.TS() < last {
					err = fmt.Errorf("%s: _ts went from %d back to %d", id, last, d.TS())
				}
				if err == nil {
					last = d.TS()
					_, err = c.Get(bg, NoPartitionKey(), id)
				}
				if err == nil {
					_, err = c.Stats(bg)
				}
				if err == nil {
					c.ExpiresAt(d)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.Greater(t, most.Load(), int64(1), "the clock was called by several goroutines at once")
}
