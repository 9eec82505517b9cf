package local

import (
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
)

// entry is a key's place in the primary index. The map and the key tree
// hold one entry per stored key, and a write of the key stores its new
// document in that entry: an overwrite changes neither the map nor the tree,
// which cost most of a write when it did. Writers store cur under
// collection.mu; listings load it without the lock, through a snapshot,
// which finds the version it may read (snapshot.go).
//
// prev and next link the entries in the order of their last writes, for the
// latest-version change feed (latest.go); finger marks an entry a feed
// reader resumes from.
type entry struct {
	cur        atomic.Pointer[engine.Doc]
	prev, next *entry
	slot       int32 // its index in its expiry bucket, or -1 in none (buckets.go)
	finger     atomic.Bool
}

func newEntry(d *engine.Doc) *entry {
	e := new(entry)
	e.cur.Store(d)
	return e
}

// doc returns the document stored under the entry's key now.
func (e *entry) doc() *engine.Doc { return e.cur.Load() }

// key returns the entry's key, which every version of its document shares.
func (e *entry) key() string { return e.cur.Load().Key() }

// pivot returns an entry that holds only a key, to search the tree with.
func pivot(key string) *entry { return newEntry(keyDoc(key)) }

// keyDoc returns a document that holds only a key, to search a tree with.
func keyDoc(key string) *engine.Doc { return engine.NewDoc(key, engine.Layout{}, "", 0, 0, 0) }
