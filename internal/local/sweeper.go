package local

import (
	"context"
	"math"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// Sweep implements [engine.Engine]: the sweeps of the background sweeper
// and of Sweep run one at a time.
func (x *Engine) Sweep(ctx context.Context) (int, error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return 0, engine.ContextError(ctx, "Sweep")
	}
	if c.readOnly {
		return 0, c.errReadOnly("Sweep")
	}
	n, stopped, err := c.sweep(ctx.Done(), func() bool { return ctx.Err() != nil })
	if (n > 0 || err == nil && !stopped) && c.j != nil && c.j.policy == SyncAlways { // what it deleted, even if stopped
		if serr := c.j.syncAll(); serr != nil && err == nil {
			err = c.fail(serr)
		}
	}
	if err == nil && stopped {
		err = engine.ContextError(ctx, "Sweep")
	}
	return n, err
}

// sweep deletes batches until none is due or stop, asked between two
// batches, says to stop; it gives up waiting for another sweep when done
// is closed (nil: never). stopped reports that it stopped before the end.
// Sweeps run one at a time: a Sweep call beside the background sweeper
// waits for it, so that a foreground call waits for one batch, not for one
// of each.
func (c *collection) sweep(done <-chan struct{}, stop func() bool) (n int, stopped bool, err error) {
	if c.unusable() {
		return 0, false, c.errClosed("Sweep")
	}
	select { // a channel, not a mutex: a sweep waiting here is asleep to testing/synctest too
	case c.sweeping <- struct{}{}: // the common case: no other sweep
	default:
		select {
		case c.sweeping <- struct{}{}:
		case <-done:
			return 0, true, nil
		}
	}
	defer func() { <-c.sweeping }()
	start := time.Now()
	total := 0
	for {
		n, more, seen, err := c.sweepBatch()
		total += n
		if err != nil {
			return total, false, err
		}
		if !more {
			break
		}
		if stop() {
			return total, true, nil
		}
		c.checkBehind()
		c.yield(seen)
	}
	c.mu.Lock()
	c.lastSweep = time.Since(start)
	c.mu.Unlock()
	return total, false, nil
}

// sweepChunk is how many documents a batch deletes between two looks at
// the time it has held the lock.
const sweepChunk = 32

// sweepBatch deletes up to one batch of expired documents under the lock:
// c.batch of them, or fewer once it has held the lock for [MaxSweepHold].
// more is false when no expired document is left. seen is the count of
// foreground lock holds at the batch's end, for yield.
func (c *collection) sweepBatch() (n int, more bool, seen uint64, err error) {
	c.mu.Lock()
	defer c.settleSweep(&err)
	seen = c.handoff.taken.Load()
	if c.unusable() {
		return 0, false, seen, c.errClosed("Sweep")
	}
	if !c.exp.def.On {
		return 0, false, seen, nil // R5: nothing is deleted while TTL is off
	}
	start, now := time.Now(), c.now()
	lim, drop := c.exp.limits(now), func(e *entry) { c.dropExpired(e, now) }
	for {
		want := min(sweepChunk, c.batch-n)
		got := c.exp.popExpired(lim, want, drop)
		n += got
		if got < want {
			break // none left
		}
		if n == c.batch || time.Since(start) >= MaxSweepHold {
			more = true
			break
		}
	}
	c.swept.Add(uint64(n))
	return n, more, seen, nil
}

// helpBatch is how many expired documents a write deletes when it finds
// some left for the background sweeper.
const helpBatch = 2

// help deletes up to helpBatch expired documents for each of a call's
// writes, if any are due at now, for a call that holds the lock. The
// sweeper lets every waiting call take the lock before its next batch
// (R5), so under writers that never stop it could get too few turns, and expired documents pile up, memory with them,
// without bound. A write that finds some due deletes two: the deletions then
// outpace what the writes can add, and the backlog stays small however
// heavy the load. With nothing due it costs two looks at the first item of
// each expiry tree. It does nothing with ManualSweep, where only Sweep
// deletes, and while TTL is off (R5).
func (c *collection) help(now int64, writes int) {
	if c.wake == nil || !c.exp.def.On || writes == 0 {
		return
	}
	drop := func(e *entry) { c.dropExpired(e, now) } // does not escape: no allocation
	if n := c.exp.popExpired(c.exp.limits(now), helpBatch*writes, drop); n > 0 {
		c.swept.Add(uint64(n))
	}
}

// run is the sweeper goroutine: it sleeps until the next document expires
// (or a write or a change of setting moves that instant earlier), sweeps,
// and returns when stop is closed.
func (c *collection) run() {
	defer close(c.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		wait, ok := c.nextWake()
		var ring <-chan time.Time
		if ok {
			if wait <= 0 {
				if _, _, err := c.sweep(nil, c.stopping); err != nil {
					return
				}
				select {
				case <-c.stop:
					return
				default:
					continue
				}
			}
			timer.Reset(wait)
			ring = timer.C
		}
		select {
		case <-c.stop:
			return
		case <-c.wake:
			timer.Stop()
		case <-ring:
			if _, _, err := c.sweep(nil, c.stopping); err != nil {
				return
			}
		}
	}
}

// nextWake plans the sweeper's sleep: how long until the next document
// expires, or ok false when none will (as while TTL is off).
func (c *collection) nextWake() (wait time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unusable() {
		return 0, false
	}
	t := c.clock() // once: the wait below must be measured from the same reading
	now := c.nowAt(t)
	at, ok := c.exp.next(now)
	if !ok {
		c.wakeAt = math.MaxInt64
		return 0, false
	}
	c.wakeAt = at
	if at <= now {
		return 0, true
	}
	// The wait is the clock's distance to at. Only a clock beyond the
	// bounds of now (maxClock) reads past at while now stays below it:
	// nothing becomes due while it stays there, so the sweeper sleeps, and
	// looks again later, rather than wake at once, forever.
	wait = time.Unix(at, 0).Sub(t)
	if wait <= 0 || wait > maxSweepSleep {
		wait = maxSweepSleep
	}
	return wait, true
}

// maxSweepSleep is the longest the sweeper sleeps before it plans again.
const maxSweepSleep = time.Hour

// poke wakes the sweeper to plan its sleep again. Call with mu held.
func (c *collection) poke() {
	if c.wake == nil {
		return
	}
	c.wakeAt = math.MinInt64 // no more pokes until the sweeper has planned
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// stopping reports whether Close has asked the sweeper to stop.
func (c *collection) stopping() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// MaxSweepHold is about the longest the sweeper holds the collection's lock
// at once: a batch ends early when it has taken this long, so that on a
// slow or busy machine foreground calls still wait no longer (R5).
const MaxSweepHold = 100 * time.Microsecond
