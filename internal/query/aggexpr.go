package query

import "strings"

// aggPlace says whether an aggregate may stand where the parser is.
type aggPlace uint8

const (
	aggNot  aggPlace = iota // outside the SELECT clause
	aggHere                 // in the SELECT clause, in any expression
	aggIn                   // inside an aggregate's argument
)

// parseAggregate parses COUNT(expr), SUM, AVG, MIN or MAX, which may stand
// in any expression of the SELECT clause (SELECT VALUE COUNT(1) * 2,
// SELECT {n: COUNT(1)}), but neither in another clause nor inside another
// aggregate, where the service refuses them too.
func (p *parser) parseAggregate() (*expr, error) {
	t := p.tok()
	name := strings.ToUpper(t.text)
	switch p.aggAt {
	case aggNot:
		return nil, p.fail(t.off, "%s is an aggregate: it goes in the SELECT clause, not in WHERE or GROUP BY", name)
	case aggIn:
		return nil, p.fail(t.off, "%s inside another aggregate's argument: an aggregate's argument is a value of each row", name)
	}
	p.advance()
	p.advance()
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.aggAt = aggIn
	arg, err := p.parseExpr()
	p.aggAt = aggHere
	if err != nil {
		return nil, err
	}
	if p.tok().is(",") {
		return nil, p.fail(p.tok().off, "%s takes one argument", name)
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	p.leave()
	e := &expr{kind: xAgg, off: t.off, agg: aggNames[name], idx: len(p.q.aggs), args: []*expr{arg}}
	p.q.aggs = append(p.q.aggs, e)
	return e, nil
}

// checkAggregates checks a query with aggregates or GROUP BY, once its
// items are named: outside the aggregates' arguments, an item may read a
// row only through GROUP BY's expressions (each becomes an xGroupRef, the
// group's value), and without GROUP BY not at all (the query gives one
// result, of all the rows), as the service requires.
func (p *parser) checkAggregates() error {
	q := p.q
	if len(q.aggs) == 0 && len(q.group) == 0 {
		return nil
	}
	if q.sel == selStar {
		return p.fail(q.group[0].off, "SELECT * does not go with GROUP BY: select the GROUP BY expressions and aggregates")
	}
	for _, g := range q.group {
		if !readsRow(g) {
			return p.fail(g.off, "GROUP BY's expression reads no property of the row: each must read one (the Learn page), as GROUP BY c.team")
		}
	}
	for _, it := range q.items {
		bad := p.groupRefs(it.e)
		switch {
		case bad == nil:
			continue
		case bad.sub != nil: // its rows would be the result's, which has no document
			return p.unsupported(bad.off, "a subquery outside an aggregate's argument, in a query with aggregates or GROUP BY (the Learn page GROUP BY lets the SELECT clause hold GROUP BY's expressions, aggregates and constants only; and the one result of aggregates has no document for a subquery to read),")
		}
		what := describe(token{kind: tIdent, text: it.text})
		if bad != it.e {
			what = "the path " + bad.root + bad.path.String()[1:] + " in " + what
		}
		if len(q.group) == 0 {
			return p.fail(bad.off, "%s is outside an aggregate: with an aggregate and no GROUP BY the query gives one result, of aggregates and constants (aggregate it, or GROUP BY it)", what)
		}
		return p.fail(bad.off, "%s is neither an expression of GROUP BY nor an aggregate", what)
	}
	return nil
}

// readsRow reports whether e reads a path of the row.
func readsRow(e *expr) bool {
	if e.kind == xPath {
		return true
	}
	for _, a := range e.args {
		if readsRow(a) {
			return true
		}
	}
	return false
}

// groupRefs turns each subexpression of e that is one of GROUP BY's into
// an xGroupRef, leaving aggregates as they are, and returns the first
// path left that reads the row; nil when none does.
func (p *parser) groupRefs(e *expr) *expr {
	if e.kind == xAgg {
		return nil
	}
	for i, g := range p.q.group {
		if sameExpr(g, e) {
			*e = expr{kind: xGroupRef, off: e.off, idx: i}
			return nil
		}
	}
	if e.kind == xPath || e.sub != nil { // a subquery may read the row (correlated)
		return e
	}
	for _, a := range e.args {
		if bad := p.groupRefs(a); bad != nil {
			return bad
		}
	}
	return nil
}
