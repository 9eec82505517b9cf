package conformance

// The change feed (R11) in the model-based test of model.go.
//
// The model keeps the ordered history of the changes (mHistory): each
// create, replace and delete the sequence makes, as it makes them, and
// where the sweeper must delete expired documents. With ManualSweep that
// is the whole history, LSN by LSN, but for the order of the deletes of one
// Sweep call, which the spec leaves open: those are a set, and each takes
// one of the LSNs that follow the change before them. With the background
// sweeper, a document the model has seen expire may be deleted at any point
// until a Sweep call or a write of its key, which must find it deleted.
//
// After every step, the all-versions-and-deletes feed is read on from where
// the last step's read ended, and each change is matched with the model's
// history: the library's order of a Sweep's deletes, once checked against
// the set, becomes the history the later reads must return exactly. Then
// the reads from the present (FromNow) made at the last step must give
// exactly the changes since, LastLSN must be the last LSN, and the
// latest-version feed is read on as well. At the end of the sequence (and
// before Close, and at one step drawn at random), both modes are read
// from the beginning of all partitions and of each partition, page by page
// with small Limits, then from every continuation those reads returned, from
// every continuation kept from earlier steps, and from every AfterLSN.

import (
	"fmt"
	"math/rand/v2"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// The model's history.

// Kinds of mEvent.
const (
	evChange = iota // a create, a replace or a caller's delete: the next LSN
	evExpire        // a document expired: the sweeper may delete it from now on
	evSweep         // the sweeper deletes these expired documents here, each with its LSN, in any order
)

// mEvent is one event of the model's history.
type mEvent struct {
	kind int
	op   ttldb.ChangeOp // evChange: OpCreate, OpReplace or OpDelete
	key  mKey           // evChange, evExpire
	keys []mKey         // evSweep
	ts   int64          // the _ts of the change or the deletes; evExpire: the model's now when it expired
	ver  *mDoc          // the version written, for OpCreate and OpReplace
}

// mHistory is the model's change feed (R11): every change, in the order
// they took effect.
type mHistory struct {
	events []mEvent
	lsn    uint64 // the last LSN, when expired documents are deleted only where evSweep says (ManualSweep)
}

// expire records that the document at k expired at now (R4).
func (hi *mHistory) expire(k mKey, now int64) {
	hi.events = append(hi.events, mEvent{kind: evExpire, key: k, ts: now})
}

// change records a create, a replace (ver is the version written) or a
// caller's delete (ver nil), at the second ts.
func (hi *mHistory) change(op ttldb.ChangeOp, k mKey, ts int64, ver *mDoc) {
	hi.lsn++
	hi.events = append(hi.events, mEvent{kind: evChange, op: op, key: k, ts: ts, ver: ver})
}

// sweep records that the sweeper deletes the expired documents at keys, at
// the second ts: by Sweep, or by a write over one of them.
func (hi *mHistory) sweep(keys []mKey, ts int64) {
	hi.lsn += uint64(len(keys))
	hi.events = append(hi.events, mEvent{kind: evSweep, keys: keys, ts: ts})
}

// mChange is a change as the feed must return it.
type mChange struct {
	op      ttldb.ChangeOp
	lsn     uint64
	ts      int64
	key     mKey
	expired bool
	ver     *mDoc // the version, for OpCreate, OpReplace and OpLatest
}

func (c mChange) String() string {
	s := fmt.Sprintf("%v %v LSN %d _ts %d", c.op, c.key, c.lsn, c.ts)
	if c.expired {
		s += " timeToLiveExpired"
	}
	return s
}

// ---------------------------------------------------------------------------
// The harness's side: the feed as read so far, matched with the history.

// feedState is what the harness has read of the feed.
type feedState struct {
	r *rand.Rand // the draws of the feed's reads, apart from the operations' (h.r)

	// The history as the library ordered it, matched with the model's:
	// res[i] is the change of LSN i+1. cur is the first event of the
	// model's history not matched yet.
	res []mChange
	cur int
	// pending holds the keys whose document expired and that no delete of
	// the feed has deleted yet, with the model's now when they expired.
	// owed holds those that must be deleted before the next change: with
	// ManualSweep, the rest of the Sweep in progress, at the second owedTS.
	pending map[mKey]int64
	owed    map[mKey]bool
	owedTS  int64

	tail    feedToken   // where the all-versions read of every step resumes
	latest  feedToken   // where the latest-version read of every step resumes
	fromNow []feedToken // the reads from the present of the last step
	kept    []feedToken // continuations for checkFeedFull to resume
	buf     []byte
	live    []mChange // feedWant's latest versions, as of the event liveAt
	liveAt  int

	// floor is the last LSN of the all-versions feed that a reopen after a
	// compaction dropped: its feed starts after the snapshot (R12). snap,
	// when set, is the range of LSNs the last compaction's snapshot may
	// have been taken at, until the next reopen.
	floor uint64
	snap  *[2]uint64
}

// feedToken is a continuation and where it resumes: after the LSN after,
// as far as the model can tell (the last change of its page, or where the
// page started if it had none: a page's continuation may lie further on,
// past changes it skipped, but none that the query returns).
type feedToken struct {
	mode  ttldb.FeedMode
	part  *mPK // nil: all partitions
	tok   string
	after uint64
	from  func() string // where the read that returned it started, for messages
	page  int           // and its page; -1 for a read from the present
}

func (t feedToken) String() string {
	if t.page < 0 {
		return fmt.Sprintf("%s (after LSN %d)", t.from(), t.after)
	}
	return fmt.Sprintf("the continuation of page %d from %s (after LSN %d)", t.page, t.from(), t.after)
}

// Where a read starts, for messages.
type (
	fromText  string
	fromAfter uint64
)

func (s fromText) String() string  { return string(s) }
func (a fromAfter) String() string { return fmt.Sprintf("AfterLSN %d", a) }

func (f *feedState) init(seed uint64) {
	f.r = rand.New(rand.NewPCG(seed^0x6a09e667f3bcc908, seed))
	f.pending, f.owed = map[mKey]int64{}, map[mKey]bool{}
	f.tail = feedToken{mode: ttldb.AllVersionsAndDeletes, from: fromText("the beginning").String, page: -1}
	f.latest = feedToken{mode: ttldb.LatestVersion, from: fromText("the beginning").String, page: -1}
}

// limit draws a page's Limit: with small, mostly 1 to 7, so that reads
// take many pages; else mostly large, so that they take few.
func (f *feedState) limit(small bool) int {
	if !small && f.r.IntN(4) > 0 {
		return pick(f.r, []int{0, ttldb.MaxFeedLimit, 50})
	}
	switch n := f.r.IntN(12); {
	case n == 0:
		return 0 // DefaultFeedLimit
	case n == 1:
		return ttldb.MaxFeedLimit
	default:
		return 1 + f.r.IntN(7)
	}
}

// keep keeps t for checkFeedFull, or sometimes in place of one kept.
func (f *feedState) keep(t feedToken) {
	switch {
	case len(f.kept) < 48:
		f.kept = append(f.kept, t)
	case f.r.IntN(4) == 0:
		f.kept[f.r.IntN(len(f.kept))] = t
	}
}
