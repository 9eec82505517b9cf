package local

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
)

// Quota bounds a collection's memory (R17): Bytes, the heap its documents
// and their indexes take (see docCost), and Docs, the documents it holds,
// live or expired but not yet swept; zero is no bound. A write that would
// take the collection beyond a bound first deletes expired documents, as
// the sweeper would; then, with Evict, the live documents that expire
// soonest (Redis's volatile-ttl), each an evicted delete in the feed;
// without Evict, or with no document left that expires, it is refused
// with [engine.ErrQuotaExceeded]. A write that does not grow the
// collection (a delete, a smaller replace) always passes.
type Quota struct {
	Bytes, Docs int64
	Evict       bool
}

// quota is a collection's Quota and what it evicted. The bytes are counted
// where the documents are stored: primary.cost for the documents and
// their places in the key map, the key order and the expiry index,
// secondary.bytes for the items of each secondary index; both only when
// the collection has a quota (sized), so that a collection without one
// pays a predictable branch per write.
type quota struct {
	Quota
	on      bool
	evicted atomic.Uint64 // written under mu, read anywhere
}

// The heap a document costs beyond its own allocation, measured with
// runtime.MemStats (quota_test.go, TestQuotaAccountsHeap; and
// bench/quota_test.go at 1,000,000 documents):
//
//   - docOverhead: its entry (32 bytes), its slot in the key map (16
//     bytes, 8 to a group with a control word, the tables between half and
//     7/8 full: 20 to 40 bytes a key as they grow) and its slot in an
//     expiry bucket (8);
//   - orderOverhead: its item in the key order's B-tree, once a listing
//     has built it (8 bytes in nodes about half full, and the nodes);
//   - itemOverhead: an item of a secondary index (32 bytes in a B-tree
//     node half full under values that grow, as timestamps and counters
//     do, about 3/4 full under random ones), beyond its key's allocation.
//
// A change of these structures changes the figures: the test fails when
// what is counted drifts 5% from what is measured.
const (
	docOverhead   = 76
	orderOverhead = 19
	itemOverhead  = 60
)

// docCost is the heap d takes in the primary index, counted in
// primary.cost: its allocation, rounded up to the allocator's size
// class, and docOverhead. used adds orderOverhead once the key order is
// built.
func docCost(d *engine.Doc) int64 { return allocSize(d.Size()) + docOverhead }

// itemCost is the heap of a secondary index's item whose key is n bytes
// (and, from longKey bytes, of the key's header the item points to).
func itemCost(n int) int64 {
	if n >= longKey {
		return allocSize(n) + itemOverhead + 16
	}
	return allocSize(n) + itemOverhead
}

// allocSize is the heap an allocation of n bytes takes: n rounded up to
// the Go allocator's size class (runtime's sizeclasses.go, unchanged since
// Go 1.21), or to whole pages beyond 32 KiB.
func allocSize(n int) int64 {
	if n > maxSmallSize {
		return int64((n + pageSize - 1) &^ (pageSize - 1))
	}
	lo, hi := 0, len(sizeClasses)-1
	for lo < hi { // the first class that holds n
		mid := (lo + hi) / 2
		if int(sizeClasses[mid]) < n {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int64(sizeClasses[lo])
}

const (
	maxSmallSize = 32768
	pageSize     = 8192
)

var sizeClasses = [...]uint16{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// useQuota gives c the quota q, before anything is stored.
func (c *collection) useQuota(q Quota) {
	c.quota.Quota = q
	c.quota.on = q.Bytes > 0 || q.Docs > 0
	c.prim.sized = c.quota.on
	c.sec.sized = c.quota.on
}

// used returns the bytes the collection counts against its quota. Call
// with mu held.
func (c *collection) used() int64 {
	n := c.prim.cost
	if c.prim.order.ready.Load() {
		n += orderOverhead * int64(c.prim.len())
	}
	for _, x := range c.sec.list {
		n += x.bytes
	}
	return n
}

// cost returns what d would count against the quota: docCost and its
// items in the secondary indexes. Call with mu held.
func (c *collection) cost(d *engine.Doc) int64 {
	n := docCost(d)
	if c.prim.order.ready.Load() {
		n += orderOverhead
	}
	for _, x := range c.sec.list {
		c.sec.a = x.appendItemKey(c.sec.a[:0], d)
		n += itemCost(len(c.sec.a))
	}
	return n
}

// fit makes room for the write of d under the key whose entry is e (nil
// for none), or refuses it. Call with mu held, c.quota.on, before the
// write changes anything.
func (c *collection) fit(op string, e *entry, d *engine.Doc, now int64) error {
	add, docs := c.cost(d), int64(1)
	if e != nil {
		add, docs = add-c.cost(e.doc()), 0
	}
	if held, bytes, ok := c.makeRoom(add, docs, now, func(x *entry) bool { return x == e }); !ok {
		return c.quotaError(fmt.Sprintf("%s of document %q", op, d.ID()), add, docs, held, bytes)
	}
	return nil
}

// fitBatch is fit for a batch's steps, as a whole: what the batch adds
// is the cost of the documents it leaves under its keys less those they
// hold. docs are the documents decide readied. Call with mu held,
// c.quota.on, before the batch changes anything.
func (c *collection) fitBatch(steps []engine.Step, docs []*engine.Doc, now int64) error {
	final := make(map[string]*engine.Doc, len(steps))
	for i, s := range steps {
		switch s.Op {
		case engine.Read:
		case engine.Delete:
			final[s.Key] = nil
		default:
			final[s.Key] = docs[i]
		}
	}
	var add, n int64
	mine := make(map[*entry]bool, len(steps))
	for _, s := range steps { // a document the batch reads is not evicted under it
		if s.Op == engine.Read {
			if e, _ := c.prim.get(keyBytes(s.Key)); e != nil {
				mine[e] = true
			}
		}
	}
	for key, d := range final {
		e, _ := c.prim.get(keyBytes(key))
		if d != nil {
			add, n = add+c.cost(d), n+1
		}
		if e != nil {
			add, n = add-c.cost(e.doc()), n-1
			mine[e] = true
		}
	}
	if held, bytes, ok := c.makeRoom(add, n, now, func(x *entry) bool { return mine[x] }); !ok {
		return c.quotaError(fmt.Sprintf("a batch of %d operations", len(steps)), add, n, held, bytes)
	}
	return nil
}

// over reports whether adding add bytes and docs documents would take the
// collection beyond its quota. Call with mu held.
func (c *collection) over(add, docs int64) bool {
	q := &c.quota
	return q.Bytes > 0 && add > 0 && c.used()+add > q.Bytes ||
		q.Docs > 0 && docs > 0 && int64(c.prim.len())+docs > q.Docs
}

// makeRoom deletes documents until adding add bytes and docs documents
// fits the quota: the expired ones first, then, with Evict, the live ones
// that expire soonest, never one that mine says the write itself changes.
// ok is false when that would not be enough (enough says so first, and
// then nothing is deleted), held how many documents that expire the
// write itself changes, and bytes whether the bound it could not meet is
// MaxBytes (else MaxDocuments). Call with mu held.
func (c *collection) makeRoom(add, docs, now int64, mine func(*entry) bool) (held int, bytes, ok bool) {
	if !c.over(add, docs) {
		return 0, false, true
	}
	lim := c.exp.limits(now)
	if held, bytes, ok := c.enough(add, docs, lim, mine); !ok {
		c.logQuota(now, true)
		return held, bytes, false // nothing deleted for a write that cannot fit
	}
	var kept []*entry // candidates the write itself changes, put back at the end
	defer func() {
		for _, e := range kept {
			c.exp.add(e)
		}
	}()
	for c.over(add, docs) {
		e := c.soonest(lim, !c.quota.Evict)
		if e == nil { // enough said there were: not reached
			c.logQuota(now, true)
			return len(kept), c.over(add, 0), false
		}
		switch {
		case mine(e):
			kept = append(kept, e)
		case lim.expired(e.doc()):
			c.dropExpired(e, now) // as the sweeper would
			c.swept.Add(1)
		default:
			c.evict(e, now)
		}
	}
	return 0, false, true
}

// enough reports whether deleting the documents makeRoom may take (those
// that expire, with Evict; those expired, without; never one mine says the
// write changes) could make adding add bytes and docs documents fit the
// quota, without changing anything; held is how many of those the write
// itself changes, counted when there are not enough, and bytes whether
// MaxBytes is a bound they would not meet (else MaxDocuments is), so that
// the refusal names it. It stops once it has found enough: O(k) for the k
// candidates it looks at; none for a write beyond the quota by itself;
// when they do not suffice, the whole expiry index with Evict, and
// without, only the expired documents, at its front (a bucket's second is
// when its documents expire, or, for those that inherit, their _ts: as
// limits compares them). So a write that cannot fit is refused before it
// evicts anyone. Call with mu held.
func (c *collection) enough(add, docs int64, lim limits, mine func(*entry) bool) (held int, bytes, ok bool) {
	q, x := &c.quota, &c.exp
	var needBytes, needDocs int64
	if q.Bytes > 0 && add > 0 {
		needBytes = c.used() + add - q.Bytes
	}
	if q.Docs > 0 && docs > 0 {
		needDocs = int64(c.prim.len()) + docs - q.Docs
	}
	if needBytes <= 0 && needDocs <= 0 {
		return 0, false, true
	}
	if alone, bytes := q.beyond(add, docs); alone {
		return 0, bytes, false // it would not fit if the rest went: no need to look
	}
	if !x.def.On {
		return 0, needBytes > 0, false // R3: nothing expires while TTL is off
	}
	_, inheritExpires := x.def.Expiry(engine.TTLInherit)
	looked := 0
	look := func(bs *buckets, all bool, expired int64) bool { // false once enough are found
		more := true
		bs.tree.Ascend(func(b *bucket) bool {
			if !all && b.at > x.inheritCut() {
				return false // inheriting documents that never expire (DefaultTTL -1), but for R7's cut-off
			}
			if !q.Evict && b.at > expired {
				return false // refuse: the expired alone are candidates, and the later buckets hold none
			}
			for _, ch := range b.chunks {
				for _, e := range ch {
					looked++
					switch {
					case !q.Evict && !lim.expired(e.doc()):
					case mine(e):
						held++
					default:
						needBytes -= c.cost(e.doc())
						needDocs--
						if needBytes <= 0 && needDocs <= 0 {
							more = false
							return false
						}
					}
				}
			}
			return true
		})
		return more
	}
	found := !look(&x.own, true, lim.own) || !look(&x.inherit, inheritExpires, lim.inherit)
	if enoughHook != nil {
		enoughHook(looked)
	}
	if found {
		return 0, false, true
	}
	return held, needBytes > 0, false
}

// beyond reports whether a write that adds add bytes and docs documents
// (what it leaves under its keys less what they hold) goes beyond the
// quota by itself, whatever else is deleted: what it leaves counts at
// least add and docs. bytes says whether MaxBytes is a bound it goes
// beyond (else MaxDocuments is).
func (q *quota) beyond(add, docs int64) (alone, bytes bool) {
	bytes = q.Bytes > 0 && add > q.Bytes
	return bytes || q.Docs > 0 && docs > q.Docs, bytes
}

// enoughHook, when set (by tests), is called by enough with how many
// entries of the expiry index it looked at.
var enoughHook func(looked int)

// soonest takes out of the expiry index and returns the entry whose
// document expires (or expired) first under l, nil for none; with
// onlyExpired, nil for one that has not expired. Call with mu held.
func (c *collection) soonest(l limits, onlyExpired bool) *entry {
	x := &c.exp
	if !x.def.On {
		return nil // R3: nothing expires while TTL is off
	}
	var bs *buckets
	second, due := int64(0), int64(math.MaxInt64)
	if at, ok := x.own.first(); ok {
		bs, second, due = &x.own, at, at
	}
	if ts, ok := x.inherit.first(); ok {
		at, expires := int64(math.MinInt64), true // expired by a cut-off (R7)
		if ts > x.inheritCut() {
			var n int64
			n, expires = x.def.Expiry(engine.TTLInherit)
			at = ts + n
		}
		if expires && at < due {
			bs, second = &x.inherit, ts
		}
	}
	if bs == nil {
		return nil
	}
	var e *entry
	bs.pop(second, 1, func(got *entry) { e = got })
	if onlyExpired && !l.expired(e.doc()) {
		x.add(e)
		return nil
	}
	return e
}

// evict deletes e, live, which soonest took out of the expiry index, to
// make room at now (R17).
func (c *collection) evict(e *entry, now int64) {
	c.logQuota(now, false)
	c.logDeleteAs(e, now, delEvicted)
	c.sec.update(e, e.doc(), nil)
	c.prim.remove(e)
	c.quota.evicted.Add(1)
}

// quotaError is the refusal of the write what names, which adds add bytes
// and docs documents, for which makeRoom could not make room; mine is how
// many documents that expire the write itself changes, bytes whether the
// bound it could not meet is MaxBytes (else MaxDocuments): the one named.
func (c *collection) quotaError(what string, add, docs int64, mine int, bytes bool) error {
	q := &c.quota
	var size string
	if bytes {
		size = fmt.Sprintf("holds %d bytes, the write would add %d, and its quota is %d bytes (Quota.MaxBytes)", c.used(), add, q.Bytes)
	} else {
		size = fmt.Sprintf("holds %d documents, the write would add %d, and its quota is %d documents (Quota.MaxDocuments)", c.prim.len(), docs, q.Docs)
	}
	why := "the policy refuses writes beyond it (QuotaRefuse)"
	switch alone, _ := q.beyond(add, docs); {
	case alone:
		why = "the write alone goes beyond the quota, whatever else were deleted"
	case q.Evict && !c.exp.def.On:
		why = "TTL is off (DefaultTTL off, R3): no document expires or is evicted while it is, and those that expired before it went off count until it is on again and they are swept"
	case q.Evict:
		why = "evicting every document that expires would not make room: the others never expire (ttl -1, or a DefaultTTL -1, R3)"
		if mine > 0 {
			why = fmt.Sprintf("evicting every document that expires would not make room: the others never expire (ttl -1, or a DefaultTTL -1, R3), or the write itself changes them (%d)", mine)
		}
	}
	return fmt.Errorf("%w: %s: collection %q %s; %s (R17)", engine.ErrQuotaExceeded, what, c.name, size, why)
}

// count counts x's bytes, once, as it becomes one of the collection's
// indexes: O(n) for its n items, beside the O(n log n) of its build.
func (x *secondary) count() {
	if x.counted {
		return
	}
	x.bytes = 0
	x.t.Ascend(func(it secItem) bool {
		x.bytes += itemCost(len(it.key()))
		return true
	})
	x.counted = true
}

// usedIfQuota is used with a quota, else 0. Call with mu held, shared.
func (c *collection) usedIfQuota() int64 {
	if !c.quota.on {
		return 0
	}
	return c.used()
}
