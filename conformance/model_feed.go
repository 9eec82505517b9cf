package conformance

// The change feed (R11) in the model-based test of model_test.go.
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
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

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

// feedRand makes the harness's own draws (pkGo, otherPK) those of the feed
// until the function it returns is called, so that reading the feed leaves
// the sequence of operations as it is.
func (h *modelHarness) feedRand() func() {
	r := h.r
	h.r = h.feed.r
	return func() { h.r = r }
}

// feedWritten records the LSN and the JSON a successful write returned,
// which the feed must show. With ManualSweep the model knows the LSN.
func (h *modelHarness) feedWritten(op string, k mKey, got ttldb.Document) error {
	d := h.m.docs[k]
	d.json, d.lsn = got.JSON(), got.LSN()
	if !h.background && got.LSN() != h.m.hist.lsn {
		return fmt.Errorf("%s: document %v: LSN() %d, model says %d (R11: every change takes the next LSN, from 1)", op, k, got.LSN(), h.m.hist.lsn)
	}
	return nil
}

// keyOfChange returns the model's key of a change's document.
func (h *modelHarness) keyOfChange(ch ttldb.Change) (mKey, error) {
	v, ok := ch.PartitionKey.Value()
	if h.idPath {
		if s, isString := v.(string); !ok || !isString || s != ch.ID {
			return mKey{}, fmt.Errorf("change LSN %d: partition key %v, id %q: the path is /id", ch.LSN, ch.PartitionKey, ch.ID)
		}
		return idKey(ch.ID), nil
	}
	for _, p := range h.parts {
		if w, wok := pkValue(p.pk); ok == wok && v == w {
			return mKey{p.pk, ch.ID}, nil
		}
	}
	return mKey{}, fmt.Errorf("change LSN %d: partition key %v, which the sequence never writes", ch.LSN, ch.PartitionKey)
}

// describeChange is a change for messages.
func describeChange(ch ttldb.Change) string {
	s := fmt.Sprintf("%v %v/%q LSN %d _ts %d", ch.Op, ch.PartitionKey, ch.ID, ch.LSN, ch.TS)
	if ch.TimeToLiveExpired {
		s += " timeToLiveExpired"
	}
	return s
}

// checkChange compares a change of the feed with the model's; op names
// the read, for messages.
func (h *modelHarness) checkChange(op func() string, got ttldb.Change, want mChange) error {
	k, err := h.keyOfChange(got)
	if err != nil {
		return fmt.Errorf("%s: %v", op(), err)
	}
	if got.Op != want.op || got.LSN != want.lsn || got.TS != want.ts || k != want.key || got.TimeToLiveExpired != want.expired {
		return fmt.Errorf("%s: %s, model says %v", op(), describeChange(got), want)
	}
	d := got.Document
	h.feed.buf = d.AppendJSON(h.feed.buf[:0])
	if want.ver == nil {
		if d.LSN() != 0 || len(h.feed.buf) != 0 {
			return fmt.Errorf("%s: %s carries the document %s (R11: a delete carries the id and the partition key)", op(), describeChange(got), d.JSON())
		}
		return nil
	}
	// The etag is the LSN's (Document.LSN): equal JSON, equal _etag.
	if d.LSN() != want.lsn || string(h.feed.buf) != want.ver.json {
		return fmt.Errorf("%s: %s: document LSN() %d %s, model says LSN %d %s (R11: the document as written)", op(), describeChange(got), d.LSN(), d.JSON(), want.lsn, want.ver.json)
	}
	return nil
}

// expiries takes the model's next events up to the next one that is not an
// expiry.
func (f *feedState) expiries(ev []mEvent) {
	for ; f.cur < len(ev) && ev[f.cur].kind == evExpire; f.cur++ {
		f.pending[ev[f.cur].key] = ev[f.cur].ts
	}
}

// upToChange takes the model's next events up to the next change (the
// background sweeper's order): expiries, and the sweeps, whose documents
// must be deleted before the next change.
func (f *feedState) upToChange(ev []mEvent) {
	for ; f.cur < len(ev) && ev[f.cur].kind != evChange; f.cur++ {
		e := ev[f.cur]
		if e.kind == evExpire {
			f.pending[e.key] = e.ts
			continue
		}
		for _, k := range e.keys {
			if _, ok := f.pending[k]; ok {
				f.owed[k] = true
			}
		}
	}
}

// describeEvent is the model's event at i, for messages.
func (h *modelHarness) describeEvent(i int) string {
	ev := h.m.hist.events
	if i >= len(ev) {
		return "nothing more"
	}
	switch e := ev[i]; e.kind {
	case evChange:
		return fmt.Sprintf("%v %v _ts %d", e.op, e.key, e.ts)
	case evSweep:
		return fmt.Sprintf("the sweeper's deletes of %v at _ts %d", e.keys, e.ts)
	default:
		return fmt.Sprintf("the expiry of %v", e.key)
	}
}

// resolve matches ch, the change that follows the last one matched in the
// all-versions feed, with the model's history, and appends it to res.
func (h *modelHarness) resolve(op func() string, ch ttldb.Change) error {
	f := &h.feed
	ev := h.m.hist.events
	lsn := uint64(len(f.res)) + 1
	if ch.LSN != lsn {
		return fmt.Errorf("%s: %s follows LSN %d (R11: every change takes the next LSN)", op(), describeChange(ch), lsn-1)
	}
	if len(f.res) > 0 && ch.TS < f.res[len(f.res)-1].ts {
		return fmt.Errorf("%s: %s, after a change at _ts %d (R4: now never goes backward)", op(), describeChange(ch), f.res[len(f.res)-1].ts)
	}
	k, err := h.keyOfChange(ch)
	if err != nil {
		return fmt.Errorf("%s: %v", op(), err)
	}
	want := mChange{op: ttldb.OpDelete, lsn: lsn, key: k, expired: true}
	switch {
	case ch.Op == ttldb.OpDelete && ch.TimeToLiveExpired && !h.background:
		if len(f.owed) == 0 {
			f.expiries(ev)
			if f.cur == len(ev) || ev[f.cur].kind != evSweep {
				return fmt.Errorf("%s: %s where the model has %s (R11, R5: with ManualSweep only Sweep, and a write over an expired document, delete one)", op(), describeChange(ch), h.describeEvent(f.cur))
			}
			for _, k := range ev[f.cur].keys {
				f.owed[k] = true
			}
			f.owedTS = ev[f.cur].ts
			f.cur++
		}
		if !f.owed[k] {
			return fmt.Errorf("%s: %s, while the model's sweep at _ts %d has yet to delete %v", op(), describeChange(ch), f.owedTS, slices.SortedFunc(maps.Keys(f.owed), cmpKey))
		}
		delete(f.owed, k)
		delete(f.pending, k)
		want.ts = f.owedTS
	case ch.Op == ttldb.OpDelete && ch.TimeToLiveExpired: // the background sweeper's, or a write's
		f.upToChange(ev)
		at, ok := f.pending[k]
		if !ok {
			return fmt.Errorf("%s: %s: the model has not seen %v expire since it was last written or deleted (R4, R5)", op(), describeChange(ch), k)
		}
		if ch.TS < at || ch.TS > h.m.now {
			return fmt.Errorf("%s: %s: the model saw it expire at %d, and now is %d", op(), describeChange(ch), at, h.m.now)
		}
		delete(f.owed, k)
		delete(f.pending, k)
		want.ts = ch.TS
	default:
		if h.background {
			f.upToChange(ev)
		} else {
			f.expiries(ev)
		}
		if len(f.owed) > 0 {
			return fmt.Errorf("%s: %s, but first the sweeper must delete %v (R5: Sweep deletes every expired document; R11: a write over an expired document deletes it first)",
				op(), describeChange(ch), slices.SortedFunc(maps.Keys(f.owed), cmpKey))
		}
		if f.cur == len(ev) || ev[f.cur].kind != evChange {
			return fmt.Errorf("%s: %s where the model has %s", op(), describeChange(ch), h.describeEvent(f.cur))
		}
		e := ev[f.cur]
		want = mChange{op: e.op, lsn: lsn, ts: e.ts, key: e.key, ver: e.ver}
		if e.ver != nil && e.ver.lsn != lsn {
			return fmt.Errorf("%s: %s: its write returned the document of LSN %d", op(), describeChange(ch), e.ver.lsn)
		}
		f.cur++
	}
	if err := h.checkChange(op, ch, want); err != nil {
		return err
	}
	f.res = append(f.res, want)
	return nil
}

// caughtUp checks, once the all-versions feed has been read to its end,
// that it has shown every change of the model's history.
func (h *modelHarness) caughtUp(op func() string) error {
	f := &h.feed
	ev := h.m.hist.events
	if h.background {
		f.upToChange(ev)
	} else {
		f.expiries(ev)
	}
	if len(f.owed) > 0 {
		return fmt.Errorf("%s: the feed ends at LSN %d, but the sweeper must have deleted %v (R5, R11)", op(), len(f.res), slices.SortedFunc(maps.Keys(f.owed), cmpKey))
	}
	if f.cur < len(ev) {
		return fmt.Errorf("%s: the feed ends at LSN %d, but the model has %s next (R11: every change appears)", op(), len(f.res), h.describeEvent(f.cur))
	}
	if !h.background && uint64(len(f.res)) != h.m.hist.lsn {
		return fmt.Errorf("%s: the feed ends at LSN %d, the model's last LSN is %d", op(), len(f.res), h.m.hist.lsn)
	}
	return nil
}

// checkPage checks what every page of the feed must be: at most Limit
// changes (an effective limit of lim), a continuation, and More only with
// a full page. ReadFeed visits up to 4 Limit + 1024 records or documents;
// a sequence writes far fewer, so only Limit ends a page early.
func checkPage(op func() string, got ttldb.FeedPage, lim int) error {
	switch {
	case len(got.Changes) > lim:
		return fmt.Errorf("%s: %d changes, Limit %d", op(), len(got.Changes), lim)
	case got.Continuation == "":
		return fmt.Errorf("%s: no continuation (R11: a page always says where to resume)", op())
	case got.More && len(got.Changes) < lim:
		return fmt.Errorf("%s: %d changes of Limit %d, and More, in a collection smaller than a read's budget", op(), len(got.Changes), lim)
	}
	return nil
}

func effLimit(l int) int {
	if l == 0 {
		return ttldb.DefaultFeedLimit
	}
	return l
}

// catchUp reads the all-versions feed of all partitions on from where the
// last read ended to its end, and matches each change with the model's
// history.
func (h *modelHarness) catchUp() error {
	f := &h.feed
	q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: f.tail.tok}
	for page := 0; ; page++ {
		q.Limit = f.limit(true)
		from := f.tail.after
		op := func() string { return fmt.Sprintf("ReadFeed(all versions, after LSN %d, Limit %d)", from, q.Limit) }
		got, err := h.c.ReadFeed(bg, q)
		if err != nil {
			return fmt.Errorf("%s: %v", op(), err)
		}
		if err := checkPage(op, got, effLimit(q.Limit)); err != nil {
			return err
		}
		for _, ch := range got.Changes {
			if err := h.resolve(op, ch); err != nil {
				return err
			}
		}
		if n := len(got.Changes); n > 0 {
			f.tail.after = got.Changes[n-1].LSN
		}
		f.tail.tok, f.tail.from, f.tail.page = got.Continuation, fromText("a step's read of all versions").String, page
		if f.r.IntN(3) == 0 {
			f.keep(f.tail)
		}
		if !got.More {
			return h.caughtUp(op)
		}
		if page > 10_000 {
			return fmt.Errorf("%s: More, after %d pages", op(), page)
		}
		q.Continuation = got.Continuation
	}
}

// feedWant returns the changes a read of mode, in part (nil: all
// partitions), after the LSN after, must return: the history's, or the live
// documents written after it, in the order of their last writes. The
// caller must not change the slice it returns.
func (h *modelHarness) feedWant(mode ttldb.FeedMode, part *mPK, after uint64) []mChange {
	f := &h.feed
	all := f.res
	if mode == ttldb.LatestVersion {
		if f.liveAt != len(h.m.hist.events) || f.live == nil { // every change of m.docs is an event
			f.live, f.liveAt = f.live[:0], len(h.m.hist.events)
			for k, d := range h.m.docs { // the live documents: never an expired one (R4)
				f.live = append(f.live, mChange{op: ttldb.OpLatest, lsn: d.lsn, ts: d.ts, key: k, ver: d})
			}
			slices.SortFunc(f.live, func(a, b mChange) int { return cmp.Compare(a.lsn, b.lsn) })
		}
		all = f.live
	}
	all = all[sortSearch(all, after):]
	if part == nil {
		return all
	}
	var w []mChange
	for _, c := range all {
		if c.key.pk == *part {
			w = append(w, c)
		}
	}
	return w
}

// sortSearch returns the index of the first change after the LSN after in
// cs, which is in LSN order.
func sortSearch(cs []mChange, after uint64) int {
	i, _ := slices.BinarySearchFunc(cs, after+1, func(c mChange, lsn uint64) int { return cmp.Compare(c.lsn, lsn) })
	return i
}

// scopeName describes a read's mode and partitions.
func scopeName(mode ttldb.FeedMode, part *mPK) string {
	s := "latest"
	if mode == ttldb.AllVersionsAndDeletes {
		s = "all versions"
	}
	if part != nil {
		return s + " of partition " + pkName(*part)
	}
	return s
}

// readChain reads q to its end, page by page with a random Limit each, and
// checks that the pages hold, in order, exactly the changes the model says
// follow the LSN after in part (nil: all partitions), which q must read.
// small asks for small pages. It returns the pages' continuations.
func (h *modelHarness) readChain(from fmt.Stringer, q ttldb.FeedQuery, part *mPK, after uint64, small bool) ([]feedToken, error) {
	f := &h.feed
	var toks []feedToken
	if q.Mode == ttldb.AllVersionsAndDeletes && after < f.floor {
		var err error
		if q, err = h.trimmed(fmt.Sprintf("ReadFeed(%s, from %s)", scopeName(q.Mode, part), from), q, part, after); err != nil {
			return nil, err
		}
		after = f.floor
	}
	known := uint64(len(f.res))
	want := h.feedWant(q.Mode, part, after)
	seen := 0
	for page := 0; ; page++ {
		q.Limit = f.limit(small)
		op := func() string {
			return fmt.Sprintf("ReadFeed(%s, from %s, page %d, Limit %d)", scopeName(q.Mode, part), from, page, q.Limit)
		}
		readAt := uint64(len(f.res)) // the changes seen before this read, which it must reach
		got, err := h.c.ReadFeed(bg, q)
		if err != nil {
			return toks, fmt.Errorf("%s: %v", op(), err)
		}
		if err := checkPage(op, got, effLimit(q.Limit)); err != nil {
			return toks, err
		}
		if n := len(got.Changes); h.background && q.Mode == ttldb.AllVersionsAndDeletes && n > 0 && got.Changes[n-1].LSN > known {
			if err := h.catchUp(); err != nil { // the sweeper's deletes since
				return toks, err
			}
			known, want = uint64(len(f.res)), h.feedWant(q.Mode, part, after)
		}
		for i, ch := range got.Changes {
			if i == len(want) {
				return toks, fmt.Errorf("%s: %s, after the %d changes the model has there", op(), describeChange(ch), seen+i)
			}
			if err := h.checkChange(func() string { return fmt.Sprintf("%s #%d", op(), i) }, ch, want[i]); err != nil {
				return toks, err
			}
		}
		want = want[len(got.Changes):]
		seen += len(got.Changes)
		if n := len(got.Changes); n > 0 {
			after = got.Changes[n-1].LSN
		}
		toks = append(toks, feedToken{mode: q.Mode, part: part, tok: got.Continuation, after: after, from: from.String, page: page})
		if !got.More {
			if h.background && q.Mode == ttldb.AllVersionsAndDeletes {
				// What the sweeper deleted during or after the last read
				// (which catchUp, above, may have just seen) may follow.
				want = want[:sortSearch(want, readAt)]
			}
			if len(want) > 0 {
				return toks, fmt.Errorf("%s: the feed ends after %d changes; the model has %d more, first %v", op(), seen, len(want), want[0])
			}
			return toks, nil
		}
		if page > 10_000 {
			return toks, fmt.Errorf("%s: More, after %d pages", op(), page)
		}
		q.Continuation, q.AfterLSN, q.FromNow, q.FromOldest = got.Continuation, 0, false, false
	}
}

// trimmed checks a read of all versions q that resumes after the LSN after,
// which a reopen after a compaction dropped (R12): it must fail with a
// TrimmedError that says where to resume, which it returns, unless the read
// of a partition resumes from a token past the floor already, there being
// no change of the partition between. The rest of the read is readChain's.
func (h *modelHarness) trimmed(op string, q ttldb.FeedQuery, part *mPK, after uint64) (ttldb.FeedQuery, error) {
	f := &h.feed
	lost := h.feedWant(q.Mode, part, after)
	lost = lost[:sortSearch(lost, f.floor)]
	_, err := h.c.ReadFeed(bg, q)
	var te *ttldb.TrimmedError
	switch {
	case err == nil && part != nil && len(lost) == 0:
		return q, nil
	case !errors.As(err, &te) || !errors.Is(err, ttldb.ErrFeedTrimmed):
		return q, fmt.Errorf("%s: %v; want ErrFeedTrimmed: the reopen after the compaction at LSN %d kept no change before (R12)", op, err, f.floor)
	case te.Oldest != f.floor+1 || te.After < after || te.After >= f.floor || te.Continuation == "":
		return q, fmt.Errorf("%s: %+v; want After %d or later (within a partition), Oldest %d and a continuation (R12)", op, *te, after, f.floor+1)
	}
	q.Continuation, q.AfterLSN, q.FromNow = te.Continuation, 0, false
	return q, nil
}

// compacted notes that the collection compacted: lo and hi bound the LSN
// of its snapshot, where the all-versions feed starts after a reopen.
func (f *feedState) compacted(lo, hi uint64) { f.snap = &[2]uint64{lo, hi} }

// reopened finds where the all-versions feed of the collection just
// reopened starts, and checks that it is after the snapshot of the last
// compaction, or where it was if none happened since the last reopen (R12).
func (h *modelHarness) reopened() error {
	f := &h.feed
	if f.snap == nil {
		return nil
	}
	lo, hi := f.snap[0], f.snap[1]
	if h.background { // the sweeper deleted during the compaction, perhaps
		hi = h.c.LastLSN()
	}
	f.snap = nil
	_, err := h.c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1})
	floor := uint64(0)
	var te *ttldb.TrimmedError
	if errors.As(err, &te) {
		floor = te.Oldest - 1
	} else if err != nil {
		return fmt.Errorf("ReadFeed(all versions, from the beginning) after the reopen: %v", err)
	}
	if floor < lo || floor > hi || floor < f.floor {
		return fmt.Errorf("the all-versions feed after the reopen starts after LSN %d; the last compaction's snapshot was taken after LSN %d to %d (R12)", floor, max(lo, f.floor), hi)
	}
	// FromOldest starts there, with no error (R11).
	page, err := h.c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromOldest: true, Limit: 1})
	if err != nil || len(page.Changes) == 1 && page.Changes[0].LSN != floor+1 || len(page.Changes) == 0 && page.LSN != floor {
		return fmt.Errorf("ReadFeed(all versions, FromOldest) after the reopen: %+v, %v; the feed starts after LSN %d", page, err, floor)
	}
	f.floor = floor
	return nil
}

// resume reads on from the continuation t.
func (h *modelHarness) resume(t feedToken) ([]feedToken, error) {
	q := ttldb.FeedQuery{Mode: t.mode, Continuation: t.tok}
	if t.part != nil {
		pk := h.pkGo(*t.part)
		q.Partition = &pk
	}
	return h.readChain(t, q, t.part, t.after, h.feed.r.IntN(3) == 0)
}

// checkFeed runs after every step (R11): the all-versions feed read on,
// each change matched with the model's history; LastLSN; the reads from the
// present of the last step; the latest-version feed read on; and new reads
// from the present.
func (h *modelHarness) checkFeed() error {
	defer h.feedRand()()
	f := &h.feed
	if h.m.closed {
		q := ttldb.FeedQuery{Mode: ttldb.FeedMode(f.r.IntN(2)), FromNow: f.r.IntN(2) == 0}
		if _, err := h.c.ReadFeed(bg, q); !errors.Is(err, ttldb.ErrClosed) {
			return fmt.Errorf("ReadFeed after Close: %v, want ErrClosed", err)
		}
		n := 0
		for ch, err := range h.c.WatchFeed(context.Background(), q) {
			if n++; n > 1 || !errors.Is(err, ttldb.ErrClosed) || ch.LSN != 0 {
				return fmt.Errorf("WatchFeed after Close: yields %s, %v; want one ErrClosed", describeChange(ch), err)
			}
		}
		if n != 1 {
			return fmt.Errorf("WatchFeed after Close: yields nothing, want ErrClosed")
		}
		if n := h.c.LastLSN(); !h.background && n != h.m.hist.lsn {
			return fmt.Errorf("LastLSN() after Close: %d, model says %d", n, h.m.hist.lsn)
		}
		return nil
	}
	before := h.c.LastLSN()
	if err := h.catchUp(); err != nil {
		return err
	}
	last := uint64(len(f.res))
	if n := h.c.LastLSN(); before > last || n < last || !h.background && n != last {
		return fmt.Errorf("LastLSN() %d before the feed's read to its last change, LSN %d, and %d after (R11)", before, last, n)
	}
	for _, t := range f.fromNow { // exactly the changes since
		if _, err := h.resume(t); err != nil {
			return err
		}
	}
	toks, err := h.resume(f.latest)
	if err != nil {
		return err
	}
	f.latest = toks[len(toks)-1]
	f.latest.from, f.latest.page = fromText("a step's latest-version read").String, -1
	for _, t := range toks {
		if f.r.IntN(3) == 0 {
			f.keep(t)
		}
	}
	if f.r.IntN(4) == 0 { // now and then, a whole read of some query
		mode, part := ttldb.FeedMode(f.r.IntN(2)), h.feedPart()
		toks, err := h.readChain(fromText("the beginning"), h.feedQuery(mode, part), part, 0, true)
		if err != nil {
			return err
		}
		f.keep(pick(f.r, toks))
	}
	f.fromNow = f.fromNow[:0]
	for _, mode := range []ttldb.FeedMode{ttldb.LatestVersion, ttldb.AllVersionsAndDeletes} {
		part := h.feedPart()
		q := h.feedQuery(mode, part)
		q.FromNow, q.Limit = true, f.limit(false)
		op := func() string { return fmt.Sprintf("ReadFeed(%s, FromNow, Limit %d)", scopeName(mode, part), q.Limit) }
		l0 := h.c.LastLSN()
		got, err := h.c.ReadFeed(bg, q)
		l1 := h.c.LastLSN()
		if err != nil {
			return fmt.Errorf("%s: %v", op(), err)
		}
		if len(got.Changes) > 0 || got.More || got.Continuation == "" {
			return fmt.Errorf("%s: %d changes, More %v, continuation %q; want none, and where to look again (R11: a read from the present)", op(), len(got.Changes), got.More, got.Continuation)
		}
		if l0 == l1 { // not, when the background sweeper deleted during the read
			t := feedToken{mode: mode, part: part, tok: got.Continuation, after: l0, from: fromText("a read from the present").String, page: -1}
			f.fromNow = append(f.fromNow, t)
			f.keep(t)
		}
	}
	return nil
}

// feedPart draws the partition of a read: mostly all of them, else one the
// sequence writes, or one it does not.
func (h *modelHarness) feedPart() *mPK {
	var p mPK
	switch n := h.feed.r.IntN(8); {
	case n < 4:
		return nil
	case n < 7:
		p = pick(h.feed.r, h.parts).pk
	case h.idPath:
		p = h.otherPK(pick(h.feed.r, h.ids).id)
	default:
		p = pick(h.feed.r, modelPartitions).pk
	}
	return &p
}

// feedQuery is a FeedQuery of mode in part (nil: all partitions).
func (h *modelHarness) feedQuery(mode ttldb.FeedMode, part *mPK) ttldb.FeedQuery {
	q := ttldb.FeedQuery{Mode: mode}
	if part != nil {
		pk := h.pkGo(*part)
		q.Partition = &pk
	}
	return q
}

// checkFeedFull reads the feed from everywhere (R11): both modes, from the
// beginning of all partitions and of each, then from every continuation
// those reads returned, from every continuation kept from earlier steps,
// and from every AfterLSN; WatchFeed from the beginning; and refused reads.
func (h *modelHarness) checkFeedFull() error {
	if h.m.closed {
		return nil
	}
	defer h.feedRand()()
	f := &h.feed
	if err := h.catchUp(); err != nil {
		return err
	}
	parts := []*mPK{nil}
	for _, p := range h.parts {
		parts = append(parts, &p.pk)
	}
	if other := h.feedPart(); other != nil {
		parts = append(parts, other)
	}
	var all []feedToken
	for _, mode := range []ttldb.FeedMode{ttldb.LatestVersion, ttldb.AllVersionsAndDeletes} {
		for _, part := range parts {
			toks, err := h.readChain(fromText("the beginning"), h.feedQuery(mode, part), part, 0, true)
			if err != nil {
				return err
			}
			all = append(all, toks...)
		}
	}
	for _, t := range append(all, f.kept...) {
		if _, err := h.resume(t); err != nil {
			return err
		}
	}
	last := uint64(len(f.res))
	for after := uint64(0); after <= last; after++ {
		for _, mode := range []ttldb.FeedMode{ttldb.LatestVersion, ttldb.AllVersionsAndDeletes} {
			part := h.feedPart()
			if after == 0 && f.r.IntN(2) == 0 { // AfterLSN 0 reads from the beginning
				part = nil
			}
			q := h.feedQuery(mode, part)
			q.AfterLSN = after
			if _, err := h.readChain(fromAfter(after), q, part, after, f.r.IntN(4) == 0); err != nil {
				return err
			}
		}
	}
	if err := h.watchFeed(); err != nil {
		return err
	}
	return h.refusedFeedReads(all)
}

// watchFeed reads each mode from the beginning with WatchFeed, up to the
// last change the model has, and once more with a context already done.
func (h *modelHarness) watchFeed() error {
	for _, mode := range []ttldb.FeedMode{ttldb.LatestVersion, ttldb.AllVersionsAndDeletes} {
		part := h.feedPart()
		q := h.feedQuery(mode, part)
		q.Limit = h.feed.limit(true)
		want := h.feedWant(mode, part, 0)
		op := fmt.Sprintf("WatchFeed(%s, Limit %d)", scopeName(mode, part), q.Limit)
		if mode == ttldb.AllVersionsAndDeletes && h.feed.floor > 0 { // R12: trimmed by a reopen
			var te *ttldb.TrimmedError
			for ch, err := range h.c.WatchFeed(context.Background(), q) {
				if !errors.As(err, &te) || te.Oldest != h.feed.floor+1 {
					return fmt.Errorf("%s: yields %s, %v; want ErrFeedTrimmed, the oldest change kept LSN %d", op, describeChange(ch), err, h.feed.floor+1)
				}
				break
			}
			if te == nil {
				return fmt.Errorf("%s: yields nothing; want ErrFeedTrimmed", op)
			}
			q.Continuation, want = te.Continuation, h.feedWant(mode, part, h.feed.floor)
		}
		i := 0
		if len(want) > 0 {
			// A deadline, so that a feed that has fewer changes than the
			// model fails the test instead of waiting for ever.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for ch, err := range h.c.WatchFeed(ctx, q) {
				if err != nil {
					return fmt.Errorf("%s: %v after %d changes", op, err, i)
				}
				if err := h.checkChange(func() string { return fmt.Sprintf("%s #%d", op, i) }, ch, want[i]); err != nil {
					return err
				}
				if i++; i == len(want) {
					break
				}
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n := 0
		for ch, err := range h.c.WatchFeed(ctx, q) {
			if n++; n > 1 || !errors.Is(err, context.Canceled) || ch.LSN != 0 {
				return fmt.Errorf("%s with a context done: yields %s, %v; want one context.Canceled", op, describeChange(ch), err)
			}
		}
		if n != 1 {
			return fmt.Errorf("%s with a context done: yields nothing, want context.Canceled", op)
		}
	}
	return nil
}

// refusedFeedReads checks the reads ReadFeed must refuse, with tokens from
// toks.
func (h *modelHarness) refusedFeedReads(toks []feedToken) error {
	f := &h.feed
	t := pick(f.r, toks)
	otherMode := h.feedQuery(1-t.mode, t.part)
	otherMode.Continuation = t.tok
	otherPart := h.feedQuery(t.mode, nil)
	if t.part == nil {
		p := pick(f.r, h.parts).pk
		otherPart = h.feedQuery(t.mode, &p)
	}
	otherPart.Continuation = t.tok
	same := h.feedQuery(t.mode, t.part)
	damaged, made, both := same, same, same
	mid, flip := len(t.tok)/2, "A"
	if t.tok[mid] == 'A' {
		flip = "B"
	}
	damaged.Continuation = t.tok[:mid] + flip + t.tok[mid+1:]
	made.Continuation = pick(f.r, []string{"x", "AAAAAAAA", "not a token!"})
	both.Continuation, both.AfterLSN = t.tok, 1
	beyond := h.c.LastLSN() + 1
	if h.background {
		beyond += 1 << 20 // the sweeper may delete meanwhile
	}
	badPK := pick(f.r, modelBadPKs)
	reads := []struct {
		desc  string
		q     ttldb.FeedQuery
		class string
	}{
		{"a token of the other mode", otherMode, classInvalidToken},
		{"a token of other partitions", otherPart, classInvalidToken},
		{"a damaged token", damaged, classInvalidToken},
		{"a made-up token", made, classInvalidToken},
		{"a token and AfterLSN", both, classInvalidOpt},
		{"AfterLSN beyond the last change", ttldb.FeedQuery{Mode: t.mode, AfterLSN: beyond}, classInvalidOpt},
		{"Limit -1", ttldb.FeedQuery{Mode: t.mode, Limit: -1}, classInvalidOpt},
		{"Limit above MaxFeedLimit", ttldb.FeedQuery{Mode: t.mode, Limit: ttldb.MaxFeedLimit + 1}, classInvalidOpt},
		{"mode 2", ttldb.FeedQuery{Mode: 2}, classInvalidOpt},
		{"a bad partition key", ttldb.FeedQuery{Mode: t.mode, Partition: &badPK}, classInvalidPK},
	}
	if len(h.tokens) > 0 { // a listing's token
		q := h.feedQuery(t.mode, nil)
		q.Continuation = h.tokens[0].tok
		reads = append(reads, struct {
			desc  string
			q     ttldb.FeedQuery
			class string
		}{"a listing's token", q, classInvalidToken})
	}
	for _, r := range reads {
		_, err := h.c.ReadFeed(bg, r.q)
		if e := h.checkErr(fmt.Sprintf("ReadFeed(%s: %v)", r.desc, t), err, r.class, ""); e != nil {
			return e
		}
	}
	// A feed's token is no listing's.
	_, err := h.c.List(bg, ttldb.Query{Continuation: t.tok})
	return h.checkErr("List with a change feed's token", err, classInvalidToken, "")
}
