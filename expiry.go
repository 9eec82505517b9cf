package ttldb

import (
	"cmp"
	"math"
	"slices"

	"github.com/google/btree"
)

// expiryIndex finds the documents that expire, in the order they expire,
// and owns the collection's [DefaultTTL]: the setting and the index change
// together, in setDefault, which is rule R7 in one place. Its trees do not
// depend on the setting, so that changing it costs O(1):
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
// Rule R7 also says that a document already expired when [DefaultTTL] changes
// stays gone. Those documents are prefixes of the two trees at the moment of
// the change, so the index keeps cut-offs instead of a list: a document of
// own whose expiry is at or before ownCut, or a document of inherit whose
// _ts is at or before the last cut's upTo, is expired whatever the setting.
// Each cut of inherit remembers the [DefaultTTL] it was made under, so that a
// document keeps the instant it expired at through later changes, swept or
// not: ExpiresAt answers for any Document a caller holds, so cuts are kept
// for good. Adjacent cuts under the same setting are one, so they cost 16
// bytes per change of the DefaultTTL's value, not per document.
//
// Guarded by Collection.mu.
type expiryIndex struct {
	def     DefaultTTL
	own     *btree.BTreeG[expItem]
	inherit *btree.BTreeG[expItem]
	ownCut  int64
	cuts    []inheritCut // ascending upTo
}

// inheritCut is a part of the inherit tree frozen by R7: the documents whose
// _ts is above the previous cut's upTo and at or below upTo expired at
// _ts + ttl, under the [DefaultTTL] of ttl seconds in force until the cut.
type inheritCut struct{ upTo, ttl int64 }

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

func newExpiryIndex(def DefaultTTL) expiryIndex {
	return expiryIndex{
		def:     def,
		own:     btree.NewG(btreeDegree, expLess),
		inherit: btree.NewG(btreeDegree, expLess),
		ownCut:  math.MinInt64,
	}
}

// inheritCut returns the _ts at or before which a document of inherit is
// expired whatever the setting (R7).
func (x *expiryIndex) inheritCut() int64 {
	if len(x.cuts) == 0 {
		return math.MinInt64
	}
	return x.cuts[len(x.cuts)-1].upTo
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
func (c *Collection) limits() limits { return c.exp.limits(c.now()) }

// limits returns the limits at now.
func (x *expiryIndex) limits(now int64) limits {
	l := limits{own: x.ownCut, inherit: x.inheritCut()}
	if _, on := effectiveTTL(x.def, 1); on { // R3: ttl m counts whenever TTL is on
		l.own = max(l.own, now)
	}
	if n, on := effectiveTTL(x.def, ttlInherit); on { // R3: no ttl inherits n
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

// setDefault changes the [DefaultTTL] at now (R7): first what is expired
// under the old setting is frozen, so that it stays expired whatever the
// new one, then the setting changes. It takes O(1), plus the cuts it prunes.
func (x *expiryIndex) setDefault(def DefaultTTL, now int64) {
	l := x.limits(now)
	// Only a [DefaultTTL] of n seconds moves the inherit limit.
	switch last := len(x.cuts) - 1; {
	case l.inherit <= x.inheritCut():
	case last >= 0 && x.cuts[last].ttl == x.def.seconds:
		x.cuts[last].upTo = l.inherit // the same setting as the last cut's
	default:
		x.cuts = append(x.cuts, inheritCut{upTo: l.inherit, ttl: x.def.seconds})
	}
	x.ownCut = l.own
	x.def = def
}

// expiresAt returns when d expires, or expired, at now, and ok false when it
// does not expire. A document that expired under an earlier [DefaultTTL]
// keeps the instant it expired at (R7).
func (x *expiryIndex) expiresAt(d *doc, now int64) (at int64, ok bool) {
	switch {
	case d.ttl > 0 && x.limits(now).expired(d):
		return d.ts + int64(d.ttl), true
	case d.ttl == ttlInherit && d.ts <= x.inheritCut():
		i, _ := slices.BinarySearchFunc(x.cuts, d.ts, func(c inheritCut, ts int64) int { return cmp.Compare(c.upTo, ts) })
		return d.ts + x.cuts[i].ttl, true
	}
	return x.due(d)
}

// next returns the first instant at which a document expires, or ok false
// when none will (always while TTL is off). Documents past a cut-off are due
// at once.
func (x *expiryIndex) next(now int64) (at int64, ok bool) {
	at = math.MaxInt64
	if !x.def.on {
		return at, false // R5: nothing expires while TTL is off
	}
	for _, t := range [...]*btree.BTreeG[expItem]{x.own, x.inherit} {
		it, found := t.Min()
		if !found {
			continue
		}
		if it.d.ttl == ttlInherit && it.d.ts <= x.inheritCut() {
			return now, true
		}
		if e, on := x.due(it.d); on {
			at, ok = min(at, e), true
		}
	}
	return at, ok
}

// due returns when d expires under the current setting, ignoring the
// cut-offs, or ok false when it does not.
func (x *expiryIndex) due(d *doc) (at int64, ok bool) {
	e, ok := effectiveTTL(x.def, d.ttl)
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
