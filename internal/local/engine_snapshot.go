package local

import (
	"context"
	"sync/atomic"

	"github.com/google/btree"
	"github.com/ttldb/ttldb/engine"
)

// engineSnapshot is the in-process engine's [engine.Snapshot]: a snapshot
// (snapshot.go) and the views of the secondary indexes it reads
// (shared.go).
type engineSnapshot struct {
	s       snapshot
	paths   []string
	trees   []*btree.BTreeG[secItem] // trees[i] is the view of the index on paths[i]
	readers []*atomic.Int32          // and readers[i] its count, to release
	steps   int                      // index items read, for snapshot.halted

	pathRoom    [2]string // what paths, trees and readers hold for a query, which reads two indexes at most
	treeRoom    [2]*btree.BTreeG[secItem]
	readersRoom [2]*atomic.Int32
	viewRoom    [2]btree.BTreeG[secItem]
}

// Snapshot implements [engine.Engine]: it takes, under the lock, views of
// the indexes asked for that the collection has (O(1) each: a write
// copies what it changes only while a view is open, see sharedTree), or
// else a view of the key order, once built (see needOrder), in O(1) too.
func (x *Engine) Snapshot(ctx context.Context, paths []string, keys bool) (engine.Snapshot, error) {
	c := (*collection)(x)
	for {
		if !ctxLive(ctx) {
			return nil, engine.ContextError(ctx, "Query")
		}
		c.lock() // a view sets its tree's readers
		if c.unusable() {
			c.mu.Unlock()
			return nil, c.errClosed("Query")
		}
		ls := &engineSnapshot{}
		ls.paths, ls.trees, ls.readers = ls.pathRoom[:0], ls.treeRoom[:0], ls.readersRoom[:0]
		scan := keys || !c.sec.hasAny(paths)
		if scan && !c.prim.order.built() {
			c.mu.Unlock()
			if err := c.needOrder(ctx, "Query"); err != nil {
				return nil, err
			}
			continue // the indexes may have changed meanwhile
		}
		for _, p := range paths {
			if sx := c.sec.find(p); sx != nil {
				var t *btree.BTreeG[secItem]
				if i := len(ls.trees); i < len(ls.viewRoom) {
					t = &ls.viewRoom[i]
				} else {
					t = new(btree.BTreeG[secItem])
				}
				var r *atomic.Int32
				*t, r = sx.view()
				ls.paths = append(ls.paths, p)
				ls.trees = append(ls.trees, t)
				ls.readers = append(ls.readers, r)
			}
		}
		if scan {
			ls.s = c.openSnapshot()
		} else {
			ls.s = c.openView()
		}
		c.mu.Unlock()
		return ls, nil
	}
}

// Indexes implements [engine.Snapshot].
func (ls *engineSnapshot) Indexes() []string { return ls.paths }

// Scan implements [engine.Snapshot].
func (ls *engineSnapshot) Scan(ctx context.Context, prefix, after string, resume bool, fn func(*engine.Doc) bool) error {
	ls.s.ctx = ctx
	if ls.s.tree == nil {
		return errorf(engine.ErrInvalidOption, "a scan of a snapshot opened without keys")
	}
	if ls.s.scan(scanRange{prefix: prefix, after: after, resume: resume}, fn) {
		return ls.s.stopped("Query")
	}
	return nil
}

// tree returns the view of the index on path, or nil.
func (ls *engineSnapshot) tree(path string) *btree.BTreeG[secItem] {
	for i, p := range ls.paths {
		if p == path {
			return ls.trees[i]
		}
	}
	return nil
}

// Index implements [engine.Snapshot].
func (ls *engineSnapshot) Index(ctx context.Context, path string, ranges []engine.Range, desc bool, seek string, fn func(d *engine.Doc, item string) bool) error {
	t := ls.tree(path)
	if t == nil {
		return errorf(engine.ErrInvalidOption, "a read of index %s, which the snapshot does not hold", path)
	}
	ls.s.ctx = ctx
	closed := false
	visit := func(it secItem) bool {
		if seek != "" && it.key() == seek {
			return true
		}
		d := ls.s.doc(it.e)
		if ls.steps++; d == nil || ls.s.halted(ls.steps) {
			closed = true
			return false
		}
		return fn(d, it.key())
	}
	resume := seek != ""
	if !desc {
		for _, rg := range ranges {
			if resume && rg.To != nil && string(rg.To) <= seek {
				continue
			}
			if resume && string(rg.From) < seek {
				rg.From = []byte(seek)
			}
			goOn := true
			ascend(t, rg, func(it secItem) bool { goOn = visit(it); return goOn })
			if closed || !goOn {
				break
			}
		}
	} else {
		for i := len(ranges) - 1; i >= 0; i-- {
			rg := ranges[i]
			if resume && string(rg.From) > seek {
				continue
			}
			goOn := true
			descend(t, rg, seek, resume, func(it secItem) bool { goOn = visit(it); return goOn })
			if closed || !goOn {
				break
			}
		}
	}
	if closed {
		return ls.s.stopped("Query")
	}
	return nil
}

// Count implements [engine.Snapshot]. It reads memory: ctx is not looked
// at, and it costs up to most steps of the index.
func (ls *engineSnapshot) Count(_ context.Context, path string, ranges []engine.Range, most int) int {
	t := ls.tree(path)
	if t == nil {
		return 0
	}
	n := 0
	for _, rg := range ranges {
		ascend(t, rg, func(secItem) bool { n++; return n < most })
		if n >= most {
			break
		}
	}
	return n
}

// Expired implements [engine.Snapshot].
func (ls *engineSnapshot) Expired(d *engine.Doc) bool { return ls.s.lim.expired(d) }

// Judge implements [engine.Snapshot].
func (ls *engineSnapshot) Judge() { ls.s.lim = ls.s.c.rules.Load().limits(ls.s.c.now()) }

// Release implements [engine.Snapshot].
func (ls *engineSnapshot) Release() {
	for i, r := range ls.readers {
		release(r)
		ls.readers[i], ls.trees[i] = nil, nil
	}
	ls.readers, ls.trees = nil, nil
	ls.s.release()
}

// ascend calls fn for the items of t in rg, in order, until it returns
// false.
func ascend(t *btree.BTreeG[secItem], rg engine.Range, fn func(secItem) bool) {
	from := item(viewString(rg.From), nil)
	if rg.To == nil {
		t.AscendGreaterOrEqual(from, fn)
	} else {
		t.AscendRange(from, item(viewString(rg.To), nil), fn)
	}
}

// descend calls fn for the items of t in rg, at or below seek if bounded,
// in descending order, until it returns false.
func descend(t *btree.BTreeG[secItem], rg engine.Range, seek string, bounded bool, fn func(secItem) bool) {
	from := string(rg.From)
	visit := func(it secItem) bool {
		if it.key() < from {
			return false
		}
		if rg.To != nil && it.key() >= string(rg.To) {
			return true
		}
		return fn(it)
	}
	switch {
	case bounded:
		t.DescendLessOrEqual(item(seek, nil), visit)
	case rg.To != nil:
		t.DescendLessOrEqual(item(string(rg.To), nil), visit)
	default:
		t.Descend(visit)
	}
}
