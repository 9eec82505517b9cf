package local

import (
	"cmp"
	"math"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// expiryIndex finds the documents that expire, in the order they expire,
// and owns the collection's [engine.DefaultTTL]: the setting and the index change
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
// Documents with ttl -1 never expire and are in neither tree. Each tree is
// a set of buckets, one per second (buckets.go), which hold entries: an
// entry's document changes in place, so the index is told of the document
// an entry leaves (remove) and of the one it holds (add).
//
// Rule R7 also says that a document already expired when [engine.DefaultTTL] changes
// stays gone. Those documents are prefixes of the two trees at the moment of
// the change, so the index keeps cut-offs instead of a list: a document of
// own whose expiry is at or before ownCut, or a document of inherit whose
// _ts is at or before the last cut's upTo, is expired whatever the setting.
// Each cut of inherit remembers the [engine.DefaultTTL] it was made under, so that a
// document keeps the instant it expired at through later changes, swept or
// not: ExpiresAt answers for any Document a caller holds, so cuts are kept
// for good. Adjacent cuts under the same setting are one, so they cost 16
// bytes per change of the DefaultTTL's value, not per document.
//
// Guarded by collection.mu.
type expiryIndex struct {
	def     engine.DefaultTTL
	own     buckets // by _ts + ttl
	inherit buckets // by _ts
	ownCut  int64
	cuts    []inheritCut // ascending upTo
}

// inheritCut is a part of the inherit tree frozen by R7: the documents whose
// _ts is above the previous cut's upTo and at or below upTo expired at
// _ts + ttl, under the [engine.DefaultTTL] of ttl seconds in force until the cut.
type inheritCut struct{ upTo, ttl int64 }

// expAt is the second that orders d in its tree: _ts + ttl in own, _ts in
// inherit.
func expAt(d *engine.Doc) int64 {
	if d.TTL > 0 {
		return d.TS + int64(d.TTL)
	}
	return d.TS
}

func newExpiryIndex(def engine.DefaultTTL) expiryIndex {
	return expiryIndex{def: def, own: newBuckets(), inherit: newBuckets(), ownCut: math.MinInt64}
}

// inheritCut returns the _ts at or before which a document of inherit is
// expired whatever the setting (R7).
func (x *expiryIndex) inheritCut() int64 {
	if len(x.cuts) == 0 {
		return math.MinInt64
	}
	return x.cuts[len(x.cuts)-1].upTo
}

// side returns the tree d belongs in, or nil for a document that never
// expires.
func (x *expiryIndex) side(d *engine.Doc) *buckets {
	switch {
	case d.TTL > 0:
		return &x.own
	case d.TTL == engine.TTLInherit:
		return &x.inherit
	}
	return nil
}

// add puts e in the index, by its document.
func (x *expiryIndex) add(e *entry) {
	d := e.doc()
	if bs := x.side(d); bs != nil {
		bs.add(e, expAt(d))
	} else {
		e.slot = -1
	}
}

// move moves e, whose document was old and is now e.doc(), to its new
// place; a document due at the same second as the old one stays where it is.
func (x *expiryIndex) move(e *entry, old *engine.Doc) {
	d := e.doc()
	if x.side(d) == x.side(old) && expAt(d) == expAt(old) {
		return
	}
	x.remove(e, old)
	x.add(e)
}

// remove takes e out of the index, where its document d put it. Call it
// before e's document changes.
func (x *expiryIndex) remove(e *entry, d *engine.Doc) {
	if bs := x.side(d); bs != nil {
		bs.remove(e, expAt(d))
	}
}

// limits says which documents are expired at one instant: a document of own
// whose _ts + ttl is at or before own, a document of inherit whose _ts is at
// or before inherit. It is rules R3 and R4 for a whole collection at once.
type limits struct {
	own, inherit int64
}

// limits returns which documents are expired now. Call with mu held.
func (c *collection) limits() limits { return c.exp.limits(c.now()) }

// limits returns the limits at now.
func (x *expiryIndex) limits(now int64) limits { return x.rules().limits(now) }

// expiryRules decide, with the time, which documents are expired: the
// setting and R7's cut-offs. The collection publishes them whenever they
// change (Collection.rules), so that a point read decides with no lock.
type expiryRules struct {
	def                engine.DefaultTTL
	ownCut, inheritCut int64
}

func (x *expiryIndex) rules() expiryRules {
	return expiryRules{def: x.def, ownCut: x.ownCut, inheritCut: x.inheritCut()}
}

// limits returns the limits at now under r.
func (r expiryRules) limits(now int64) limits {
	l := limits{own: r.ownCut, inherit: r.inheritCut}
	if _, on := r.def.Expiry(1); on { // R3: ttl m counts whenever TTL is on
		l.own = max(l.own, now)
	}
	if n, on := r.def.Expiry(engine.TTLInherit); on { // R3: no ttl inherits n
		l.inherit = max(l.inherit, now-n)
	}
	return l
}

// expired reports whether d is expired under l (R4).
func (l limits) expired(d *engine.Doc) bool {
	switch {
	case d.TTL > 0:
		return d.TS+int64(d.TTL) <= l.own
	case d.TTL == engine.TTLInherit:
		return d.TS <= l.inherit
	}
	return false
}

// setDefault changes the [engine.DefaultTTL] at now (R7): first what is expired
// under the old setting is frozen, so that it stays expired whatever the
// new one, then the setting changes. It takes O(1), plus the cuts it prunes.
func (x *expiryIndex) setDefault(def engine.DefaultTTL, now int64) {
	l := x.limits(now)
	// Only a [engine.DefaultTTL] of n seconds moves the inherit limit.
	switch last := len(x.cuts) - 1; {
	case l.inherit <= x.inheritCut():
	case last >= 0 && x.cuts[last].ttl == x.def.Seconds:
		x.cuts[last].upTo = l.inherit // the same setting as the last cut's
	default:
		x.cuts = append(x.cuts, inheritCut{upTo: l.inherit, ttl: x.def.Seconds})
	}
	x.ownCut = l.own
	x.def = def
}

// expiresAt returns when d expires, or expired, at now, and ok false when it
// does not expire. A document that expired under an earlier [engine.DefaultTTL]
// keeps the instant it expired at (R7).
func (x *expiryIndex) expiresAt(d *engine.Doc, now int64) (at int64, ok bool) {
	switch {
	case d.TTL > 0 && x.limits(now).expired(d):
		return d.TS + int64(d.TTL), true
	case d.TTL == engine.TTLInherit && d.TS <= x.inheritCut():
		i, _ := slices.BinarySearchFunc(x.cuts, d.TS, func(c inheritCut, ts int64) int { return cmp.Compare(c.upTo, ts) })
		return d.TS + x.cuts[i].ttl, true
	}
	return x.due(d)
}

// next returns the first instant at which a document expires, or ok false
// when none will (always while TTL is off). Documents past a cut-off are due
// at once.
func (x *expiryIndex) next(now int64) (at int64, ok bool) {
	if !x.def.On {
		return math.MaxInt64, false // R5: nothing expires while TTL is off
	}
	at = math.MaxInt64
	if first, found := x.own.first(); found { // R3: own ttls count whenever TTL is on
		at, ok = first, true
	}
	if ts, found := x.inherit.first(); found {
		if ts <= x.inheritCut() {
			return now, true
		}
		if n, on := x.def.Expiry(engine.TTLInherit); on {
			at, ok = min(at, ts+n), true
		}
	}
	return at, ok
}

// due returns when d expires under the current setting, ignoring the
// cut-offs, or ok false when it does not.
func (x *expiryIndex) due(d *engine.Doc) (at int64, ok bool) {
	e, ok := x.def.Expiry(d.TTL)
	return d.TS + e, ok
}

// popExpired takes up to max entries whose documents are expired under l
// out of the index, calling drop for each, and returns how many it took:
// those with a ttl of their own first, then those that inherit, each the
// earliest first.
func (x *expiryIndex) popExpired(l limits, max int, drop func(*entry)) int {
	n := x.own.pop(l.own, max, drop)
	return n + x.inherit.pop(l.inherit, max-n, drop)
}

// countExpired counts the documents expired under l, in O(log b + k) for
// the k seconds they fall due at.
func (x *expiryIndex) countExpired(l limits) int {
	return x.own.count(l.own) + x.inherit.count(l.inherit)
}
