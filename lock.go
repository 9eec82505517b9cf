package ttldb

import "runtime"

// lock takes mu for a foreground call. The sweeper, which takes mu batch
// after batch, lets such a call in before its next batch (R5).
func (c *Collection) lock() {
	c.waiting.Add(1)
	c.mu.Lock()
	c.waiting.Add(-1)
	select {
	case c.turn <- struct{}{}: // the sweeper may be waiting for it
	default:
	}
}

// yield lets other goroutines run between two batches, and lets the
// foreground calls waiting for the lock take it first: a sync.Mutex would
// otherwise let the sweeper, already running, take it back again and
// again, and a caller could wait for many batches (R5). The sweeper waits,
// without the lock, until a waiting call has taken it. Readers need no help:
// unlocking a sync.RWMutex admits the readers that were waiting before the
// next Lock can succeed.
func (c *Collection) yield() {
	runtime.Gosched()
	select {
	case <-c.turn: // a stale signal from a call that did not have to wait
	default:
	}
	if c.waiting.Load() > 0 {
		<-c.turn
		// Pass the signal on: another sweep (the background sweeper and a
		// Sweep call, say) may be waiting for the same caller. A signal
		// left over is dropped by the next yield.
		select {
		case c.turn <- struct{}{}:
		default:
		}
	}
}

// unusable reports whether calls must fail with ErrClosed: after Close, or
// on a Collection not made by NewCollection.
func (c *Collection) unusable() bool { return c.closed.Load() || c.stop == nil }

func (c *Collection) errClosed(op string) error {
	if c.stop == nil {
		return errorf(ErrClosed, "%s on a Collection not made by NewCollection", op)
	}
	return errorf(ErrClosed, "%s on collection %q after Close", op, c.name)
}
