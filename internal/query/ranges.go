package query

import (
	"bytes"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// Range is a range [From, To) of value keys, as AppendKey writes them,
// compared bytewise; To nil is unbounded.
type Range = engine.Range

// constraint is what a term of the WHERE clause says of the value at a
// path: when the term is true, the value's key is in one of the ranges.
type constraint struct {
	path Path
	rs   []Range // normalized
}

// Ranges says which value keys, AppendKey(r.Value(p)), a row can have at p
// and still match. ok is true when the WHERE clause is a conjunction (of
// one term or more) of which at least one term constrains p; then every
// row r for which Match(r) is true has AppendKey(r.Value(p)) inside one of
// the ranges. They are sorted and disjoint; none at all means that no row
// matches. Several terms on p are intersected. The ranges are b's, to
// read and not to change, until b is bound again; of one term, they cost
// no allocation.
func (b *Bound) Ranges(p Path) (rs []Range, ok bool) {
	for _, c := range b.terms {
		if !slices.Equal(c.path, p) {
			continue
		}
		if !ok {
			rs, ok = c.rs, true
		} else {
			rs = intersect(rs, c.rs)
		}
	}
	return rs, ok
}

// Paths returns every distinct path Ranges can say something about, in
// the order the WHERE clause first constrains them: b's, to read and not
// to change, until b is bound again.
func (b *Bound) Paths() []Path { return b.paths }

// Exact reports whether the WHERE clause is exactly p = v (or v = p), v a
// constant null, boolean, number or string, in a query of whole documents
// (FROM c, no JOIN). Then Match(r) is true exactly when
// AppendKey(r.Value(p)) is v's key, the one range Ranges(p) gives, as = is
// true only for values of one kind, and two such values' keys are equal
// when, and only when, = says they are (1 and 1.0, 0 and -0 alike): a row
// read from an index on p, within that range, needs no Match. It takes
// O(len(p)).
func (b *Bound) Exact(p Path) bool {
	q, e := b.q, b.q.where
	if e == nil || e != q.docWhere || q.rowWhere != nil || len(q.joins) > 0 || len(q.from) > 0 || q.iter || q.noFrom ||
		e.kind != xCmp || e.op != opEq {
		return false
	}
	x, c := e.args[0], e.args[1]
	if !x.isPath() {
		x, c = c, x
	}
	if !x.isPath() || !c.isConst() || !slices.Equal(x.path, p) {
		return false
	}
	k := b.constVal(c).Kind
	return k >= Null && k <= String
}

// sargable sets what the terms of e, the WHERE clause, at its top-level
// AND say of the paths they test, and those paths.
func (b *Bound) sargable(e *expr) {
	if e.kind == xAnd {
		for _, a := range e.args {
			b.sargable(a)
		}
		return
	}
	p, rs, ok := b.constrain(e)
	if !ok {
		return
	}
	b.terms = append(b.terms, constraint{p, normalize(rs)})
	if !slices.ContainsFunc(b.paths, func(q Path) bool { return slices.Equal(q, p) }) {
		b.paths = append(b.paths, p)
	}
}

// pointRange returns, in b's room, the one range of v's key: that of an
// equality with v, a value of a kind that has a key of its own (null,
// boolean, number, string).
func (b *Bound) pointRange(v Value) []Range {
	from := len(b.keys)
	b.keys = AppendKey(b.keys, v)
	to := len(b.keys)
	i := to - 1 // PrefixEnd's: the key to its last byte that is not FF, which is one more
	for i >= from && b.keys[i] == 0xFF {
		i--
	}
	r := Range{From: b.keys[from:to:to]}
	if i >= from { // else the key is all FF bytes, and no key follows those that start with it
		b.keys = append(b.keys, b.keys[from:i+1]...)
		b.keys[len(b.keys)-1]++
		r.To = b.keys[to:len(b.keys):len(b.keys)]
	}
	n := len(b.points)
	b.points = append(b.points, r)
	return b.points[n : n+1 : n+1]
}

// keyRange returns the range of the one key of v.
func keyRange(v Value) Range {
	k := AppendKey(nil, v)
	return Range{From: k, To: PrefixEnd(k)}
}

// kindRange returns the range of every key of kind k.
func kindRange(k Kind) Range {
	from, to := KindKey(k)
	return Range{From: from, To: to}
}

// constrain returns the path a term tests, and the ranges its value's key
// is in when the term is true; false when the term is of no form it knows.
func (b *Bound) constrain(e *expr) (Path, []Range, bool) {
	switch e.kind {
	case xPath: // true only when the value is true
		return e.path, []Range{keyRange(Value{Kind: Bool, Bool: true})}, e.isPath()
	case xCmp:
		x, c, op := e.args[0], e.args[1], e.op
		if !x.isPath() {
			x, c, op = c, x, op.mirror()
		}
		if !x.isPath() || !c.isConst() {
			return nil, nil, false
		}
		v := b.constVal(c).Value
		if op == opEq && v.Kind >= Null && v.Kind <= String {
			return x.path, b.pointRange(v), true
		}
		return x.path, cmpRanges(op, v), true
	case xIn:
		if e.not || !e.args[0].isPath() {
			return nil, nil, false
		}
		var rs []Range
		for _, a := range e.args[1:] {
			if !a.isConst() {
				return nil, nil, false
			}
			rs = append(rs, cmpRanges(opEq, b.constVal(a).Value)...)
		}
		return e.args[0].path, rs, true
	case xBetween:
		x, lo, hi := e.args[0], e.args[1], e.args[2]
		if e.not || !x.isPath() || !lo.isConst() || !hi.isConst() {
			return nil, nil, false
		}
		l, h := b.constVal(lo).Value, b.constVal(hi).Value
		if l.Kind != h.Kind || l.Kind < Null || l.Kind > String {
			return x.path, nil, true
		}
		return x.path, []Range{{From: AppendKey(nil, l), To: PrefixEnd(AppendKey(nil, h))}}, true
	case xLike:
		if e.not || !e.args[0].isPath() || e.idx < 0 {
			return nil, nil, false
		}
		return e.args[0].path, b.likeRanges(e), true
	case xCall:
		if len(e.args) == 0 || !e.args[0].isPath() {
			return nil, nil, false
		}
		rs, ok := b.callRanges(e)
		return e.args[0].path, rs, ok
	}
	return nil, nil, false
}

// callRanges returns the ranges the value of a call's first argument, a
// path, is in when the call is true; false for a function that returns no
// boolean.
func (b *Bound) callRanges(e *expr) ([]Range, bool) {
	switch e.fn {
	case fIsDefined:
		return []Range{{From: []byte{keyNull}}}, true
	case fIsPrimitive:
		return []Range{{From: kindRange(Null).From, To: kindRange(String).To}}, true
	case fIsNull, fIsBool, fIsNumber, fIsString, fIsArray, fIsObject:
		return []Range{kindRange(kindTests[e.fn])}, true
	case fStartsWith:
		// With a literal prefix, and no ignoreCase (or false), the keys of
		// the strings with that prefix; else those of every string.
		prefix := e.args[1]
		if !prefix.isConst() {
			break
		}
		v := b.constVal(prefix)
		if v.Kind != String {
			return nil, true // STARTSWITH is undefined
		}
		if len(e.args) == 3 {
			ic := e.args[2]
			if !ic.isConst() || b.constVal(ic).Kind != Bool || b.constVal(ic).Bool {
				break
			}
		}
		from := AppendStringPrefixKey(nil, v.Str)
		return []Range{{From: from, To: PrefixEnd(from)}}, true
	case fArrayContains:
		return []Range{kindRange(Array)}, true
	}
	switch e.fn {
	case fStartsWith, fEndsWith, fContains:
		return []Range{kindRange(String)}, true
	}
	if k, ok := argKinds[e.fn.name]; ok {
		return []Range{kindRange(k)}, true
	}
	return nil, false
}

// cmpRanges returns the ranges of the keys of the values x for which
// x op v is true.
func cmpRanges(op cmpOp, v Value) []Range {
	if v.Kind == Undefined {
		return nil
	}
	kind := kindRange(v.Kind)
	if v.Kind == Array || v.Kind == Object {
		if op == opEq {
			return []Range{kind}
		}
		return nil // but for =, a comparison of arrays or objects is undefined
	}
	k := keyRange(v)
	switch op {
	case opEq:
		return []Range{k}
	case opNe:
		return []Range{{From: kind.From, To: k.From}, {From: k.To, To: kind.To}}
	case opLt:
		return []Range{{From: kind.From, To: k.From}}
	case opLe:
		return []Range{{From: kind.From, To: k.To}}
	case opGt:
		return []Range{{From: k.To, To: kind.To}}
	}
	return []Range{{From: k.From, To: kind.To}}
}

// empty reports whether r holds no key.
func empty(r Range) bool { return r.To != nil && bytes.Compare(r.From, r.To) >= 0 }

// normalize returns rs without its empty ranges, sorted, with overlapping
// and adjacent ones merged; never nil.
func normalize(rs []Range) []Range {
	if len(rs) == 1 && !empty(rs[0]) {
		return rs[:1:1] // as it is, not a copy: one range, sorted already
	}
	rs = slices.DeleteFunc(slices.Clone(rs), empty)
	slices.SortFunc(rs, func(a, b Range) int { return bytes.Compare(a.From, b.From) })
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		if n := len(out); n > 0 && (out[n-1].To == nil || bytes.Compare(r.From, out[n-1].To) <= 0) {
			if out[n-1].To != nil && (r.To == nil || bytes.Compare(r.To, out[n-1].To) > 0) {
				out[n-1].To = r.To
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// intersect returns the keys in both a and b, two normalized lists.
func intersect(a, b []Range) []Range {
	out := make([]Range, 0, min(len(a), len(b)))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		r := Range{From: a[i].From, To: a[i].To}
		if bytes.Compare(b[j].From, r.From) > 0 {
			r.From = b[j].From
		}
		if endsBefore(b[j].To, r.To) {
			r.To = b[j].To
		}
		if !empty(r) {
			out = append(out, r)
		}
		if endsBefore(a[i].To, b[j].To) {
			i++
		} else {
			j++
		}
	}
	return out
}

// endsBefore reports whether a range ending at x ends before one ending at
// y (nil: unbounded).
func endsBefore(x, y []byte) bool { return x != nil && (y == nil || bytes.Compare(x, y) < 0) }
