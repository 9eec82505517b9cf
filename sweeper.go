package ttldb

import (
	"context"
)

// Sweep deletes every expired document now, once the background sweeper's
// sweep in progress, if any, is done, in batches of at most
// [Options.SweepBatch] documents and about [MaxSweepHold], releasing the lock
// between batches so that no other call waits for more than one batch
// (R5). It does nothing while TTL is off. It returns how many documents it
// deleted, in O(e log n) for e expired documents. The background sweeper
// calls the same code; Sweep is for collections with ManualSweep, and for
// tests.
//
// In a durable collection, Sweep returns once its deletions are durable as
// the sync policy says, like any call that changes the collection; the
// background sweeper waits for no sync.
//
// When ctx ends, Sweep stops waiting for the background sweeper's sweep,
// or stops between two batches, and returns the documents it deleted so
// far, durable as the policy says, with ctx's error (R16).
//
// Errors: [ErrClosed]; those of a context that is nil or done.
func (c *Collection) Sweep(ctx context.Context) (int, error) {
	if !ctxLive(ctx) {
		return 0, contextError(ctx, "Sweep")
	}
	if c.unusable() {
		return 0, c.errClosed("Sweep")
	}
	return c.eng.Sweep(ctx)
}
