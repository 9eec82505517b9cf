package conformance

// The model's change feed (R11) read in chains of pages: what a read must
// return, a chain followed from a continuation or an AfterLSN, a read
// trimmed by a compaction, and the feed after a reopen (R12).

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/ttldb/ttldb"
)

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
// compaction, or where it was if none happened since the last reopen
// (R12). An engine that recovers from no files of its own (recovers
// false: a server's) keeps its feed across a reopen, as its retention
// says: nothing to check.
func (h *modelHarness) reopened(recovers bool) error {
	f := &h.feed
	if f.snap == nil || !recovers {
		f.snap = nil
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
