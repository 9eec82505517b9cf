package ttldb

import "strings"

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
	case !c.feed.on:
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

// readFeed reads a page of the feed into buf.
func (c *Collection) readFeed(op string, q FeedQuery, buf []Change) (FeedPage, error) {
	p, err := c.feedPlan(op, q)
	if err != nil {
		return FeedPage{}, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.unusable() {
		return FeedPage{}, c.errClosed(op)
	}
	after, err := c.feedStart(p, q)
	if err != nil {
		return FeedPage{}, err
	}
	page := FeedPage{Changes: buf}
	if page.Changes == nil { // one allocation for the page: no more changes than the limit, or than there are
		most := uint64(c.prim.len())
		if p.mode == AllVersionsAndDeletes {
			most = c.feed.log.last - min(after, c.feed.log.last)
		}
		page.Changes = make([]Change, 0, min(uint64(p.limit), most))
	}
	var end uint64
	if p.mode == LatestVersion {
		end, page.More = c.readLatest(p, after, &page)
	} else {
		end, page.More = c.readAll(p, after, &page)
	}
	page.Continuation, page.LSN = encodeFeedToken(p.scope, end), end
	return page, nil
}

// feedStart returns the LSN a read starts after. Call it with mu held.
func (c *local) feedStart(p feedPlan, q FeedQuery) (uint64, error) {
	var after uint64
	last := c.visible()
	switch {
	case p.token:
		if p.after > last {
			return 0, errorf(ErrInvalidContinuation, "token %.40q resumes after LSN %d, beyond the collection's last change, LSN %d", q.Continuation, p.after, last)
		}
		after = p.after
	case q.AfterLSN != 0:
		if q.AfterLSN > last {
			return 0, errorf(ErrInvalidOption, "AfterLSN %d is beyond the collection's last change, LSN %d", q.AfterLSN, last)
		}
		after = q.AfterLSN
	case q.FromNow:
		after = last
	case q.FromOldest && p.mode == AllVersionsAndDeletes:
		after = c.feed.log.first - 1 // the oldest record kept is the next
	}
	if log := &c.feed.log; p.mode == AllVersionsAndDeletes && after+1 < log.first {
		return 0, &TrimmedError{After: after, Oldest: log.first, Continuation: encodeFeedToken(p.scope, log.first-1)}
	}
	return after, nil
}

// readLatest reads a page of the latest-version feed after the LSN after,
// and returns the LSN the next page resumes after, and whether it has
// more to read. Call it with mu held, shared at least.
func (c *local) readLatest(p feedPlan, after uint64, page *FeedPage) (end uint64, more bool) {
	l := &c.feed.latest
	last := c.visible() // the changes after it are not durable yet (R12)
	if l.tail == nil || c.seqOf(l.tail.doc()) <= after {
		return last, false // nothing stored was written since
	}
	lim := c.limits()
	budget := 4*p.limit + 1024
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
		if lsn > after && len(page.Changes) == p.limit || budget == 0 {
			break
		}
		budget--
		stop = e
		if lsn <= after {
			continue
		}
		end = lsn
		if p.partition && !strings.HasPrefix(d.Key(), p.prefix) || lim.expired(d) {
			continue
		}
		page.Changes = append(page.Changes, c.change(record{d: d, ts: d.TS, op: OpLatest}, lsn))
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
func (c *local) readAll(p feedPlan, after uint64, page *FeedPage) (end uint64, more bool) {
	log := &c.feed.log
	last := min(log.last, c.visible())
	budget := 4*p.limit + 1024
	lsn := after + 1
	for ; lsn <= last && len(page.Changes) < p.limit && budget > 0; lsn++ {
		budget--
		r := log.at(lsn)
		if p.partition && !strings.HasPrefix(r.d.Key(), p.prefix) {
			continue
		}
		page.Changes = append(page.Changes, c.change(*r, lsn))
	}
	return lsn - 1, lsn <= last
}

// change returns the [Change] of r, whose LSN is lsn.
func (c *local) change(r record, lsn uint64) Change {
	d := r.d
	pk, _ := decodePartitionKey(d.Key()[:d.Layout.PK])
	ch := Change{Op: r.op, LSN: lsn, TS: r.ts, ID: d.ID(), PartitionKey: pk, TimeToLiveExpired: r.expired}
	if r.op != OpDelete {
		ch.Document = c.document(d)
	} else {
		ch.Previous = c.document(d)
	}
	return ch
}
