package ttldb

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/ttldb/ttldb/engine"
)

// feedPlan is a validated [FeedQuery], but for where it starts, which is
// found under the lock.
type feedPlan struct {
	mode      FeedMode
	partition bool
	prefix    string // the partition's key encoding
	limit     int
	scope     tokenScope
	token     bool   // it resumes from a continuation
	after     uint64 // the LSN the continuation resumes after
}

func (c *Collection) feedPlan(op string, q FeedQuery) (feedPlan, error) {
	p := feedPlan{mode: q.Mode, limit: q.Limit}
	switch {
	case c.unusable():
		return p, c.errClosed(op)
	case !c.eng.Settings().Feed:
		return p, errorf(ErrInvalidOption, "%s: the change feed is off (Options.Feed.Off)", op)
	case q.Mode > AllVersionsAndDeletes:
		return p, errorf(ErrInvalidOption, "%s: feed mode %d: allowed are LatestVersion and AllVersionsAndDeletes", op, q.Mode)
	case q.Limit < 0 || q.Limit > MaxFeedLimit:
		return p, errorf(ErrInvalidOption, "%s: feed limit %d: allowed are 1 to %d, or 0 for %d", op, q.Limit, MaxFeedLimit, DefaultFeedLimit)
	case q.Continuation != "" && q.AfterLSN != 0:
		return p, errorf(ErrInvalidOption, "%s: AfterLSN %d and a Continuation: give one place to resume from", op, q.AfterLSN)
	case q.FromNow && (q.Continuation != "" || q.AfterLSN != 0):
		return p, errorf(ErrInvalidOption, "%s: FromNow and a Continuation or AfterLSN: give one place to start from", op)
	case q.FromOldest && (q.FromNow || q.Continuation != "" || q.AfterLSN != 0):
		return p, errorf(ErrInvalidOption, "%s: FromOldest and FromNow, a Continuation or AfterLSN: give one place to start from", op)
	}
	if p.limit == 0 {
		p.limit = DefaultFeedLimit
	}
	if q.Partition != nil {
		if err := q.Partition.validate(); err != nil {
			return p, err
		}
		p.partition, p.prefix = true, string(q.Partition.appendEncoded(nil))
	}
	p.scope = scopeOf(c, readFeed+byte(q.Mode), p.partition, p.prefix)
	if q.Continuation != "" {
		after, err := decodeFeedToken(q.Continuation, p.scope, c.name)
		if err != nil {
			return p, err
		}
		p.token, p.after = true, after
	}
	return p, nil
}

// readFeed reads a page of the feed into buf, with ebuf the room for the
// engine's page, which it returns for the next read (nil: room from a
// pool, returned to it, and nil returned).
func (c *Collection) readFeed(ctx context.Context, op string, q FeedQuery, buf []Change, ebuf []engine.Change) (FeedPage, []engine.Change, error) {
	p, err := c.feedPlan(op, q)
	if err != nil {
		return FeedPage{}, ebuf, err
	}
	r := engine.FeedRead{Latest: p.mode == LatestVersion, Partition: p.partition, Prefix: p.prefix, Limit: p.limit}
	switch {
	case p.token:
		r.After = p.after
	case q.AfterLSN != 0:
		r.After = q.AfterLSN
	case q.FromNow:
		r.From = engine.FromNow
	case q.FromOldest:
		r.From = engine.FromOldest
	}
	pooled := ebuf == nil
	if pooled { // the engine's page is read, converted and dropped: its room is reused
		room := feedPages.Get().(*[]engine.Change)
		ebuf = (*room)[:0]
		defer func() {
			if cap(ebuf) <= 4*DefaultFeedLimit {
				clear(ebuf[:cap(ebuf)])
				*room = ebuf
				feedPages.Put(room) // the same pointer back: no allocation
			}
		}()
	}
	ep, err := c.eng.ReadFeed(ctx, r, ebuf)
	if pooled {
		ebuf = ep.Changes
	}
	if err != nil {
		if pooled {
			return FeedPage{}, nil, feedRefusal(err, p, q)
		}
		return FeedPage{}, ebuf, feedRefusal(err, p, q)
	}
	page := FeedPage{Changes: buf[:0], More: ep.More}
	if buf == nil {
		page.Changes = make([]Change, 0, len(ep.Changes))
	}
	for _, ch := range ep.Changes {
		page.Changes = append(page.Changes, c.change(ch))
	}
	page.Continuation, page.LSN = encodeFeedToken(p.scope, ep.End), ep.End
	if pooled {
		return page, nil, nil // the room goes back to the pool
	}
	return page, ep.Changes, nil
}

// feedPages recycles the engine's pages of ReadFeed's reads.
var feedPages = sync.Pool{New: func() any { return new([]engine.Change) }}

// feedRefusal words the engine's refusal of the read of q, planned as p;
// any other error passes as it is.
func feedRefusal(err error, p feedPlan, q FeedQuery) error {
	var beyond *engine.FeedBeyond
	var trimmed *engine.FeedTrimmed
	switch {
	case errors.As(err, &beyond) && p.token:
		return errorf(ErrInvalidContinuation, "token %.40q resumes after LSN %d, beyond the collection's last change, LSN %d", q.Continuation, p.after, beyond.Last)
	case errors.As(err, &beyond):
		return errorf(ErrInvalidOption, "AfterLSN %d is beyond the collection's last change, LSN %d", q.AfterLSN, beyond.Last)
	case errors.As(err, &trimmed):
		return &TrimmedError{After: trimmed.After, Oldest: trimmed.Oldest, Continuation: encodeFeedToken(p.scope, trimmed.Oldest-1)}
	}
	return err
}

// change returns the [Change] the engine's change ch is.
func (c *Collection) change(ch engine.Change) Change {
	d := ch.Doc
	pk, _ := decodePartitionKey(d.Key()[:d.Layout.PK])
	out := Change{Op: ChangeOp(ch.Op), LSN: ch.LSN, TS: ch.TS, ID: d.ID(), PartitionKey: pk, TimeToLiveExpired: ch.Expired}
	if out.Op != OpDelete {
		out.Document = c.document(d)
	} else {
		out.Previous = c.document(d)
	}
	return out
}

// ReadFeed implements [engine.Engine]: a page under the read lock.
func (x *localEngine) ReadFeed(ctx context.Context, r engine.FeedRead, buf []engine.Change) (engine.FeedPage, error) {
	c := (*local)(x)
	if !ctxLive(ctx) {
		return engine.FeedPage{}, contextError(ctx, "ReadFeed")
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch {
	case c.unusable():
		return engine.FeedPage{}, c.errClosed("ReadFeed")
	case !c.feed.on:
		return engine.FeedPage{}, errorf(ErrInvalidOption, "the change feed is off (Options.Feed.Off)")
	}
	after, err := c.feedStart(r)
	if err != nil {
		return engine.FeedPage{}, err
	}
	page := engine.FeedPage{Changes: buf[:0]}
	if cap(buf) == 0 { // one allocation for the page: no more changes than the limit, or than there are
		most := uint64(c.prim.len())
		if !r.Latest {
			most = c.feed.log.last - min(after, c.feed.log.last)
		}
		page.Changes = make([]engine.Change, 0, min(uint64(r.Limit), most))
	}
	if r.Latest {
		page.End, page.More = c.readLatest(r, after, &page)
	} else {
		page.End, page.More = c.readAll(r, after, &page)
	}
	return page, nil
}

// feedStart returns the LSN a read starts after. Call it with mu held.
func (c *local) feedStart(r engine.FeedRead) (uint64, error) {
	after := r.After
	last := c.visible()
	switch r.From {
	case engine.FromAfter:
		if after > last {
			return 0, &engine.FeedBeyond{Last: last}
		}
	case engine.FromNow:
		after = last
	case engine.FromOldest:
		if !r.Latest {
			after = c.feed.log.first - 1 // the oldest record kept is the next
		}
	}
	if log := &c.feed.log; !r.Latest && after+1 < log.first {
		return 0, &engine.FeedTrimmed{After: after, Oldest: log.first}
	}
	return after, nil
}

// readLatest reads a page of the latest-version feed after the LSN after,
// and returns the LSN the next page resumes after, and whether it has
// more to read. Call it with mu held, shared at least.
func (c *local) readLatest(p engine.FeedRead, after uint64, page *engine.FeedPage) (end uint64, more bool) {
	l := &c.feed.latest
	last := c.visible() // the changes after it are not durable yet (R12)
	if l.tail == nil || c.seqOf(l.tail.doc()) <= after {
		return last, false // nothing stored was written since
	}
	lim := c.limits()
	budget := 4*p.Limit + 1024
	end = after
	var stop *entry // every entry from the head to stop was written at or before end
	e, walked := l.from(after, budget, func(e *entry) uint64 { return c.seqOf(e.doc()) })
	defer func(budget0 int) { l.visited.Add(uint64(walked + budget0 - budget)) }(budget)
	for ; e != nil; e = e.next {
		d := e.doc()
		lsn := c.seqOf(d)
		if lsn > last {
			e = nil // the end of what the feed shows
			break
		}
		if lsn > after && len(page.Changes) == p.Limit || budget == 0 {
			break
		}
		budget--
		stop = e
		if lsn <= after {
			continue
		}
		end = lsn
		if p.Partition && !strings.HasPrefix(d.Key(), p.Prefix) || lim.expired(d) {
			continue
		}
		page.Changes = append(page.Changes, engine.Change{Op: uint8(OpLatest), LSN: lsn, TS: d.TS, Doc: d})
	}
	if e == nil {
		return last, false // none written since end but deletions, which this feed does not show
	}
	if stop != nil {
		l.leave(end, stop) // for the next page, which starts far from the tail
	}
	return end, true
}

// readAll reads a page of the all-versions-and-deletes feed after the LSN
// after, which is kept, and returns the LSN the next page resumes after,
// and whether it has more to read. Call it with mu held, shared at least.
func (c *local) readAll(p engine.FeedRead, after uint64, page *engine.FeedPage) (end uint64, more bool) {
	log := &c.feed.log
	last := min(log.last, c.visible())
	budget := 4*p.Limit + 1024
	lsn := after + 1
	for ; lsn <= last && len(page.Changes) < p.Limit && budget > 0; lsn++ {
		budget--
		r := log.at(lsn)
		if p.Partition && !strings.HasPrefix(r.d.Key(), p.Prefix) {
			continue
		}
		page.Changes = append(page.Changes, engine.Change{Op: uint8(r.op), LSN: lsn, TS: r.ts, Doc: r.d, Expired: r.expired})
	}
	return lsn - 1, lsn <= last
}
