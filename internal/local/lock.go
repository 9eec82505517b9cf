package local

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
)

// handoff lets the sweeper give the collection's lock to the foreground
// calls waiting for it between two of its batches (R5). A sync.Mutex would
// otherwise let the sweeper, already running, take the lock back again and
// again, and a caller could wait for many batches.
//
// Foreground calls count themselves in waiting while they wait for the
// lock, and count every time they take it in taken. A sweep reads taken
// while it still holds the lock at the end of a batch, and then, if a call
// is waiting, waits until taken has moved: until a call has had its turn.
// A count, unlike a signal, cannot be consumed by the wrong sweep or lost
// between the sweep's look and its wait; each sweep waits on its own
// reading (the background sweeper and a Sweep call may both be waiting).
type handoff struct {
	waiting atomic.Int32  // foreground calls waiting for the lock
	taken   atomic.Uint64 // times a foreground call took the lock
	parked  atomic.Int32  // sweeps waiting in yield: only then does lock signal

	mu   sync.Mutex // guards the wait on moved
	cond *sync.Cond // moved: taken has changed
}

func (h *handoff) init() { h.cond = sync.NewCond(&h.mu) }

// lock takes mu for a foreground call, taking its turn before the
// sweeper's next batch.
func (c *collection) lock() {
	c.handoff.arrive()
	c.mu.Lock()
	c.handoff.took()
}

// arrive counts a foreground call that is about to wait for the lock.
func (h *handoff) arrive() { h.waiting.Add(1) }

// took counts a foreground call that took the lock, and wakes the sweeps
// parked in yield to see it.
func (h *handoff) took() {
	h.waiting.Add(-1)
	h.taken.Add(1)
	if h.parked.Load() > 0 {
		// A sweep parked before taken moved sees it when it checks under
		// h.mu; one that parks after the Add sees the new count. Either way
		// no wake-up is lost (the atomics are sequentially consistent).
		h.mu.Lock()
		h.cond.Broadcast()
		h.mu.Unlock()
	}
}

// yield lets other goroutines run between two batches of a sweep, and lets
// the foreground calls waiting for the lock take it first. seen is
// handoff.taken as read under mu at the end of the batch. Readers need no
// help: unlocking a sync.RWMutex admits the readers that were waiting
// before the next Lock can succeed.
func (c *collection) yield(seen uint64) {
	runtime.Gosched()
	h := &c.handoff
	if h.waiting.Load() == 0 {
		return
	}
	h.mu.Lock()
	h.parked.Add(1)
	for h.taken.Load() == seen && h.waiting.Load() > 0 {
		h.cond.Wait()
	}
	h.parked.Add(-1)
	h.mu.Unlock()
}

// unusable reports whether calls must fail with [engine.ErrClosed]: after Close, or
// on a ttldb.Collection not made by ttldb.NewCollection.
func (c *collection) unusable() bool { return c.closed.Load() || c.stop == nil }

func (c *collection) errClosed(op string) error {
	if c.stop == nil {
		return errorf(engine.ErrClosed, "%s on a Collection not made by NewCollection", op)
	}
	if p := c.failure.Load(); p != nil {
		return fmt.Errorf("%w: %s on collection %q, closed when its files failed (reopen its directory to recover what is on disk): %w", engine.ErrClosed, op, c.name, *p)
	}
	return errorf(engine.ErrClosed, "%s on collection %q after Close", op, c.name)
}

// unlock releases mu, then wakes the readers a change made under it has
// to wake: closing their channel readies every one of them, which would
// lengthen the writer's hold of the lock by as much.
func (c *collection) unlock() {
	woken := c.feed.woken
	c.feed.woken = nil
	c.mu.Unlock()
	if woken != nil {
		close(woken)
	}
}

// fail closes the collection after its journal failed with err: from now
// on every call reports [engine.ErrClosed], wrapping err, rather than run ahead of
// what is on disk. Close still stops the goroutines and releases the
// files. It returns the error of the call that found the failure.
func (c *collection) fail(err error) error {
	if c.failure.CompareAndSwap(nil, &err) {
		c.logFailure(err)
	}
	c.closed.Store(true)
	c.feed.wakeAll() // WatchFeed's readers, to find it closed
	return fmt.Errorf("%w: collection %q: the change may not be on disk, and the collection is closed (reopen its directory to recover what is): %w", engine.ErrClosed, c.name, err)
}

// cacheLinePad keeps the fields before it and those after it on different
// cache lines (64 bytes on the processors Go runs on most), where readers
// that take no lock load the ones and writers change the others: a line
// one core writes must move before another core can read it again.
type cacheLinePad [64]byte
