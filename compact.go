package ttldb

import (
	"context"

	"github.com/ttldb/ttldb/engine"
)

// Compact writes a snapshot of a durable collection and removes the files
// it makes useless, so that the directory holds about the collection's
// documents and no more (R12). The collection compacts itself in the
// background when its files grow to twice its documents and more; Compact
// is for a backup, or to give the space back at once. It holds the
// collection's lock for short spans, no longer than the sweeper's batches
// (R5), while calls go on: it reads the key map a few tables at a time, in
// O(n log n) for n documents, and writes their size. A compaction in
// progress, in the background or not, finishes first.
//
// Errors: [ErrInvalidOption] for a nil ctx, or a collection that is not
// durable; ctx's error, wrapped; [ErrClosed], wrapping the failure when writing the
// snapshot failed (the collection stays usable: its log holds every
// change); [ErrCorrupt] when the walk of the key map found fewer documents
// than the collection held, which only a bug can cause (nothing is
// written, and the collection stays usable).
//
// On an engine that compacts by itself (one without [engine.Compacter],
// such as PostgreSQL's, whose server vacuums its tables), Compact does
// nothing and returns nil, so that a program that changes engine changes
// no other call (R16).
func (c *Collection) Compact(ctx context.Context) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "Compact")
	}
	if c.unusable() {
		return c.errClosed("Compact")
	}
	cp, ok := c.eng.(engine.Compacter)
	if !ok {
		return nil // the engine compacts by itself (R16: a program that changes engine changes nothing else)
	}
	return cp.Compact(ctx)
}
