package local

import (
	"cmp"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

var _ engine.Meter = (*Engine)(nil)

// Metrics implements [engine.Meter]. The counters are atomics, read
// without a lock; the gauges are read under the read lock, in O(log b + k)
// for the k seconds at which the expired documents not yet swept fell due
// (one or two while the sweeper keeps up; see ttldb.Collection.Metrics).
// After Close the gauges are 0.
func (x *Engine) Metrics() engine.Metrics {
	c := (*collection)(x)
	m := engine.Metrics{Expired: c.expired.Load(), Swept: c.swept.Load(), Evicted: c.quota.evicted.Load()}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.unusable() {
		return m
	}
	now := c.now()
	m.Backlog = int64(c.exp.countExpired(c.exp.limits(now)))
	if m.Backlog > 0 {
		m.OldestDue = c.exp.oldestDue(now)
	}
	m.Documents = int64(c.prim.len()) - m.Backlog
	m.Bytes = c.prim.bytes
	m.LastLSN = c.visible()
	if l := &c.feed.log; c.feed.on && l.last >= l.first && l.first > 0 {
		m.FeedOldest = l.first
	}
	return m
}

// oldestDue returns the instant the earliest expired document not yet
// swept expired at, at now, or 0 when none is. O(log b + the cut-offs).
func (x *expiryIndex) oldestDue(now int64) int64 {
	l := x.limits(now)
	var at int64
	found := false
	if t, ok := x.own.first(); ok && t <= l.own {
		at, found = t, true
	}
	if ts, ok := x.inherit.first(); ok && ts <= l.inherit {
		var due int64
		if ts <= x.inheritCut() { // R7: it expired under an earlier setting
			i, _ := slices.BinarySearchFunc(x.cuts, ts, func(c inheritCut, ts int64) int { return cmp.Compare(c.upTo, ts) })
			due = ts + x.cuts[i].ttl
		} else {
			n, _ := x.def.Expiry(engine.TTLInherit)
			due = ts + n
		}
		if !found || due < at {
			at, found = due, true
		}
	}
	if !found {
		return 0
	}
	return at
}
