package query

// parseFromPath parses the steps of FROM name {step}, a subroot: each
// document's value at that path is a row, and a document without one gives
// none. The alias, unless AS names one, is the last member name.
func (p *parser) parseFromPath() error {
	path, err := p.parseSourceSteps(Path{})
	if err != nil {
		return err
	}
	p.q.from = path
	p.alias = ""
	if last := path[len(path)-1]; !last.IsIndex {
		p.alias = last.Name
	}
	return nil
}

// applyFrom makes the paths of a query FROM a subroot paths from the
// document's root, and keeps only the documents that hold it: WHERE
// IS_DEFINED(root.path) AND (the WHERE clause). It runs once the items
// are named (SELECT e FROM c.a e names its member e).
func (p *parser) applyFrom() error {
	q := p.q
	if q.from == nil {
		return nil
	}
	prefix := func(path Path) Path { return append(append(Path{}, q.from...), path...) }
	for _, e := range p.paths {
		if e.bind == 0 {
			e.path = prefix(e.path)
		}
	}
	for _, j := range q.joins {
		if j.src.bind == 0 && j.src.sub == nil {
			j.src.path = prefix(j.src.path)
		}
	}
	for i := range q.order {
		if q.order[i].e == nil { // a VECTORDISTANCE's paths are among p.paths
			q.order[i].Path = prefix(q.order[i].Path)
		}
	}
	defined := &expr{kind: xCall, fn: fIsDefined, args: []*expr{{kind: xPath, root: p.alias, path: q.from}}}
	if q.where == nil {
		q.where = defined
	} else {
		q.where = &expr{kind: xAnd, off: q.where.off, args: []*expr{defined, q.where}}
	}
	return nil
}
