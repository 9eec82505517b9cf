package query

// MinMax reports whether the query is an aggregate whose one aggregate is
// MIN or MAX of a path of the document (SELECT VALUE MIN(c.a.b), or MAX,
// maybe within an expression or an object), with neither a join nor a
// FROM path, and no GROUP BY: one an index on the path can answer by
// reading from its low end (MIN) or its high end (MAX, max true), as
// ORDER BY sorts values, and stopping at the first row the WHERE clause
// keeps whose value at the path is defined. (MIN must also learn whether
// any row holds an array or an object there, which make it undefined:
// those sort last, so a read from the high end finds the first.) It costs
// O(1).
func (b *Bound) MinMax() (p Path, max, ok bool) {
	q := b.q
	if len(q.aggs) != 1 || len(q.group) > 0 || len(q.joins) > 0 || len(q.from) > 0 || q.iter || q.noFrom {
		return nil, false, false
	}
	e := q.aggs[0]
	if (e.agg != aggMin && e.agg != aggMax) || len(e.args) != 1 || !e.args[0].isPath() {
		return nil, false, false
	}
	return e.args[0].path, e.agg == aggMax, true
}

// GroupPath reports whether the query groups by one path of the document
// (GROUP BY c.a.b), with neither a join nor a FROM path: one an index on
// the path can feed in its order, a group's rows together (those of one
// value; arrays and objects, one key for their kind in an index, come
// together too, and are grouped among themselves by their text), so that
// a page reads only the groups it gives, from where the last page ended.
// It costs O(1).
func (b *Bound) GroupPath() (Path, bool) {
	q := b.q
	if len(q.group) != 1 || len(q.joins) > 0 || len(q.from) > 0 || q.iter || q.noFrom || !q.group[0].isPath() {
		return nil, false
	}
	return q.group[0].path, true
}
