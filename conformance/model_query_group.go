package conformance

// GROUP BY in the model's queries (R13): a path's groups, each a result,
// in three forms of SELECT:
//
//	SELECT VALUE COUNT(1) FROM c [WHERE ...] GROUP BY p     each group's count
//	SELECT p AS k, COUNT(1) AS n FROM c ... GROUP BY p      {"k": value, "n": count}; no k for undefined
//	SELECT VALUE p FROM c ... GROUP BY p                    each group's value; none for undefined
//
// The rows WHERE keeps go to the group of their value at p, equal values
// (as = compares them: numbers as doubles, strings by their bytes)
// together, and undefined a group of its own (the documents without p).
// The order of the groups is ttldb's, which the model does not predict: the
// results are compared as a set. A group whose value is an array or an
// object is not predicted (the spec does not say when two are one group),
// nor is one of an odd value.

import "strconv"

// Forms of a GROUP BY query.
const (
	groupCount  = iota // SELECT VALUE COUNT(1)
	groupObject        // SELECT p AS k, COUNT(1) AS n
	groupValue         // SELECT VALUE p
)

// groupSelect draws a GROUP BY query's path and form, and returns its
// SELECT clause's text after SELECT, and its GROUP BY clause.
func (g *sqlGen) groupSelect() (sel, group string) {
	q := g.q
	q.group = g.path(true) // an index on it may feed the groups
	q.groupForm = g.h.r.IntN(3)
	ps := g.pathSQL(q.group) // written once: GROUP BY's and SELECT's must be the same expression
	switch q.groupForm {
	case groupCount:
		sel = "VALUE COUNT(1)"
	case groupObject:
		sel = ps + " AS k, COUNT(1) AS n"
	default:
		sel = "VALUE " + ps
	}
	return sel, " GROUP BY " + ps
}

// answerGroups is the model's results of a GROUP BY query whose WHERE kept
// the documents docs, and amb when they are not predicted.
func answerGroups(q *mSQL, docs []jv) ([]jv, bool) {
	type grp struct {
		v jv
		n int
	}
	var groups []grp
	for _, d := range docs {
		v, amb := d.at(q.group)
		if amb || v.odd || v.kind == jArr || v.kind == jObj {
			return nil, true
		}
		i := 0
		for i < len(groups) && !(groups[i].v.kind == v.kind && same(groups[i].v, v)) {
			i++
		}
		if i == len(groups) {
			groups = append(groups, grp{v: v})
		}
		groups[i].n++
	}
	var want []jv
	for _, gr := range groups {
		n := jv{kind: jNum, n: float64(gr.n), raw: strconv.Itoa(gr.n)}
		switch {
		case q.groupForm == groupCount:
			want = append(want, n)
		case q.groupForm == groupObject && gr.v.kind == jUndef:
			want = append(want, jv{kind: jObj, obj: []jMember{{"n", n}}, raw: `{"n":` + n.raw + `}`})
		case q.groupForm == groupObject:
			want = append(want, jv{kind: jObj, obj: []jMember{{"k", gr.v}, {"n", n}}, raw: `{"k":` + gr.v.raw + `,"n":` + n.raw + `}`})
		case gr.v.kind != jUndef: // VALUE of undefined is no result
			want = append(want, gr.v)
		}
	}
	return want, false
}
