package local

import (
	"fmt"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// Check checks the engine's structures against each other, under the read
// lock, in O(n log n): the key map and the key order hold the same
// entries, in key order; each secondary index holds one item per stored
// document, with the document's value; every document that can expire is at its slot in
// the bucket of its second, and no other; the order of last writes links
// every stored entry once, by increasing LSN; the feed's log holds one
// record per LSN from its first to the last given out, each carrying its
// LSN, and counts their bytes. It returns the first fault found: nil
// means none. It may be called at any time, a build of the key order or
// of an index in progress included. The tests of the engine and of the
// API call it after their runs; a tool may call it on a collection it
// opened.
func (x *Engine) Check() error {
	c := (*collection)(x)
	c.mu.RLock()
	defer c.mu.RUnlock()
	var k checker
	c.checkOrder(&k)
	c.checkEntries(&k)
	c.checkSecondaries(&k)
	c.checkFeed(&k)
	return k.err
}

// checker keeps the first fault a check finds.
type checker struct{ err error }

// that records a fault unless ok; it returns ok, so that a check can skip
// what depends on it.
func (k *checker) that(ok bool, format string, args ...any) bool {
	if !ok && k.err == nil {
		k.err = fmt.Errorf("ttldb: the engine's structures disagree: "+format, args...)
	}
	return ok
}

// checkOrder checks that the key order, once built, holds exactly the
// entries of the key map, in key order.
func (c *collection) checkOrder(k *checker) {
	tree := c.prim.order.t
	k.that(tree != nil == c.prim.order.ready.Load(), "ready says %v, and the order is built: %v", c.prim.order.ready.Load(), tree != nil)
	if tree == nil { // not built, or a build in progress: nothing to hold to yet
		return
	}
	k.that(c.prim.len() == tree.Len(), "the key order holds %d keys, the map %d", tree.Len(), c.prim.len())
	var prev *entry
	tree.Ascend(func(e *entry) bool {
		if prev != nil {
			k.that(prev.key() < e.key(), "the key order has %q before %q", prev.key(), e.key())
		}
		got, _ := c.prim.get([]byte(e.key()))
		k.that(got == e, "%q's entry in the key order is not its entry in the key map", e.key())
		prev = e
		return k.err == nil
	})
}

// checkEntries checks each stored entry against the key map and the
// expiry index.
func (c *collection) checkEntries(k *checker) {
	x := &c.exp
	expiring := 0
	c.prim.keys.each(func(d *engine.Doc, e *entry) {
		if k.err != nil {
			return
		}
		k.that(e.doc() == d, "%q's entry holds another document", d.Key())
		got, _ := c.prim.get([]byte(d.Key()))
		k.that(got == e, "%q's key finds another entry", d.Key())
		bs := x.side(d)
		if bs == nil {
			k.that(e.slot == -1, "%q never expires, and is at slot %d of a bucket", d.Key(), e.slot)
			return
		}
		expiring++
		b := bs.find(expAt(d))
		if k.that(b != nil, "%q, due at %d, has no bucket", d.Key(), expAt(d)) {
			k.that(e.slot >= 0 && b.entryAt(e.slot) == e, "%q is not at its slot %d in the bucket of its second", d.Key(), e.slot)
		}
	})
	k.that(expiring == x.own.n+x.inherit.n, "the buckets hold %d documents, and %d can expire", x.own.n+x.inherit.n, expiring)
}

// checkFeed checks the change feed's structures against the primary
// index: the order of last writes links exactly the stored entries, both
// ways, in increasing LSN order, every LSN at most the last given out; the
// fingers keep their promise; the log holds one record per LSN from first
// to last, each document carrying its LSN.
func (c *collection) checkFeed(k *checker) {
	f := &c.feed
	if !f.on {
		k.that(f.latest.head == nil, "a feed that is off links entries")
		return
	}
	pos := make(map[*entry]uint64)
	var prev *entry
	var last uint64
	for e := f.latest.head; e != nil && k.err == nil; e = e.next {
		k.that(e.prev == prev, "the links of the order of last writes disagree at %q", e.key())
		lsn := c.seqOf(e.doc())
		k.that(lsn > last, "the order of last writes has LSN %d after %d", lsn, last)
		pos[e], last, prev = lsn, lsn, e
	}
	k.that(f.latest.tail == prev, "the order of last writes ends at another entry than its tail")
	k.that(last <= c.seq, "the order of last writes holds LSN %d, beyond the last given out, %d", last, c.seq)
	k.that(len(pos) == c.prim.len(), "the order of last writes links %d entries, and %d are stored", len(pos), c.prim.len())
	c.prim.keys.each(func(d *engine.Doc, e *entry) {
		_, ok := pos[e]
		k.that(ok, "%q is stored and not in the order of last writes", d.Key())
	})
	f.latest.fmu.Lock()
	for _, fg := range f.latest.fingers {
		if !fg.set || fg.e == nil {
			continue
		}
		at, ok := pos[fg.e]
		if k.that(ok, "a finger points at an entry not linked") {
			k.that(at <= fg.lsn, "a finger at LSN %d points at an entry of LSN %d", fg.lsn, at)
			k.that(fg.e.finger.Load(), "a finger's entry is not marked")
		}
	}
	f.latest.fmu.Unlock()

	l := &f.log
	k.that(l.last == c.seq, "the log's last LSN is %d, and %d were given out", l.last, c.seq)
	k.that(l.first <= l.last+1, "the log starts at LSN %d after its last, %d", l.first, l.last)
	k.that(uint64(len(l.chunks)-l.head) <= (l.last+1-l.first)/logChunk+2, "the log keeps %d chunks for %d records: the trimmed ones were not freed", len(l.chunks)-l.head, l.last+1-l.first)
	k.that(!slices.ContainsFunc(l.chunks[:l.head], func(c *[logChunk]record) bool { return c != nil }), "the log holds on to a chunk it dropped")
	k.that(l.spare == nil || *l.spare == [logChunk]record{}, "the log's spare chunk holds records")
	k.that(l.head < 8 || 2*l.head < len(l.chunks), "the log's slice keeps %d dropped chunks before %d kept: it is not copied down", l.head, len(l.chunks)-l.head)
	k.that(!slices.ContainsFunc(l.chunks[len(l.chunks):cap(l.chunks)], func(c *[logChunk]record) bool { return c != nil }), "the log's slice holds on to chunks past its end")
	var bytes int64
	for lsn := l.first; lsn <= l.last && k.err == nil; lsn++ {
		r := l.at(lsn)
		if !k.that(r.d != nil, "LSN %d has no record", lsn) {
			break
		}
		if r.op == engine.OpDelete {
			k.that(c.seqOf(r.d) < lsn, "record %d deletes a version of LSN %d", lsn, c.seqOf(r.d))
		} else {
			k.that(c.seqOf(r.d) == lsn, "record %d carries LSN %d", lsn, c.seqOf(r.d))
			k.that(r.d.TS == r.ts, "record %d has _ts %d and its document %d", lsn, r.ts, r.d.TS)
		}
		k.that(recordSize(r.d) == r.size, "record %d counts %d bytes, not %d", lsn, r.size, recordSize(r.d))
		bytes += int64(r.size)
	}
	if k.err == nil {
		k.that(bytes == l.bytes, "the log counts %d bytes, and keeps %d", l.bytes, bytes)
	}
}

// checkSecondaries checks that every secondary index holds exactly one
// item per stored document, with the document's value.
func (c *collection) checkSecondaries(k *checker) {
	for _, x := range c.sec.list {
		want := map[string]*entry{}
		c.prim.keys.each(func(d *engine.Doc, e *entry) { want[string(x.appendItemKey(nil, d))] = e })
		n := 0
		x.t.Ascend(func(it secItem) bool {
			n++
			return k.that(want[it.key()] == it.e, "index %s has item %q, not of the document stored", x.ptr, it.key())
		})
		k.that(n == len(want), "index %s holds %d items, and %d documents are stored", x.ptr, n, len(want))
	}
}
