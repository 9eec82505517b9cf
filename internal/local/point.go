package local

import "github.com/ttldb/ttldb/engine"

// lookup is prim.lookup, but never amid a batch's changes: it reads
// again when a batch applied changes while it read, and waits for a batch
// applying them now, so that a reader sees all of a batch or none of it
// (R14). With no batch, it costs two loads of a word no write but a
// batch's touches.
func (c *collection) lookup(key []byte) (d *engine.Doc, open bool) {
	for {
		seq := c.batching.Load()
		if seq&1 != 0 { // a batch holds mu while it applies its changes
			c.mu.RLock()
			c.mu.RUnlock() //lint:ignore SA2001 the wait is the point
			continue
		}
		d, open = c.prim.lookup(key)
		if c.batching.Load() == seq {
			return d, open
		}
	}
}

// remove deletes e's document, live, at now: the deletion a caller asked
// for. Call with mu held.
func (c *collection) remove(e *entry, now int64) {
	c.logDelete(e, now, false)
	c.sec.update(e, e.doc(), nil)
	c.prim.remove(e)
	c.exp.remove(e, e.doc())
}

// ExpiresAt implements [engine.Engine], in O(1) under the read lock.
func (x *Engine) ExpiresAt(d *engine.Doc) (int64, bool) {
	c := (*collection)(x)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.unusable() { // Close empties the index
		return 0, false
	}
	return c.exp.expiresAt(d, c.now())
}
