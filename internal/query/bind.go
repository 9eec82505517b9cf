package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// Bound is a query with its parameters' values, ready to run. It is
// immutable, and safe for concurrent use.
type Bound struct {
	q      *Query
	params []val          // by index
	arrays []val          // the array literals' values, by index
	likes  []*likePattern // the constant LIKE patterns, compiled, by index
	top    int
	offset int
	limit  int
	terms  []constraint // what the WHERE clause's sargable terms say
	now    time.Time    // the instant GetCurrentDateTime and its kin read
}

// Bind checks and binds parameter values, given as valid JSON text keyed
// by name without '@'. Every parameter the query uses needs a value, and
// every value a parameter; TOP, OFFSET and LIMIT given by a parameter take
// an integer from 0 to 2147483647. It is BindAt with this machine's clock
// read once.
func (q *Query) Bind(params map[string]string) (*Bound, error) {
	return q.BindAt(params, time.Now())
}

// BindAt is Bind for a query whose "current" date and time functions
// (GetCurrentDateTime, GetCurrentTicks, GetCurrentTimestamp and their
// Static forms) read now: one instant for every row the Bound sees, which
// the caller takes from the collection's clock. Its errors and cost are
// Bind's.
func (q *Query) BindAt(params map[string]string, now time.Time) (*Bound, error) {
	b := &Bound{q: q, params: make([]val, len(q.params)), arrays: make([]val, q.arrays), likes: make([]*likePattern, q.likes), now: now}
	for i, name := range q.params {
		text, ok := params[name]
		if !ok {
			return nil, fmt.Errorf("parameter @%s has no value", name)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(text)); err != nil {
			return nil, fmt.Errorf("parameter @%s: its value %.40q is not valid JSON", name, text)
		}
		raw := buf.String()
		v, ok := FromJSON(raw)
		if !ok { // a string that is no Unicode text: undefined
			v = Value{}
		}
		b.params[i] = val{Value: v, raw: raw}
	}
	var unused []string
	for name := range params {
		if !slices.Contains(q.params, name) {
			unused = append(unused, name)
		}
	}
	if len(unused) > 0 {
		slices.Sort(unused)
		return nil, fmt.Errorf("parameter @%s is not used by the query: a typo?", unused[0])
	}
	var err error
	if b.top, err = b.count("TOP", q.top, -1); err != nil {
		return nil, err
	}
	if b.offset, err = b.count("OFFSET", q.offset, 0); err != nil {
		return nil, err
	}
	if b.limit, err = b.count("LIMIT", q.limit, -1); err != nil {
		return nil, err
	}
	for _, it := range q.items {
		b.bindArrays(it.e)
	}
	b.bindArrays(q.where)
	for _, j := range q.joins {
		b.bindArrays(j.src)
	}
	for _, e := range q.group {
		b.bindArrays(e)
	}
	for _, o := range q.order {
		b.bindArrays(o.e)
	}
	b.terms = b.sargable()
	return b, nil
}

// count returns the number of TOP, OFFSET or LIMIT, or none when the
// clause is absent.
func (b *Bound) count(clause string, s limitSpec, none int) (int, error) {
	switch {
	case !s.set:
		return none, nil
	case s.param < 0:
		return s.n, nil
	}
	v := b.params[s.param]
	if v.Kind != Number || v.Num != math.Trunc(v.Num) || v.Num < 0 || v.Num > math.MaxInt32 {
		return 0, fmt.Errorf("parameter @%s of %s is %.40s: it must be an integer from 0 to %d", b.q.params[s.param], clause, v.raw, math.MaxInt32)
	}
	return int(v.Num), nil
}

// bindArrays works out the values of the constant array and object
// literals in e, innermost first, and compiles its constant LIKE patterns.
func (b *Bound) bindArrays(e *expr) {
	if e == nil {
		return
	}
	for _, a := range e.args {
		b.bindArrays(a)
	}
	if q := e.sub; q != nil {
		for _, it := range q.items {
			b.bindArrays(it.e)
		}
		b.bindArrays(q.where)
		for _, j := range q.joins {
			b.bindArrays(j.src)
		}
	}
	if e.isConst() && (e.kind == xArray || e.kind == xObject) {
		b.arrays[e.idx] = b.compose(e, nil)
	}
	if e.kind == xLike && e.idx >= 0 {
		b.likes[e.idx] = b.compileLikeOf(e, nil)
	}
}

// constVal returns the value of e, a constant (see isConst); undefined for
// anything else.
func (b *Bound) constVal(e *expr) val {
	switch {
	case e.kind == xLit:
		return e.lit
	case e.kind == xParam:
		return b.params[e.idx]
	case e.isConst():
		return b.arrays[e.idx]
	}
	return undef
}

// Match reports whether the WHERE clause is true for r; without one, it is.
// With joins, it tests the terms of its top-level AND that name only the
// document, and [Bound.Each] the others. False, with r.Err set, when a
// subquery went beyond a limit (MaxJoinRows, MaxSubqueryBytes).
func (b *Bound) Match(r Row) bool {
	if b.q.docWhere == nil {
		return true
	}
	v := b.eval(b.q.docWhere, &r)
	return v.Kind == Bool && v.Bool
}

// Reads reports whether the query reads documents: false for a query
// without FROM, which has one row, no document, and at most one result.
func (b *Bound) Reads() bool { return !b.q.noFrom }

// Star reports whether the query is SELECT * of whole documents, whose
// results the caller renders itself; not FROM a path (FROM c.a).
func (b *Bound) Star() bool { return b.q.sel == selStar && len(b.q.from) == 0 && !b.q.iter }

// Aggregate reports whether the query is an aggregate: SELECT VALUE
// COUNT(...) or SELECT COUNT(...) [AS n], or SUM, AVG, MIN, MAX.
func (b *Bound) Aggregate() bool { return len(b.q.aggs) > 0 && !b.Grouped() }

// Top returns the n of TOP n, or -1.
func (b *Bound) Top() int { return b.top }

// Offset returns the n of OFFSET n, or 0.
func (b *Bound) Offset() int { return b.offset }

// Limit returns the m of LIMIT m, or -1.
func (b *Bound) Limit() int { return b.limit }

// OrderBy returns the items of the ORDER BY clause; none without one.
func (b *Bound) OrderBy() []Order { return slices.Clone(b.q.order) }

// AppendSortKey appends, for each ORDER BY item in turn,
// AppendKey(r.Value(item.Path)) (of a VECTORDISTANCE item, AppendKey of
// its score for r, which costs the vectors' length), with every byte of a DESC item's key
// complemented, so that comparing two rows' keys bytewise gives the ORDER
// BY order: AppendKey's keys are prefix-free, so complementing reverses
// their order.
func (b *Bound) AppendSortKey(dst []byte, r Row) []byte {
	for _, o := range b.q.order {
		start := len(dst)
		if o.e != nil {
			dst = AppendKey(dst, b.eval(o.e, &r).Value)
		} else {
			dst = AppendKey(dst, r.Value(o.Path))
		}
		if o.Desc {
			for i := start; i < len(dst); i++ {
				dst[i] = ^dst[i]
			}
		}
	}
	return dst
}
