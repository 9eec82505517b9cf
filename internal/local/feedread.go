package local

import (
	"context"
	"strings"

	"github.com/ttldb/ttldb/engine"
)

// ReadFeed implements [engine.Engine]: a page under the read lock.
func (x *Engine) ReadFeed(ctx context.Context, r engine.FeedRead, buf []engine.Change) (engine.FeedPage, error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.FeedPage{}, engine.ContextError(ctx, "ReadFeed")
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch {
	case c.unusable():
		return engine.FeedPage{}, c.errClosed("ReadFeed")
	case !c.feed.on:
		return engine.FeedPage{}, errorf(engine.ErrInvalidOption, "the change feed is off (Options.Feed.Off)")
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
func (c *collection) feedStart(r engine.FeedRead) (uint64, error) {
	after := r.After
	last := c.visible()
	switch r.From {
	case engine.FromAfter:
		if after > last {
			return 0, &engine.FeedBeyond{Last: last}
		}
		if err := c.inGap(after); err != nil {
			return 0, err
		}
		if !r.Latest {
			after = c.pastGaps(after) // a restore's log starts past its gap
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
func (c *collection) readLatest(p engine.FeedRead, after uint64, page *engine.FeedPage) (end uint64, more bool) {
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
		page.Changes = append(page.Changes, engine.Change{Op: uint8(engine.OpLatest), LSN: lsn, TS: d.TS, Doc: d})
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
func (c *collection) readAll(p engine.FeedRead, after uint64, page *engine.FeedPage) (end uint64, more bool) {
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
		page.Changes = append(page.Changes, engine.Change{Op: uint8(r.op), LSN: lsn, TS: r.ts, Doc: r.d, Expired: r.expired, Evicted: r.evicted})
	}
	return lsn - 1, lsn <= last
}
