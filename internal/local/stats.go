package local

import (
	"context"

	"github.com/ttldb/ttldb/engine"
)

// Stats implements [engine.Engine].
func (x *Engine) Stats(ctx context.Context) (engine.Stats, error) {
	if !ctxLive(ctx) {
		return engine.Stats{}, engine.ContextError(ctx, "Stats")
	}
	s, err := (*collection)(x).census("Stats")
	return s, err
}

// census returns the collection's [engine.Stats], all read at one instant, under
// the read lock: the expired documents are counted by the seconds they fell
// due at, O(log b + k) for k such seconds, however many documents each holds.
func (c *collection) census(op string) (engine.Stats, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.unusable() {
		return engine.Stats{}, c.errClosed(op)
	}
	expired := c.exp.countExpired(c.limits())
	return engine.Stats{Live: c.prim.len() - expired, Expired: expired, Swept: c.swept.Load(), LastSweep: c.lastSweep, Evicted: c.quota.evicted.Load(), QuotaBytes: c.usedIfQuota()}, nil
}
