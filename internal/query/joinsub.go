package query

// Subqueries as sources of a JOIN, as the Learn page "Subqueries in Azure
// Cosmos DB for NoSQL" has them: JOIN (SELECT VALUE t FROM t IN p.tags
// WHERE ...) filters an array before the product, JOIN (SELECT VALUE
// p.price * 2) x evaluates once what the query reads many times, JOIN m
// IN (SELECT VALUE [...]) iterates the elements of its results, and
// JOIN (SELECT COUNT(1) AS n ... FROM i IN p.inventory) AS d joins one
// aggregate row. The source is ARRAY(subquery), evaluated for each row
// of the aliases before it (correlated: the page says the service supports
// no other subqueries), its rows counted against the document's
// MaxJoinRows and its results bounded by MaxSubqueryBytes, as any
// subquery's. (subquery) [[AS] alias] makes a row of each result (the
// alias is optional: a source nothing names), alias IN (subquery) one of
// each element of each result that is an array, as x IN c.path does of
// the array there.

// checkSourceSubs checks that the subqueries among q's JOIN sources read
// no alias declared after them: the k-th join's subquery may read the
// aliases of binds up to base+k (the document's, the outer queries', the
// joins before it), not those of base+k+1 and on, which its row has not
// bound yet.
func (p *parser) checkSourceSubs(q *Query, base int) error {
	for k, j := range q.joins {
		if j.src.sub == nil {
			continue
		}
		if e := readsBinds(q, j.src.sub, base+k+1, base+len(q.joins)); e != nil {
			return p.fail(e.off, "identifier %s is not defined in the JOIN's subquery: it reads the aliases before it, not %s, which is declared after", e.root, e.root)
		}
	}
	return nil
}

// readsBinds returns a path of sub, a subquery among q's (or nested in
// one), or of its JOIN sources, whose bind is from lo to hi; nil if none.
func readsBinds(q *Query, sub *Query, lo, hi int) *expr {
	for _, s := range q.subs {
		if s.q != sub {
			continue
		}
		for _, e := range s.paths {
			if e.bind >= lo && e.bind <= hi {
				return e
			}
		}
		for _, j := range sub.joins {
			if j.src.sub == nil && j.src.bind >= lo && j.src.bind <= hi {
				return j.src
			}
		}
		for _, inner := range sub.subs {
			if e := readsBinds(sub, inner.q, lo, hi); e != nil {
				return e
			}
		}
	}
	return nil
}

// eachSource calls fn, until it returns false, with each row value of
// join j whose source's value is text (an array): its elements, or for
// x IN (SELECT ...) the elements of each of its elements that is an
// array. It reports whether fn never returned false.
func eachSource(j join, text string, fn func(elem string) bool) bool {
	more := true
	if !j.flat {
		Elements(text, func(elem string) bool { more = fn(elem); return more })
		return more
	}
	Elements(text, func(res string) bool {
		Elements(res, func(elem string) bool { more = fn(elem); return more })
		return more
	})
	return more
}
