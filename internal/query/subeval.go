package query

// evalSub returns the value of a subquery expression for r, correlated
// with it: EXISTS is true when the subquery gives a result; ARRAY is an
// array of its results; a scalar subquery is its first result, undefined
// without one. The subquery's rows are r's with each of its FROM clause's
// sources in turn, as a JOIN's, each counted against the MaxJoinRows rows
// r's document may make (its product's and every subquery's, at any
// depth); beyond them, or with more than MaxSubqueryBytes of results, it
// records the error on r's budget (Row.Err) and its value is undefined,
// which the caller reports. It takes the product's size, times the WHERE
// clause's and the projection's cost.
func (b *Bound) evalSub(e *expr, r *Row) val {
	q := e.sub
	top := -1
	if q.top.set {
		top = q.top.n
		if q.top.param >= 0 {
			v := b.params[q.top.param]
			if v.Kind != Number || v.Num < 0 || v.Num != float64(int(v.Num)) {
				return undef
			}
			top = int(v.Num)
		}
	}
	r.spendable()
	x := *r // shares r's budget
	x.binds = make([]string, q.base+len(q.joins))
	copy(x.binds, r.binds)
	agg := len(q.aggs) > 0 // aggregates in its SELECT clause: one result of all its rows
	var (
		a       Aggregation
		results int
		out     []byte // ARRAY: the results so far; a scalar: the first
		seen    map[string]bool
		dk      []byte
	)
	leaf := func() bool {
		if q.where != nil {
			v := b.eval(q.where, &x)
			if x.failed() {
				return false
			}
			if v.Kind != Bool || !v.Bool {
				return true
			}
		}
		if agg {
			b.accumulateAll(q, &a, &x)
			return !x.failed()
		}
		res, ok := b.project(q, nil, &x)
		if x.failed() {
			return false
		}
		if !ok {
			return true
		}
		if q.distinct {
			if dk = AppendDistinctKey(dk[:0], res); seen[string(dk)] {
				return true
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[string(dk)] = true
		}
		results++
		switch e.kind {
		case xExists:
			return false
		case xScalarSub:
			out = res
			return false
		}
		if len(out)+1+len(res) > MaxSubqueryBytes {
			x.tooLarge(len(out) + 1 + len(res))
			return false
		}
		if results > 1 {
			out = append(out, ',')
		}
		out = append(out, res...)
		return top < 0 || results < top
	}
	var walk func(k int) bool
	walk = func(k int) bool {
		if k == len(q.joins) {
			return leaf()
		}
		j := q.joins[k]
		src := b.eval(j.src, &x)
		if src.Kind == Undefined || j.each && src.Kind != Array {
			return true
		}
		text := src.raw
		if text == "" || src.root {
			text = string(appendVal(nil, src, &x))
		}
		if !j.each {
			if !x.spend() {
				return false
			}
			x.binds[q.base+k] = text
			return walk(k + 1)
		}
		more := true
		eachSource(j, text, func(elem string) bool {
			if !x.spend() {
				more = false
				return false
			}
			x.binds[q.base+k] = elem
			more = walk(k + 1)
			return more
		})
		return more
	}
	if top != 0 {
		walk(0)
	}
	if x.failed() {
		return undef
	}
	if agg && top != 0 {
		if res, ok := b.project(q, nil, &Row{agg: &aggRow{aggs: aggValues(q, &a)}}); ok {
			results, out = 1, res
		}
	}
	switch e.kind {
	case xExists:
		return boolVal(results > 0)
	case xArraySub:
		return valOf(string(append(append([]byte{'['}, out...), ']')))
	}
	if results == 0 {
		return undef
	}
	return valOf(string(out))
}

// valOf returns the value of the JSON text raw; undefined for a string
// that is no Unicode text.
func valOf(raw string) val {
	v, ok := FromJSON(raw)
	if !ok {
		return undef
	}
	return val{Value: v, raw: raw}
}
