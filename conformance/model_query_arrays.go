package conformance

// The model's queries over arrays (R13): the alias of an array's element a
// condition reads (a JOIN's t, an EXISTS subquery's u), EXISTS conditions,
// and the paths that hold arrays, which JOIN and EXISTS iterate.

// elemRoot is the alias of the element a condition's path starts from: the
// JOIN's t, or the EXISTS subquery's u.
func (g *sqlGen) elemRoot() string {
	if g.exists != nil {
		return "u"
	}
	return "t"
}

// existsCond draws EXISTS(SELECT VALUE u FROM u IN c.path WHERE cond), cond
// on u alone (R13): true when an element of the array makes cond true, else
// false (no array, or none: false).
func (g *sqlGen) existsCond(scalar bool) (*mCond, string, bool) {
	arrs := arrayPaths(g.docs)
	if len(arrs) == 0 {
		return nil, "", false
	}
	p := pick(g.h.r, arrs)
	elems, epaths := g.elems, g.epaths
	g.elems, g.epaths = nil, nil
	for _, d := range g.docs {
		if a, _ := d.at(p); a.kind == jArr {
			g.elems = append(g.elems, a.arr...)
		}
	}
	g.epaths = append([][]qStep{{}}, docPaths(g.elems)...)
	g.exists = &p
	sub, s := g.cond(1, scalar)
	g.elems, g.epaths, g.exists = elems, epaths, nil
	return &mCond{op: "exists", path: p, subs: []*mCond{sub}}, "EXISTS(SELECT VALUE u FROM u IN " + g.pathSQL(p) + " WHERE " + s + ")", true
}

// arrayPaths are the paths of the documents' members, and of the members
// of their objects, that hold an array in some document, sorted.
func arrayPaths(docs []jv) [][]qStep {
	var out [][]qStep
	for _, p := range docPaths(docs) {
		if p[len(p)-1].isIdx {
			continue
		}
		for _, d := range docs {
			if v, _ := d.at(p); v.kind == jArr {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
