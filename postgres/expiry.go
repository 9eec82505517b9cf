package postgres

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// Expiry (R3, R4, R7) is internal/local's expiry.go computed by the
// server: a document is expired when its _ts + ttl (a ttl of its own) is
// at or before the own limit, or its _ts (no ttl: it inherits) is at or
// before the inherit limit. The limits come from the collection's row and
// "now", in the statement that reads the document, so that a
// SetDefaultTTL committed by any process holds for every later statement:
//
//	own_lim = CASE WHEN def_on THEN greatest(own_cut, now) ELSE own_cut END
//	inh_lim = CASE WHEN def_on AND def_n > 0 THEN greatest(inherit_cut, now - def_n) ELSE inherit_cut END
//
// R7's cut-offs, own_cut and inherit_cut, freeze what was expired when the
// DefaultTTL last changed; inherit_cuts keeps each inherit cut with the
// setting it was made under, so that ExpiresAt answers for a document
// that expired under an earlier one.

// nowSQL is "now" in a statement that reads the collection's row as c,
// with the handle's clock as parameter $2.
const nowSQL = `{s}.ttldb_now($2, c.now_hwm)`

// ownLimSQL and inhLimSQL are the two limits, over the collection's row c
// and now, a column t.now.
const (
	ownLimSQL = `CASE WHEN c.def_on THEN greatest(c.own_cut, t.now) ELSE c.own_cut END`
	inhLimSQL = `CASE WHEN c.def_on AND c.def_n > 0 THEN greatest(c.inherit_cut, t.now - c.def_n) ELSE c.inherit_cut END`
)

// liveSQL is the live predicate of a document d (R4), written positively:
// ttl is never NULL, so it meets no three-valued logic.
const liveSQL = `(d.ttl = -1 OR (d.ttl > 0 AND d.ts + d.ttl > ` + ownLimSQL + `) OR (d.ttl = 0 AND d.ts > ` + inhLimSQL + `))`

// limits are the two limits at one instant, as a statement computed them.
type limits struct{ own, inherit int64 }

// live reports whether a document of _ts ts and ttl ttl is live under l:
// liveSQL in Go, for the write, which has read the limits.
func (l limits) live(ts int64, ttl int32) bool {
	switch {
	case ttl > 0:
		return ts+int64(ttl) > l.own
	case ttl == engine.TTLInherit:
		return ts > l.inherit
	}
	return true
}

// rules are the DefaultTTL and R7's cut-offs, as the handle last read them
// from the collection's row: what ExpiresAt answers from.
type rules struct {
	def    engine.DefaultTTL
	ownCut int64
	cuts   []cut // ascending upTo; the last one's upTo is inherit_cut
}

// cut is a cut of the inheriting documents (R7): those whose _ts is above
// the previous cut's upTo and at or below upTo expired at _ts + ttl, under
// the DefaultTTL of ttl seconds in force until the cut.
type cut struct{ upTo, ttl int64 }

// pairs reads inherit_cuts, (up_to, ttl) pairs flattened, and reports
// whether it holds pairs in ascending order.
func pairs(flat []int64) ([]cut, bool) {
	if len(flat)%2 != 0 {
		return nil, false
	}
	cuts := make([]cut, 0, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		if len(cuts) > 0 && flat[i] <= cuts[len(cuts)-1].upTo {
			return nil, false
		}
		cuts = append(cuts, cut{flat[i], flat[i+1]})
	}
	return cuts, true
}

// flat returns cuts as inherit_cuts stores them.
func flat(cuts []cut) []int64 {
	f := make([]int64, 0, 2*len(cuts))
	for _, c := range cuts {
		f = append(f, c.upTo, c.ttl)
	}
	return f
}

// inheritCut returns the _ts at or before which an inheriting document is
// expired whatever the setting.
func (r *rules) inheritCut() int64 {
	if len(r.cuts) == 0 {
		return math.MinInt64
	}
	return r.cuts[len(r.cuts)-1].upTo
}

// limits returns the limits at now: own_lim and inh_lim in Go.
func (r *rules) limits(now int64) limits {
	l := limits{own: r.ownCut, inherit: r.inheritCut()}
	if r.def.On {
		l.own = max(l.own, now)
	}
	if r.def.On && r.def.Seconds > 0 {
		l.inherit = max(l.inherit, now-r.def.Seconds)
	}
	return l
}

// setDefault returns the rules after a change of the DefaultTTL to def at
// now (R7), as internal/local's setDefault: what is expired under the old
// setting is frozen into the cut-offs, then the setting changes. It leaves
// r as it is.
func (r *rules) setDefault(def engine.DefaultTTL, now int64) rules {
	l := r.limits(now)
	cuts := slices.Clone(r.cuts)
	switch last := len(cuts) - 1; {
	case l.inherit <= r.inheritCut():
	case last >= 0 && cuts[last].ttl == r.def.Seconds:
		cuts[last].upTo = l.inherit // the same setting as the last cut's
	default:
		cuts = append(cuts, cut{upTo: l.inherit, ttl: r.def.Seconds})
	}
	return rules{def: def, ownCut: l.own, cuts: cuts}
}

// expiresAt returns when d expires, or expired, at now (R3, R7).
func (r *rules) expiresAt(d *engine.Doc, now int64) (int64, bool) {
	switch {
	case d.TTL > 0 && !r.limits(now).live(d.TS, d.TTL):
		return d.TS + int64(d.TTL), true
	case d.TTL == engine.TTLInherit && d.TS <= r.inheritCut():
		i, _ := slices.BinarySearchFunc(r.cuts, d.TS, func(c cut, ts int64) int { return cmp.Compare(c.upTo, ts) })
		return d.TS + r.cuts[i].ttl, true
	}
	e, ok := r.def.Expiry(d.TTL)
	return d.TS + e, ok
}

// ExpiresAt implements [engine.Engine]: the Unix second at which d, a
// document of the collection, expires or expired (R3, R7), and ok false
// when it does not expire, or the handle is closed. It does not wait: it
// answers from the DefaultTTL and cut-offs this handle last read from the
// server (at Open, and at each write and SetDefaultTTL of this handle),
// at the handle's clock (Options.Now) or this machine's, never below the
// last "now" the server gave it. A change of the DefaultTTL made by
// another process shows here after this handle's next write. It costs a
// binary search of the cuts.
func (e *Engine) ExpiresAt(d *engine.Doc) (int64, bool) {
	r := e.rules.Load()
	if d == nil || r == nil || e.closed.Load() {
		return 0, false
	}
	now := time.Now()
	if e.clock != nil {
		now = e.clock()
	}
	s := min(max(now.Unix(), -maxClock), maxClock)
	return r.expiresAt(d, max(s, e.lastNow.Load()))
}
