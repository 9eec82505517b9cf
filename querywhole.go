package ttldb

import (
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// wholeRows gives fn the one row of a query that reads FROM a subquery with
// DISTINCT, TOP or an aggregate (query.Bound.Whole): a document made of
// every live document of the query's scope (its partition, or all), in key
// order, each as AppendJSON writes it (its system properties included), as
// the elements of the array at query.WholeMember. It is made anew for each
// page, of the page's snapshot, in O(the scope's documents); its key is
// the partition's prefix, inside whose product tokens resume. Beyond
// query.MaxJoinRows documents or query.MaxWholeBytes of them, the query
// fails (r.err) with ErrInvalidQuery, naming the limit.
func (r *queryRun) wholeRows(fn func(d *engine.Doc, sk []byte) bool) error {
	body := []byte(`{"` + query.WholeMember + `":[`)
	n := 0
	err := r.s.Scan(&r.ctx, r.prefix, "", false, func(d *engine.Doc) bool {
		if r.s.Expired(d) {
			return true
		}
		if n++; n > query.MaxJoinRows {
			r.err = errorf(ErrInvalidQuery, "FROM's subquery with DISTINCT, TOP or an aggregate reads every document at once, and there are more than %d (query.MaxJoinRows): narrow the query to a partition", query.MaxJoinRows)
			return false
		}
		if n > 1 {
			body = append(body, ',')
		}
		if body = d.AppendJSON(body); len(body) > query.MaxWholeBytes {
			r.err = errorf(ErrInvalidQuery, "FROM's subquery with DISTINCT, TOP or an aggregate reads every document at once, and they pass %d bytes of JSON (query.MaxWholeBytes): narrow the query to a partition", query.MaxWholeBytes)
			return false
		}
		return true
	})
	if err != nil || r.err != nil {
		return err
	}
	body = append(body, "]}"...)
	at := uint16(len(r.prefix))
	doc := engine.NewDoc(r.prefix, engine.Layout{PK: at, IDAt: at, IDEnd: at}, body, engine.TTLNever, 0, 0)
	r.plan.Examined += n // and Matched as many: the subquery reads each
	if row := r.row(doc); !r.b.Match(row) {
		r.fail(doc, row.Err())
		return nil
	}
	r.plan.Matched += n
	fn(doc, nil)
	return nil
}
