package ttldb

import (
	"context"
	"time"
)

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
	// Evicted is the number of documents a memory quota evicted
	// ([QuotaEvictSoonest], R17) since the collection was opened: they are
	// not counted in Swept. Zero without a quota.
	Evicted uint64
	// QuotaBytes is what the collection counts against its memory quota
	// ([QuotaOptions]: its documents and their indexes, in bytes of
	// heap), so that an operator sees how near the quota it is. Zero
	// without a quota, and on an engine that keeps no quota.
	QuotaBytes int64
}

// Stats returns the collection's statistics, all at one instant, in
// O(log b + k) for the k distinct seconds at which the expired documents
// not yet deleted fell due (b seconds in all), under the read lock.
//
// Errors: [ErrClosed].
func (c *Collection) Stats(ctx context.Context) (Stats, error) {
	if !ctxLive(ctx) {
		return Stats{}, contextError(ctx, "Stats")
	}
	if c.unusable() {
		return Stats{}, c.errClosed("Stats")
	}
	s, err := c.eng.Stats(ctx)
	return Stats(s), err
}
