package local

// Tests of Close (R5, R15), with the helpers of sweeper_test.go: in a
// testing/synctest bubble, synctest.Test fails when a goroutine the
// collection started outlives the test.

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// R5, R15: Close stops the sweeper and returns once it has exited (synctest.Test
// fails if the goroutine is still alive when the test ends); it is
// idempotent and safe from many goroutines at once.
func TestCloseStopsSweeper(t *testing.T) {
	t.Run("sequential", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault()})
			e.create("a", "100") // the sweeper sleeps on a timer
			synctest.Wait()
			require.NoError(t, e.c.Close())
			requireClosed(t, e.c.local.done, "sweeper done")
			require.NoError(t, e.c.Close(), "second Close")
		})
	})

	t.Run("concurrent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault()})
			e.create("a", "100")
			errs := make([]error, 10)
			var wg sync.WaitGroup
			for i := range errs {
				wg.Go(func() { errs[i] = e.c.Close() })
			}
			wg.Wait()
			for i, err := range errs {
				require.NoError(t, err, "Close #%d", i)
			}
			requireClosed(t, e.c.local.done, "sweeper done")
		})
	})

	t.Run("manual sweep", func(t *testing.T) {
		e := newSweepEnv(t, Options{ManualSweep: true})
		require.NoError(t, e.c.Close())
		require.NoError(t, e.c.Close())
	})
}

// requireClosed fails unless ch is closed.
func requireClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	default:
		require.Fail(t, what+" is not closed")
	}
}

// R5: after Close every method fails with ErrClosed.
func TestCloseThenEveryMethodFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault()})
		e.create("a", "")
		require.NoError(t, e.c.Close())
		c := e.c

		firstErr := func(seq func(func(Document, error) bool)) error {
			for _, err := range seq {
				return err
			}
			return errors.New("All yielded nothing")
		}
		for _, op := range []struct {
			name string
			call func() error
		}{
			{"Create", func() error { _, err := c.Create(bg, sweepDoc("b", "")); return err }},
			{"Replace", func() error { _, err := c.Replace(bg, sweepDoc("a", "")); return err }},
			{"Upsert", func() error { _, err := c.Upsert(bg, sweepDoc("a", "")); return err }},
			{"Delete", func() error { return c.Delete(bg, sweepPK, "a") }},
			{"Touch", func() error { _, err := c.Touch(bg, sweepPK, "a"); return err }},
			{"Get", func() error { _, err := c.Get(bg, sweepPK, "a"); return err }},
			{"List", func() error { _, err := c.List(bg, Query{}); return err }},
			{"Count", func() error { _, err := c.Count(bg, Query{}); return err }},
			{"Count partition", func() error { _, err := c.Count(bg, Query{Partition: &sweepPK}); return err }},
			{"Stats", func() error { _, err := c.Stats(bg); return err }},
			{"Sweep", func() error { _, err := c.Sweep(bg); return err }},
			{"SetDefaultTTL", func() error { return c.SetDefaultTTL(bg, TTLSeconds(5)) }},
			{"SetIndexingMode", func() error { return c.SetIndexingMode(bg, IndexingConsistent) }},
			{"All", func() error { return firstErr(c.All(bg, Query{})) }},
		} {
			require.ErrorIs(t, op.call(), ErrClosed, op.name)
		}
	})
}

// R5: an iteration of All in progress ends with ErrClosed when the
// collection is closed.
func TestCloseDuringAll(t *testing.T) {
	e := newSweepEnv(t, Options{ManualSweep: true})
	e.createN("x", 3, "")
	var ids []string
	var errs []error
	for d, err := range e.c.All(bg, Query{}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, d.ID())
		require.NoError(t, e.c.Close())
	}
	require.Equal(t, []string{"x0"}, ids)
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], ErrClosed)
}

// R5: Close during a large sweep is safe: it stops the sweep between two
// batches and returns.
func TestCloseDuringLargeSweep(t *testing.T) {
	const batch, mass = 10, 10_000

	t.Run("background sweeper", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault(), SweepBatch: batch})
			e.createN("x", mass, "1")
			time.Sleep(time.Second) // the sweeper wakes now, with us
			e.awaitSweepStarted()
			require.NoError(t, e.c.Close())
			requireClosed(t, e.c.local.done, "sweeper done")
			swept := e.swept()
			require.LessOrEqual(t, swept, uint64(mass))
			require.Zero(t, swept%batch, "the sweep stopped between batches")
			t.Logf("Close stopped the sweeper after %d of %d documents", swept, mass)
		})
	})

	t.Run("Sweep in another goroutine", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault(), SweepBatch: batch, ManualSweep: true})
			e.createN("x", mass, "1")
			time.Sleep(time.Second)
			var n int
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				n, err = e.c.Sweep(bg)
			}()
			e.awaitSweepStarted()
			require.NoError(t, e.c.Close())
			<-done
			if err != nil {
				require.ErrorIs(t, err, ErrClosed)
			}
			require.LessOrEqual(t, n, mass)
			require.Zero(t, n%batch, "the sweep stopped between batches")
			t.Logf("Close stopped Sweep after %d of %d documents (err %v)", n, mass, err)
		})
	})
}
