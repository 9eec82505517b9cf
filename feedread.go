package ttldb

import (
	"context"
	"errors"
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
		return &TrimmedError{After: trimmed.After, Oldest: trimmed.Oldest, Continuation: encodeFeedToken(p.scope, trimmed.Oldest-1), gap: trimmed.Gap}
	}
	return err
}

// change returns the [Change] the engine's change ch is.
func (c *Collection) change(ch engine.Change) Change {
	d := ch.Doc
	pk, _ := decodePartitionKey(d.Key()[:d.Layout.PK])
	out := Change{Op: ChangeOp(ch.Op), LSN: ch.LSN, TS: ch.TS, ID: d.ID(), PartitionKey: pk, TimeToLiveExpired: ch.Expired, Evicted: ch.Evicted}
	if out.Op != OpDelete {
		out.Document = c.document(d)
	} else {
		out.Previous = c.document(d)
	}
	return out
}
