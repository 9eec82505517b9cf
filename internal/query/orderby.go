package query

// The forms of ORDER BY. The Learn page "ORDER BY" gives its grammar as a
// scalar expression, but the service sorts by its index only: an item that
// is not a path of the document is refused with "Unsupported ORDER BY
// clause. ORDER BY item expression could not be mapped to a document
// path." (error 2206, as the service answered ORDER BY LENGTH(c.id) and
// ORDER BY (c.a || c.b): dotnet/efcore issues 16150 and 27037; "we only
// support order-by expressions that can be pushed to the index", Microsoft
// in MicrosoftDocs/azure-docs issue 13832), and a path of a JOIN's alias
// with "Order-by over correlated collections is not supported"
// (Azure/azure-cosmos-dotnet-v2 issues 314 and 679; the service still
// refuses it, Azure/azure-cosmos-db-emulator-docker issue 298). The one
// expression it sorts by is VECTORDISTANCE, "in order from most similar to
// least" (the Learn page "VectorDistance", whose examples take no ASC or
// DESC; the sample corpus's vectordistance script gives cosine scores
// descending).

// orderItem checks e, an ORDER BY item that starts at off, and returns it
// as an Order: a path of the document, or a VECTORDISTANCE call whose
// arguments read the document and constants only.
func (p *parser) orderItem(e *expr, off int) (Order, error) {
	if e.kind == xPath && len(e.path) > 0 {
		if k, ok := p.aliasIndex(e.root, len(p.q.joins)); ok && k > 0 {
			return Order{}, p.unsupported(off, "ORDER BY on a path of a JOIN's alias or of FROM x IN's (the service refuses it: \"Order-by over correlated collections is not supported\"; order by the document's paths, as c.name)")
		}
		return Order{Path: e.path}, nil
	}
	if e.kind == xCall && e.fn == vectorFuncs[0] && !e.paren {
		if err := p.orderArgs(e); err != nil {
			return Order{}, err
		}
		return Order{Desc: e.idx != vecEuclidean, e: e}, nil
	}
	if e.kind == xIndex {
		return Order{}, p.unsupported(off, "ORDER BY on a property or an index computed by an expression or a parameter (c[@p]): ttldb sorts by a path known when the query is parsed, as c.name (the service's answer is unobserved)")
	}
	return Order{}, p.fail(off, "ORDER BY takes a property path of the document, as c.name, or VectorDistance(...): the service refuses other expressions (\"ORDER BY item expression could not be mapped to a document path\")")
}

// orderArgs checks that the arguments of e, an ORDER BY item, read no
// alias of a JOIN and hold no subquery: its value is the document's.
func (p *parser) orderArgs(e *expr) error {
	switch {
	case e.kind == xPath:
		if k, ok := p.aliasIndex(e.root, len(p.q.joins)); ok && k > 0 {
			return p.unsupported(e.off, "ORDER BY on a value of a JOIN's alias (the service refuses it: \"Order-by over correlated collections is not supported\")")
		}
	case e.sub != nil:
		return p.unsupported(e.off, "a subquery in ORDER BY")
	}
	for _, a := range e.args {
		if err := p.orderArgs(a); err != nil {
			return err
		}
	}
	return nil
}
