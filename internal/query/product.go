package query

// Joined reports whether the query's FROM clause joins (JOIN, or FROM x IN
// c.path): each document gives the rows of its product, which [Bound.Each]
// enumerates, rather than one.
func (b *Bound) Joined() bool { return len(b.q.joins) > 0 }

// Distinct reports whether the query is SELECT DISTINCT: of equal results
// (as = compares JSON values), only the first is one.
func (b *Bound) Distinct() bool { return b.q.distinct }

// Each calls fn, until it returns false, with each row of r's product that
// the WHERE clause keeps, in order: the first join's elements, and for
// each the next join's, and so on. r is a document Match kept. Without
// joins, the row is r. A row is valid until fn returns.
//
// Errors: the product, with the rows of the subqueries evaluated for r
// and its rows, goes beyond MaxJoinRows, or a subquery's result beyond
// MaxSubqueryBytes (the rows already given stand; r.Err says the same).
// It takes the product's size, times the WHERE clause's cost.
func (b *Bound) Each(r Row, fn func(x Row) bool) error {
	q := b.q
	r.spendable()
	if len(q.joins) == 0 {
		fn(r)
		return r.Err()
	}
	r.binds = make([]string, len(q.joins))
	var walk func(k int) bool
	walk = func(k int) bool {
		if k == len(q.joins) {
			if q.rowWhere != nil {
				v := b.eval(q.rowWhere, &r)
				if r.failed() {
					return false
				}
				if v.Kind != Bool || !v.Bool {
					return true
				}
			}
			return fn(r) && !r.failed()
		}
		j := q.joins[k]
		src := b.eval(j.src, &r)
		if src.Kind == Undefined || j.each && src.Kind != Array {
			return true
		}
		text := src.raw
		if text == "" || src.root {
			text = string(appendVal(nil, src, &r))
		}
		if !j.each {
			if !r.spend() {
				return false
			}
			r.binds[k] = text
			return walk(k + 1)
		}
		more := true
		eachSource(j, text, func(elem string) bool {
			if !r.spend() {
				more = false
				return false
			}
			r.binds[k] = elem
			more = walk(k + 1)
			return more
		})
		return more
	}
	walk(0)
	return r.Err()
}

// bindVal returns the value at p in the element of r's k-th join.
func bindVal(r *Row, k int, p Path) val {
	if k > len(r.binds) {
		return undef
	}
	raw, ok := lookupIn(r.binds[k-1], p)
	if !ok {
		return undef
	}
	v, ok := FromJSON(raw)
	if !ok {
		return undef
	}
	return val{Value: v, raw: raw}
}
