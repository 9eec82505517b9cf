package ttldb

import (
	"context"
	"errors"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// indexPath checks the path of a secondary index: a JSON Pointer of member
// names, as /status or /user/name.
func indexPath(ptr string) (query.Path, error) {
	p, err := query.ParsePointer(ptr)
	if err != nil {
		return nil, errorf(ErrInvalidOption, "index path %q: %v", ptr, err)
	}
	return p, nil
}

// buildHook, when set (by tests), is called by an index build, outside
// the lock, after each buildEvery documents, with how many it has read.
var buildHook func(n int)

// buildEvery is how many documents an index build adds between two looks at
// its context and at whether it was abandoned.
const buildEvery = 1024

// CreateIndex declares a secondary index on the documents' values at path,
// a JSON Pointer of member names (/status, /user/name), and builds it. From
// then on queries (R13) may read it for their equalities, ranges,
// STARTSWITH and ORDER BY on that path; their rows stay the same, only
// their cost changes. A durable collection keeps the index across
// reopens (and rebuilds it as it opens).
//
// The build reads a snapshot without holding the collection's lock, so
// writers go on while it runs; it then takes the lock once, for the writes
// made meanwhile. It takes O(n log n) for n documents, and returns when
// the index is ready. Each index then costs each write that changes the
// value at its path O(log n), and holds one item (about 40 bytes beyond
// the value's and the key's bytes) per document.
//
// Errors: [ErrInvalidOption] for a nil ctx, a path that is not a JSON Pointer of
// member names, an index on path that exists or is being built, one
// dropped while it was built, or indexing mode none (R8); the context's
// error if ctx ends first; [ErrClosed]. An error leaves no index.
func (c *Collection) CreateIndex(ctx context.Context, path string) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "CreateIndex")
	}
	if c.unusable() {
		return c.errClosed("CreateIndex")
	}
	if _, err := indexPath(path); err != nil {
		return err
	}
	return c.eng.CreateIndex(ctx, path)
}

// CreateIndex implements [engine.Engine]: see [Collection.CreateIndex].
func (x *localEngine) CreateIndex(ctx context.Context, path string) (err error) {
	c := (*local)(x)
	if !ctxLive(ctx) {
		return contextError(ctx, "CreateIndex")
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
			b.x.tree.ReplaceOrInsert(item(string(kb), e))
		}
		if n++; n%buildEvery != 0 {
			return true
		}
		if buildHook != nil {
			buildHook(n)
		}
		return ctx.Err() == nil && !b.abandoned.Load() && !c.unusable()
	})
	return c.finishBuild(ctx, b)
}

// startBuild registers the build of an index on path, and takes its
// snapshot.
func (c *local) startBuild(ctx context.Context, ptr string, p query.Path) (*indexBuild, error) {
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
func (c *local) canIndex(ptr string) error {
	if c.mode == IndexingNone {
		return errorf(ErrInvalidOption, "index on %s: indexing mode none keeps no index (R8)", ptr)
	}
	if c.sec.find(ptr) != nil || slices.ContainsFunc(c.sec.building, func(b *indexBuild) bool { return b.x.ptr == ptr }) {
		return errorf(ErrInvalidOption, "an index on %s exists already", ptr)
	}
	return nil
}

// finishBuild brings b's index up to date with the writes made since its
// snapshot, and makes it one of the collection's.
func (c *local) finishBuild(ctx context.Context, b *indexBuild) (err error) {
	c.lock()
	defer c.settle(&err)
	c.sec.building = slices.DeleteFunc(c.sec.building, func(o *indexBuild) bool { return o == b })
	switch {
	case c.unusable():
		return c.errClosed("CreateIndex")
	case ctx.Err() != nil:
		return contextError(ctx, "CreateIndex")
	case b.abandoned.Load():
		return errorf(ErrInvalidOption, "the index on %s was dropped while it was built", b.x.ptr)
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
				b.x.tree.Delete(item(string(kb), nil))
			}
		}
	}
	for e := range b.changed {
		if now, _ := c.prim.get([]byte(e.key())); now == e {
			kb = b.x.appendItemKey(kb[:0], e.doc())
			b.x.tree.ReplaceOrInsert(item(string(kb), e))
		}
	}
	c.sec.setList(append(c.sec.list, b.x))
	c.journalSetting(func(r []byte) []byte { return appendIndex(r, true, b.x.ptr) })
	return nil
}

// DropIndex drops the secondary index on path, or stops its build, in
// O(1); queries no longer read it, and its memory goes back to the runtime
// once the queries in progress that read it end.
//
// Errors: [ErrInvalidOption] for a malformed path; [ErrNotFound] when no
// index on path exists; [ErrClosed].
func (c *Collection) DropIndex(ctx context.Context, path string) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "DropIndex")
	}
	if c.unusable() {
		return c.errClosed("DropIndex")
	}
	if _, err := indexPath(path); err != nil {
		return err
	}
	err := c.eng.DropIndex(ctx, path)
	if errors.Is(err, engine.ErrNotFound) {
		return errorf(ErrNotFound, "no index on %s", path)
	}
	return err
}

// DropIndex implements [engine.Engine], in O(1) under the lock.
func (x *localEngine) DropIndex(ctx context.Context, path string) (err error) {
	c := (*local)(x)
	if !ctxLive(ctx) {
		return contextError(ctx, "DropIndex")
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

// Indexes returns the paths of the collection's secondary indexes, in the
// order they were made; not those still being built. It takes O(k) for k
// indexes.
func (c *Collection) Indexes() []string {
	if c.eng == nil {
		return nil
	}
	return slices.Clone(c.eng.Settings().Indexes)
}

// declareIndexes builds, as the collection opens, the indexes its files
// declared and those of Options.Indexes they did not, which it records.
func (c *local) declareIndexes(opts []string) (err error) {
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
		if c.mode == IndexingNone {
			return errorf(ErrInvalidOption, "index on %s: indexing mode none keeps no index (R8)", ptr)
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
			x.tree.ReplaceOrInsert(item(string(kb), e))
		})
		c.sec.setList(append(c.sec.list, x))
	}
	c.sec.loaded = nil
	return nil
}
