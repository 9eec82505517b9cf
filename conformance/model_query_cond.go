package conformance

// The WHERE conditions of the model's queries (R13), drawn at random.

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// cond draws a WHERE condition: comparisons of a path with parameters,
// type tests, and NOT, AND, OR of them. Under NOT (scalar), only those the
// spec leaves in no doubt: no STARTSWITH, no arrays or objects compared
// (whether = of arrays of unlike elements is false or undefined, it does
// not say), BETWEEN bounds in order.
func (g *sqlGen) cond(depth int, scalar bool) (*mCond, string) {
	r := g.h.r
	switch n := r.IntN(20); {
	case n < 4 && depth == 0:
		a, as := g.cond(1, scalar)
		b, bs := g.cond(1, scalar)
		op := []string{"and", "and", "and", "or"}[n]
		return &mCond{op: op, subs: []*mCond{a, b}}, "(" + as + ") " + strings.ToUpper(op) + " (" + bs + ")"
	case n < 6 && !scalar:
		a, as := g.cond(1, true)
		return &mCond{op: "not", subs: []*mCond{a}}, "NOT (" + as + ")"
	case n == 6 && g.exists == nil:
		if c, s, ok := g.existsCond(scalar); ok {
			return c, s
		}
	}
	var p []qStep
	var ps string
	g.inElem = g.exists != nil || g.q.join != nil && r.IntN(2) == 0
	if g.inElem { // a path of the JOIN's element, or of the EXISTS subquery's
		p = pick(r, g.epaths)
		ps = g.condSQL(g.elemRoot(), p)
	} else {
		p = g.path(true)
		ps = g.condSQL("c", p)
	}
	c := &mCond{op: "=", path: p, elem: g.inElem}
	values := anyKind
	if scalar {
		values = scalarKind
	}
	switch n := r.IntN(100); {
	case n < 35:
		if c.vals = []jv{g.value(p, values)}; r.IntN(6) == 0 {
			return c, g.param(c.vals[0], true) + " = " + ps
		}
	case n < 43:
		c.op, c.vals = "!=", []jv{g.value(p, scalarKind)}
	case n < 63:
		c.op, c.vals = pick(r, []string{"<", "<=", ">", ">="}), []jv{g.value(p, orderedKind)}
	case n < 71:
		lo := g.value(p, orderedKind)
		hi := g.value(p, func(v jv) bool { return v.kind == lo.kind })
		if orderCmp(lo, hi) > 0 && (scalar || r.IntN(3) > 0) {
			lo, hi = hi, lo
		}
		c.op, c.vals = "between", []jv{lo, hi}
		return c, fmt.Sprintf("%s BETWEEN %s AND %s", ps, g.param(lo, true), g.param(hi, true))
	case n < 81:
		c.op = "in"
		var ns []string
		for range 1 + r.IntN(3) {
			c.vals = append(c.vals, g.value(p, values))
			ns = append(ns, g.param(c.vals[len(c.vals)-1], true))
		}
		return c, ps + " IN (" + strings.Join(ns, ", ") + ")"
	case n < 88:
		c.op = "defined"
		return c, "IS_DEFINED(" + ps + ")"
	case n < 90 || scalar:
		c.op = "null"
		return c, "IS_NULL(" + ps + ")"
	case n < 97:
		c.op = "like"
		pat := likePattern(r, g.value(p, func(v jv) bool { return v.kind == jStr }).s)
		c.vals = []jv{{kind: jStr, s: pat, raw: jsonString(pat)}}
		if r.IntN(3) == 0 && utf8.ValidString(pat) { // JSON's quoting, which Cosmos SQL reads (Go's \x00 it does not)
			return c, ps + " LIKE " + jsonString(pat) // a literal: served by the index when it has a prefix
		}
		return c, ps + " LIKE " + g.param(c.vals[0], false)
	default:
		c.op = "starts"
		v := g.value(p, func(v jv) bool { return v.kind == jStr })
		if cut := v.s[:r.IntN(len(v.s)+1)]; utf8.ValidString(cut) && r.IntN(2) == 0 {
			v.s, v.raw = cut, jsonString(cut) // a prefix
		}
		c.vals = []jv{v}
		return c, "STARTSWITH(" + ps + ", " + g.param(v, true) + ")"
	}
	return c, ps + " " + c.op + " " + g.param(c.vals[0], true)
}

// likePattern draws a LIKE pattern that s often matches: s with some
// characters made _, runs of them %, and wildcards of s's own made _;
// sometimes with a q put in, which s may not have there.
func likePattern(r interface{ IntN(int) int }, s string) string {
	var b strings.Builder
	q := -1
	if r.IntN(4) == 0 {
		q = r.IntN(len(s) + 1)
	}
	for i, c := range s {
		if i == q {
			b.WriteByte('q')
		}
		switch n := r.IntN(8); {
		case c == '%' || c == '_' || c == '[' || n == 0:
			b.WriteByte('_')
		case n == 1:
			if !strings.HasSuffix(b.String(), "%") {
				b.WriteByte('%')
			}
		default:
			b.WriteRune(c)
		}
	}
	if r.IntN(3) == 0 {
		b.WriteByte('%')
	}
	return b.String()
}
