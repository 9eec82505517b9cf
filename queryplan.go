package ttldb

import (
	"bytes"

	"github.com/ttldb/ttldb/internal/query"
)

// A query's plan: which index it reads, if any, and how. startQuery asks
// for the candidates before it takes the snapshot (the snapshot holds the
// indexes it names), then chooses among those the snapshot has.

// access is an index a query may read: ranges of it (nil: all of it).
type access struct {
	path   string // the index's path; empty: none
	ranges []query.Range
	point  bool // the ranges hold one value at most: the WHERE clause has an equality
	exact  bool // the WHERE clause is that equality, and no more (query.Bound.Exact)
}

// candidates returns the best index of those on the paths indexes for the
// WHERE clause, preferring an equality, and the index on the ORDER BY
// path, if any.
func (r *queryRun) candidates(indexes []string) (filt, ord access) {
	for _, p := range r.b.Paths() {
		ptr, ok := indexOn(indexes, p)
		if !ok {
			continue
		}
		rs, ok := r.b.Ranges(p)
		if !ok {
			continue
		}
		a := access{path: ptr, ranges: rs, point: len(rs) == 0 || len(rs) == 1 && query.IsKey(rs[0].From) && isPrefixEnd(rs[0].To, rs[0].From)}
		a.exact = a.point && len(rs) == 1 && r.b.Exact(p)
		if filt.path == "" || a.point && !filt.point {
			filt = a
		}
	}
	if order := r.b.OrderBy(); len(order) == 1 && len(order[0].Path) > 0 && !r.b.Aggregate() {
		if ptr, ok := indexOn(indexes, order[0].Path); ok {
			ord.path = ptr
			ord.ranges, _ = r.b.Ranges(order[0].Path)
		}
	}
	return filt, ord
}

// indexOn returns the path of the index on p among indexes, if any.
func indexOn(indexes []string, p query.Path) (string, bool) {
	for _, ptr := range indexes {
		if p.IsPointer(ptr) {
			return ptr, true
		}
	}
	return "", false
}

// isPrefixEnd reports whether end is query.PrefixEnd(p), the first key
// after every key that starts with p, without making it.
func isPrefixEnd(end, p []byte) bool {
	i := len(p) - 1
	for i >= 0 && p[i] == 0xFF {
		i--
	}
	if i < 0 {
		return len(end) == 0
	}
	return len(end) == i+1 && end[i] == p[i]+1 && bytes.Equal(end[:i], p[:i])
}

// pointCap is how many candidates an equality may give and still be read
// rather than the index on the ORDER BY path, which stops at the last
// result.
const pointCap = 1024

// choose picks the index to read, if any, from the candidates the
// snapshot holds.
func (r *queryRun) choose(filt, ord access) {
	useOrd := ord.path != "" && (filt.path == "" || filt.path == ord.path ||
		!filt.point || r.s.Count(r.ctx, filt.path, filt.ranges, pointCap) == pointCap)
	switch {
	case useOrd && filt.path == ord.path:
		r.index, r.ranges, r.ordered, r.exact = filt.path, filt.ranges, true, filt.exact
	case useOrd:
		r.index, r.ranges, r.ordered = ord.path, ord.ranges, true
	case filt.path != "":
		r.index, r.ranges, r.point, r.exact = filt.path, filt.ranges, filt.point, filt.exact
	}
	if r.ranges == nil && r.index != "" {
		r.ranges = []query.Range{{}}
	}
	r.plan.Index, r.plan.Ordered = r.index, r.ordered
}

// minMaxIndex returns the path of the index among indexes that can answer
// the query's MIN or MAX (query.Bound.MinMax) and that the query should
// read, if any: not when the query reads one partition (its documents, a
// prefix of the keys, may be few where the index's ends hold the others),
// nor when filt, the index choose takes for the WHERE clause, is on
// another path (its ranges may hold few documents): a read that cannot
// tell which is cheaper keeps the plan whose cost the query bounds. The
// snapshot is opened without the key order when an index it asks for is
// read, so what this returns must be read (chooseMinMax).
func (r *queryRun) minMaxIndex(indexes []string, filt access) string {
	p, _, ok := r.b.MinMax()
	if !ok || r.prefix != "" {
		return ""
	}
	if ptr, ok := indexOn(indexes, p); ok && (filt.path == "" || filt.path == ptr) {
		return ptr
	}
	return ""
}

// chooseMinMax makes the query read the index on mm (from minMaxIndex;
// empty: none), within filt's ranges when filt is on mm.
func (r *queryRun) chooseMinMax(mm string, filt access) {
	if mm == "" {
		return
	}
	r.index, r.ranges, r.point, r.ordered, r.exact = mm, []query.Range{{}}, false, false, false
	if filt.path == mm && filt.ranges != nil {
		r.ranges, r.exact = filt.ranges, filt.exact // the same ranges: what they hold is as exact
	}
	r.minMax = true
	r.plan.Index, r.plan.Ordered = mm, false
}

// groupIndex returns the path of the index among indexes that can feed the
// query's groups (query.Bound.GroupPath) and that the query should read,
// if any: not with SELECT DISTINCT, whose pages remember the results of
// the groups before, and not in one partition or over an index filt on
// another path (see minMaxIndex).
func (r *queryRun) groupIndex(indexes []string, filt access) string {
	p, ok := r.b.GroupPath()
	if !ok || r.b.Distinct() || r.prefix != "" {
		return ""
	}
	if ptr, ok := indexOn(indexes, p); ok && (filt.path == "" || filt.path == ptr) {
		return ptr
	}
	return ""
}

// chooseGroup makes the query read the index on gp (from groupIndex;
// empty: none), within filt's ranges when filt is on gp (groupedByIndex
// starts them where the groups resume).
func (r *queryRun) chooseGroup(gp string, filt access) {
	if gp == "" {
		return
	}
	r.index, r.ranges, r.point, r.ordered = gp, nil, false, true
	if filt.path == gp {
		r.ranges = filt.ranges // sorted and disjoint; nil: the whole index
	}
	r.exact = false // it reads from where the groups resume, not an equality's range: every row is checked
	r.groupIdx = true
	r.plan.Index, r.plan.Ordered = gp, false // not ORDER BY's: no ORDER BY goes with GROUP BY
}
