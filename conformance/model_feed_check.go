package conformance

// The model's checks of the change feed (R11): after every step, in full
// at the end of a sequence, through Watch, and the reads it must refuse.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ttldb/ttldb"
)

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
