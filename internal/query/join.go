package query

import "strings"

// parseFromIn parses the rest of FROM x IN name {step}, whose alias x is
// t: each element of each document's array at the path is a row, and the
// container's name is no alias.
func (p *parser) parseFromIn(t token) error {
	p.advance() // IN
	src, err := p.parseSource()
	if err != nil {
		return err
	}
	if src.sub != nil {
		return p.unsupported(src.off, "FROM x IN (SELECT ...) (a subquery in FROM reads the container through another query, which ttldb does not; JOIN x IN (SELECT ...) is supported)")
	}
	p.alias = src.root
	p.q.iter = true
	p.q.joins = append(p.q.joins, join{alias: t.text, src: src, each: true})
	return p.parseJoins()
}

// parseSource parses the name {step} of a FROM or JOIN clause's source: a
// path, which resolve checks against the aliases before it, or a
// subquery, whose results are the source's values (an ARRAY(...) of it;
// joinsub.go).
func (p *parser) parseSource() (*expr, error) {
	t := p.tok()
	if t.is("(") && p.peek(1).isKeyword("SELECT") {
		return p.parseSubquery(xArraySub, t.off)
	}
	if t.kind != tIdent || t.isReserved() {
		return nil, p.expected("a name and a path after IN, as c.tags")
	}
	p.advance()
	e := &expr{kind: xPath, off: t.off, root: t.text, path: Path{}}
	var err error
	e.path, err = p.parseSourceSteps(e.path)
	return e, err
}

// parseAliased parses what a FROM or JOIN names: alias IN source, which
// makes a row of each element of the array at the source, or source
// [[AS] alias], a row of the value there. Without AS the alias is the
// path's last name; for a source without a path, its root when rootAlias
// (a subquery's FROM c), else none. want is what to expect when there is
// no alias.
func (p *parser) parseAliased(rootAlias bool, want string) (join, error) {
	t := p.tok()
	if t.kind == tIdent && !t.isReserved() && p.peek(1).isKeyword("IN") {
		p.advance()
		p.advance()
		src, err := p.parseSource()
		if err != nil {
			return join{}, err
		}
		return join{alias: t.text, src: src, each: true, flat: src.sub != nil}, nil
	}
	src, err := p.parseSource()
	if err != nil {
		return join{}, err
	}
	j := join{src: src, each: src.sub != nil} // a subquery: a row for each result
	if n := len(src.path); n > 0 && !src.path[n-1].IsIndex {
		j.alias = src.path[n-1].Name
	} else if n == 0 && rootAlias {
		j.alias = src.root
	}
	if n := p.tok(); n.isKeyword("AS") || n.kind == tIdent && !n.isReserved() {
		if j.alias, err = p.parseAlias(); err != nil {
			return join{}, err
		}
	}
	if j.alias == "" && src.sub == nil { // a subquery's alias is optional: JOIN (SELECT VALUE t FROM t IN c.tags WHERE ...)
		return join{}, p.expected(want)
	}
	return j, nil
}

// parseJoins parses {JOIN (alias IN source | source [[AS] alias])}: the
// first form makes a row of each element of the array at the source, the
// second of the value there; neither makes one of an undefined value, nor
// the first of a value that is no array.
func (p *parser) parseJoins() error {
	q := p.q
	for p.tok().isKeyword("JOIN") {
		p.advance()
		t := p.tok()
		j, err := p.parseAliased(false, "an alias for the JOIN's source, as JOIN c.tags[0] AS t")
		if err != nil {
			return err
		}
		if !q.sub && j.src.sub == nil { // a subquery's are resolved with its outer queries' aliases (resolveSubs), as a source subquery's paths are
			k, ok := p.aliasIndex(j.src.root, len(q.joins))
			if !ok {
				return p.fail(j.src.off, "identifier %s is not defined: the JOIN's source starts from an alias before it (%s)", j.src.root, p.aliasNames())
			}
			j.src.bind = k
		}
		if _, dup := p.aliasIndex(j.alias, len(q.joins)); j.alias != "" && (dup || j.alias == p.alias && !q.iter) {
			return p.fail(t.off, "the alias %s is declared twice in the FROM clause: give each source its own", j.alias)
		}
		if len(q.joins) == MaxJoins {
			return p.fail(t.off, "the FROM clause joins more than %d sources", MaxJoins)
		}
		q.joins = append(q.joins, j)
	}
	return nil
}

// aliasIndex returns the index of the alias name among the FROM clause's
// first upto+1: 0 the document's (not FROM x IN's container), k the k-th
// join's.
func (p *parser) aliasIndex(name string, upto int) (int, bool) {
	if name == p.alias && name != "" && !p.q.iter {
		return 0, true
	}
	for k := 0; k < upto && k < len(p.q.joins); k++ {
		if p.q.joins[k].alias == name {
			return k + 1, true
		}
	}
	return 0, false
}

// aliasNames lists the aliases a path may start from, for errors.
func (p *parser) aliasNames() string {
	var names []string
	if !p.q.iter {
		names = append(names, p.alias)
	}
	for _, j := range p.q.joins {
		names = append(names, j.alias)
	}
	return strings.Join(names, ", ")
}

// splitWhere splits the WHERE clause of a query with joins into the terms
// of its top-level AND that name only the document (docWhere: Match tests
// them once a document) and the others (rowWhere: tested for each row of
// its product).
func (p *parser) splitWhere() {
	q := p.q
	if len(q.joins) == 0 || q.where == nil {
		q.docWhere = q.where
		return
	}
	terms := []*expr{q.where}
	if q.where.kind == xAnd && !q.where.paren {
		terms = q.where.args
	}
	var doc, row []*expr
	for _, t := range terms {
		if namesJoin(t) {
			row = append(row, t)
		} else {
			doc = append(doc, t)
		}
	}
	q.docWhere, q.rowWhere = conjunction(doc), conjunction(row)
}

// conjunction returns the AND of terms; nil for none.
func conjunction(terms []*expr) *expr {
	switch len(terms) {
	case 0:
		return nil
	case 1:
		return terms[0]
	}
	return &expr{kind: xAnd, off: terms[0].off, args: terms}
}

// namesJoin reports whether e reads an alias of a join.
func namesJoin(e *expr) bool {
	if e.kind == xPath && e.bind > 0 || e.sub != nil { // a subquery may read a join's alias
		return true
	}
	for _, a := range e.args {
		if namesJoin(a) {
			return true
		}
	}
	return false
}
