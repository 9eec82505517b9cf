package local

import (
	"bytes"
	"sync/atomic"
	"unsafe"

	"github.com/google/btree"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// secondary is a secondary index (R13): one item for every document the
// primary index holds, live or expired but not yet swept, ordered by the
// document's value at one path, as ORDER BY sorts values (undefined first),
// then by the document's key. A query reads a range of it for its
// candidates and checks each against the whole WHERE clause, so the index
// only narrows what a query reads, and never changes its rows. Guarded by
// collection.mu; queries read views of tree (shared.go).
type secondary struct {
	ptr  string // the path as declared: a JSON Pointer, as /user/name
	path query.Path
	sharedTree[secItem]
	// bytes is the itemCost of the items, counted for a quota (quota.go)
	// once counted is set.
	bytes   int64
	counted bool
}

func newSecondary(ptr string, path query.Path) *secondary {
	return &secondary{ptr: ptr, path: path, sharedTree: sharedTree[secItem]{t: btree.NewG(btreeDegree, secLess)}}
}

// appendItemKey appends the key of d's item.
func (x *secondary) appendItemKey(dst []byte, d *engine.Doc) []byte {
	var tag [engine.ETagLen]byte
	return appendItemKeyOf(dst, query.RowOf(d, tag[:]).Value(x.path), d)
}

// appendItemKeyOf appends the key of the item of d, whose value at the
// index's path is v.
func appendItemKeyOf(dst []byte, v query.Value, d *engine.Doc) []byte {
	return append(query.AppendKey(dst, v), d.Key()...)
}

// secondaries are a collection's secondary indexes, and those being built.
// Guarded by collection.mu.
type secondaries struct {
	list     []*secondary         // set with setList
	ptrs     []string             // the paths of list's indexes: read, never written, by those it is given to
	qpaths   []query.Path         // and as parsed, for update
	va, vb   []query.Value        // scratch values, one per index
	tagA     [engine.ETagLen]byte // and room for the etags they may read
	tagB     [engine.ETagLen]byte
	building []*indexBuild
	loaded   []string // the paths a durable collection's files declare, until it has opened
	a, b     []byte   // scratch keys
	sized    bool     // count the indexes' bytes, for a quota (quota.go)
}

// find returns the index on ptr, or nil.
func (s *secondaries) find(ptr string) *secondary {
	for _, x := range s.list {
		if x.ptr == ptr {
			return x
		}
	}
	return nil
}

// hasAny reports whether there is an index on one of ptrs.
func (s *secondaries) hasAny(ptrs []string) bool {
	for _, p := range ptrs {
		if s.find(p) != nil {
			return true
		}
	}
	return false
}

// paths returns the paths of the indexes, in the order they were made, in
// O(1): a slice shared with every caller, which none may write to.
func (s *secondaries) paths() []string { return s.ptrs }

// setList makes list the indexes, and their paths what paths returns: a
// new slice, without room beyond its length, so that an append to it
// copies it.
func (s *secondaries) setList(list []*secondary) {
	if s.sized {
		for _, x := range list {
			x.count()
		}
	}
	s.list = list
	ptrs := make([]string, len(list))
	s.qpaths = make([]query.Path, len(list))
	for i, x := range list {
		ptrs[i], s.qpaths[i] = x.ptr, x.path
	}
	s.ptrs = ptrs
	s.va, s.vb = make([]query.Value, len(list)), make([]query.Value, len(list))
}

// update brings every index in line with the change of e's document from
// old to new; nil stands for none (a create, a delete). Each document is
// read once for the values of all the indexes; an index whose value did
// not change is not touched. It takes O(log n) per index changed. Call
// with mu held.
func (s *secondaries) update(e *entry, old, new *engine.Doc) {
	for _, b := range s.building {
		b.changed[e] = struct{}{}
	}
	if len(s.list) == 0 {
		return
	}
	if old != nil {
		query.RowOf(old, s.tagA[:]).Values(s.qpaths, s.va)
	}
	if new != nil {
		query.RowOf(new, s.tagB[:]).Values(s.qpaths, s.vb)
	}
	for i, x := range s.list {
		if old != nil {
			s.a = appendItemKeyOf(s.a[:0], s.va[i], old)
		}
		if new != nil {
			s.b = appendItemKeyOf(s.b[:0], s.vb[i], new)
		}
		if old != nil && new != nil && bytes.Equal(s.a, s.b) {
			continue
		}
		x.own()
		if old != nil {
			x.t.Delete(item(unsafe.String(unsafe.SliceData(s.a), len(s.a)), nil))
			if s.sized {
				x.bytes -= itemCost(len(s.a))
			}
		}
		if new != nil {
			x.t.ReplaceOrInsert(item(string(s.b), e))
			if s.sized {
				x.bytes += itemCost(len(s.b))
			}
		}
	}
	clear(s.va) // the values read the documents: let them go
	clear(s.vb)
}

// clear drops every index, for Close.
func (s *secondaries) clear() {
	for _, b := range s.building {
		b.abandon()
	}
	*s = secondaries{}
}

// indexBuild is a secondary index being built on a live collection: from a
// snapshot, outside the lock, while writers go on and note the entries they
// change, which the build then brings up to date under the lock.
type indexBuild struct {
	x         *secondary
	snap      snapshot
	changed   map[*entry]struct{} // guarded by collection.mu
	abandoned atomic.Bool         // by DropIndex or Close
}

func (b *indexBuild) abandon() { b.abandoned.Store(true) }
