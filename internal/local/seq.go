package local

import "github.com/ttldb/ttldb/engine"

// stamp gives d, a new document not yet shared, its _ts, now, and the next
// LSN, which its etag carries: unique within the collection, and unlikely
// to equal one of another collection. Call with mu held, so that LSNs
// follow the order changes take effect in (R11).
func (c *collection) stamp(d *engine.Doc, now int64) {
	d.TS, d.Tag = now, c.etagBase+c.nextLSN()
}

// nextLSN gives out the next LSN. Call with mu held.
func (c *collection) nextLSN() uint64 {
	c.seq++
	return c.seq
}

// seqOf returns the LSN of a document of the collection: of the write that
// stored it.
func (c *collection) seqOf(d *engine.Doc) uint64 { return d.Tag - c.etagBase }
