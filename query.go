package ttldb

import (
	"context"
	"encoding/json"
	"iter"
)

// QueryPage is one page of a query's results.
type QueryPage struct {
	// Results are the page's results, in order, each a JSON value: a whole
	// document with its system properties for SELECT *, else what the
	// SELECT clause makes of it; for SELECT VALUE COUNT(1) one number.
	Results []json.RawMessage
	// Continuation is the token for the next page, or empty when there are
	// no more results.
	Continuation string
	// Plan says how the page was read.
	Plan QueryPlan
}

// QueryPlan says how a query reads the collection (an explain).
type QueryPlan struct {
	// Index is the path of the secondary index read for the candidates;
	// empty when the documents were scanned in key order (of Partition, if
	// set).
	Index string
	// Ordered is set when the index gave ORDER BY's order, so that the
	// query stops at its last result; otherwise ORDER BY sorts every row
	// that matched.
	Ordered bool
	// Examined counts the documents read (a scan does not count the
	// expired ones it steps over), and Matched those of them the WHERE
	// clause kept. Both are zero from Explain.
	Examined, Matched int
}

// Query returns one page of a query's results, read from a snapshot taken
// when it is called: expired documents never appear in them, nor count
// (R4). It blocks no writer while it runs. It reads a secondary index when
// one serves the WHERE clause or the ORDER BY (see [QueryPlan]); the
// results are the same without it. A query that reads no index builds the
// key order first if no listing has (see [Collection.List]). It takes
// O(log n + k) for the k
// documents it reads, plus O(m log m) to sort the m rows that match when
// no index gives ORDER BY's order.
//
// Errors: [ErrInvalidQuery] for a query that does not parse (a
// [*QueryError]) or parameters that do not fit it; [ErrInvalidOption] for
// a negative MaxItems; [ErrInvalidContinuation] for a token this collection
// did not issue for this query; [ErrInvalidPartitionKey]; [ErrClosed].
func (c *Collection) Query(ctx context.Context, q SQL) (QueryPage, error) {
	if !ctxLive(ctx) {
		return QueryPage{}, contextError(ctx, "Query")
	}
	r, err := c.startQuery(ctx, "Query", q)
	if err != nil {
		return QueryPage{}, err
	}
	defer func() { r.s.Release(); r.free() }() // the page's results are its own, not r's
	var page QueryPage
	r.maxItems = q.MaxItems
	r.room.pageBytes, r.room.pageEnds = r.room.pageBytes[:0], r.room.pageEnds[:0]
	page.Continuation, err = r.run(r.room.addResult)
	if err != nil {
		return QueryPage{}, err
	}
	page.Results = r.pageResults()
	page.Plan = r.plan
	return page, nil
}

// QueryAll returns an iterator over all of a query's results, from one
// snapshot taken when the iteration starts, as [Collection.Query] would
// return them page after page; it ignores MaxItems. An error (those of
// Query, or [ErrClosed] when the collection is closed during the
// iteration) is yielded once, with nil, and ends the iteration. A result is
// valid until the next one is yielded: keep a copy.
func (c *Collection) QueryAll(ctx context.Context, q SQL) iter.Seq2[json.RawMessage, error] {
	return func(yield func(json.RawMessage, error) bool) {
		if !ctxLive(ctx) {
			yield(nil, contextError(ctx, "QueryAll"))
			return
		}
		q.MaxItems = 0
		r, err := c.startQuery(ctx, "QueryAll", q)
		if err != nil {
			yield(nil, err)
			return
		}
		defer r.s.Release()
		stopped := false
		var closed error
		if _, err = r.run(func(res []byte) bool {
			if c.unusable() { // closed since the iteration began: ErrClosed in place of this result
				closed = c.errClosed("QueryAll")
				return false
			}
			stopped = !yield(res, nil)
			return !stopped
		}); err == nil {
			err = closed
		}
		if err != nil && !stopped {
			yield(nil, err)
		}
	}
}

// Explain returns how [Collection.Query] would read the collection for q,
// without running it. It takes O(k) for k secondary indexes, and O(log n)
// more when two indexes could serve and it counts how many documents one
// of them would give; a plan that scans builds the key order first if no
// listing has (see [Collection.List]).
//
// Errors: those of Query.
func (c *Collection) Explain(ctx context.Context, q SQL) (QueryPlan, error) {
	if !ctxLive(ctx) {
		return QueryPlan{}, contextError(ctx, "Explain")
	}
	r, err := c.startQuery(ctx, "Explain", q)
	if err != nil {
		return QueryPlan{}, err
	}
	r.s.Release()
	return r.plan, nil
}
