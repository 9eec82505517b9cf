package query

// parseCond parses coalesce ["?" expr ":" coalesce].
func (p *parser) parseCond() (*expr, error) {
	c, err := p.parseCoalesce()
	if err != nil || !p.tok().is("?") {
		return c, err
	}
	q := p.tok()
	if c.kind == xCoalesce && !c.paren {
		return nil, p.fail(q.off, "?? before ?: is ambiguous (Cosmos DB reads a ?? b ? c : d as a ?? (b ? c : d)): put one in parentheses")
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.advance()
	then, err := p.parseCond()
	if err != nil {
		return nil, err
	}
	if !p.tok().is(":") {
		return nil, p.expected(`":" of ?:`)
	}
	p.advance()
	els, err := p.parseCoalesce()
	if err != nil {
		return nil, err
	}
	p.leave()
	switch t := p.tok(); {
	case els.kind == xCoalesce && !els.paren:
		return nil, p.fail(els.off, "?? after ?: is ambiguous (Cosmos DB reads a ? b : c ?? d as (a ? b : c) ?? d): put one in parentheses")
	case t.is("?"):
		return nil, p.fail(t.off, "?: does not chain without parentheses (Cosmos DB reads a ? b : c ? d : e as (a ? b : c) ? d : e): write a ? b : (c ? d : e)")
	}
	return &expr{kind: xCond, off: c.off, args: []*expr{c, then, els}}, nil
}

// parseCoalesce parses or {"??" or} into one node with every operand.
func (p *parser) parseCoalesce() (*expr, error) {
	first, err := p.parseLogic(xOr)
	if err != nil || !p.tok().is("??") {
		return first, err
	}
	e := &expr{kind: xCoalesce, off: first.off, args: []*expr{first}}
	for p.tok().is("??") {
		p.advance()
		x, err := p.parseLogic(xOr)
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, x)
	}
	return e, nil
}

// parseBinary parses operands joined by the binary operators of level,
// each operand of the next tighter level, into one node (so that long
// chains nest no deeper).
func (p *parser) parseBinary(level int) (*expr, error) {
	sub := func() (*expr, error) {
		switch level {
		case levelMul:
			return p.parseUnary()
		case levelBitAnd:
			return p.parseCmp()
		}
		return p.parseBinary(level - 1)
	}
	first, err := sub()
	if err != nil {
		return nil, err
	}
	e := &expr{kind: xBinary, off: first.off, args: []*expr{first}}
	for {
		t := p.tok()
		b, ok := binOps[t.text]
		if t.kind != tPunct || !ok || b.level != level {
			break
		}
		if level >= levelBitAnd && e.args[len(e.args)-1].isComparison() {
			return nil, p.fail(t.off, "a comparison before %s is ambiguous (Cosmos DB reads a = b %s c as (a = b) %s c): put one in parentheses", t.text, t.text, t.text)
		}
		p.advance()
		x, err := sub()
		if err != nil {
			return nil, err
		}
		if level >= levelBitAnd && x.isComparison() {
			return nil, p.fail(x.off, "a comparison after %s is ambiguous (Cosmos DB reads a %s b = c as a %s (b = c)): put one in parentheses", t.text, t.text, t.text)
		}
		e.args = append(e.args, x)
		e.ops = append(e.ops, b.op)
	}
	if len(e.args) == 1 {
		return first, nil
	}
	return e, nil
}

// parseUnary parses ("-" | "+" | "~") unary | primary {step}: a property
// or an index of any primary expression (as {"a": 1}.a) is a member
// access.
func (p *parser) parseUnary() (*expr, error) {
	t := p.tok()
	if t.is("-") || t.is("+") || t.is("~") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		p.advance()
		x, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		p.leave()
		if t.text != "~" && x.kind == xLit && x.lit.Kind == Number {
			if t.text == "-" {
				return numberLit(t.off, -x.lit.Num), nil
			}
			return numberLit(t.off, x.lit.Num), nil
		}
		return &expr{kind: xUnary, off: t.off, uop: t.text[0], args: []*expr{x}}, nil
	}
	e, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	return p.parsePostfix(e)
}

// parseArray parses an array literal: "[" [expr {"," expr}] "]".
func (p *parser) parseArray() (*expr, error) {
	t := p.tok()
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.advance()
	e := &expr{kind: xArray, off: t.off}
	if !p.tok().is("]") {
		var err error
		if e.args, err = p.parseList(nil, nil); err != nil {
			return nil, err
		}
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	p.leave()
	p.number(e)
	return e, nil
}

// parseObject parses an object literal: "{" [member {"," member}] "}",
// each member name ":" expr, its name an identifier or a string.
func (p *parser) parseObject() (*expr, error) {
	t := p.tok()
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.advance()
	e := &expr{kind: xObject, off: t.off}
	seen := map[string]bool{}
	for !p.tok().is("}") {
		if len(e.args) > 0 {
			if err := p.expect(","); err != nil {
				return nil, p.expected(`"," or "}" in an object literal`)
			}
		}
		n := p.tok()
		var name string
		switch {
		case n.kind == tString:
			name = n.str
		case n.kind == tIdent && !n.isReserved():
			name = n.text
		case n.kind == tIdent:
			return nil, p.fail(n.off, "%s is a keyword: write the member name in quotes, as \"%s\"", n.text, n.text)
		default:
			return nil, p.expected("a member name (a name or a string) in an object literal")
		}
		if seen[name] {
			return nil, p.fail(n.off, "the object literal names the member %q twice", name)
		}
		seen[name] = true
		p.advance()
		if !p.tok().is(":") {
			return nil, p.expected(`":" after the member name ` + describe(n))
		}
		p.advance()
		x, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		e.names = append(e.names, name)
		e.args = append(e.args, x)
	}
	p.advance()
	p.leave()
	p.number(e)
	return e, nil
}

// number numbers e, an array or object literal, among the constant ones
// when each of its elements is constant, whose value Bind works out once;
// otherwise its idx is -1.
func (p *parser) number(e *expr) {
	e.idx = -1
	for _, a := range e.args {
		if !a.isConst() {
			return
		}
	}
	e.idx = p.root.arrays
	p.root.arrays++
}
