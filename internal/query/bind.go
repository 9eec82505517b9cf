package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// Bound is a query with its parameters' values, ready to run. It is safe
// for concurrent use, and does not change, until it is bound again
// ([Query.BindTo]); the zero Bound is unbound, to bind into.
type Bound struct {
	q      *Query
	params []val          // by index
	arrays []val          // the array literals' values, by index
	likes  []*likePattern // the constant LIKE patterns, compiled, by index
	top    int
	offset int
	limit  int
	terms  []constraint // what the WHERE clause's sargable terms say
	paths  []Path       // the distinct paths of terms, in order
	now    time.Time    // the instant GetCurrentDateTime and its kin read

	// Room that binding again reuses: the keys of an equality's range, and
	// its range (see pointRange).
	keys   []byte
	points []Range
}

// Param is a parameter's value for [Query.BindTo]: its name without '@',
// and its value as JSON text. Compact says that the text is compact, valid
// JSON already (as encoding/json writes it), taken as it is. IsStr says
// that the value is the string Str, and JSON is not read: a string whose
// JSON needs no escape binds so without a copy. The zero Param is a
// parameter named "" whose JSON text, "", is not valid.
type Param struct {
	Name, JSON string
	Compact    bool
	IsStr      bool
	Str        string
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
	ps := make([]Param, 0, len(params))
	for name, text := range params {
		ps = append(ps, Param{Name: name, JSON: text})
	}
	b := new(Bound)
	if err := q.BindTo(b, ps, now); err != nil {
		return nil, err
	}
	return b, nil
}

// BindTo is BindAt into b, whose room from an earlier binding it reuses:
// what b held before is gone, so b must be no one else's to read. The
// names of params must be distinct. Its errors are Bind's, after which b
// is unbound; a binding of parameters that are compact JSON and plain
// values (no array or object literal, no LIKE) allocates nothing once b's
// room has grown to fit them.
func (q *Query) BindTo(b *Bound, params []Param, now time.Time) error {
	if cap(b.keys) > maxKeptKeys { // an earlier binding's long keys: not kept for every later one
		b.keys = nil
	}
	*b = Bound{q: q, params: room(b.params, len(q.params)), arrays: room(b.arrays, q.arrays),
		likes: room(b.likes, q.likes), terms: b.terms[:0], paths: b.paths[:0], now: now,
		keys: b.keys[:0], points: b.points[:0]}
	err := b.bindParams(params)
	if err == nil {
		b.top, err = b.count("TOP", q.top, -1)
	}
	if err == nil {
		b.offset, err = b.count("OFFSET", q.offset, 0)
	}
	if err == nil {
		b.limit, err = b.count("LIMIT", q.limit, -1)
	}
	if err == nil {
		err = b.subTops(q)
	}
	if err != nil {
		b.q = nil
		return err
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
	if q.where != nil {
		b.sargable(q.where)
	}
	return nil
}

// maxKeptKeys is the most room for keys that BindTo reuses.
const maxKeptKeys = 4 << 10

// room returns s emptied to n zero values, in its own array if it has
// room.
func room[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// bindParams sets b's parameters' values from params.
func (b *Bound) bindParams(params []Param) error {
	q := b.q
	for i, name := range q.params {
		j := slices.IndexFunc(params, func(p Param) bool { return p.Name == name })
		if j < 0 {
			return fmt.Errorf("parameter @%s has no value", name)
		}
		if params[j].IsStr { // its JSON text, if ever needed, is made from it (see appendVal)
			b.params[i] = val{Value: Value{Kind: String, Str: params[j].Str}}
			continue
		}
		raw := params[j].JSON
		if !params[j].Compact {
			var buf bytes.Buffer
			if err := json.Compact(&buf, []byte(raw)); err != nil {
				return fmt.Errorf("parameter @%s: its value %.40q is not valid JSON", name, raw)
			}
			raw = buf.String()
		}
		v, ok := FromJSON(raw)
		if !ok { // a string that is no Unicode text: undefined
			v = Value{}
		}
		b.params[i] = val{Value: v, raw: raw}
	}
	if len(params) == len(q.params) {
		return nil // each is one of the query's, as each of those has one
	}
	var unused []string
	for _, p := range params {
		if !slices.Contains(q.params, p.Name) {
			unused = append(unused, p.Name)
		}
	}
	slices.Sort(unused)
	return fmt.Errorf("parameter @%s is not used by the query: a typo?", unused[0])
}

// subTops checks the TOP parameters of q's subqueries, at any depth, as
// count checks the query's own: a bad one is refused, not read as no
// result (evalSub).
func (b *Bound) subTops(q *Query) error {
	for _, s := range q.subs {
		if _, err := b.count("TOP", s.q.top, -1); err != nil {
			return err
		}
		if err := b.subTops(s.q); err != nil {
			return err
		}
	}
	return nil
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
		return 0, fmt.Errorf("parameter @%s of %s is %.40s: it must be an integer from 0 to %d", b.q.params[s.param], clause, appendVal(nil, v, nil), math.MaxInt32)
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
