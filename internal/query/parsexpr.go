package query

import (
	"math"
	"strings"
)

// The grammar of expressions, loosest first:
//
//	expr     = coalesce ["?" expr ":" coalesce]
//	coalesce = or {"??" or}
//	or       = and {OR and}
//	and      = not {AND not}
//	not      = NOT not | NOT unary | concat
//	concat   = bitor {"||" bitor};  bitor = bitxor {"|" bitxor}
//	bitxor   = bitand {"^" bitand}; bitand = cmp {"&" cmp}
//	cmp      = shift [cmpop shift | [NOT] IN "(" expr {"," expr} ")" | [NOT] BETWEEN shift AND shift]
//	shift    = sum {("<<" | ">>" | ">>>") sum}
//	sum      = product {("+" | "-") product}
//	product  = unary {("*" | "/" | "%") unary}
//	unary    = ("-" | "+" | "~") unary | primary
//	primary  = literal | @param | path | call | "(" expr ")"
//	         | "[" [expr {"," expr}] "]" | "{" [member {"," member}] "}"
//	member   = (name | string) ":" expr
//
// Comparisons do not chain: a = b = c is refused, as it reads differently
// in different dialects. Nor does NOT go before an operator without
// parentheses: Cosmos DB reads NOT a = b as (NOT a) = b, SQL as NOT (a =
// b). For the same reason a comparison is not an operand of &, ^, | or ||
// (Cosmos reads a || b = c as a || (b = c)), ?: does not chain in its last
// operand (a ? b : c ? d : e), and ?? is not an operand of ?: unless in
// parentheses.

// parseExpr parses an expression.
func (p *parser) parseExpr() (*expr, error) { return p.parseCond() }

// parseLogic parses operands joined by OR (kind xOr) or AND (xAnd) into
// one node with every operand, so that long chains nest no deeper.
func (p *parser) parseLogic(kind exprKind) (*expr, error) {
	kw, sub := "OR", func() (*expr, error) { return p.parseLogic(xAnd) }
	if kind == xAnd {
		kw, sub = "AND", p.parseNot
	}
	first, err := sub()
	if err != nil || !p.tok().isKeyword(kw) {
		return first, err
	}
	e := &expr{kind: kind, off: first.off, args: []*expr{first}}
	for p.tok().isKeyword(kw) {
		p.advance()
		x, err := sub()
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, x)
	}
	return e, nil
}

// parseNot parses NOT not | NOT unary | concat.
func (p *parser) parseNot() (*expr, error) {
	t := p.tok()
	if !t.isKeyword("NOT") {
		return p.parseBinary(levelConcat)
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.advance()
	var x *expr
	var err error
	if p.tok().isKeyword("NOT") {
		x, err = p.parseNot()
	} else {
		x, err = p.parseUnary()
	}
	if err != nil {
		return nil, err
	}
	p.leave()
	switch n := p.tok(); {
	case p.comparisonAhead():
		return nil, p.fail(t.off, "NOT before a comparison is ambiguous (Cosmos DB reads NOT a = b as (NOT a) = b): write NOT (a = b), or (NOT a) = b")
	case isOperator(n) && n.text != "?" && n.text != "??":
		return nil, p.fail(t.off, "NOT before the operator %s is ambiguous (Cosmos DB reads NOT a %s b as (NOT a) %s b): write NOT (a %s b), or (NOT a) %s b", n.text, n.text, n.text, n.text, n.text)
	}
	return &expr{kind: xNot, off: t.off, args: []*expr{x}}, nil
}

// cmpOps are the comparison operators.
var cmpOps = map[string]cmpOp{"=": opEq, "!=": opNe, "<>": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

// comparisonAhead reports whether a comparison starts at the current
// token: an operator, [NOT] IN, [NOT] BETWEEN or [NOT] LIKE.
func (p *parser) comparisonAhead() bool {
	t := p.tok()
	if _, op := cmpOps[t.text]; t.kind == tPunct && op {
		return true
	}
	if t.isKeyword("NOT") {
		t = p.peek(1)
	}
	return t.isKeyword("IN") || t.isKeyword("BETWEEN") || t.isKeyword("LIKE")
}

// parseCmp parses shift [comparison].
func (p *parser) parseCmp() (*expr, error) {
	a, err := p.parseBinary(levelShift)
	if err != nil || !p.comparisonAhead() {
		return a, err
	}
	e := &expr{off: a.off, args: []*expr{a}}
	t := p.tok()
	if t.isKeyword("NOT") {
		e.not = true
		p.advance()
		t = p.tok()
	}
	p.advance()
	switch {
	case t.isKeyword("IN"):
		e.kind = xIn
		if err := p.parseInList(e); err != nil {
			return nil, err
		}
	case t.isKeyword("BETWEEN"):
		e.kind = xBetween
		lo, err := p.parseBinary(levelShift)
		if err != nil {
			return nil, err
		}
		if !p.tok().isKeyword("AND") {
			return nil, p.expected("AND in BETWEEN ... AND ...")
		}
		p.advance()
		hi, err := p.parseBinary(levelShift)
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, lo, hi)
	case t.isKeyword("LIKE"):
		if err := p.parseLike(e); err != nil {
			return nil, err
		}
	default:
		e.kind, e.op = xCmp, cmpOps[t.text]
		b, err := p.parseBinary(levelShift)
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, b)
	}
	if p.comparisonAhead() {
		return nil, p.fail(p.tok().off, "comparisons do not chain: put one in parentheses")
	}
	return e, nil
}

// parseInList parses the parenthesized list of IN into e.args.
func (p *parser) parseInList(e *expr) error {
	if !p.tok().is("(") {
		return p.expected(`"(" after IN`)
	}
	if err := p.enter(); err != nil {
		return err
	}
	p.advance()
	var err error
	if e.args, err = p.parseList(e.args, nil); err != nil {
		return err
	}
	p.leave()
	return p.expect(")")
}

// parseList parses expr {"," expr} and appends them to list; check, if
// set, vets each.
func (p *parser) parseList(list []*expr, check func(*expr) error) ([]*expr, error) {
	for {
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if check != nil {
			if err := check(x); err != nil {
				return nil, err
			}
		}
		list = append(list, x)
		if !p.tok().is(",") {
			return list, nil
		}
		p.advance()
	}
}

// parsePrimary parses a literal, a parameter, a path, a call, an array
// literal or a parenthesized expression.
func (p *parser) parsePrimary() (*expr, error) {
	t := p.tok()
	switch t.kind {
	case tNumber:
		p.advance()
		return numberLit(t.off, t.num), nil
	case tString:
		p.advance()
		return &expr{kind: xLit, off: t.off, lit: val{Value: Value{Kind: String, Str: t.str}, raw: string(appendString(nil, t.str))}}, nil
	case tParam:
		p.advance()
		return &expr{kind: xParam, off: t.off, idx: p.param(t.str)}, nil
	case tIdent:
		return p.parseName()
	case tPunct:
		switch t.text {
		case "{":
			return p.parseObject()
		case "(":
			if p.peek(1).isKeyword("SELECT") {
				return p.parseSubquery(xScalarSub, t.off)
			}
			if err := p.enter(); err != nil {
				return nil, err
			}
			p.advance()
			e, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			p.leave()
			e.paren = true
			return e, p.expect(")")
		case "[":
			return p.parseArray()
		}
	}
	return nil, p.expected("an expression")
}

// numberLit returns the literal number f.
func numberLit(off int, f float64) *expr {
	return &expr{kind: xLit, off: off, lit: val{Value: Value{Kind: Number, Num: f}, raw: string(appendNumber(nil, f))}}
}

// literals are the keywords that are values.
var literals = map[string]val{
	"TRUE":      {Value: Value{Kind: Bool, Bool: true}, raw: "true"},
	"FALSE":     {Value: Value{Kind: Bool}, raw: "false"},
	"NULL":      {Value: Value{Kind: Null}, raw: "null"},
	"UNDEFINED": {},
}

// parseName parses what starts with a name: a keyword literal, a call or
// a path.
func (p *parser) parseName() (*expr, error) {
	t := p.tok()
	upper := strings.ToUpper(t.text)
	if v, ok := literals[upper]; ok {
		p.advance()
		return &expr{kind: xLit, off: t.off, lit: v}, nil
	}
	switch {
	case upper == "SELECT":
		return nil, p.unsupported(t.off, "a subquery")
	case upper == "EXISTS" && p.peek(1).is("(") && p.peek(2).isKeyword("SELECT"):
		p.advance()
		return p.parseSubquery(xExists, t.off)
	case upper == "ARRAY" && p.peek(1).is("(") && p.peek(2).isKeyword("SELECT"):
		p.advance()
		return p.parseSubquery(xArraySub, t.off)
	case upper == "EXISTS":
		return nil, p.expected("a subquery after EXISTS, as EXISTS(SELECT VALUE t FROM t IN c.tags)")
	case t.isReserved():
		return nil, p.expected("an expression")
	case p.peek(1).is("("):
		return p.parseCall()
	case upper == "UDF" && p.peek(1).is(".") && p.peek(2).kind == tIdent && p.peek(3).is("("):
		return nil, p.unsupported(t.off, "a user-defined function ("+t.text+"."+p.peek(2).text+")")
	}
	return p.parsePath()
}

// parseCall parses name(args).
func (p *parser) parseCall() (*expr, error) {
	t := p.tok()
	name := strings.ToUpper(t.text)
	info, ok := funcs[name]
	switch {
	case name == "COUNT" || aggregates[name]:
		return p.parseAggregate()
	case name == "DOCUMENTID":
		return nil, p.unsupported(t.off, "DOCUMENTID (it reads the service's internal _rid, which ttldb does not keep)")
	case !ok:
		return nil, p.unsupported(t.off, "the function "+name)
	}
	p.advance()
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.advance()
	e := &expr{kind: xCall, off: t.off, fn: info}
	if !p.tok().is(")") {
		var err error
		if e.args, err = p.parseList(nil, nil); err != nil {
			return nil, err
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	p.leave()
	if n := len(e.args); !info.takes(n) {
		return nil, p.fail(t.off, "%s takes %s, not %d", name, info.arity(), n)
	}
	if name == "VECTORDISTANCE" {
		return e, p.checkVectorDistance(e)
	}
	return e, nil
}

// parsePath parses name {.name | [index] | ["name"]}.
func (p *parser) parsePath() (*expr, error) {
	t := p.tok()
	p.advance()
	e := &expr{kind: xPath, off: t.off, root: t.text, path: Path{}}
	var err error
	if e.path, err = p.parseSteps(e.path); err != nil {
		return nil, err
	}
	p.paths = append(p.paths, e)
	return e, nil
}

// parseSteps parses {.name | [index] | ["name"]} and appends the steps to
// path. It stops before a "[" that holds no literal: an index computed by
// an expression (c[@p]), which parsePostfix reads.
func (p *parser) parseSteps(path Path) (Path, error) {
	for {
		switch s := p.tok(); {
		case s.is("."):
			p.advance()
			n := p.tok()
			if n.kind != tIdent {
				return nil, p.expected("a property name after '.'")
			}
			path = append(path, Step{Name: n.text})
			p.advance()
		case s.is("[") && !p.computedIndex():
			p.advance()
			n := p.tok()
			switch {
			case n.kind == tString:
				path = append(path, Step{Name: n.str})
			case n.num == math.Trunc(n.num) && n.num <= math.MaxInt32:
				path = append(path, Step{Index: int(n.num), IsIndex: true})
			default:
				return nil, p.fail(n.off, "an array index is an integer from 0 to %d, not %s", math.MaxInt32, n.text)
			}
			p.advance()
			p.advance() // the "]" computedIndex saw
		default:
			return path, nil
		}
	}
}

// computedIndex reports whether the current token, a "[", opens an index
// computed by an expression: anything but a string or a number alone.
func (p *parser) computedIndex() bool {
	n := p.peek(1)
	return !(n.kind == tString || n.kind == tNumber) || !p.peek(2).is("]")
}

// parseSourceSteps parses the steps of a FROM or JOIN source's path, which
// are literal ones only: the service's grammar (its path_expression) takes
// no computed index there.
func (p *parser) parseSourceSteps(path Path) (Path, error) {
	path, err := p.parseSteps(path)
	if err == nil && p.tok().is("[") {
		return nil, p.fail(p.peek(1).off, "the path of a FROM or JOIN source takes a property name in quotes or an array index, not an expression (the service's grammar takes none there either)")
	}
	return path, err
}

// parsePostfix parses the steps after the primary expression e: literal
// ones make an xMember, and an index computed by an expression, "[" expr
// "]", an xIndex (c[@p], c[CONCAT("a", "b")], c.tags[c.n - 1]), which the
// service's grammar takes after any primary expression (its
// MemberIndexerScalarExpression).
func (p *parser) parsePostfix(e *expr) (*expr, error) {
	levels := 0 // each step wraps e: a level of nesting, bounded by MaxDepth
	defer func() {
		for range levels {
			p.leave()
		}
	}()
	for {
		t := p.tok()
		if !t.is("[") && !t.is(".") {
			return e, nil
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		levels++
		if t.is(".") || !p.computedIndex() {
			steps, err := p.parseSteps(nil)
			if err != nil {
				return nil, err
			}
			e = &expr{kind: xMember, off: e.off, path: steps, args: []*expr{e}}
			continue
		}
		p.advance()
		i, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if err := p.expect("]"); err != nil {
			return nil, err
		}
		e = &expr{kind: xIndex, off: e.off, args: []*expr{e, i}}
	}
}
