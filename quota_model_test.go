package ttldb

// A randomized model of the memory quota (R17): random sequences of
// writes, batches, sweeps, changes of the DefaultTTL, clock moves and
// reopens against a collection with a quota, checked after each step
// against a model that predicts what the quota refuses, what it deletes
// to make room, and what reads then see (quota_model_ops_test.go has the
// steps, quota_model_reopen_test.go the collection's opening).

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// qmDoc is a document as the model holds it: stored, live or expired but
// not yet swept.
type qmDoc struct {
	id, pk string
	ttl    int // 0: none (inherits the DefaultTTL), -1, or seconds
	ts     int64
	v      int
	pad    int // bytes of padding, so that sizes differ
}

func qmKey(pk, id string) string { return pk + "/" + id }

func (d *qmDoc) key() string { return qmKey(d.pk, d.id) }

// json is the document as written.
func (d *qmDoc) json() string {
	s := fmt.Sprintf(`{"id":%q,"pk":%q,"v":%d`, d.id, d.pk, d.v)
	if d.ttl != 0 {
		s += fmt.Sprintf(`,"ttl":%d`, d.ttl)
	}
	if d.pad > 0 {
		s += `,"s":"` + strings.Repeat("x", d.pad) + `"`
	}
	return s + "}"
}

// qModel is what the collection should hold: its documents, expired ones
// not yet swept included, under its DefaultTTL and R7's cut-offs.
type qModel struct {
	defOn    bool
	defSec   int64 // with defOn: -1 (no default) or seconds
	evict    bool
	maxDocs  int   // the quota in documents; 0: no bound by count
	maxBytes int64 // the quota in bytes; 0: no bound by size
	docs     map[string]*qmDoc
	evicted  uint64
	swept    uint64
	cost     func(*qmDoc) int64 // what d counts against a quota in bytes
	// R7: a document with a ttl whose _ts + ttl is at or before ownCut,
	// and one without whose _ts is at or before inheritCut, expired
	// before a change of the DefaultTTL, and stays expired.
	ownCut, inheritCut int64
}

// at returns the second that orders d among those a write may delete to
// make room, ok false when it is none of them: while TTL is off none is
// (R3: nothing expires, nothing is evicted); a ttl of -1, or none under
// no default, never expires; one without a ttl cut off by R7 comes first.
func (m *qModel) at(d *qmDoc) (int64, bool) {
	switch {
	case !m.defOn:
		return 0, false
	case d.ttl > 0:
		return d.ts + int64(d.ttl), true
	case d.ttl == 0 && d.ts <= m.inheritCut:
		return math.MinInt64, true
	case d.ttl == 0 && m.defSec > 0:
		return d.ts + m.defSec, true
	}
	return 0, false
}

// expired reports whether d is expired at now (R4, R7).
func (m *qModel) expired(d *qmDoc, now int64) bool {
	switch {
	case d.ttl > 0:
		lim := m.ownCut
		if m.defOn {
			lim = max(lim, now)
		}
		return d.ts+int64(d.ttl) <= lim
	case d.ttl == 0:
		lim := m.inheritCut
		if m.defOn && m.defSec > 0 {
			lim = max(lim, now-m.defSec)
		}
		return d.ts <= lim
	}
	return false
}

// setDefault changes the DefaultTTL at now: what is expired stays so (R7).
func (m *qModel) setDefault(on bool, sec, now int64) {
	if m.defOn {
		m.ownCut = max(m.ownCut, now)
		if m.defSec > 0 {
			m.inheritCut = max(m.inheritCut, now-m.defSec)
		}
	}
	m.defOn, m.defSec = on, sec
}

// costOf returns what d counts against a quota in bytes, 0 without one.
func (m *qModel) costOf(d *qmDoc) int64 {
	if m.maxBytes == 0 {
		return 0
	}
	return m.cost(d)
}

// used returns what the documents count against a quota in bytes, 0
// without one.
func (m *qModel) used() int64 {
	var n int64
	for _, d := range m.docs {
		n += m.costOf(d)
	}
	return n
}

// qmGrowth is what a write adds: bytes (with a quota in bytes) and
// documents, either negative.
type qmGrowth struct {
	bytes int64
	docs  int
}

// over reports whether adding g to a collection of n documents that
// count used bytes goes beyond the quota: a bound counts only for a write
// that grows what it bounds.
func (m *qModel) over(used int64, n int, g qmGrowth) bool {
	return m.maxBytes > 0 && g.bytes > 0 && used+g.bytes > m.maxBytes ||
		m.maxDocs > 0 && g.docs > 0 && n+g.docs > m.maxDocs
}

// live returns the live document under key at now, or nil.
func (m *qModel) live(key string, now int64) *qmDoc {
	if d := m.docs[key]; d != nil && !m.expired(d, now) {
		return d
	}
	return nil
}

// candidates returns the documents a write at now may delete to make room,
// soonest first: under the evict policy those that expire, else those
// expired; never one of mine, the keys the write itself changes or reads.
func (m *qModel) candidates(now int64, mine map[string]bool) []*qmDoc {
	var out []*qmDoc
	for k, d := range m.docs {
		if _, ok := m.at(d); ok && !mine[k] && (m.evict || m.expired(d, now)) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *qmDoc) int {
		x, _ := m.at(a)
		y, _ := m.at(b)
		return cmp.Compare(x, y) // not x - y: math.MinInt64 is one of them
	})
	return out
}

// qHarness runs one sequence.
type qHarness struct {
	t            *testing.T
	r            *rand.Rand
	seed         uint64
	c            *Collection
	clk          *fakeClock
	m            *qModel
	lsn          uint64   // the feed is read up to here
	gone         []uint64 // the LSNs of the evicted deletes read so far
	steps        []string // what the sequence did, for the failure report
	seen         *qmSeen
	opts         Options // the collection's, but for its quota (the model's)
	fits         bool    // the collection is within its quota (false after a reopen with a lower one)
	evictedTotal int     // the evictions since the sequence began, across reopens
}

// qmSeen counts what the sequences did, so that the test fails if they
// stop reaching the cases it checks: refusals and deletions to make room,
// under each kind of quota.
type qmSeen struct {
	refused, evicted, swept [2]int // by quota: in documents, in bytes
	reopened, lowered       int    // reopens, and those beyond the new quota
}

// where says which sequence failed, at which step, after which steps.
func (h *qHarness) where() string {
	from := max(0, len(h.steps)-12)
	return fmt.Sprintf("seed %d (TTLDB_QUOTA_SEED=%d), step %d; the last steps:\n\t%s", h.seed, h.seed, len(h.steps), strings.Join(h.steps[from:], "\n\t"))
}

// kind is 0 for a quota in documents, 1 in bytes.
func (h *qHarness) kind() int {
	if h.m.maxBytes > 0 {
		return 1
	}
	return 0
}

func (h *qHarness) now() int64 { return h.clk.Now().Unix() }

// quotaModelSteps is how many steps each sequence of TestQuotaModel
// makes. It runs 24 sequences in the quick form under `go test ./...`
// (2 to 3 s on a 2-core machine) and 160 in the long one (LongTests: 15
// to 25 s), a quarter of those under the race detector;
// TTLDB_QUOTA_SEQUENCES=n runs n sequences, TTLDB_QUOTA_SEED=n the one
// of seed n.
const quotaModelSteps = 150

// TestQuotaModel runs random sequences of creates, upserts, replaces,
// patches, deletes, touches, batches (with reads), sweeps, changes of the
// DefaultTTL (R7), clock moves and, for a durable collection, reopens
// with another quota, against a collection with a quota in documents, in
// bytes (with a secondary index or none) or both, under either policy. A
// model predicts every refusal (ErrQuotaExceeded; the write changes
// nothing) and which documents go to make room: those that expire
// soonest (expired ones as TimeToLiveExpired deletes, live ones evicted),
// never one that does not expire or that the write changes or reads,
// each needed and together enough; within one second, any of the tied
// documents. After each step it checks that each eviction is in the
// all-versions feed flagged Evicted, once; Stats.Evicted, Metrics().Evicted,
// Stats.Swept, Live, Expired and QuotaBytes (the sum of the documents'
// costs, each measured alone); and that Get and a query see exactly the
// model's live documents (R4).
func TestQuotaModel(t *testing.T) { // R17, R4, R11
	n := sized(24, 160)
	if qmRace() {
		n /= 4 // about ten times slower
	}
	if s := os.Getenv("TTLDB_QUOTA_SEQUENCES"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err, "TTLDB_QUOTA_SEQUENCES")
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	if s := os.Getenv("TTLDB_QUOTA_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "TTLDB_QUOTA_SEED")
		seeds = []uint64{n}
	}
	var seen qmSeen
	for _, seed := range seeds {
		runQuotaModel(t, seed, &seen)
		if t.Failed() {
			return
		}
	}
	t.Logf("refused, evicted, swept to make room; by quota in documents, in bytes: %+v", seen)
	if len(seeds) >= 20 { // the sequences reach what the test checks
		for i := range 2 {
			require.Positive(t, seen.refused[i], "no write refused")
			require.Positive(t, seen.evicted[i], "no document evicted")
			require.Positive(t, seen.swept[i], "no expired document deleted to make room")
		}
		require.Positive(t, seen.lowered, "no reopen with a quota below what the collection holds")
	}
}

// runQuotaModel runs the sequence of seed: its quota, policy and
// DefaultTTL, then its steps.
func runQuotaModel(t *testing.T, seed uint64, seen *qmSeen) {
	r := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15))
	m := &qModel{docs: map[string]*qmDoc{}, evict: r.IntN(2) == 0, ownCut: math.MinInt64, inheritCut: math.MinInt64}
	def := qmDefault(r)
	m.defSec, m.defOn = def.Seconds()
	var indexes []string
	switch k := r.IntN(5); {
	case k < 2: // in documents
		m.maxDocs = 2 + r.IntN(7)
	case k < 4: // in bytes: about 3 to 10 small documents
		m.maxBytes = 3*256 + r.Int64N(7*256)
	default: // both
		m.maxDocs, m.maxBytes = 2+r.IntN(7), 3*256+r.Int64N(7*256)
	}
	if m.maxBytes > 0 && r.IntN(2) == 0 {
		indexes = []string{"/v"} // its items count
	}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	h := &qHarness{t: t, r: r, seed: seed, clk: clk, m: m, seen: seen, fits: true,
		opts: Options{DefaultTTL: def, Now: clk.Now, ManualSweep: true, Indexes: indexes}}
	if r.IntN(4) == 0 { // durable, reopened now and then
		h.opts.Dir, h.opts.Sync = t.TempDir(), SyncNever
	}
	h.open()
	defer func() { h.c.Close() }()
	if m.maxBytes > 0 {
		m.cost = qmCosts(t, indexes)
	}
	// The key order counts once built (QuotaOptions): the checks' query
	// builds it here, while the collection is empty (and after each
	// reopen, before any write), so that every document counts it, as the
	// costs measured alone (qmCosts) do.
	h.checkReads()
	for range quotaModelSteps {
		h.step()
		if t.Failed() {
			return
		}
	}
	h.checkWholeFeed()
}

// feedSince returns the changes after h.lsn, and moves h.lsn past them.
func (h *qHarness) feedSince() []Change {
	q := FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: h.lsn}
	if h.lsn == 0 {
		q = FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true}
	}
	changes, _ := readAllFeed(h.t, h.c, q)
	if n := len(changes); n > 0 {
		h.lsn = changes[n-1].LSN
	}
	for _, ch := range changes {
		if ch.Evicted {
			h.gone = append(h.gone, ch.LSN)
		}
	}
	return changes
}

// want is a change the step itself makes, as the feed should show it.
type want struct {
	op      ChangeOp
	key     string
	expired bool // a delete of the expired document a create replaces
}

// checkRemovals checks the changes a write made, got: first the
// deletions made to make room for it, then own, its own changes; and
// applies those deletions to the model. g is what the write adds; mine
// the keys it changes or reads, whose documents it never deletes. Each
// deletion must be needed (the collection still over its quota before
// it), and they must be enough. They are of the documents that expire
// soonest: where several expire in the same second, any of them may go
// first (the engine takes the newest of a second first, which the rule
// does not fix), so the check is that none kept expires before one
// deleted, and the count is checked along the order the engine chose
// (under a quota in bytes, which of the tied documents goes changes how
// many must).
func (h *qHarness) checkRemovals(got []Change, own []want, g qmGrowth, mine map[string]bool) {
	t, m, now := h.t, h.m, h.now()
	require.GreaterOrEqual(t, len(got), len(own), "the write's own changes are missing: %v\n%s", got, h.where())
	gone, mineGot := got[:len(got)-len(own)], got[len(got)-len(own):]
	for i, w := range own {
		ch := mineGot[i]
		require.Equal(t, w.op, ch.Op, "change %d of the write\n%s", i, h.where())
		require.Equal(t, w.key, qmKey(qmPK(ch.PartitionKey), ch.ID), "change %d of the write\n%s", i, h.where())
		require.Equal(t, w.expired, ch.TimeToLiveExpired, "change %d of the write: TimeToLiveExpired\n%s", i, h.where())
		require.False(t, ch.Evicted, "the write's own change %d is flagged Evicted\n%s", i, h.where())
	}
	used, n := m.used(), len(m.docs)
	cands := h.m.candidates(now, mine)
	isCand := map[string]bool{}
	for _, d := range cands {
		isCand[d.key()] = true
	}
	last := int64(math.MinInt64)
	deleted := map[string]bool{}
	for _, ch := range gone {
		k := qmKey(qmPK(ch.PartitionKey), ch.ID)
		require.Equal(t, OpDelete, ch.Op, "a change before the write's own that is no delete: %+v\n%s", ch, h.where())
		require.True(t, isCand[k], "deleted %s, which may not be deleted to make room (one the write changes or reads, or one that never expires, or, under QuotaRefuse, one live)\n%s", k, h.where())
		require.False(t, deleted[k], "%s deleted twice\n%s", k, h.where())
		deleted[k] = true
		d := m.docs[k]
		require.True(t, m.over(used, n, g), "deleted %s, and the write fitted without: %d documents, %d bytes, adding %+v\n%s", k, n, used, g, h.where())
		used, n = used-m.costOf(d), n-1
		at, _ := m.at(d)
		require.GreaterOrEqual(t, at, last, "deleted %s, which expires at %d, after one that expires at %d: not the soonest first\n%s", k, at, last, h.where())
		last = at
		exp := m.expired(d, now)
		require.Equal(t, exp, ch.TimeToLiveExpired, "the delete of %s: TimeToLiveExpired\n%s", k, h.where())
		require.Equal(t, !exp, ch.Evicted, "the delete of %s: Evicted\n%s", k, h.where())
		if exp {
			m.swept++
			h.seen.swept[h.kind()]++
		} else {
			m.evicted++
			h.evictedTotal++
			h.seen.evicted[h.kind()]++
		}
	}
	require.False(t, m.over(used, n, g), "the write does not fit after its deletions: %d documents, %d bytes, adding %+v\n%s", n, used, g, h.where())
	for _, d := range cands { // none kept expires before one deleted (ties: either)
		if at, _ := m.at(d); !deleted[d.key()] {
			require.GreaterOrEqual(t, at, last, "kept %s, which expires at %d, and deleted one that expires at %d\n%s", d.key(), at, last, h.where())
		}
	}
	for k := range deleted {
		delete(m.docs, k)
	}
}

// qmPK is a partition key the model writes, as a string.
func qmPK(pk PartitionKey) string {
	v, _ := pk.Value()
	s, _ := v.(string)
	return s
}

// checkReads checks that Get and a query see exactly the model's live
// documents (R4), and the counters of Stats and Metrics.
func (h *qHarness) checkReads() {
	t, m, now := h.t, h.m, h.now()
	live := map[string]bool{}
	for _, pk := range qmPartitions {
		for _, id := range qmIDs {
			k := qmKey(pk, id)
			d := m.live(k, now)
			got, err := h.c.Get(bg, StringKey(pk), id)
			if d == nil {
				require.ErrorIs(t, err, ErrNotFound, "Get %s\n%s", k, h.where())
				continue
			}
			live[k] = true
			require.NoError(t, err, "Get %s\n%s", k, h.where())
			require.JSONEq(t, d.json(), got.Body(), "Get %s\n%s", k, h.where())
			require.Equal(t, d.ts, got.TS(), "Get %s: _ts\n%s", k, h.where())
		}
	}
	seen := map[string]bool{}
	for row, err := range h.c.QueryAll(bg, SQL{Text: "SELECT c.id, c.pk FROM c"}) {
		require.NoError(t, err, h.where())
		var d struct{ ID, PK string }
		require.NoError(t, json.Unmarshal(row, &d), "query row %s", row)
		require.False(t, seen[qmKey(d.PK, d.ID)], "query row twice: %s\n%s", row, h.where())
		seen[qmKey(d.PK, d.ID)] = true
	}
	require.Equal(t, live, seen, "the query sees the model's live documents\n%s", h.where())
	s, err := h.c.Stats(bg)
	require.NoError(t, err)
	require.Equal(t, len(live), s.Live, "Stats.Live\n%s", h.where())
	require.Equal(t, len(m.docs)-len(live), s.Expired, "Stats.Expired\n%s", h.where())
	require.Equal(t, m.evicted, s.Evicted, "Stats.Evicted\n%s", h.where())
	require.Equal(t, m.evicted, h.c.Metrics().Evicted, "Metrics().Evicted\n%s", h.where())
	require.Equal(t, m.swept, s.Swept, "Stats.Swept\n%s", h.where())
	require.Equal(t, len(h.gone), h.evictedTotal, "evicted deletes in the feed\n%s", h.where())
	if m.maxBytes > 0 {
		require.Equal(t, m.used(), s.QuotaBytes, "Stats.QuotaBytes: the sum of the documents' costs\n%s", h.where())
	}
	within := (m.maxBytes == 0 || s.QuotaBytes <= m.maxBytes) && (m.maxDocs == 0 || len(m.docs) <= m.maxDocs)
	if h.fits {
		require.True(t, within, "beyond the quota: %d documents, %d bytes\n%s", len(m.docs), s.QuotaBytes, h.where())
	}
	h.fits = within // once within a lowered quota, it stays within
}

// checkWholeFeed checks, at the end, that the feed read whole has each
// eviction once, as read step by step.
func (h *qHarness) checkWholeFeed() {
	changes, _ := readAllFeed(h.t, h.c, FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true})
	var lsns []uint64
	gone := h.gone
	for len(changes) > 0 && len(gone) > 0 && gone[0] < changes[0].LSN {
		gone = gone[1:] // before a reopen's snapshot, where the feed starts (R12)
	}
	for _, ch := range changes {
		if ch.Evicted {
			require.Equal(h.t, OpDelete, ch.Op)
			lsns = append(lsns, ch.LSN)
		}
	}
	require.Equal(h.t, gone, lsns, "the evictions in the whole feed\n%s", h.where())
}

// isQuota reports whether err is a refusal by the quota, failing the test
// on any other error.
func (h *qHarness) isQuota(err error, what string) bool {
	if errors.Is(err, ErrQuotaExceeded) {
		return true
	}
	require.NoError(h.t, err, "%s\n%s", what, h.where())
	return false
}
