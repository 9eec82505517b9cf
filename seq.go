package ttldb

// stamp gives d, a new document not yet shared, its _ts, now, and the next
// LSN, which its etag carries: unique within the collection, and unlikely
// to equal one of another collection. Call with mu held, so that LSNs
// follow the order changes take effect in (R11).
func (c *Collection) stamp(d *doc, now int64) {
	d.ts, d.tag = now, c.etagBase+c.nextLSN()
}

// nextLSN gives out the next LSN. Call with mu held.
func (c *Collection) nextLSN() uint64 {
	c.seq++
	return c.seq
}

// seqOf returns the LSN of a document of the collection: of the write that
// stored it.
func (c *Collection) seqOf(d *doc) uint64 { return d.tag - c.etagBase }

// document returns d as a [Document] of the collection.
func (c *Collection) document(d *doc) Document { return Document{d, c.etagBase} }
