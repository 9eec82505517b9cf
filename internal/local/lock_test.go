package local

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

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
		c.local.handoff.arrive()
		done := make(chan sweepResult)
		go func() {
			swept, err := c.Sweep(bg)
			done <- sweepResult{swept, err}
		}()
		synctest.Wait()
		stopped := c.local.swept.Load()
		require.Equal(t, uint64(batch), stopped, "one batch, then the caller's turn")
		// The caller takes the lock, as lock does, and the sweep goes on.
		c.local.mu.Lock()
		c.local.handoff.took()
		require.Equal(t, stopped, c.local.swept.Load(), "no batch while the caller holds the lock")
		c.local.mu.Unlock()
		require.Equal(t, sweepResult{n, nil}, <-done)
	})
}

// TestConcurrentSweepsYield: of two sweeps at once, one waits for the
// other, which waits for the caller's turn and goes on once it has had it;
// neither waits for another caller that may never come.
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
		c.local.handoff.arrive() // a caller waits for the lock, as lock counts it
		done := make(chan sweepResult)
		for range 2 {
			go func() {
				swept, err := c.Sweep(bg)
				done <- sweepResult{swept, err}
			}()
		}
		synctest.Wait()   // one sweep waits for the caller's turn, the other for it
		c.local.mu.Lock() // the caller takes the lock, as lock does
		c.local.handoff.took()
		c.local.mu.Unlock()
		a, b := <-done, <-done
		require.NoError(t, errors.Join(a.err, b.err))
		require.Equal(t, n, a.n+b.n)
	})
}

// sweepResult is what a Sweep run in another goroutine returned, for the
// test's goroutine to check.
type sweepResult struct {
	n   int
	err error
}

// TestYieldLosesNoTurn: a caller that takes its turn between the end of a
// sweep's batch and the sweep's wait is not waited for again, and a turn is
// seen by every sweep waiting for it: the hand-off is a count, which no
// sweep can consume for another. With a signal instead, a second sweep
// dropped the first one's signal as stale, and the first waited for a
// caller that never came: Close then waited for it forever (R5).
func TestYieldLosesNoTurn(t *testing.T) { // R5
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("turns", "/pk", &Options{DefaultTTL: TTLSeconds(1), ManualSweep: true})
		require.NoError(t, err)
		defer c.Close()

		c.local.handoff.arrive() // a caller waits for the lock
		seen := c.local.handoff.taken.Load()
		c.local.mu.Lock() // and takes it, before the sweep looks
		c.local.handoff.took()
		c.local.mu.Unlock()
		c.local.handoff.arrive() // another caller waits, and will not come
		c.local.yield(seen)      // returns at once: the first caller had its turn
		c.local.handoff.waiting.Add(-1)

		// Two sweeps wait for one caller's turn; both go on after it.
		c.local.handoff.arrive()
		seen = c.local.handoff.taken.Load()
		done := make(chan struct{})
		for range 2 {
			go func() {
				c.local.yield(seen)
				done <- struct{}{}
			}()
		}
		synctest.Wait()
		require.Equal(t, int32(2), c.local.handoff.parked.Load(), "both sweeps wait")
		require.NoError(t, c.Close(), "Close takes the lock as a caller does, and both sweeps see the turn")
		<-done
		<-done
		require.Zero(t, c.local.handoff.parked.Load())
	})
}
