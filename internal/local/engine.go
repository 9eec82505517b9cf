package local

import (
	"context"
	"fmt"

	"github.com/ttldb/ttldb/engine"
)

// Engine is the in-process engine as an [engine.Engine]: each method
// is the part of a call that the engine owns, under its lock or, for Get,
// under none. It is local under another name, so that the contract's
// methods and the machinery's (local's) stay apart; a conversion between
// them costs nothing.
type Engine collection

var _ engine.Engine = (*Engine)(nil)

// Get implements [engine.Engine]: no collection-wide lock (see
// ttldb.Collection.Get).
func (x *Engine) Get(ctx context.Context, key []byte) (*engine.Doc, error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return nil, engine.ContextError(ctx, "Get")
	}
	// No collection lock: the maps' own, shared, and the published rules.
	// The clock and the rules are read before the document: a document
	// written since is no older than that instant, and is judged by them
	// as it would have been then; read after, the instant could be one at
	// which the older document found had expired while its key was renewed.
	now, rules := c.now(), c.rules.Load()
	d, open := c.lookup(key)
	if !open || c.unusable() {
		return nil, c.errClosed("Get")
	}
	if d == nil {
		return nil, engine.ErrNotFound
	}
	if rules.limits(now).expired(d) {
		c.expired.Add(1)
		return nil, engine.ErrNotFound
	}
	return d, nil
}

// Write implements [engine.Engine], under the collection's lock, in
// O(log n + size of the document).
func (x *Engine) Write(ctx context.Context, key []byte, w engine.Write) (_ *engine.Doc, err error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return nil, engine.ContextError(ctx, w.Op.String())
	}
	if c.readOnly {
		return nil, c.errReadOnly(w.Op.String())
	}
	c.lock()
	defer c.settle(&err)
	if c.unusable() {
		return nil, c.errClosed(w.Op.String())
	}
	now := c.now()
	e, h := c.prim.get(key)
	var old *engine.Doc
	if e != nil {
		old = e.doc()
	}
	live := old != nil && !c.exp.limits(now).expired(old)
	if old != nil && !live {
		c.expired.Add(1)
	}
	switch {
	case w.Op == engine.Create && live:
		return nil, engine.ErrConflict
	case !live && (w.Op != engine.Create && w.Op != engine.Upsert || w.HasIfMatch):
		return nil, engine.ErrNotFound
	case w.HasIfMatch && !old.HasETag(w.IfMatch):
		return nil, &engine.ETagMismatch{Current: old.ETag()}
	}
	var d *engine.Doc
	switch w.Op {
	case engine.Create, engine.Replace, engine.Upsert:
		d = w.Doc
		if c.quota.on {
			if err := c.fit(w.Op.String(), e, d, now); err != nil {
				return nil, err
			}
		}
		c.put(e, d, h, now, live)
		return d, nil
	case engine.Delete:
		c.remove(e, now)
		return nil, nil
	case engine.Touch:
		d = engine.NewDoc(old.Key(), old.Layout, old.Body(), old.TTL, 0, 0)
	case engine.Modify:
		if d, err = w.Change(old, now); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: write of unknown op %d", engine.ErrInvalidOption, w.Op)
	}
	if c.quota.on {
		if err := c.fit(w.Op.String(), e, d, now); err != nil {
			return nil, err
		}
	}
	c.stamp(d, now)
	c.store(e, d, h, engine.OpReplace)
	return d, nil
}

// Settings implements [engine.Engine].
func (x *Engine) Settings() engine.Settings {
	c := (*collection)(x)
	c.mu.RLock()
	defer c.mu.RUnlock()
	return engine.Settings{
		Name: c.name, PartitionKeyPath: c.path, ID: c.tokenID, ETagBase: c.etagBase,
		DefaultTTL: c.exp.def, Indexing: c.mode, Feed: c.feed.on, Indexes: c.sec.paths(),
	}
}

// SetDefaultTTL implements [engine.Engine], in O(1) under the lock.
func (x *Engine) SetDefaultTTL(ctx context.Context, ed engine.DefaultTTL) (err error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.ContextError(ctx, "SetDefaultTTL")
	}
	if c.readOnly {
		return c.errReadOnly("SetDefaultTTL")
	}
	d := ed
	c.lock()
	defer c.settle(&err)
	if c.unusable() {
		return c.errClosed("SetDefaultTTL")
	}
	if !c.mode.Allows(d) {
		return errorf(engine.ErrInvalidOption, "DefaultTTL %v needs indexing mode consistent, and the mode is none (R8)", d)
	}
	now := c.now()
	c.exp.setDefault(d, now)
	c.journalSetting(func(b []byte) []byte { return appendDefault(b, d, now) })
	c.publish()
	c.poke()
	return nil
}

// SetIndexing implements [engine.Engine], in O(1) under the lock.
func (x *Engine) SetIndexing(ctx context.Context, em engine.Indexing) (err error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.ContextError(ctx, "SetIndexingMode")
	}
	if c.readOnly {
		return c.errReadOnly("SetIndexingMode")
	}
	m := em
	c.lock()
	defer c.settle(&err)
	if c.unusable() {
		return c.errClosed("SetIndexingMode")
	}
	if !m.Allows(c.exp.def) {
		return errorf(engine.ErrInvalidOption, "DefaultTTL %v needs indexing mode consistent, and the mode is none (R8)", c.exp.def)
	}
	if m == engine.None && len(c.sec.list)+len(c.sec.building) > 0 {
		return errorf(engine.ErrInvalidOption, "indexing mode none keeps no index, and the collection has %d secondary indexes: drop them first (R8)", len(c.sec.list)+len(c.sec.building))
	}
	c.mode = m
	c.journalSetting(func(b []byte) []byte { return appendIndexing(b, m) })
	return nil
}

// Close implements [engine.Engine]: see ttldb.Collection.Close.
func (x *Engine) Close() error {
	c := (*collection)(x)
	c.closeOnce.Do(func() {
		c.lock()
		c.closed.Store(true)
		c.mu.Unlock()
		c.feed.wakeAll() // a watcher reads again, and finds the collection closed
		close(c.stop)
		<-c.done
		c.building.Wait() // a build of the key order stops at its next hold
		if c.j != nil {
			c.bg.Wait()
			c.compacting <- struct{}{} // a Compact in progress stops; none starts: the token stays
			c.saveClock()
			if err := c.j.close(); err != nil {
				c.closeErr = fmt.Errorf("%w: Close of collection %q: %w", engine.ErrClosed, c.name, err)
			}
		}
		c.mu.Lock()
		c.prim.clear()
		c.sec.clear()
		c.exp = expiryIndex{def: c.exp.def} // the setting stays readable
		c.feed.clear()
		// c.ver stays: listings in progress read the versions kept for them,
		// which go when the last of them ends.
		c.mu.Unlock()
	})
	return c.closeErr
}

// Unusable reports whether calls must fail with [engine.ErrClosed]: after
// Close, or once the collection's files failed. It takes no lock.
func (x *Engine) Unusable() bool { return (*collection)(x).unusable() }

// ErrClosed returns the [engine.ErrClosed] of op on a collection that is
// unusable, saying why: Close, or the failure of its files.
func (x *Engine) ErrClosed(op string) error { return (*collection)(x).errClosed(op) }
