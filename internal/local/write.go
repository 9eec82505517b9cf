package local

import "github.com/ttldb/ttldb/engine"

// put stamps d, a new document not yet shared, at now, and stores it under
// its key, whose hash is h and whose entry is e (nil for none), as a
// replace of e's document if it is live, and as a create otherwise. Call
// with mu held.
func (c *collection) put(e *entry, d *engine.Doc, h uint64, now int64, live bool) {
	op := engine.OpReplace
	if !live {
		op = engine.OpCreate
		if e != nil { // the expired document goes, as if swept, before the create (R11)
			c.logDelete(e, now, true)
		}
	}
	c.stamp(d, now)
	c.store(e, d, h, op)
}

// store puts d, stamped, under its key, whose hash is h, in e's place (nil
// when the key has no entry), records the write as op in the feed, and
// helps the sweeper (see help). Call with mu held; d.ts is now.
func (c *collection) store(e *entry, d *engine.Doc, h uint64, op uint8) {
	if e != nil {
		old := e.doc()
		c.ver.keep(e, old, c.seqOf(old), c.seqOf(d))
		c.prim.swap(e, d, h)
		c.exp.move(e, old)
		c.sec.update(e, old, d)
		if op == engine.OpCreate {
			old = nil // a create over an expired document: its delete counted it out
		}
		c.journalPut(d, old, op)
	} else {
		e = c.prim.insert(d, h)
		c.exp.add(e)
		c.sec.update(e, nil, d)
		c.journalPut(d, nil, op)
	}
	c.logWrite(e, op)
	if at, ok := c.exp.due(d); ok && at < c.wakeAt {
		c.poke()
	}
	if !c.inBatch { // a batch's changes are not to be interleaved with the help's
		c.help(d.TS, 1)
	}
}
