package query

// parseSubquery parses ( SELECT ... ), the current token its "(", into an
// expression of kind (EXISTS, ARRAY or a scalar subquery) that starts at
// off. A subquery reads no document of its own: its FROM clause, if any,
// iterates values of its outer queries' aliases (FROM t IN c.tags,
// FROM c.user u), and its paths name its own aliases and theirs.
func (p *parser) parseSubquery(kind exprKind, off int) (*expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	outer, alias, paths, aggAt := p.q, p.alias, p.paths, p.aggAt
	sq := &Query{text: p.text, sub: true}
	p.q, p.alias, p.paths = sq, "", nil
	err := p.parseSubBody()
	sub := &subquery{q: sq, paths: p.paths}
	p.q, p.alias, p.paths, p.aggAt = outer, alias, paths, aggAt
	if err != nil {
		return nil, err
	}
	outer.subs = append(outer.subs, sub)
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	p.leave()
	return &expr{kind: kind, off: off, sub: sq}, nil
}

// parseSubBody parses SELECT [TOP n] [DISTINCT] select [FROM source
// {JOIN source}] [WHERE expr] up to the subquery's ")".
func (p *parser) parseSubBody() error {
	q := p.q
	p.advance() // SELECT
	if p.tok().isKeyword("TOP") {
		p.advance()
		var err error
		if q.top, err = p.parseCount("TOP"); err != nil {
			return err
		}
	}
	if p.tok().isKeyword("DISTINCT") {
		p.advance()
		q.distinct = true
	}
	if t := p.tok(); t.is("*") {
		return p.unsupported(t.off, "SELECT * in a subquery (the service's answer is unobserved: write SELECT VALUE x)")
	}
	p.aggAt = aggHere // its own aggregates, over its rows (aggexpr.go)
	if err := p.parseSelect(); err != nil {
		return err
	}
	p.aggAt = aggNot
	if p.tok().isKeyword("FROM") {
		p.advance()
		j, err := p.parseAliased(true, "an alias for the subquery's source, as FROM c.tags[0] AS t")
		if err != nil {
			return err
		}
		q.joins = append(q.joins, j)
		if err := p.parseJoins(); err != nil {
			return err
		}
	}
	if p.tok().isKeyword("WHERE") {
		p.advance()
		w, err := p.parseExpr()
		if err != nil {
			return err
		}
		q.where = w
	}
	switch t := p.tok(); {
	case t.isKeyword("GROUP"):
		return p.unsupported(t.off, "GROUP BY in a subquery (the service refuses one under an aggregate: \"Queries with an aggregate system function and a subquery with GROUP BY aren't supported\", the Learn page GROUP BY; other forms are unobserved)")
	case t.isKeyword("ORDER"): // as the service refuses them (azure-cosmos-dotnet-v3 issue 1723; microsoft/vscode-cosmosdb pull 3148)
		return p.fail(t.off, "'ORDER BY' is not supported in subqueries (the service's error SC2202): order the outer query")
	case t.isKeyword("OFFSET"):
		return p.fail(t.off, "'OFFSET LIMIT' clause is not supported in subqueries (the service's error SC2204): take the first results with TOP, or slice ARRAY(...) with ARRAY_SLICE")
	}
	if err := p.checkAggregates(); err != nil {
		return err
	}
	if !p.tok().is(")") {
		return p.expected(`WHERE or ")" after the subquery`)
	}
	return nil
}

// scopeEntry is an alias a path may start from, and what it names: 0 the
// document, k the k-th join's element of the row (across the outer
// queries' joins and a subquery's).
type scopeEntry struct {
	name string
	bind int
}

// lookup returns the innermost entry named name.
func lookup(scope []scopeEntry, name string) (int, bool) {
	for i := len(scope) - 1; i >= 0; i-- {
		if scope[i].name == name {
			return scope[i].bind, true
		}
	}
	return 0, false
}

// resolveSubs resolves the subqueries of q, whose aliases are scope, and
// theirs in turn; it returns the paths among them from the document (bind
// 0), for FROM c.path to prefix.
func (p *parser) resolveSubs(q *Query, scope []scopeEntry) ([]*expr, error) {
	var doc []*expr
	for _, s := range q.subs {
		sq := s.q
		for _, e := range scope {
			sq.base = max(sq.base, e.bind)
		}
		own := append([]scopeEntry(nil), scope...)
		if sq.outer { // FROM (SELECT ... FROM c) x: not correlated; its c is the document
			own = nil
		}
		for k, j := range sq.joins {
			if sq.outer && k == 0 {
				j.src.bind = 0
				doc = append(doc, j.src)
				own = append(own, scopeEntry{j.alias, sq.base + 1})
				continue
			}
			if j.src.sub != nil { // JOIN (SELECT ...): resolved among sq's subqueries
				own = append(own, scopeEntry{j.alias, sq.base + k + 1})
				continue
			}
			b, ok := lookup(own, j.src.root)
			switch {
			case !ok && k == 0 && len(j.src.path) == 0:
				return nil, newError(p.text, j.src.off, true, "a subquery that reads a container ("+j.src.root+") is not supported: a subquery reads values of its outer query, as FROM t IN c.tags (the service takes correlated subqueries only: \"Azure Cosmos DB supports only correlated subqueries\", the Learn page subquery)")
			case !ok:
				return nil, p.fail(j.src.off, "identifier %s is not defined in the subquery's FROM clause", j.src.root)
			}
			j.src.bind = b
			if b == 0 {
				doc = append(doc, j.src)
			}
			own = append(own, scopeEntry{j.alias, sq.base + k + 1})
		}
		for _, e := range s.paths {
			b, ok := lookup(own, e.root)
			if !ok {
				return nil, p.fail(e.off, "identifier %s is not defined in the subquery", e.root)
			}
			e.bind = b
			if b == 0 {
				doc = append(doc, e)
			}
		}
		if err := p.nameItems(sq); err != nil {
			return nil, err
		}
		sq.docWhere = sq.where
		inner, err := p.resolveSubs(sq, own)
		if err != nil {
			return nil, err
		}
		if err := p.checkSourceSubs(sq, sq.base); err != nil {
			return nil, err
		}
		doc = append(doc, inner...)
	}
	return doc, nil
}
