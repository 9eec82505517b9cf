package local

// Tests of the background sweeper and Sweep (R4, R5, R7). The tests with a
// background sweeper run in a testing/synctest bubble: time is fake and
// starts at 2000-01-01 00:00:00 UTC, time.Sleep advances it at once when
// every goroutine of the bubble is blocked, and synctest.Test fails when a
// goroutine started in the bubble (the sweeper) outlives the test. No test
// sleeps for real. The helpers here (sweepEnv, sweepClock) serve the tests
// of Close, Stats and the clock too.

import (
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// sweepPK is the partition of every document of these tests.
var sweepPK = StringKey("p")

// sweepDoc returns a document of partition "p". ttl is the raw JSON of its
// ttl member, or "" for a document without one.
func sweepDoc(id, ttl string) []byte {
	if ttl == "" {
		return fmt.Appendf(nil, `{"id":%q,"pk":"p"}`, id)
	}
	return fmt.Appendf(nil, `{"id":%q,"pk":"p","ttl":%s}`, id, ttl)
}

// sweepCounts is what the tests compare of Stats: LastSweep is wall time,
// which the tests do not measure.
type sweepCounts struct {
	Live, Expired int
	Swept         uint64
}

// sweepEnv is a collection under test with assertions that name it.
type sweepEnv struct {
	t *testing.T
	c *Collection
}

// newSweepEnv opens a collection with partition-key path /pk and closes it
// when the test ends (inside the bubble, for a test that runs in one).
func newSweepEnv(t *testing.T, opts Options) *sweepEnv {
	t.Helper()
	c, err := NewCollection("sweeper", "/pk", &opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return &sweepEnv{t: t, c: c}
}

// create stores sweepDoc(id, ttl) and returns it.
func (e *sweepEnv) create(id, ttl string) Document {
	e.t.Helper()
	d, err := e.c.Create(bg, sweepDoc(id, ttl))
	require.NoError(e.t, err, "Create %s", id)
	return d
}

// createN stores n documents with the given ttl, with ids prefix0, prefix1...
func (e *sweepEnv) createN(prefix string, n int, ttl string) {
	e.t.Helper()
	for i := range n {
		e.create(fmt.Sprintf("%s%d", prefix, i), ttl)
	}
}

func (e *sweepEnv) requireLive(ids ...string) {
	e.t.Helper()
	for _, id := range ids {
		_, err := e.c.Get(bg, sweepPK, id)
		require.NoError(e.t, err, "Get %s", id)
	}
}

func (e *sweepEnv) requireGone(ids ...string) {
	e.t.Helper()
	for _, id := range ids {
		_, err := e.c.Get(bg, sweepPK, id)
		require.ErrorIs(e.t, err, ErrNotFound, "Get %s", id)
	}
}

func (e *sweepEnv) counts() sweepCounts {
	e.t.Helper()
	st, err := e.c.Stats(bg)
	require.NoError(e.t, err)
	return sweepCounts{Live: st.Live, Expired: st.Expired, Swept: st.Swept}
}

// requireCounts checks Stats, and that Count agrees with Stats.Live (R4).
func (e *sweepEnv) requireCounts(want sweepCounts) {
	e.t.Helper()
	require.Equal(e.t, want, e.counts(), "Stats")
	n, err := e.c.Count(bg, Query{})
	require.NoError(e.t, err)
	require.Equal(e.t, want.Live, n, "Count")
}

// sweep calls Sweep and checks how many documents it deleted.
func (e *sweepEnv) sweep(want int) {
	e.t.Helper()
	n, err := e.c.Sweep(bg)
	require.NoError(e.t, err)
	require.Equal(e.t, want, n, "Sweep")
}

// plan returns the Unix second the background sweeper sleeps until
// (math.MaxInt64: no timer, it waits only for a write or a setting).
func (e *sweepEnv) plan() int64 {
	e.c.local.mu.RLock()
	defer e.c.local.mu.RUnlock()
	return e.c.local.wakeAt
}

// swept reads the collection's count of swept documents, which stays
// readable after Close.
func (e *sweepEnv) swept() uint64 {
	e.c.local.mu.RLock()
	defer e.c.local.mu.RUnlock()
	return e.c.local.swept.Load()
}

// awaitSweepStarted spins, without sleeping, until a sweep running in
// another goroutine has deleted its first batch.
func (e *sweepEnv) awaitSweepStarted() {
	e.t.Helper()
	for range 10_000_000 {
		if e.swept() > 0 {
			return
		}
		runtime.Gosched()
	}
	require.Fail(e.t, "the sweep never deleted a batch")
}

// sweepClock is an Options.Now the test sets by hand, in whole seconds.
type sweepClock struct{ unix atomic.Int64 }

func newSweepClock(unix int64) *sweepClock {
	c := new(sweepClock)
	c.unix.Store(unix)
	return c
}

func (c *sweepClock) Now() time.Time { return time.Unix(c.unix.Load(), 0) }

func (c *sweepClock) set(unix int64) { c.unix.Store(unix) }

func (c *sweepClock) advance(s int64) { c.unix.Add(s) }

// R4, R5: the sweeper deletes a document at the instant it expires, not
// before, by sleeping until that instant; with nothing to expire it sleeps
// without a timer and never polls.
func TestSweeperDeletesAtExpiryInstant(t *testing.T) {
	for _, tc := range []struct {
		name string
		def  DefaultTTL
		ttl  string
	}{
		{"own ttl", TTLNoDefault(), "10"},
		{"inherited DefaultTTL", TTLSeconds(10), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				e := newSweepEnv(t, Options{DefaultTTL: tc.def})
				d := e.create("a", tc.ttl)
				e.create("keep", "-1")
				require.Equal(t, start.Unix(), d.TS())

				// R4: _ts + 10 <= now in whole seconds, so at 9.999999999s the
				// document is alive, and the sweeper has not touched it.
				time.Sleep(10*time.Second - time.Nanosecond)
				synctest.Wait()
				e.requireLive("a", "keep")
				e.requireCounts(sweepCounts{Live: 2})
				require.Equal(t, start.Unix()+10, e.plan(), "the sweeper sleeps until the expiry instant")

				// R5: at exactly 10s the sweeper wakes and deletes it, with no
				// call by the user.
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				require.Equal(t, start.Add(10*time.Second), time.Now())
				e.requireCounts(sweepCounts{Live: 1, Expired: 0, Swept: 1})
				e.requireGone("a")
				e.requireLive("keep")

				// Nothing more expires: the sweeper sleeps with no timer
				// (synctest.Wait returned, so it is durably blocked). Mark
				// its plan: any wake-up would plan again and overwrite the
				// mark, so an unchanged mark after a year shows it never
				// polled.
				require.Equal(t, int64(math.MaxInt64), e.plan(), "no timer while nothing will expire")
				const mark = math.MaxInt64 - 1
				e.c.local.mu.Lock()
				e.c.local.wakeAt = mark
				e.c.local.mu.Unlock()
				goroutines := runtime.NumGoroutine()

				// An hour first, so that a polling sweeper fails fast
				// instead of spinning through a year of fake time.
				for _, d := range []time.Duration{time.Hour, 365 * 24 * time.Hour} {
					time.Sleep(d)
					synctest.Wait()
					require.Equal(t, int64(mark), e.plan(), "the sweeper woke up during %v with nothing to expire", d)
					// At most as many: the count is the process's, and a
					// goroutine of an earlier test may end meanwhile (seen
					// once under -race: 7, then 6).
					require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "a goroutine started")
					e.requireCounts(sweepCounts{Live: 1, Swept: 1})
				}
			})
		})
	}
}

// R5: a write that expires before the instant the sweeper sleeps until
// wakes it, and that document is swept at its own expiry instant.
func TestSweeperWokenByEarlierWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().Unix()
		e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault()})
		e.create("late", "100")
		synctest.Wait()
		require.Equal(t, start+100, e.plan(), "the sweeper sleeps until the first expiry")

		e.create("early", "5")
		time.Sleep(5*time.Second - time.Nanosecond)
		synctest.Wait()
		e.requireCounts(sweepCounts{Live: 2})

		time.Sleep(time.Nanosecond)
		synctest.Wait()
		e.requireCounts(sweepCounts{Live: 1, Swept: 1})
		e.requireGone("early")
		e.requireLive("late")
		require.Equal(t, start+100, e.plan(), "after the sweep it sleeps until the next expiry")

		time.Sleep(95 * time.Second)
		synctest.Wait()
		e.requireCounts(sweepCounts{Swept: 2})
	})
}

// R5: the sweeper deletes at most SweepBatch documents under one hold of
// the lock, and Sweep repeats batches until none is due.
func TestSweepBoundedBatches(t *testing.T) {
	const batch, expired = 10, 95
	manual := func(t *testing.T) *sweepEnv {
		t.Helper()
		clock := newSweepClock(1000)
		e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault(), Now: clock.Now, ManualSweep: true, SweepBatch: batch})
		e.createN("x", expired, "1")
		e.create("keep", "")
		clock.advance(1)
		e.requireCounts(sweepCounts{Live: 1, Expired: expired})
		return e
	}

	t.Run("Sweep deletes all", func(t *testing.T) {
		e := manual(t)
		e.sweep(expired)
		e.requireCounts(sweepCounts{Live: 1, Swept: expired})
		e.sweep(0)
	})

	t.Run("one batch per hold of the lock", func(t *testing.T) {
		e := manual(t)
		var sizes []int
		left := expired
		for {
			n, _, _, err := e.c.local.sweepBatch() // what runs under one hold of the lock
			require.NoError(t, err)
			sizes = append(sizes, n)
			left -= n
			require.Equal(t, sweepCounts{Live: 1, Expired: left, Swept: uint64(expired - left)}, e.counts())
			if n == 0 {
				break
			}
		}
		require.Equal(t, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 5, 0}, sizes)
	})

	// R4, R5: while the background sweeper deletes a mass of expired
	// documents, foreground calls run between its batches and never see an
	// expired document.
	t.Run("foreground calls interleave with a mass expiry", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const mass = 1000 // a multiple of batch: every batch is full
			e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault(), SweepBatch: batch})
			e.createN("x", mass, "5")
			e.create("keep", "-1")

			time.Sleep(5 * time.Second) // the sweeper wakes now, with us
			seen := map[uint64]bool{}
			for range 10_000 {
				e.requireLive("keep")
				st := e.counts()
				require.Equal(t, 1, st.Live, "R4: expired documents are gone before they are swept")
				require.Zero(t, st.Swept%batch, "Swept moves one whole batch at a time")
				seen[st.Swept] = true
				if st.Swept == mass {
					break
				}
			}
			synctest.Wait()
			e.requireCounts(sweepCounts{Live: 1, Swept: mass})
			t.Logf("foreground saw %d distinct Swept values during the sweep", len(seen))
		})
	})
}

// R5, R3: while TTL is off the sweeper deletes nothing, and documents with a
// ttl of their own do not expire.
func TestSweeperIdleWhileTTLOff(t *testing.T) {
	t.Run("off from the start", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := newSweepEnv(t, Options{}) // DefaultTTL off
			e.createN("x", 5, "1")
			time.Sleep(24 * time.Hour)
			synctest.Wait()
			e.requireCounts(sweepCounts{Live: 5})
			e.requireLive("x0", "x1", "x2", "x3", "x4")
			require.Equal(t, int64(math.MaxInt64), e.plan(), "no timer while TTL is off")
		})
	})

	// R7 too: turning TTL off cancels the sweeper's timer, and the document
	// it was waiting for does not expire.
	t.Run("turned off while the sweeper waits", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now().Unix()
			e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault()})
			e.create("pending", "10")
			synctest.Wait()
			require.Equal(t, start+10, e.plan())

			require.NoError(t, e.c.SetDefaultTTL(bg, TTLOff()))
			synctest.Wait()
			require.Equal(t, int64(math.MaxInt64), e.plan(), "no timer while TTL is off")
			time.Sleep(time.Hour)
			synctest.Wait()
			e.requireCounts(sweepCounts{Live: 1})
			e.requireLive("pending")
		})
	})
}

// R7, R5: documents that expired before TTL was turned off stay invisible
// while it is off, Sweep leaves them (it does nothing while TTL is off), and
// deletes them once TTL is on again.
func TestSweepAfterTTLTurnedOff(t *testing.T) {
	clock := newSweepClock(1000)
	e := newSweepEnv(t, Options{DefaultTTL: TTLSeconds(10), Now: clock.Now, ManualSweep: true})
	e.createN("x", 3, "")
	clock.advance(10)
	e.requireCounts(sweepCounts{Expired: 3})

	require.NoError(t, e.c.SetDefaultTTL(bg, TTLOff()))
	e.requireGone("x0", "x1", "x2")
	e.requireCounts(sweepCounts{Expired: 3})
	e.sweep(0)
	e.create("written-while-off", "")
	clock.advance(100)
	e.sweep(0)
	e.requireCounts(sweepCounts{Live: 1, Expired: 3})

	require.NoError(t, e.c.SetDefaultTTL(bg, TTLNoDefault()))
	e.requireGone("x0", "x1", "x2")
	e.sweep(3)
	e.requireCounts(sweepCounts{Live: 1, Swept: 3})
	e.requireLive("written-while-off")
}

// R5, R7: turning TTL on wakes the sleeping sweeper, which deletes at once
// the documents already past their expiry under the new setting.
func TestSweeperWokenByTurningTTLOn(t *testing.T) {
	for _, tc := range []struct {
		name string
		def  DefaultTTL
	}{
		{"DefaultTTL n", TTLSeconds(10)},
		{"DefaultTTL -1", TTLNoDefault()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newSweepEnv(t, Options{}) // DefaultTTL off
				e.createN("inherit", 3, "")
				e.createN("own", 2, "1")
				e.create("keep", "-1")
				time.Sleep(20 * time.Second)
				synctest.Wait()
				e.requireCounts(sweepCounts{Live: 6})

				on := time.Now()
				require.NoError(t, e.c.SetDefaultTTL(bg, tc.def))
				synctest.Wait()
				require.Equal(t, on, time.Now(), "swept without any time passing")
				want := sweepCounts{Live: 1, Swept: 5} // R3: under n, "inherit" expire too
				if tc.def == TTLNoDefault() {
					want = sweepCounts{Live: 4, Swept: 2}
				}
				e.requireCounts(want)
				e.requireGone("own0", "own1")
				e.requireLive("keep")
			})
		})
	}
}

// TestSweepHoldIsBounded: however large the batch, one hold of the lock
// ends after about MaxSweepHold (R5). Real time: synctest's clock does not
// move while code runs.
func TestSweepHoldIsBounded(t *testing.T) { // R5
	const expired = 50_000 // far more than 100 µs of deletions on any machine
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("x", "/pk", &Options{DefaultTTL: TTLSeconds(1), Now: clk.Now, ManualSweep: true, SweepBatch: 1 << 20})
	require.NoError(t, err)
	defer c.Close()
	for i := range expired {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d"}`, i))
	}
	clk.Advance(time.Second)
	start := time.Now()
	n, more, _, err := c.local.sweepBatch()
	held := time.Since(start)
	require.NoError(t, err)
	require.True(t, more)
	require.Positive(t, n)
	require.Less(t, n, expired, "the batch ended early, after %v", held)
	total, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, expired-n, total)
	st, _ := c.Stats(bg)
	require.Zero(t, st.Expired)
}

// TestSweeperSleepsWhateverTheClock: with a clock beyond the ±2^62 seconds
// that "now" is bounded to, or at the largest time, nothing ever becomes due;
// the sweeper must sleep, not wake at once forever (R5).
func TestSweeperSleepsWhateverTheClock(t *testing.T) { // R5
	for _, sec := range []int64{maxClock + 5, math.MaxInt64 / 2, math.MaxInt64 - 62135596800, -maxClock - 5, math.MinInt64 / 2} {
		t.Run(fmt.Sprint(sec), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := newSweepClock(sec)
				e := newSweepEnv(t, Options{DefaultTTL: TTLSeconds(10), Now: clk.Now})
				e.create("a", "")
				e.create("b", "5")
				wait, ok := e.c.local.nextWake()
				require.True(t, ok)
				require.Greater(t, wait, time.Duration(0), "the sweeper sleeps")
				require.LessOrEqual(t, wait, maxSweepSleep)
				time.Sleep(3 * time.Hour) // returns only if the sweeper is asleep
				e.requireCounts(sweepCounts{Live: 2})
			})
		})
	}
}

// TestWritesHelpTheSweeper: while expired documents wait for the background
// sweeper, each write deletes two of them, oldest first, so that writers
// that keep the sweeper from the lock cannot let a backlog grow without
// bound (R5). With ManualSweep, and while TTL is off, writes delete nothing.
func TestWritesHelpTheSweeper(t *testing.T) { // R5
	synctest.Test(t, func(t *testing.T) {
		// The collection's clock is moved by hand, and the bubble's, which the
		// sweeper's timer runs on, stands still: only the writes can delete.
		clk := newSweepClock(1_000_000)
		e := newSweepEnv(t, Options{DefaultTTL: TTLSeconds(10), Now: clk.Now})
		e.createN("old", 100, "1")
		e.create("keep", "")
		synctest.Wait() // the sweeper has planned its sleep, and sleeps
		clk.advance(2)
		e.requireCounts(sweepCounts{Live: 1, Expired: 100})
		for i := range 30 {
			e.create(fmt.Sprint("new", i), "")
		}
		e.requireCounts(sweepCounts{Live: 31, Expired: 40, Swept: 60})
		_, err := e.c.Touch(bg, sweepPK, "keep")
		require.NoError(t, err)
		e.requireCounts(sweepCounts{Live: 31, Expired: 38, Swept: 62})
		require.NoError(t, e.c.SetDefaultTTL(bg, TTLOff())) // R5: nothing is deleted while TTL is off
		e.create("off", "")
		e.requireCounts(sweepCounts{Live: 32, Expired: 38, Swept: 62})
	})

	// With ManualSweep only Sweep deletes.
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	mustCreate(t, c, `{"id":"a","ttl":1}`)
	clk.Advance(2 * time.Second)
	mustCreate(t, c, `{"id":"b"}`)
	st, err := c.Stats(bg)
	require.NoError(t, err)
	require.Equal(t, Stats{Live: 1, Expired: 1}, st)
}

// TestNextWakeReadsTheClockOnce: the sweeper plans its sleep from one
// reading of the clock. With two, a clock that crossed the next expiry
// second between them made the wait negative, taken for a clock beyond its
// bounds: the sweeper slept an hour past a document's expiry (R5).
func TestNextWakeReadsTheClockOnce(t *testing.T) { // R5
	var calls atomic.Int64
	var ticking atomic.Bool
	base := time.Unix(1_000_000, 500_000_000)
	clock := func() time.Time { // 300 ms later at each reading, once ticking
		if ticking.Load() {
			return base.Add(time.Duration(calls.Add(1)) * 300 * time.Millisecond)
		}
		return base
	}
	c, err := NewCollection("t", "/pk", &Options{DefaultTTL: TTLSeconds(1), Now: clock, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"a"}`) // _ts 1,000,000: due at 1,000,001
	ticking.Store(true)
	wait, ok := c.local.nextWake() // reads 1,000,000.8: due in 200 ms
	require.True(t, ok)
	require.Equal(t, 200*time.Millisecond, wait)
}
