package local

import (
	"sync/atomic"

	"github.com/google/btree"
)

// sharedTree is a B-tree that snapshots read without the collection's
// lock, copied only when a write would change it under one of them.
//
// A snapshot takes a view: a copy of the tree's header (its root, its
// length), in O(1), counted in readers. A writer about to change the tree
// calls own first: if a view taken since the writers last took the tree
// over is still open, own clones the tree (google/btree's copy on write),
// so that the write copies the nodes on its path and leaves the views'
// as they are; otherwise no one reads those nodes any more, and the write
// changes them in place. A query that ends before the next write (the
// usual turn of a service) so costs that write nothing, where a clone per
// query made every write after it copy every node on its paths (issue 31:
// a write after a query cost 2x). A view open across writes costs them
// what the clone did: the first write of each index after the view copies
// its path, the later ones only what they reach of the nodes still shared.
//
// Guarded by collection.mu, but for readers, which views release without
// it.
type sharedTree[T any] struct {
	t       *btree.BTreeG[T]
	readers *atomic.Int32 // the open views of t's nodes as they are now; nil: none since the last own that cloned
}

// view returns a view of the tree as it is now, read-only, and the count
// to give back to release once done with it. Call with mu held (the
// collection's write lock: it may set readers).
func (s *sharedTree[T]) view() (btree.BTreeG[T], *atomic.Int32) {
	if s.readers == nil {
		s.readers = new(atomic.Int32)
	}
	s.readers.Add(1)
	return *s.t, s.readers
}

// own makes the tree the writer's to change: a clone, if a view of it may
// still be read. Call with mu held, before every change.
func (s *sharedTree[T]) own() {
	if r := s.readers; r != nil && r.Load() > 0 {
		s.t.Clone() // the views keep the nodes' old copy-on-write context; the tree gets a new one
		s.readers = nil
	}
}

// release gives back a view's count. It takes no lock.
func release(readers *atomic.Int32) { readers.Add(-1) }
