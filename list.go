package ttldb

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/ttldb/ttldb/engine"
)

// Query selects documents for List, All and Count. The zero [Query] selects
// every live document, in key order: by partition key (none, null, false,
// true, numbers, strings), then by id.
type Query struct {
	// Partition restricts the query to one partition. Nil: all of them.
	Partition *PartitionKey

	// Filter, when not nil, keeps the documents for which it returns true.
	// It runs on a snapshot, outside the collection's lock, so it may call
	// the collection.
	Filter func(Document) bool

	// Limit is the most documents List returns in one page, or All yields.
	// Zero: no limit. Count ignores it.
	Limit int

	// Continuation resumes a listing after the last document of the page
	// that returned it. Empty: from the start. Count ignores it. A token is
	// taken only by the collection that issued it and a query of the same
	// Partition (nil or the same key); Limit and Filter may change.
	Continuation string
}

// Page is one page of a listing.
type Page struct {
	// Documents are the page's documents, in key order.
	Documents []Document
	// Continuation is the token for the next page, or empty when there are
	// no more documents.
	Continuation string
}

// plan is a validated [Query]: the key prefix of its partition, the key to
// resume after, and the scope of the tokens it issues.
type plan struct {
	prefix string
	after  string
	resume bool
	scope  tokenScope
}

func (c *Collection) plan(op string, q Query) (plan, error) {
	var p plan
	if c.unusable() {
		return p, c.errClosed(op)
	}
	if q.Limit < 0 {
		return p, errorf(ErrInvalidOption, "query limit %d is negative", q.Limit)
	}
	if q.Partition != nil {
		if err := q.Partition.validate(); err != nil {
			return p, err
		}
		p.prefix = string(q.Partition.appendEncoded(nil))
	}
	p.scope = scopeOf(c, readList, q.Partition != nil, p.prefix)
	if q.Continuation != "" {
		key, err := decodeToken(q.Continuation, p.scope, c.name)
		if err != nil {
			return p, err
		}
		if !strings.HasPrefix(key, p.prefix) {
			return p, errorf(ErrInvalidContinuation, "token %.40q belongs to another partition than %v", q.Continuation, *q.Partition)
		}
		p.after, p.resume = key, true
	}
	return p, nil
}

// List returns one page of the documents q selects, from a snapshot taken
// when it is called: expired documents never appear (R4). It takes
// O(log n + k) for the k documents it visits, and blocks no writer while it
// runs. The first listing of a collection (List, All, Count with a
// Partition or Filter, a query that scans, CreateIndex) first builds the
// order of its keys, which the collection keeps from then on: O(n log n)
// for n documents, about half a second for a million, while writes and
// reads go on (see [Collection]).
//
// Errors: [ErrInvalidContinuation] for a token that is damaged, or that this
// collection did not issue for a query of this Partition; [ErrInvalidOption]
// for a negative Limit; [ErrInvalidPartitionKey]; [ErrClosed].
func (c *Collection) List(ctx context.Context, q Query) (Page, error) {
	if !ctxLive(ctx) {
		return Page{}, contextError(ctx, "List")
	}
	p, err := c.plan("List", q)
	if err != nil {
		return Page{}, err
	}
	s, err := c.eng.Snapshot(ctx, nil, true)
	if err != nil {
		return Page{}, c.stopped(ctx, err, "List")
	}
	defer s.Release()
	var page Page
	err = s.Scan(ctx, p.prefix, p.after, p.resume, func(d *engine.Doc) bool {
		if q.Filter != nil && !q.Filter(c.document(d)) {
			return true
		}
		if q.Limit > 0 && len(page.Documents) == q.Limit {
			page.Continuation = sealToken(p.scope, page.Documents[q.Limit-1].d.Key())
			return false
		}
		page.Documents = append(page.Documents, c.document(d))
		return true
	})
	if err != nil {
		return Page{}, c.stopped(ctx, err, "List")
	}
	return page, nil
}

// All returns an iterator over the documents q selects, all from one
// snapshot taken when the iteration starts, so a long iteration sees one
// consistent state and blocks no writer. It honours q.Continuation and
// q.Limit. An error (those of List, or [ErrClosed] when the collection is
// closed during the iteration) is yielded once, with a zero [Document], and
// ends the iteration.
func (c *Collection) All(ctx context.Context, q Query) iter.Seq2[Document, error] {
	return func(yield func(Document, error) bool) {
		if !ctxLive(ctx) {
			yield(Document{}, contextError(ctx, "All"))
			return
		}
		p, err := c.plan("All", q)
		if err != nil {
			yield(Document{}, err)
			return
		}
		s, err := c.eng.Snapshot(ctx, nil, true)
		if err != nil {
			yield(Document{}, c.stopped(ctx, err, "All"))
			return
		}
		defer s.Release()
		n, failed := 0, false
		err = s.Scan(ctx, p.prefix, p.after, p.resume, func(d *engine.Doc) bool {
			if q.Filter != nil && !q.Filter(c.document(d)) {
				return true
			}
			if c.unusable() { // closed since the iteration began: ErrClosed in place of this document
				failed = true
				yield(Document{}, c.errClosed("All"))
				return false
			}
			n++
			return yield(c.document(d), nil) && (q.Limit == 0 || n < q.Limit)
		})
		if err != nil && !failed {
			yield(Document{}, c.stopped(ctx, err, "All"))
		}
	}
}

// Count returns how many live documents q selects; expired documents are
// never counted (R4). Without Partition and Filter it takes
// O(log b + k) for the k distinct seconds the expired documents not yet
// deleted fell due at, under the read lock, as Stats does;
// otherwise it scans like List. It blocks no writer while it counts.
//
// Errors: those of List.
func (c *Collection) Count(ctx context.Context, q Query) (int, error) {
	if !ctxLive(ctx) {
		return 0, contextError(ctx, "Count")
	}
	q.Limit, q.Continuation = 0, ""
	p, err := c.plan("Count", q)
	if err != nil {
		return 0, err
	}
	if q.Partition == nil && q.Filter == nil {
		st, err := c.eng.Stats(ctx)
		return st.Live, c.stopped(ctx, err, "Count")
	}
	s, err := c.eng.Snapshot(ctx, nil, true)
	if err != nil {
		return 0, c.stopped(ctx, err, "Count")
	}
	defer s.Release()
	n := 0
	err = s.Scan(ctx, p.prefix, "", false, func(d *engine.Doc) bool {
		if q.Filter == nil || q.Filter(c.document(d)) {
			n++
		}
		return true
	})
	if err != nil {
		return 0, c.stopped(ctx, err, "Count")
	}
	return n, nil
}

// stopped returns err, the error of an engine's call made by op, named by
// op: ctx's when it is done, ErrClosed's when the engine is closed, and
// otherwise err; nil for none.
func (c *Collection) stopped(ctx context.Context, err error, op string) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return contextError(ctx, op)
	case errors.Is(err, ErrClosed) && c.unusable():
		return c.errClosed(op)
	}
	return err
}
