package local

import (
	"context"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// BuildHook, when set (by tests), is called by an index build, outside
// the lock, after each BuildEvery documents, with how many it has read.
var BuildHook func(n int)

// BuildEvery is how many documents an index build adds between two looks at
// its context and at whether it was abandoned.
const BuildEvery = 1024

// CreateIndex implements [engine.Engine]: see ttldb.Collection.CreateIndex.
func (x *Engine) CreateIndex(ctx context.Context, path string) (err error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.ContextError(ctx, "CreateIndex")
	}
	if c.readOnly {
		return c.errReadOnly("CreateIndex")
	}
	p, err := indexPath(path)
	if err != nil {
		return err
	}
	b, err := c.startBuild(ctx, path, p)
	if err != nil {
		return err
	}
	defer b.snap.release()
	var kb []byte
	n := 0
	b.snap.tree.Ascend(func(e *entry) bool {
		if d := b.snap.doc(e); d != nil {
			kb = b.x.appendItemKey(kb[:0], d)
			b.x.t.ReplaceOrInsert(item(string(kb), e))
		}
		if n++; n%BuildEvery != 0 {
			return true
		}
		if BuildHook != nil {
			BuildHook(n)
		}
		return ctx.Err() == nil && !b.abandoned.Load() && !c.unusable()
	})
	return c.finishBuild(ctx, b)
}

// startBuild registers the build of an index on path, and takes its
// snapshot.
func (c *collection) startBuild(ctx context.Context, ptr string, p query.Path) (*indexBuild, error) {
	if err := c.needOrder(ctx, "CreateIndex"); err != nil {
		return nil, err
	}
	c.lock()
	defer c.mu.Unlock()
	if c.unusable() {
		return nil, c.errClosed("CreateIndex")
	}
	if err := c.canIndex(ptr); err != nil {
		return nil, err
	}
	b := &indexBuild{x: newSecondary(ptr, p), changed: make(map[*entry]struct{}), snap: c.openSnapshot()}
	c.sec.building = append(c.sec.building, b)
	return b, nil
}

// canIndex says whether an index on ptr may be declared. Call with mu held.
func (c *collection) canIndex(ptr string) error {
	if c.mode == engine.None {
		return errorf(engine.ErrInvalidOption, "index on %s: indexing mode none keeps no index (R8)", ptr)
	}
	if c.sec.find(ptr) != nil || slices.ContainsFunc(c.sec.building, func(b *indexBuild) bool { return b.x.ptr == ptr }) {
		return errorf(engine.ErrInvalidOption, "an index on %s exists already", ptr)
	}
	return nil
}

// finishBuild brings b's index up to date with the writes made since its
// snapshot, and makes it one of the collection's.
func (c *collection) finishBuild(ctx context.Context, b *indexBuild) (err error) {
	c.lock()
	defer c.settle(&err)
	c.sec.building = slices.DeleteFunc(c.sec.building, func(o *indexBuild) bool { return o == b })
	switch {
	case c.unusable():
		return c.errClosed("CreateIndex")
	case ctx.Err() != nil:
		return engine.ContextError(ctx, "CreateIndex")
	case b.abandoned.Load():
		return errorf(engine.ErrInvalidOption, "the index on %s was dropped while it was built", b.x.ptr)
	}
	// First every item the build made of a changed entry goes, then every
	// changed entry still stored gets its item: in one pass, an entry made
	// anew for a deleted key could get its item before the old entry's
	// identical one goes, and lose it.
	var kb []byte
	for e := range b.changed {
		if was, ok := b.snap.tree.Get(e); ok && was == e {
			if d := b.snap.doc(e); d != nil {
				kb = b.x.appendItemKey(kb[:0], d)
				b.x.t.Delete(item(string(kb), nil))
			}
		}
	}
	for e := range b.changed {
		if now, _ := c.prim.get([]byte(e.key())); now == e {
			kb = b.x.appendItemKey(kb[:0], e.doc())
			b.x.t.ReplaceOrInsert(item(string(kb), e))
		}
	}
	c.sec.setList(append(c.sec.list, b.x))
	c.journalSetting(func(r []byte) []byte { return appendIndex(r, true, b.x.ptr) })
	return nil
}

// DropIndex implements [engine.Engine], in O(1) under the lock.
func (x *Engine) DropIndex(ctx context.Context, path string) (err error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.ContextError(ctx, "DropIndex")
	}
	if c.readOnly {
		return c.errReadOnly("DropIndex")
	}
	c.lock()
	defer c.settle(&err)
	if c.unusable() {
		return c.errClosed("DropIndex")
	}
	for i, b := range c.sec.building {
		if b.x.ptr == path {
			b.abandon()
			c.sec.building = slices.Delete(c.sec.building, i, i+1) // the path is free at once
			return nil
		}
	}
	if c.sec.find(path) == nil {
		return engine.ErrNotFound
	}
	c.sec.setList(slices.DeleteFunc(slices.Clone(c.sec.list), func(x *secondary) bool { return x.ptr == path }))
	c.journalSetting(func(r []byte) []byte { return appendIndex(r, false, path) })
	return nil
}

// declareIndexes builds, as the collection opens, the indexes its files
// declared and those of Options.Indexes they did not, which it records.
func (c *collection) declareIndexes(opts []string) (err error) {
	c.lock()
	defer c.settle(&err)
	// Every path is checked before anything is recorded: a refused open
	// leaves the directory as it found it.
	var added []string
	for _, ptr := range opts {
		if !slices.Contains(c.sec.loaded, ptr) {
			added = append(added, ptr)
		}
	}
	xs := make([]*secondary, 0, len(c.sec.loaded)+len(added))
	for _, ptr := range append(slices.Clone(c.sec.loaded), added...) {
		p, err := indexPath(ptr)
		if err != nil {
			return err
		}
		if c.mode == engine.None {
			return errorf(engine.ErrInvalidOption, "index on %s: indexing mode none keeps no index (R8)", ptr)
		}
		xs = append(xs, newSecondary(ptr, p))
	}
	for _, ptr := range added {
		c.journalSetting(func(r []byte) []byte { return appendIndex(r, true, ptr) })
	}
	if len(added) > 0 && c.recovery.Snapshot != "" { // a reopen, not a new directory
		c.changed("Indexes", indexList(c.sec.loaded), indexList(append(slices.Clone(c.sec.loaded), added...)))
	}
	var kb []byte
	for _, x := range xs {
		c.prim.keys.each(func(d *engine.Doc, e *entry) {
			kb = x.appendItemKey(kb[:0], d)
			x.t.ReplaceOrInsert(item(string(kb), e))
		})
		c.sec.setList(append(c.sec.list, x))
	}
	c.sec.loaded = nil
	return nil
}

// indexPath parses the path of a secondary index, a JSON Pointer of member
// names.
func indexPath(ptr string) (query.Path, error) {
	p, err := query.ParsePointer(ptr)
	if err != nil {
		return nil, errorf(engine.ErrInvalidOption, "index path %q: %v", ptr, err)
	}
	return p, nil
}
