package query

import "slices"

// parseGroupBy parses GROUP BY expr {"," expr}.
func (p *parser) parseGroupBy() error {
	p.advance()
	if !p.tok().isKeyword("BY") {
		return p.expected("BY after GROUP")
	}
	p.advance()
	var err error
	p.q.group, err = p.parseList(nil, nil)
	return err
}

// checkAggregates checks the aggregates among the SELECT clause's items:
// without GROUP BY an aggregate is the whole clause; with it, each item is
// an aggregate or one of GROUP BY's expressions.
func (p *parser) checkAggregates() error {
	q := p.q
	if len(q.group) == 0 {
		if q.sel != selItems {
			return nil
		}
		for _, it := range q.items {
			switch {
			case !it.aggr:
			case len(q.items) > 1:
				return p.unsupported(it.off, aggNameOf[it.agg]+" combined with other items without GROUP BY")
			default:
				q.sel, q.agg = selAggItem, it.agg
			}
		}
		return nil
	}
	if q.sel == selStar {
		return p.fail(q.group[0].off, "SELECT * does not go with GROUP BY: select the GROUP BY expressions and aggregates")
	}
	for _, it := range q.items {
		if !it.aggr && !slices.ContainsFunc(q.group, func(g *expr) bool { return sameExpr(g, it.e) }) {
			return p.fail(it.off, "%s is neither an expression of GROUP BY nor an aggregate", describe(token{kind: tIdent, text: it.text}))
		}
	}
	return nil
}

// sameExpr reports whether a and b are the same expression, as written
// (parentheses aside).
func sameExpr(a, b *expr) bool {
	if a.kind != b.kind || a.op != b.op || a.not != b.not || a.fn != b.fn || a.uop != b.uop ||
		a.root != b.root || a.lit.raw != b.lit.raw || a.lit.Kind != b.lit.Kind ||
		!slices.Equal(a.path, b.path) || !slices.Equal(a.ops, b.ops) || !slices.Equal(a.names, b.names) ||
		len(a.args) != len(b.args) || a.kind == xParam && a.idx != b.idx {
		return false
	}
	for i := range a.args {
		if !sameExpr(a.args[i], b.args[i]) {
			return false
		}
	}
	return true
}

// Grouped reports whether the query has GROUP BY: its rows go to groups
// (AddToGroup), and each group gives a result (AppendGroup).
func (b *Bound) Grouped() bool { return len(b.q.group) > 0 }

// Groups are the groups of a GROUP BY query, by key. The zero Groups has
// none.
type Groups struct {
	m   map[string]*group
	key []byte
}

// group is a group's values of the items that are no aggregates (copies),
// and its aggregates' states.
type group struct {
	vals []val
	aggs []Aggregation
}

// AddToGroup adds r, a row that matches, to its group in g: the one of its
// values of GROUP BY's expressions.
func (b *Bound) AddToGroup(g *Groups, r Row) {
	g.key = g.key[:0]
	for _, e := range b.q.group {
		g.key = appendGroupKey(g.key, b.eval(e, &r))
	}
	gr := g.m[string(g.key)]
	if gr == nil {
		if g.m == nil {
			g.m = map[string]*group{}
		}
		gr = &group{vals: make([]val, len(b.q.items)), aggs: make([]Aggregation, len(b.q.items))}
		for i, it := range b.q.items {
			if v := b.eval(it.e, &r); !it.aggr && v.Kind != Undefined {
				raw := string(appendVal(nil, v, &r))
				x, _ := FromJSON(raw)
				gr.vals[i] = val{Value: x, raw: raw}
			}
		}
		g.m[string(g.key)] = gr
	}
	for i, it := range b.q.items {
		if it.aggr {
			b.accumulate(it.agg, it.e, &gr.aggs[i], &r)
		}
	}
}

// appendGroupKey appends a key of v that no other value's shares: its
// AppendKey, and for an array or an object its JSON text, then 00.
func appendGroupKey(dst []byte, v val) []byte {
	dst = AppendKey(dst, v.Value)
	if v.Kind == Array || v.Kind == Object {
		dst = append(append(dst, v.Raw...), 0)
	}
	return dst
}

// Keys returns the keys of g's groups, sorted.
func (g *Groups) Keys() []string {
	keys := make([]string, 0, len(g.m))
	for k := range g.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// AppendGroup appends the result of g's group of key: for SELECT VALUE its
// value, false when undefined; else an object of its items, without the
// undefined ones.
func (b *Bound) AppendGroup(dst []byte, g *Groups, key string) ([]byte, bool) {
	gr := g.m[key]
	if gr == nil {
		return dst, false
	}
	item := func(i int) []byte {
		if b.q.items[i].aggr {
			return gr.aggs[i].result(b.q.items[i].agg)
		}
		if gr.vals[i].Kind == Undefined {
			return nil
		}
		return []byte(gr.vals[i].raw)
	}
	if b.q.sel != selItems {
		v := item(0)
		if v == nil {
			return dst, false
		}
		return append(dst, v...), true
	}
	dst = append(dst, '{')
	first := true
	for i, it := range b.q.items {
		v := item(i)
		if v == nil {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(append(appendString(dst, it.name), ':'), v...)
	}
	return append(dst, '}'), true
}
