package local

import (
	"cmp"
	"context"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// keyWalk is a compaction's walk of the key map. The snapshot a compaction
// writes is the collection as of the instant the walk began, which it reads
// from the key map a few tables per hold of the lock while writers and the
// sweeper go on. An entry of that instant is either still in the map when
// the walk reaches its table, or was removed before: gone holds the entries
// removed since the walk began. Entries created since are in the map too,
// but the snapshot sees no document of theirs.
//
// The walk needs no key order (order.go): a durable collection used as a
// cache, by key alone, compacts without building one, and its creates and
// removals keep costing O(1).
//
// Guarded by collection.mu.
type keyWalk struct {
	gone []*entry
}

// startWalk begins a walk: from now on, removals are noted in it. Call
// with mu held, in the hold that opens the walk's snapshot.
func (c *collection) startWalk() *keyWalk {
	w := &keyWalk{}
	c.prim.walk = w
	return w
}

// walkHook, when set (by tests), is called by a compaction's walk after
// each hold of the lock, without it, with the entries the hold read.
var walkHook func(c *collection, read int)

// snapshotDocs returns every document of the snapshot s, expired or not, in
// the order of their LSNs: the order of the latest-version feed, which a
// reopen rebuilds. s is a view opened in the hold of the lock that began the
// walk w; snapshotDocs ends w. It reads the key map orderReadSlots slots
// per hold of the lock, as the build of the key order does, and lets the
// calls waiting for the lock go first between two holds, as the sweeper
// does (R5). It takes O(n log n) for the n entries it reads.
//
// n is how many documents the collection held at s: the walk must find
// them all, or the snapshot would lose some once the logs before it go.
//
// op is the call's name, for errors: "Compact" or "Backup". The caller
// holds the walking token: one walk at a time (prim.walk is one). ctx,
// when not nil, stops the walk before any hold of the lock once it is
// done.
//
// Errors: [engine.ErrClosed] when the collection closes meanwhile; ctx's
// error, wrapped; [engine.ErrCorrupt] when the walk does not find n
// documents, which only a bug can cause.
func (c *collection) snapshotDocs(ctx context.Context, op string, s snapshot, w *keyWalk, n uint64) ([]*engine.Doc, error) {
	var es []*entry
	from, done := uint64(0), false
	for !done {
		c.mu.Lock()
		switch {
		case c.unusable():
			c.prim.walk = nil
			c.mu.Unlock()
			return nil, c.errClosed(op)
		case ctx != nil && ctx.Err() != nil:
			c.prim.walk = nil
			c.mu.Unlock()
			return nil, engine.ContextError(ctx, op)
		}
		seen, had := c.handoff.taken.Load(), len(es)
		es, from, done = c.prim.keys.entriesFrom(es, from, orderReadSlots)
		if done {
			es = append(es, w.gone...)
			c.prim.walk = nil
		}
		c.mu.Unlock()
		if walkHook != nil {
			walkHook(c, len(es)-had)
		}
		c.yield(seen)
	}
	docs := make([]*engine.Doc, 0, len(es))
	for _, e := range es {
		if d := s.doc(e); d != nil { // nil: created after s
			docs = append(docs, d)
		}
	}
	slices.SortFunc(docs, func(a, b *engine.Doc) int { return cmp.Compare(c.seqOf(a), c.seqOf(b)) })
	docs = slices.Compact(docs) // an entry read and then removed is there twice
	if uint64(len(docs)) != n {
		return nil, errorf(engine.ErrCorrupt, "%s: collection %q: the walk of its key map found %d documents of the %d it held when it began; nothing was written, and the collection keeps every change (a bug in ttldb: please report it)", op, c.name, len(docs), n)
	}
	return docs, nil
}
