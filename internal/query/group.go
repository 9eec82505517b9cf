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

// sameExpr reports whether a and b are the same expression, as written
// (parentheses aside).
func sameExpr(a, b *expr) bool {
	if a.kind != b.kind || a.op != b.op || a.not != b.not || a.fn != b.fn || a.uop != b.uop ||
		a.root != b.root || a.lit.raw != b.lit.raw || a.lit.Kind != b.lit.Kind ||
		!slices.Equal(a.path, b.path) || !slices.Equal(a.ops, b.ops) || !slices.Equal(a.names, b.names) ||
		len(a.args) != len(b.args) || a.kind == xParam && a.idx != b.idx || a.sub != b.sub {
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

// group is a group's values of GROUP BY's expressions (copies), and its
// aggregates' states.
type group struct {
	keys []val
	aggs Aggregation
}

// AddToGroup adds r, a row that matches, to its group in g: the one of its
// values of GROUP BY's expressions. Its cost is that of evaluating them and
// the aggregates' arguments; a new group allocates. A subquery beyond a
// limit sets r.Err (Each returns it).
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
		gr = &group{keys: make([]val, len(b.q.group))}
		for i, e := range b.q.group {
			if v := b.eval(e, &r); v.Kind != Undefined {
				raw := string(appendVal(nil, v, &r))
				x, _ := FromJSON(raw)
				gr.keys[i] = val{Value: x, raw: raw}
			}
		}
		g.m[string(g.key)] = gr
	}
	b.accumulateAll(b.q, &gr.aggs, &r)
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

// AppendGroup appends the result of g's group of key: the SELECT clause
// with GROUP BY's expressions and the aggregates the group's values; for
// SELECT VALUE false when undefined, else an object without the undefined
// members.
func (b *Bound) AppendGroup(dst []byte, g *Groups, key string) ([]byte, bool) {
	gr := g.m[key]
	if gr == nil {
		return dst, false
	}
	return b.AppendResult(dst, Row{agg: &aggRow{keys: gr.keys, aggs: aggValues(b.q, &gr.aggs)}})
}
