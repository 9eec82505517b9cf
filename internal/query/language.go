package query

import (
	"maps"
	"slices"
)

// What the language has, for its documentation: the README's Queries
// section and the package documentation of ttldb list exactly these, which
// a test of ttldb checks, so that the lists cannot drift from the parser.

// Functions returns the names of the functions the language has, sorted:
// the system functions, and COUNT, the one aggregate. It allocates the
// slice.
func Functions() []string { return slices.Sorted(maps.Keys(funcs)) }

// Aggregates returns the names of the aggregates, sorted: COUNT, SUM,
// AVG, MIN and MAX, in any expression of the SELECT clause (SELECT VALUE
// SUM(c.n) / COUNT(1), SELECT MAX(c.n) AS m).
func Aggregates() []string { return slices.Sorted(maps.Keys(aggNames)) }

// Operators returns the operators, sorted: comparison, arithmetic,
// bitwise, string, "?:" and "??". The logical ones (AND, OR, NOT) and IN
// and BETWEEN are keywords.
func Operators() []string {
	ops := []string{"~", "?:", "??"}
	for op := range cmpOps {
		ops = append(ops, op)
	}
	for op := range binOps {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	return ops
}

// Keywords returns the keywords of the language, sorted: its clauses (ORDER
// BY as ORDER and BY), logical operators, IN, BETWEEN and literals, but not
// the keywords of Cosmos SQL it refuses as not supported (JOIN, GROUP...).
func Keywords() []string {
	var out []string
	for kw, supported := range keywords {
		if supported {
			out = append(out, kw)
		}
	}
	slices.Sort(out)
	return out
}

// RefusedKeywords returns the keywords of Cosmos SQL the language reserves
// and refuses as not supported, sorted.
func RefusedKeywords() []string {
	var out []string
	for kw, supported := range keywords {
		if !supported {
			out = append(out, kw)
		}
	}
	slices.Sort(out)
	return out
}
