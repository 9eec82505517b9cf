package query

// FROM (SELECT ... FROM c ...) [[AS] x]: the outer query's rows are the
// inner query's results, which the service computes over the container
// (the Learn page "Subqueries" places multi-value subqueries in FROM; the
// service answers SELECT VALUE COUNT(1) FROM (SELECT DISTINCT ...) and
// the like). ttldb takes the inner queries whose results are each one
// document's: its rows are each document's, as a JOIN's source's are
// (joinsub.go), so that the outer query reads each document's results in
// turn, with pages and tokens as for a JOIN. An inner query whose results
// need every document at once (DISTINCT, TOP, an aggregate, and ORDER BY,
// OFFSET or GROUP BY, which no subquery takes) is refused as not
// supported; one without FROM, or whose FROM is no container, too.

// parseFromSub parses FROM (SELECT ...) [[AS] x], t its "(".
func (p *parser) parseFromSub(t token) error {
	src, err := p.parseSubquery(xArraySub, t.off)
	if err != nil {
		return err
	}
	sq := src.sub
	sq.outer = true
	switch {
	case len(sq.joins) == 0 || sq.joins[0].each || sq.joins[0].src.sub != nil || len(sq.joins[0].src.path) > 0:
		return p.unsupported(t.off, "a subquery in FROM that reads no container (FROM (SELECT ... FROM c) x is supported)")
	case sq.distinct:
		return p.unsupported(t.off, "DISTINCT in a subquery of FROM (the service takes it; ttldb reads such a subquery a document at a time, and its results would need every document at once: not built)")
	case sq.top.set:
		return p.unsupported(t.off, "TOP in a subquery of FROM (the service takes it; ttldb reads such a subquery a document at a time, and its results would need every document at once: not built)")
	case len(sq.aggs) > 0:
		return p.unsupported(t.off, "an aggregate in a subquery of FROM (the service takes it; ttldb reads such a subquery a document at a time, and its results would need every document at once: not built)")
	}
	j := join{src: src, each: true}
	if n := p.tok(); n.isKeyword("AS") || n.kind == tIdent && !n.isReserved() {
		if j.alias, err = p.parseAlias(); err != nil {
			return err
		}
	}
	p.alias = "" // the container's, which no clause of the outer query names
	p.q.iter = true
	p.q.joins = append(p.q.joins, j)
	return p.parseJoins()
}
