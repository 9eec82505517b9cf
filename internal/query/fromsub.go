package query

// FROM (SELECT ... FROM c ...) [[AS] x]: the outer query's rows are the
// inner query's results, which the service computes over the container
// (the Learn page "Subqueries" places multi-value subqueries in FROM; the
// service answers SELECT VALUE COUNT(1) FROM (SELECT DISTINCT ...) and
// the like: the .NET SDK has a stage for it, DCountQueryPipelineStage,
// Azure/azure-cosmos-dotnet-v3 pull request 2079; other shapes it runs per
// partition and page, which Microsoft calls incorrect across them,
// vercel/cosmosdb-server issue 71: ttldb gives what they mean).
//
// An inner query whose results are each one document's (no DISTINCT, TOP
// or aggregate) is read a document at a time: its rows are each
// document's, as a JOIN's source's are (joinsub.go), so that the outer
// query reads each document's results in turn, with pages and tokens as
// for a JOIN. One whose results need every document at once (DISTINCT,
// TOP, an aggregate) is whole: the outer query's one row is a document the
// caller makes of every document of the query's scope (a partition, or
// all), live, as the elements of the array at WholeMember, each written
// with its system properties, and the inner query's FROM c iterates them
// (Bound.Whole). Its rows count against that row's MaxJoinRows (every
// document one), and its results against MaxSubqueryBytes, as a JOIN's
// subquery source's. ORDER BY, OFFSET and GROUP BY, which no subquery
// takes, and an inner query without FROM, or whose FROM is no container,
// are refused.

// WholeMember is the member of the document Bound.Whole asks for that
// holds the array of the documents read.
const WholeMember = "documents"

// Whole reports whether the query reads FROM a subquery with DISTINCT,
// TOP or an aggregate: its rows are then those of one document, made of
// every document of its scope, live, as the array at WholeMember (at most
// MaxJoinRows of them, and MaxWholeBytes of JSON), which the caller gives
// it in place of the documents.
func (b *Bound) Whole() bool { return b.q.whole }

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
	case sq.distinct || sq.top.set || len(sq.aggs) > 0: // every document at once
		sq.joins[0].each = true
		sq.joins[0].src.path = Path{{Name: WholeMember}}
		sq.whole, p.q.whole = true, true
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
