package query

import (
	"math"
	"strings"
)

// The grammar of expressions, loosest first:
//
//	expr    = and {OR and}
//	and     = not {AND not}
//	not     = NOT not | NOT operand | cmp
//	cmp     = operand [op operand | [NOT] IN "(" expr {"," expr} ")" | [NOT] BETWEEN operand AND operand]
//	operand = literal | -number | +number | @param | path | call | "(" expr ")" | "[" [expr {"," expr}] "]"
//
// Comparisons do not chain: a = b = c is refused, as it reads differently
// in different dialects. Nor does NOT go before a comparison without
// parentheses: Cosmos DB reads NOT a = b as (NOT a) = b, SQL as NOT (a =
// b).

// parseExpr parses an expression.
func (p *parser) parseExpr() (*expr, error) { return p.parseLogic(xOr) }

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

// parseNot parses NOT not | cmp.
func (p *parser) parseNot() (*expr, error) {
	t := p.tok()
	if !t.isKeyword("NOT") {
		return p.parseCmp(-1)
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
		x, err = p.parseCmp(t.off)
	}
	if err != nil {
		return nil, err
	}
	p.leave()
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

// parseCmp parses operand [comparison]. not is the offset of a NOT just
// before, or -1: NOT a = b is refused, as Cosmos DB reads it (NOT a) = b,
// where SQL reads it NOT (a = b).
func (p *parser) parseCmp(not int) (*expr, error) {
	a, err := p.parseOperand()
	if err != nil || !p.comparisonAhead() {
		return a, err
	}
	if t := p.tok(); t.isKeyword("LIKE") || t.isKeyword("NOT") && p.peek(1).isKeyword("LIKE") {
		return nil, p.unsupported(p.tok().off, "LIKE")
	}
	if not >= 0 {
		return nil, p.fail(not, "NOT before a comparison is ambiguous (Cosmos DB reads NOT a = b as (NOT a) = b): write NOT (a = b), or (NOT a) = b")
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
		lo, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		if !p.tok().isKeyword("AND") {
			return nil, p.expected("AND in BETWEEN ... AND ...")
		}
		p.advance()
		hi, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, lo, hi)
	default:
		e.kind, e.op = xCmp, cmpOps[t.text]
		b, err := p.parseOperand()
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

// unsupportedOps names the operators of Cosmos SQL this subset refuses.
var unsupportedOps = map[string]string{
	"+": "the arithmetic operator +", "-": "the arithmetic operator -", "*": "the arithmetic operator *",
	"/": "the arithmetic operator /", "%": "the arithmetic operator %",
	"||": "the string concatenation operator ||",
	"|":  "the bitwise operator |", "&": "the bitwise operator &", "^": "the bitwise operator ^",
	"<<": "the bitwise operator <<", ">>": "the bitwise operator >>", ">>>": "the bitwise operator >>>",
	"~": "the bitwise operator ~", "?": "the conditional operator ?:", "??": "the coalesce operator ??",
}

// parseOperand parses an operand, and refuses an operator after it that
// this subset does not have.
func (p *parser) parseOperand() (*expr, error) {
	e, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	t := p.tok()
	if what, ok := unsupportedOps[t.text]; ok && t.kind == tPunct {
		return nil, p.unsupported(t.off, what)
	}
	if t.is(".") || t.is("[") {
		return nil, p.unsupported(t.off, "a property or an index of anything but a path from the alias")
	}
	return e, nil
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
		case "-", "+":
			if n := p.peek(1); n.kind == tNumber {
				p.advance()
				p.advance()
				if t.text == "-" {
					return numberLit(t.off, -n.num), nil
				}
				return numberLit(t.off, n.num), nil
			}
			return nil, p.unsupported(t.off, "the unary operator "+t.text)
		case "~":
			return nil, p.unsupported(t.off, "the unary operator "+t.text)
		case "{":
			return nil, p.unsupported(t.off, "an object literal")
		case "(":
			if p.peek(1).isKeyword("SELECT") {
				return nil, p.unsupported(t.off, "a subquery")
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
	case upper == "EXISTS":
		return nil, p.unsupported(t.off, "EXISTS")
	case upper == "ARRAY" && p.peek(1).is("("):
		return nil, p.unsupported(t.off, "ARRAY(subquery)")
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
	case name == "COUNT":
		return nil, p.unsupported(t.off, "COUNT inside an expression (only SELECT VALUE COUNT(x) and SELECT COUNT(x) [AS n] are)")
	case aggregates[name]:
		return nil, p.unsupported(t.off, "the aggregate "+name)
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
	return e, nil
}

// parsePath parses name {.name | [index] | ["name"]}.
func (p *parser) parsePath() (*expr, error) {
	t := p.tok()
	p.advance()
	e := &expr{kind: xPath, off: t.off, root: t.text, path: Path{}}
	for {
		switch s := p.tok(); {
		case s.is("."):
			p.advance()
			n := p.tok()
			if n.kind != tIdent {
				return nil, p.expected("a property name after '.'")
			}
			e.path = append(e.path, Step{Name: n.text})
			p.advance()
		case s.is("["):
			p.advance()
			n := p.tok()
			switch {
			case n.kind == tString:
				e.path = append(e.path, Step{Name: n.str})
			case n.kind == tNumber && n.num == math.Trunc(n.num) && n.num <= math.MaxInt32:
				e.path = append(e.path, Step{Index: int(n.num), IsIndex: true})
			case n.kind == tNumber:
				return nil, p.fail(n.off, "an array index is an integer from 0 to %d, not %s", math.MaxInt32, n.text)
			case n.kind == tParam:
				return nil, p.unsupported(n.off, "a property name or an index given by a parameter")
			default:
				return nil, p.expected("a property name in quotes or an array index")
			}
			p.advance()
			if err := p.expect("]"); err != nil {
				return nil, err
			}
		default:
			p.paths = append(p.paths, e)
			return e, nil
		}
	}
}

// parseArray parses an array literal of literals, parameters and array
// literals.
func (p *parser) parseArray() (*expr, error) {
	t := p.tok()
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.advance()
	e := &expr{kind: xArray, off: t.off}
	if !p.tok().is("]") {
		var err error
		e.args, err = p.parseList(nil, func(x *expr) error {
			if !x.isConst() {
				return p.unsupported(x.off, "an array literal of anything but literals and parameters")
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	p.leave()
	e.idx = p.q.arrays
	p.q.arrays++
	return e, nil
}
