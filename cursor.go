package ttldb

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"sync"
)

// Cursor reads a query's results page by page, every page from the one
// snapshot taken when it was opened, so that the pages together are the
// results of the query over one state of the collection (R13), however it
// changes meanwhile. Only time goes on: each page judges expiry when it is
// read, so a document that expires while the cursor is open appears in no
// later page (R4); results made of many documents at once (DISTINCT, GROUP
// BY, FROM a subquery with DISTINCT, TOP or an aggregate) are computed anew
// for each page, at its instant, each page costing what a page of
// [Collection.Query] does. Continuation tokens, by contrast, resume a query
// in a new snapshot each time.
//
// A [Cursor] is safe for concurrent use; the zero [Cursor] is not usable.
// While it is open, the collection keeps the older versions of the
// documents written since, which it may read: Close it when done. Close is
// idempotent.
type Cursor struct {
	mu     sync.Mutex
	r      *queryRun
	next   func() ([]byte, bool)
	stop   func()
	err    error // the error that ended the results, if any
	told   bool  // err was returned once: a context's error is not returned again as if current
	closed bool

	// A cursor whose results are each made of many documents runs the
	// query anew for each page (nextPaged), from token, which resumes
	// after the last result given; ended once they ran out.
	paged bool
	token string
	ended bool
}

// OpenQuery opens a [Cursor] on q's results, from a snapshot taken now.
// q.MaxItems and q.Continuation are ignored. It takes O(1) (but for a
// query that scans, the first of a collection's listings, which builds the
// key order: see [Collection.List]), and what [Collection.Query] takes to
// read the first page on the first call of Next.
//
// Errors: those of [Collection.Query].
func (c *Collection) OpenQuery(ctx context.Context, q SQL) (*Cursor, error) {
	if !ctxLive(ctx) {
		return nil, contextError(ctx, "OpenQuery")
	}
	q.MaxItems, q.Continuation = 0, ""
	r, err := c.startQuery(ctx, "OpenQuery", q)
	if err != nil {
		return nil, err
	}
	r.op = "Cursor.Next" // what its later errors name
	r.cursor = true
	cur := &Cursor{r: r}
	if b := r.b; b.Distinct() || b.Grouped() || b.Whole() {
		cur.paged = true
		return cur, nil
	}
	cur.next, cur.stop = iter.Pull(func(yield func([]byte) bool) {
		var closed error
		_, err := r.run(func(res []byte) bool {
			if c.unusable() {
				closed = c.errClosed("Cursor.Next")
				return false
			}
			return yield(res)
		})
		if err == nil {
			err = closed
		}
		cur.err = err
	})
	return cur, nil
}

// Next returns up to n more results, copied: fewer only when the results
// run out (none after the last). The page's reads stop when ctx ends, every
// 256 documents (R16): that ends the cursor, as its place in the snapshot
// is lost with the page; open a new one.
//
// Errors: [ErrInvalidOption] for n < 1; [ErrClosed] once the cursor or its
// collection is closed, or once an earlier page ended with its context; the
// error of a context that is nil or done, or that ends during the page.
func (cur *Cursor) Next(ctx context.Context, n int) ([]json.RawMessage, error) {
	if !ctxLive(ctx) {
		return nil, contextError(ctx, "Cursor.Next")
	}
	if n < 1 {
		return nil, errorf(ErrInvalidOption, "Next(%d): a page holds at least 1 result", n)
	}
	cur.mu.Lock()
	defer cur.mu.Unlock()
	if cur.r == nil || cur.closed {
		return nil, errorf(ErrClosed, "the cursor is closed")
	}
	cur.r.s.Judge()         // R4: expiry as of this page
	cur.r.ctx.Context = ctx // the page's reads stop when it is done (R16)
	if cur.paged {
		return cur.nextPaged(n)
	}
	var out []json.RawMessage
	for len(out) < n {
		res, ok := cur.next()
		if !ok {
			switch {
			case cur.err == nil:
			case cur.told && (errors.Is(cur.err, context.Canceled) || errors.Is(cur.err, context.DeadlineExceeded)):
				return nil, errorf(ErrClosed, "the cursor ended when an earlier page's context did (%v): open a new one (R16)", cur.err)
			default:
				cur.told = true
				return nil, cur.err
			}
			break
		}
		out = append(out, append(json.RawMessage(nil), res...))
	}
	return out, nil
}

// nextPaged is Next for a query whose results are each made of many
// documents at once (DISTINCT, GROUP BY, FROM (SELECT DISTINCT|TOP|
// aggregate ...)), which a single run would compute when its first page
// needs them: each page runs the query anew over the cursor's snapshot,
// judging expiry as of the page, and resumes after the last result given
// as a continuation token does (by its distinct value, or group), so that
// a document that expired since an earlier page counts in none of the
// later results (R4). Each page costs what a page of Query does.
func (cur *Cursor) nextPaged(n int) ([]json.RawMessage, error) {
	r := cur.r
	switch {
	case cur.err != nil && cur.told && (errors.Is(cur.err, context.Canceled) || errors.Is(cur.err, context.DeadlineExceeded)):
		return nil, errorf(ErrClosed, "the cursor ended when an earlier page's context did (%v): open a new one (R16)", cur.err)
	case cur.err != nil:
		cur.told = true
		return nil, cur.err
	case cur.ended:
		return nil, nil
	}
	if cur.token != "" {
		if err := r.openToken(cur.token); err != nil {
			cur.err, cur.told = err, true
			return nil, err
		}
	}
	var out []json.RawMessage
	var closed error
	tok, err := r.run(func(res []byte) bool {
		if r.c.unusable() {
			closed = r.c.errClosed("Cursor.Next")
			return false
		}
		if len(out) == n {
			return false
		}
		out = append(out, append(json.RawMessage(nil), res...))
		return true
	})
	if err == nil {
		err = closed
	}
	if err != nil {
		cur.err, cur.told = err, true
		return nil, err
	}
	cur.token, cur.ended = tok, tok == ""
	return out, nil
}

// Plan returns how the cursor reads the collection, and how much it has
// read so far.
func (cur *Cursor) Plan() QueryPlan {
	cur.mu.Lock()
	defer cur.mu.Unlock()
	if cur.r == nil {
		return QueryPlan{}
	}
	return cur.r.plan
}

// Close releases the cursor's snapshot. It is idempotent, and returns nil.
func (cur *Cursor) Close() error {
	cur.mu.Lock()
	defer cur.mu.Unlock()
	if cur.r == nil || cur.closed {
		return nil
	}
	cur.closed = true
	if cur.stop != nil {
		cur.stop()
	}
	cur.r.s.Release()
	return nil
}
