package ttldb

// The collection of a sequence of TestQuotaModel (quota_model_test.go):
// its opening and reopening, and the costs of documents under a quota in
// bytes.

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// quota returns the model's quota.
func (m *qModel) quota() QuotaOptions {
	q := QuotaOptions{MaxDocuments: int64(m.maxDocs), MaxBytes: m.maxBytes}
	if m.evict {
		q.Policy = QuotaEvictSoonest
	}
	return q
}

// open opens the collection with h.opts and the model's quota and
// DefaultTTL.
func (h *qHarness) open() {
	o := h.opts
	o.Quota = h.m.quota()
	o.DefaultTTL = TTLOff()
	if h.m.defOn {
		o.DefaultTTL = TTLNoDefault()
		if h.m.defSec > 0 {
			o.DefaultTTL = TTLSeconds(h.m.defSec)
		}
	}
	c, err := NewCollection("qmodel", "/pk", &o)
	require.NoError(h.t, err, h.where())
	h.c = c
	h.steps = append(h.steps, fmt.Sprintf("open: quota %+v, DefaultTTL %v, indexes %v, dir %q", o.Quota, o.DefaultTTL, o.Indexes, o.Dir))
}

// reopen closes a durable collection and opens it with a new quota, of
// the same bounds and perhaps the other policy, perhaps lower than what
// it holds: it is not trimmed, and a write that grows it must make room
// for the whole excess, or is refused (QuotaOptions). Its documents,
// their _ts and what the quota counts are as they were (R12); Stats
// counts evictions and sweeps from the open.
func (h *qHarness) reopen() {
	if h.opts.Dir == "" {
		return
	}
	m := h.m
	require.NoError(h.t, h.c.Close())
	m.evict = h.r.IntN(2) == 0
	if m.maxDocs > 0 {
		m.maxDocs = 2 + h.r.IntN(7)
	}
	if m.maxBytes > 0 {
		m.maxBytes = 3*256 + h.r.Int64N(7*256)
	}
	m.evicted, m.swept = 0, 0
	h.open()
	require.Empty(h.t, h.feedSince(), "the reopen changed the collection\n%s", h.where())
	h.fits = (m.maxDocs == 0 || len(m.docs) <= m.maxDocs) && (m.maxBytes == 0 || m.used() <= m.maxBytes)
	h.seen.reopened++
	if !h.fits {
		h.seen.lowered++
	}
}

// qmCosts returns what a document counts against a quota in bytes, in a
// collection with the indexes and its key order built, as the engine
// counts it: measured once for each document in a collection of its own.
// The model adds these up, and checks the sum against Stats.QuotaBytes.
func qmCosts(t *testing.T, indexes []string) func(*qmDoc) int64 {
	c, err := NewCollection("qcost", "/pk", &Options{ManualSweep: true, Indexes: indexes, Quota: QuotaOptions{MaxBytes: 1 << 40}})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	for _, err := range c.All(bg, Query{}) { // builds the key order
		require.NoError(t, err)
	}
	costs := map[string]int64{}
	return func(d *qmDoc) int64 {
		js := d.json()
		if n, ok := costs[js]; ok {
			return n
		}
		_, err := c.Create(bg, []byte(js))
		require.NoError(t, err)
		s, err := c.Stats(bg)
		require.NoError(t, err)
		require.NoError(t, c.Delete(bg, StringKey(d.pk), d.id))
		costs[js] = s.QuotaBytes
		return s.QuotaBytes
	}
}

// qmDefault returns a random DefaultTTL: off, no default, or seconds.
func qmDefault(r *rand.Rand) DefaultTTL {
	switch r.IntN(5) {
	case 0:
		return TTLOff()
	case 1:
		return TTLNoDefault()
	}
	return TTLSeconds(1 + r.Int64N(30))
}

// qmRace reports whether the test binary was built with -race.
func qmRace() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}
