package local

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
	"github.com/ttldb/ttldb/engine"
)

// A snapshot is a consistent view of the collection for a listing: the key
// tree as it was (a view of it, which writes leave as it is: shared.go), which documents
// were expired at that instant, and seq, the last write it sees. It is read
// without the collection's lock.
//
// A write of an existing key stores the new document in the key's entry, in
// place, and the snapshot's tree holds the same entry. So the snapshot reads
// an entry's document only if it was written at or before seq; otherwise it
// reads the older version the collection kept for it: while snapshots are
// open, a write that replaces a document some of them may read keeps it in
// versions. Entries created after the snapshot are not in its tree; entries
// deleted after it still are, with their last document.
type snapshot struct {
	c       *collection
	tree    *btree.BTreeG[*entry] // a view of the key order (shared.go), or nil
	readers *atomic.Int32         // the view's count, which release gives back
	lim     limits
	seq     uint64
	ctx     context.Context // the context of the call reading it (R16); nil: none
}

// versions are the older documents of entries written while snapshots are
// open. A document is kept while an open snapshot may read it: one taken
// after it was written and before it was replaced. Guarded by mu, its own
// lock, so that listings reading versions and ending never take the
// collection's: writers take mu (under collection.mu) only while a snapshot
// is open, which nopen tells them without a lock.
type versions struct {
	mu     sync.RWMutex
	nopen  atomic.Int32
	open   map[uint64]int           // the seq of each open snapshot, and how many are open at it
	newest uint64                   // the largest seq in open
	kept   map[*entry][]*engine.Doc // older documents, oldest first
	log    []replaced               // the kept documents, in the order they were replaced: log[head:]
	head   int
}

// replaced is a kept document: entry e's, until the write of seq by.
type replaced struct {
	e  *entry
	by uint64
}

// keep records that old, e's document written at seq, is replaced by the
// write of seq by; it is kept if an open snapshot may read it, one taken
// since old was written.
func (v *versions) keep(e *entry, old *engine.Doc, seq, by uint64) {
	if v.nopen.Load() == 0 {
		return // snapshots open under collection.mu, which the writer holds
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.open) == 0 || v.newest < seq {
		return
	}
	if v.kept == nil {
		v.kept = make(map[*entry][]*engine.Doc)
	}
	v.kept[e] = append(v.kept[e], old)
	v.log = append(v.log, replaced{e, by})
}

// prune drops the kept documents that no open snapshot can read any more:
// those replaced at or before the oldest open snapshot was taken, which
// reads their replacements or later. So what is kept is bounded by the
// writes since the oldest listing still open began, however listings
// overlap; nothing, once none is open.
func (v *versions) prune() {
	if len(v.open) == 0 {
		v.kept, v.log, v.head = nil, nil, 0
		return
	}
	oldest := uint64(math.MaxUint64)
	for seq := range v.open {
		oldest = min(oldest, seq)
	}
	for ; v.head < len(v.log) && v.log[v.head].by <= oldest; v.head++ {
		e := v.log[v.head].e
		v.log[v.head] = replaced{}
		if ks := v.kept[e]; len(ks) > 1 { // the first is the one replaced first
			ks[0] = nil
			v.kept[e] = ks[1:]
		} else {
			delete(v.kept, e)
		}
	}
	if v.head > len(v.log)/2 {
		n := copy(v.log, v.log[v.head:])
		clear(v.log[n:])
		v.log, v.head = v.log[:n], 0
	}
}

// CtxCheckEvery is how many documents a read of a snapshot steps over
// between two looks at its caller's context: a read stops within that many
// documents of its context's end (R16), and the looks cost nothing
// measurable.
const CtxCheckEvery = 256

// halted reports whether the context of the call reading the snapshot is
// done, looking at it only when n, the caller's count of the documents it
// stepped over, is a multiple of CtxCheckEvery.
func (s *snapshot) halted(n int) bool {
	return n%CtxCheckEvery == 0 && s.ctx != nil && s.ctx.Err() != nil
}

// stopped returns the error of a read of the snapshot that could not go on:
// its context's error if that is done (see halted), and otherwise
// [engine.ErrClosed], as a version it needed is gone with the collection.
func (s *snapshot) stopped(op string) error {
	if s.ctx != nil && s.ctx.Err() != nil {
		return engine.ContextError(s.ctx, op)
	}
	return s.c.errClosed(op)
}

// openSnapshot takes a snapshot in O(1). Call with mu held for writing (a
// view sets the key order's readers), the key order
// built (needOrder), and the collection usable: the order goes only when
// Close clears the collection.
func (c *collection) openSnapshot() snapshot {
	s := c.openView()
	t, r := c.prim.order.view()
	s.tree, s.readers = &t, r
	return s
}

// openView takes a snapshot without the key tree, for a reader that finds
// its entries otherwise (through a secondary index), in O(1). Call with mu
// held.
func (c *collection) openView() snapshot {
	v := &c.ver
	v.mu.Lock()
	if v.open == nil {
		v.open = make(map[uint64]int)
	}
	v.open[c.seq]++
	v.newest = max(v.newest, c.seq)
	v.nopen.Add(1)
	v.mu.Unlock()
	return snapshot{c: c, lim: c.limits(), seq: c.seq}
}

// release ends the snapshot, and drops the versions it was the last to need.
// It takes no collection lock.
func (s snapshot) release() {
	if s.readers != nil {
		release(s.readers)
	}
	v := &s.c.ver
	v.mu.Lock()
	defer v.mu.Unlock()
	v.nopen.Add(-1)
	if v.open[s.seq]--; v.open[s.seq] <= 0 {
		delete(v.open, s.seq)
		v.newest = 0
		for seq := range v.open {
			v.newest = max(v.newest, seq)
		}
	}
	v.prune()
}

// doc returns e's document as of the snapshot, or nil when there is none
// to read, which only a bug could make happen.
func (s snapshot) doc(e *entry) *engine.Doc {
	d := e.doc()
	if s.c.seqOf(d) <= s.seq {
		return d
	}
	s.c.ver.mu.RLock()
	defer s.c.ver.mu.RUnlock()
	kept := s.c.ver.kept[e]
	for i := len(kept) - 1; i >= 0; i-- {
		if s.c.seqOf(kept[i]) <= s.seq {
			return kept[i]
		}
	}
	return nil
}

// scan calls fn for each live document of p, in key order, until fn returns
// false. closed is true when it stopped at a document whose version it
// could not find, or as its context ended (see halted): the caller reports
// stopped's error rather than end silently.
func (s *snapshot) scan(p scanRange, fn func(*engine.Doc) bool) (closed bool) {
	from := pivot(p.prefix)
	if p.resume {
		from = pivot(p.after)
	}
	n := 0
	s.tree.AscendGreaterOrEqual(from, func(e *entry) bool {
		if n++; s.halted(n) {
			closed = true
			return false
		}
		key := e.key()
		switch {
		case !strings.HasPrefix(key, p.prefix):
			return false
		case p.resume && key == p.after:
			return true
		}
		d := s.doc(e)
		if d == nil {
			closed = true
			return false
		}
		if s.lim.expired(d) {
			return true
		}
		return fn(d)
	})
	return closed
}

// scanRange is what a scan reads: the keys that start with prefix, from
// the first, or, with resume, from the first after after.
type scanRange struct {
	prefix, after string
	resume        bool
}
