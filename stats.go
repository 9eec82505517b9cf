package ttldb

import "time"

// Stats describes a collection at one instant.
type Stats struct {
	// Live is the number of documents that have not expired.
	Live int
	// Expired is the number of expired documents the sweeper has not yet
	// deleted. They are invisible to every call (R4).
	Expired int
	// Swept is the number of expired documents deleted: by the sweeper,
	// by Sweep, and by writes that helped the sweeper with a backlog.
	Swept uint64
	// LastSweep is how long the last sweep took, from its first batch to
	// its last.
	LastSweep time.Duration
}

// Stats returns the collection's statistics, all at one instant, in
// O(log n + e) for the e expired documents not yet deleted. It blocks no
// writer for longer than one sweep batch.
//
// Errors: [ErrClosed].
func (c *Collection) Stats() (Stats, error) { return c.census("Stats") }

// census returns the collection's [Stats], all read at one instant. A
// backlog of expired documents of at most [DefaultSweepBatch] is counted under
// the read lock; a larger one on a copy-on-write snapshot of the expiry index,
// outside the lock. (A snapshot costs writers: each node a write then
// touches is copied once, so it is kept for backlogs worth it.)
func (c *Collection) census(op string) (Stats, error) {
	c.mu.RLock()
	if c.unusable() {
		c.mu.RUnlock()
		return Stats{}, c.errClosed(op)
	}
	total, lim := c.prim.len(), c.limits()
	st := Stats{Swept: c.swept.Load(), LastSweep: c.lastSweep}
	expired, all := c.exp.countExpired(lim, DefaultSweepBatch)
	c.mu.RUnlock()
	if !all {
		c.lock()
		if c.unusable() {
			c.mu.Unlock()
			return Stats{}, c.errClosed(op)
		}
		total, lim = c.prim.len(), c.limits()
		st = Stats{Swept: c.swept.Load(), LastSweep: c.lastSweep}
		x := c.exp.clone()
		c.mu.Unlock()
		expired, _ = x.countExpired(lim, -1)
	}
	st.Expired, st.Live = expired, total-expired
	return st, nil
}
