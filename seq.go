package ttldb

// stamp gives d, a new document not yet shared, its _ts, now, and the next
// write sequence number, whose etag it carries: unique within the
// collection, and unlikely to equal one of another collection. Call with mu
// held, so that sequence numbers follow the order writes take effect in.
func (c *Collection) stamp(d *doc, now int64) {
	c.seq++
	d.ts, d.tag = now, c.etagBase+c.seq
}

// seqOf returns the write sequence number of a document of the collection.
func (c *Collection) seqOf(d *doc) uint64 { return d.tag - c.etagBase }
