package ttldb

import (
	"math"

	"github.com/google/btree"
)

// expiryIndex finds the documents that expire, in the order they expire,
// without depending on DefaultTTL, so that changing DefaultTTL costs O(1)
// (R7):
//
//   - own holds the documents with a ttl of their own (m seconds), ordered by
//     _ts + m: their expiry does not depend on DefaultTTL, only on whether TTL
//     is on at all (R3);
//   - inherit holds the documents without a ttl, ordered by _ts: under
//     DefaultTTL n they expire at _ts + n, so this order is their expiry
//     order under every n.
//
// Documents with ttl -1 never expire and are in neither tree.
//
// Rule R7 also says that a document already expired when DefaultTTL changes
// stays gone. Those documents are prefixes of the two trees at the moment of
// the change, so the index keeps two cut-offs instead of a list: a document
// of own whose expiry is at or before ownCut, or a document of inherit whose
// _ts is at or before inheritCut, is expired whatever the setting.
//
// Guarded by Collection.mu.
type expiryIndex struct {
	own        *btree.BTreeG[expItem]
	inherit    *btree.BTreeG[expItem]
	ownCut     int64
	inheritCut int64
	cutTTL     int64 // the DefaultTTL n that set inheritCut: those documents expired at _ts + cutTTL
}

// expItem is a document in an expiry tree. It carries a sort key, so that
// comparisons, O(log n) of them per write, almost never load the document,
// in 16 bytes: k packs the document's instant in its tree (expAt) with the
// low 24 bits of its etag number. Items order by k, and only when k ties by
// (instant, etag number) read from the documents, which is unique. So they
// are in the order of their instants, and k ties only for two documents of
// one instant whose etag numbers agree in 24 bits, or for instants beyond
// the ±2^39 seconds (17,000 years) that k holds, which it clamps.
type expItem struct {
	k uint64
	d *doc
}

// The layout of expItem.k: the instant, offset to be positive, above the
// etag bits; the lowest high part and the highest are for clamped instants.
const (
	expTagBits = 24
	expAtBits  = 40
	expAtMin   = -(1 << (expAtBits - 1)) + 1 // k's high part 1
	expAtMax   = 1<<(expAtBits-1) - 2        // k's high part 2^40 - 2
)

func newExpItem(d *doc) expItem {
	switch at := expAt(d); {
	case at < expAtMin:
		return expItem{0, d}
	case at > expAtMax:
		return expItem{(1<<expAtBits - 1) << expTagBits, d}
	default:
		return expItem{uint64(at-expAtMin+1)<<expTagBits | d.tag&(1<<expTagBits-1), d}
	}
}

// expAt is the instant that orders d in its expiry tree: _ts + ttl in own,
// _ts in inherit.
func expAt(d *doc) int64 {
	if d.ttl > 0 {
		return d.ts + int64(d.ttl)
	}
	return d.ts
}

func expLess(a, b expItem) bool {
	if a.k != b.k {
		return a.k < b.k
	}
	if a.d == b.d {
		return false
	}
	x, y := expAt(a.d), expAt(b.d)
	return x < y || (x == y && a.d.tag < b.d.tag)
}

func newExpiryIndex() expiryIndex {
	return expiryIndex{
		own:        btree.NewG(btreeDegree, expLess),
		inherit:    btree.NewG(btreeDegree, expLess),
		ownCut:     math.MinInt64,
		inheritCut: math.MinInt64,
	}
}

// tree returns the tree d belongs in, and its item there, or a nil tree for
// a document that never expires.
func (x *expiryIndex) tree(d *doc) (*btree.BTreeG[expItem], expItem) {
	switch {
	case d.ttl > 0:
		return x.own, newExpItem(d)
	case d.ttl == ttlInherit:
		return x.inherit, newExpItem(d)
	}
	return nil, expItem{}
}

func (x *expiryIndex) add(d *doc) {
	if t, it := x.tree(d); t != nil {
		t.ReplaceOrInsert(it)
	}
}

func (x *expiryIndex) remove(d *doc) {
	if t, it := x.tree(d); t != nil {
		t.Delete(it)
	}
}

// limits says which documents are expired at one instant: a document of own
// whose _ts + ttl is at or before own, a document of inherit whose _ts is at
// or before inherit. It is rules R3 and R4 for a whole collection at once.
type limits struct {
	own, inherit int64
}

// limits returns which documents are expired now. Call with mu held.
func (c *Collection) limits() limits { return c.exp.limits(c.def, c.now()) }

// limits returns the limits at now under DefaultTTL def.
func (x *expiryIndex) limits(def DefaultTTL, now int64) limits {
	l := limits{own: x.ownCut, inherit: x.inheritCut}
	if _, on := effectiveTTL(def, 1); on { // R3: ttl m counts whenever TTL is on
		l.own = max(l.own, now)
	}
	if n, on := effectiveTTL(def, ttlInherit); on { // R3: no ttl inherits n
		l.inherit = max(l.inherit, now-n)
	}
	return l
}

// expired reports whether d is expired under l (R4).
func (l limits) expired(d *doc) bool {
	switch {
	case d.ttl > 0:
		return d.ts+int64(d.ttl) <= l.own
	case d.ttl == ttlInherit:
		return d.ts <= l.inherit
	}
	return false
}

// freeze records that what is expired under l stays expired whatever the
// setting becomes (R7). Called before DefaultTTL changes.
func (x *expiryIndex) freeze(def DefaultTTL, l limits) {
	if l.inherit > x.inheritCut {
		x.cutTTL = def.seconds
	}
	x.ownCut, x.inheritCut = l.own, l.inherit
}

// expiry returns when d expires, or expired, under def and l, and ok false
// when it does not expire. A document that expired under an earlier
// DefaultTTL keeps the instant it expired at (R7).
func (x *expiryIndex) expiry(def DefaultTTL, l limits, d *doc) (at int64, ok bool) {
	switch {
	case d.ttl > 0 && l.expired(d):
		return d.ts + int64(d.ttl), true
	case d.ttl == ttlInherit && d.ts <= x.inheritCut:
		return d.ts + x.cutTTL, true
	}
	return expiresAt(def, d)
}

// next returns the first instant at which a document expires under def, or
// ok false when none will (always while TTL is off). Documents past a
// cut-off are due at once.
func (x *expiryIndex) next(def DefaultTTL, now int64) (at int64, ok bool) {
	at = math.MaxInt64
	if !def.on {
		return at, false // R5: nothing expires while TTL is off
	}
	for _, t := range [...]*btree.BTreeG[expItem]{x.own, x.inherit} {
		it, found := t.Min()
		if !found {
			continue
		}
		if it.d.ttl == ttlInherit && it.d.ts <= x.inheritCut {
			return now, true
		}
		if e, on := expiresAt(def, it.d); on {
			at, ok = min(at, e), true
		}
	}
	return at, ok
}

// expiresAt returns when d expires under def, ignoring the cut-offs, or ok
// false when it does not.
func expiresAt(def DefaultTTL, d *doc) (at int64, ok bool) {
	e, ok := effectiveTTL(def, d.ttl)
	return d.ts + e, ok
}

// popExpired removes up to max expired documents from the index, calling
// drop for each, and returns how many it removed: those with a ttl of their
// own first, then those that inherit, each in the order they expired.
func (x *expiryIndex) popExpired(l limits, max int, drop func(*doc)) int {
	n := 0
	for _, t := range [...]*btree.BTreeG[expItem]{x.own, x.inherit} {
		for n < max {
			it, found := t.Min()
			if !found || !l.expired(it.d) {
				break
			}
			t.DeleteMin()
			drop(it.d)
			n++
		}
	}
	return n
}

// countExpired counts the expired documents under l, up to max of them
// (-1: no limit). all is false when it stopped at max with more to count.
// It takes O(log n + e) for e expired documents.
func (x *expiryIndex) countExpired(l limits, max int) (n int, all bool) {
	all = true
	for _, t := range [...]*btree.BTreeG[expItem]{x.own, x.inherit} {
		t.Ascend(func(it expItem) bool {
			switch {
			case !l.expired(it.d):
				return false
			case n == max:
				all = false
				return false
			}
			n++
			return true
		})
	}
	return n, all
}

// clone returns a copy-on-write snapshot of the index.
func (x *expiryIndex) clone() expiryIndex {
	c := *x
	c.own, c.inherit = x.own.Clone(), x.inherit.Clone()
	return c
}
