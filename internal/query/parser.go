package query

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Parse parses a query. Errors are *Error: the position and what the
// parser expected there, or the part of Cosmos SQL that is not supported.
func Parse(text string) (*Query, error) {
	if len(text) > MaxQueryLen {
		return nil, newError(text, 0, false, fmt.Sprintf("the query is %d bytes long, longer than the %d bytes allowed", len(text), MaxQueryLen))
	}
	if !utf8.ValidString(text) {
		off := 0
		for off < len(text) {
			r, size := utf8.DecodeRuneInString(text[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return nil, newError(text, off, false, "the query is not valid UTF-8")
	}
	p := &parser{text: text, lex: lexer{text: text}, params: map[string]int{}, q: &Query{text: text}}
	p.root = p.q
	p.fill(0)
	if err := p.parseQuery(); err != nil {
		return nil, err
	}
	return p.q, nil
}

// parser is the state of a parse: the tokens, and what it has found.
type parser struct {
	text   string
	lex    lexer
	toks   []token // the current token, then those read ahead
	pos    int     // the current token's index in toks
	depth  int
	params map[string]int // parameter index by name
	paths  []*expr        // every path, to check against the alias
	q      *Query
	alias  string
	aggAt  aggPlace // whether an aggregate may stand at the current token
	root   *Query   // the whole query, whose parameters and literals a subquery's are
}

// fill reads tokens until toks holds the one n places after the current
// one (past the end, the last one again). The tokens read are dropped as
// the parser moves on, so that it holds only a few.
func (p *parser) fill(n int) {
	if p.pos > 64 {
		p.toks = append(p.toks[:0], p.toks[p.pos:]...)
		p.pos = 0
	}
	for len(p.toks) <= p.pos+n {
		p.toks = append(p.toks, p.lex.next())
	}
}

// tok returns the current token.
func (p *parser) tok() token { return p.toks[p.pos] }

// peek returns the token n places after the current one: at the end, the
// tEOF or tError token.
func (p *parser) peek(n int) token {
	p.fill(n)
	return p.toks[p.pos+n]
}

// advance moves to the next token, staying at the tEOF or tError token.
func (p *parser) advance() {
	if k := p.tok().kind; k != tEOF && k != tError {
		p.pos++
		p.fill(0)
	}
}

// fail returns the error msg at byte off.
func (p *parser) fail(off int, format string, args ...any) error {
	return newError(p.text, off, false, fmt.Sprintf(format, args...))
}

// unsupported returns the error that the part of Cosmos SQL at off, what,
// is not supported.
func (p *parser) unsupported(off int, what string) error {
	return newError(p.text, off, true, what+" is not supported")
}

// expected returns the error that the current token is not what, or the
// lexical error it is.
func (p *parser) expected(what string) error {
	t := p.tok()
	if t.kind == tError {
		return newError(p.text, t.off, false, t.msg)
	}
	return p.fail(t.off, "expected %s, found %s", what, describe(t))
}

// expect consumes the punctuation s, or fails.
func (p *parser) expect(s string) error {
	if !p.tok().is(s) {
		return p.expected(fmt.Sprintf("%q", s))
	}
	p.advance()
	return nil
}

// enter goes one level deeper, or fails beyond MaxDepth; leave comes back.
func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return p.fail(p.tok().off, "the query nests deeper than %d levels", MaxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// param returns the index of parameter name, numbering it on its first use.
func (p *parser) param(name string) int {
	i, ok := p.params[name]
	if !ok {
		i = len(p.root.params)
		p.params[name] = i
		p.root.params = append(p.root.params, name)
	}
	return i
}

// parseQuery parses the whole text into p.q.
func (p *parser) parseQuery() error {
	q := p.q
	if !p.tok().isKeyword("SELECT") {
		return p.expected("SELECT")
	}
	p.advance()
	if p.tok().isKeyword("TOP") {
		p.advance()
		var err error
		if q.top, err = p.parseCount("TOP"); err != nil {
			return err
		}
	}
	if t := p.tok(); t.isKeyword("DISTINCT") {
		p.advance()
		q.distinct = true
		if p.tok().isKeyword("TOP") && !q.top.set { // SELECT DISTINCT TOP n, as well as SELECT TOP n DISTINCT
			p.advance()
			var err error
			if q.top, err = p.parseCount("TOP"); err != nil {
				return err
			}
		}
		if p.tok().is("*") {
			return p.fail(t.off, "DISTINCT does not go with SELECT *: write SELECT DISTINCT VALUE c, or the items")
		}
	}
	p.aggAt = aggHere
	if err := p.parseSelect(); err != nil {
		return err
	}
	p.aggAt = aggNot
	next := "FROM, WHERE, ORDER BY, OFFSET or the end of the query"
	if p.tok().isKeyword("FROM") {
		if err := p.parseFrom(); err != nil {
			return err
		}
		next = "WHERE, ORDER BY, OFFSET or the end of the query"
	} else {
		q.noFrom = true
		if q.sel == selStar {
			return p.fail(p.tok().off, "expected FROM: SELECT * needs a FROM clause, %s has no document to select", describe(p.tok()))
		}
	}
	if p.tok().isKeyword("WHERE") {
		p.advance()
		w, err := p.parseExpr()
		if err != nil {
			return err
		}
		q.where = w
		next = "AND, OR, ORDER BY, OFFSET or the end of the query"
	}
	if p.tok().isKeyword("GROUP") {
		if err := p.parseGroupBy(); err != nil {
			return err
		}
		next = "ORDER BY, OFFSET or the end of the query"
	}
	if t := p.tok(); t.isKeyword("ORDER") {
		if len(q.group) > 0 {
			return p.unsupported(t.off, "ORDER BY with GROUP BY (the service refuses it too: \"You can't use GROUP BY with an ORDER BY clause\", the Learn page GROUP BY)")
		}
		if err := p.parseOrderBy(); err != nil {
			return err
		}
		if len(q.aggs) > 0 {
			// An aggregate without GROUP BY gives one result of all the
			// rows, whatever their order: SUM and AVG are exact and MIN and
			// MAX take the least text of equal values, so that the order
			// changes nothing. The service takes the query (Microsoft's
			// Java SDK benchmark runs "Select top 1 value count(c) from c
			// order by c._ts"; the .NET SDK stacks its aggregate stage on
			// the ORDER BY one), and ttldb checks its ORDER BY as any.
			q.order = nil
		}
		next = "OFFSET or the end of the query"
	}
	if t := p.tok(); t.isKeyword("OFFSET") {
		if q.top.set {
			return p.fail(t.off, "TOP cannot be combined with OFFSET ... LIMIT: use one or the other")
		}
		p.advance()
		var err error
		if q.offset, err = p.parseCount("OFFSET"); err != nil {
			return err
		}
		if !p.tok().isKeyword("LIMIT") {
			return p.expected("LIMIT")
		}
		p.advance()
		if q.limit, err = p.parseCount("LIMIT"); err != nil {
			return err
		}
		next = "the end of the query"
	} else if t.isKeyword("LIMIT") {
		return p.fail(t.off, "LIMIT comes with OFFSET: write OFFSET 0 LIMIT m")
	}
	if p.tok().kind != tEOF {
		return p.expected(next)
	}
	if err := p.resolve(); err != nil {
		return err
	}
	return p.checkAggregates()
}

// parseCount parses the number of TOP, OFFSET or LIMIT: a non-negative
// integer literal that fits 32 bits, or a parameter.
func (p *parser) parseCount(clause string) (limitSpec, error) {
	t := p.tok()
	switch t.kind {
	case tNumber:
		if t.num != math.Trunc(t.num) || t.num > math.MaxInt32 {
			return limitSpec{}, p.fail(t.off, "%s takes an integer from 0 to %d, not %s", clause, math.MaxInt32, t.text)
		}
		p.advance()
		return limitSpec{set: true, n: int(t.num), param: -1}, nil
	case tParam:
		p.advance()
		return limitSpec{set: true, param: p.param(t.str)}, nil
	}
	return limitSpec{}, p.expected("a non-negative integer or a parameter after " + clause)
}

// parseSelect parses what SELECT [TOP n] selects.
func (p *parser) parseSelect() error {
	q := p.q
	t := p.tok()
	switch {
	case t.is("*"):
		p.advance()
		if p.tok().is(",") {
			return p.unsupported(t.off, "SELECT * combined with other items (the service's grammar takes * alone: SELECT *, SELECT VALUE x, or a list of items; write c, or c.id, c.name)")
		}
		q.sel = selStar
		return nil
	case t.isKeyword("VALUE"):
		p.advance()
		off := p.tok().off
		e, err := p.parseExpr()
		q.sel, q.items = selValue, []item{{e: e, off: off, text: strings.TrimSpace(p.text[off:p.tok().off])}}
		return err
	}
	q.sel = selItems
	for {
		t := p.tok()
		if t.is("*") {
			return p.unsupported(t.off, "SELECT * combined with other items (the service's grammar takes * alone: SELECT *, SELECT VALUE x, or a list of items; write c, or c.id, c.name)")
		}
		it := item{off: t.off}
		e, err := p.parseExpr()
		if err != nil {
			return err
		}
		it.e = e
		it.text = strings.TrimSpace(p.text[it.off:p.tok().off])
		name, err := p.parseAlias()
		if err != nil {
			return err
		}
		it.name = name
		q.items = append(q.items, it)
		if !p.tok().is(",") {
			return nil
		}
		p.advance()
	}
}

// parseAlias parses an item's [AS] name, if any.
func (p *parser) parseAlias() (string, error) {
	t := p.tok()
	if t.isKeyword("AS") {
		p.advance()
		if t = p.tok(); t.kind != tIdent || t.isReserved() {
			return "", p.expected("a name after AS")
		}
	} else if t.kind != tIdent || t.isReserved() {
		return "", nil
	}
	p.advance()
	return t.text, nil
}

// parseFrom parses FROM name {step} [[AS] alias].
func (p *parser) parseFrom() error {
	p.advance()
	t := p.tok()
	if t.is("(") && p.peek(1).isKeyword("SELECT") {
		return p.parseFromSub(t)
	}
	if t.kind != tIdent || t.isReserved() {
		return p.expected("a container name after FROM")
	}
	p.advance()
	p.alias = t.text
	switch n := p.tok(); {
	case n.isKeyword("IN"):
		return p.parseFromIn(t)
	case n.is(".") || n.is("["):
		if err := p.parseFromPath(); err != nil {
			return err
		}
	}
	if n := p.tok(); n.isKeyword("AS") || n.kind == tIdent && !n.isReserved() {
		alias, err := p.parseAlias()
		if err != nil {
			return err
		}
		p.alias = alias
	}
	if p.q.from != nil && p.alias == "" {
		return p.expected("an alias for the FROM path, as FROM c.tags[0] AS t")
	}
	return p.parseJoins()
}

// parseOrderBy parses ORDER BY item [ASC|DESC], ..., each item a path of
// the document or a VECTORDISTANCE call (orderby.go says which forms the
// service refuses, and why).
func (p *parser) parseOrderBy() error {
	p.advance()
	if !p.tok().isKeyword("BY") {
		return p.expected("BY after ORDER")
	}
	p.advance()
	for {
		off := p.tok().off
		e, err := p.parseExpr()
		if err != nil {
			return err
		}
		o, err := p.orderItem(e, off)
		if err != nil {
			return err
		}
		if t := p.tok(); t.isKeyword("ASC") || t.isKeyword("DESC") {
			if o.e != nil {
				return p.fail(t.off, "ORDER BY VectorDistance(...) takes no %s: it sorts the most similar first, as the Learn page \"VectorDistance\" has it (descending scores for cosine and dotproduct, ascending for euclidean)", strings.ToUpper(t.text))
			}
			o.Desc = t.isKeyword("DESC")
			p.advance()
		}
		p.q.order = append(p.q.order, o)
		if !p.tok().is(",") {
			return nil
		}
		p.advance()
	}
}

// resolve checks that every path starts from the alias, and names the
// SELECT clause's items.
func (p *parser) resolve() error {
	q := p.q
	for _, e := range p.paths {
		if _, isAlias := p.aliasIndex(e.root, len(q.joins)); !isAlias && nonFinite(e, p.alias, q.noFrom) {
			continue
		}
		if q.noFrom {
			return p.fail(e.off, "identifier %s is not defined: the query has no FROM clause", e.root)
		}
		k, ok := p.aliasIndex(e.root, len(q.joins))
		if !ok {
			return p.fail(e.off, "identifier %s is not defined: the FROM clause names %s", e.root, p.aliasNames())
		}
		e.bind = k
	}
	if q.sel == selStar && len(q.joins) > 0 && !(q.iter && len(q.joins) == 1) {
		return p.fail(q.joins[0].src.off, "SELECT * needs a FROM clause of one alias, and a JOIN adds one: name what to select, as SELECT c.id, t.name")
	}
	if err := p.nameItems(q); err != nil {
		return err
	}
	var scope []scopeEntry
	if p.alias != "" && !q.iter {
		scope = append(scope, scopeEntry{p.alias, 0})
	}
	for k, j := range q.joins {
		scope = append(scope, scopeEntry{j.alias, k + 1})
	}
	doc, err := p.resolveSubs(q, scope)
	if err != nil {
		return err
	}
	if err := p.checkSourceSubs(q, 0); err != nil {
		return err
	}
	p.paths = append(p.paths, doc...)
	q.alias = p.alias
	if err := p.applyFrom(); err != nil {
		return err
	}
	p.splitWhere()
	return nil
}

// nameItems names the SELECT clause's items of q: by AS, by the last
// member name of a path (the alias alone: by the alias), else $1, $2...
// among the unnamed; two of one name are refused.
func (p *parser) nameItems(q *Query) error {
	switch q.sel {
	case selItems:
		unnamed := 0
		seen := map[string]bool{}
		for i := range q.items {
			it := &q.items[i]
			switch {
			case it.name != "":
			case it.e.kind == xPath && len(it.e.path) == 0:
				it.name = it.e.root
			case (it.e.kind == xPath || it.e.kind == xMember) && !it.e.path[len(it.e.path)-1].IsIndex:
				// a property of a path, or of any expression ((SELECT ...).name, as the Learn page names it)
				it.name = it.e.path[len(it.e.path)-1].Name
			default:
				unnamed++
				it.name = fmt.Sprintf("$%d", unnamed)
			}
			if seen[it.name] {
				return p.fail(it.e.off, "duplicate name %q in the SELECT clause: give one another name with AS", it.name)
			}
			seen[it.name] = true
		}
	}
	return nil
}
