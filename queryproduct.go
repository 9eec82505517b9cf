package ttldb

import (
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// results calls fn with d's results, until fn returns false: its one
// result, or with joins those of the rows of its product the WHERE clause
// keeps, each with its place among those rows (from 1), after the row the
// query resumes after. It returns false when fn did, or when the product
// is too large (r.err).
func (r *queryRun) results(d *engine.Doc, fn func(ord int, res []byte) bool) bool {
	if !r.b.Joined() {
		res, ok := r.render(d)
		return r.err == nil && (!ok || fn(0, res))
	}
	skip := 0
	if r.resume && d.Key() == r.afterKey {
		skip = r.afterOrd
	}
	ord, more, gone := 0, true, false
	err := r.b.Each(r.row(d), func(x query.Row) bool {
		if ord++; ord <= skip {
			return true
		}
		var ok bool
		if r.out, ok = r.b.AppendResult(r.out[:0], x); ok {
			more = fn(ord, r.out)
			// A cursor's page may end inside d's product, and the next
			// judges expiry anew: d's other rows go with d (R4).
			gone = more && r.cursor && r.s.Expired(d)
		}
		return more && !gone
	})
	if err != nil {
		r.fail(d, err)
		return false
	}
	return more
}

// each calls fn with each row of d the query keeps: d, or with joins the
// rows of its product. It returns false when the product is too large
// (r.err).
func (r *queryRun) each(d *engine.Doc, fn func(x query.Row)) bool {
	if err := r.b.Each(r.row(d), func(x query.Row) bool { fn(x); return true }); err != nil {
		r.fail(d, err)
		return false
	}
	return true
}

// fail records err, a limit d's evaluation went beyond (nil: none), as
// the error that stops the query.
func (r *queryRun) fail(d *engine.Doc, err error) {
	switch {
	case err == nil || r.err != nil:
	case r.b.Whole():
		r.err = errorf(ErrInvalidQuery, "the documents FROM's subquery reads at once: %v", err)
	default:
		r.err = errorf(ErrInvalidQuery, "document %q: %v", d.ID(), err)
	}
}

// render returns d's result; false when it gives none, or when a subquery
// went beyond a limit (r.err).
func (r *queryRun) render(d *engine.Doc) ([]byte, bool) {
	if r.b.Star() {
		r.out = d.AppendJSON(r.out[:0])
		return r.out, true
	}
	var ok bool
	row := r.row(d)
	r.out, ok = r.b.AppendResult(r.out[:0], row)
	r.fail(d, row.Err())
	return r.out, ok
}

// row returns d as the query reads it, with a fresh budget (the run's, reset).
func (r *queryRun) row(d *engine.Doc) query.Row {
	r.budget.Reset()
	return query.RowOf(d, r.tag[:]).Spend(&r.budget)
}
