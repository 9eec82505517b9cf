package query

import (
	"slices"
	"strings"

	"github.com/ttldb/ttldb/internal/jsontext"
)

// eval returns the value of e for r. Its recursion is as deep as e, which
// the parser bounds.
func (b *Bound) eval(e *expr, r *Row) val {
	switch e.kind {
	case xLit:
		return e.lit
	case xParam:
		return b.params[e.idx]
	case xArray:
		if e.idx >= 0 {
			return b.arrays[e.idx]
		}
		return b.compose(e, r)
	case xPath:
		if e.bind > 0 {
			return bindVal(r, e.bind, e.path)
		}
		return pathVal(r, e.path)
	case xNot:
		if v := b.eval(e.args[0], r); v.Kind == Bool {
			return boolVal(!v.Bool)
		}
		return undef
	case xAnd, xOr:
		// AND: false if any operand is false, true if all are true, else
		// undefined; OR the other way round.
		stop := e.kind == xOr // the value that decides
		unknown := false
		for _, a := range e.args {
			v := b.eval(a, r)
			if v.Kind == Bool && v.Bool == stop {
				return boolVal(stop)
			}
			unknown = unknown || v.Kind != Bool
		}
		if unknown {
			return undef
		}
		return boolVal(!stop)
	case xCmp:
		return compare(e.op, b.eval(e.args[0], r), b.eval(e.args[1], r))
	case xIn:
		x := b.eval(e.args[0], r)
		res := falseVal
		for _, a := range e.args[1:] {
			switch c := compare(opEq, x, b.eval(a, r)); {
			case c.Kind == Bool && c.Bool:
				res = trueVal
			case c.Kind != Bool && res.Kind == Bool && !res.Bool:
				res = undef
			}
			if res.Kind == Bool && res.Bool {
				break
			}
		}
		return negate(res, e.not)
	case xBetween:
		x := b.eval(e.args[0], r)
		lo, hi := compare(opGe, x, b.eval(e.args[1], r)), compare(opLe, x, b.eval(e.args[2], r))
		res := undef
		switch {
		case lo.Kind == Bool && !lo.Bool || hi.Kind == Bool && !hi.Bool:
			res = falseVal
		case lo.Kind == Bool && hi.Kind == Bool:
			res = trueVal
		}
		return negate(res, e.not)
	case xCall:
		return b.call(e, r)
	case xLike:
		return b.like(e, r)
	case xAgg:
		if r.agg != nil && e.idx < len(r.agg.aggs) {
			return r.agg.aggs[e.idx]
		}
		return undef
	case xGroupRef:
		if r.agg != nil && e.idx < len(r.agg.keys) {
			return r.agg.keys[e.idx]
		}
		return undef
	case xExists, xArraySub, xScalarSub:
		return b.evalSub(e, r)
	}
	return b.evalOp(e, r)
}

// negate returns NOT v when not is set, else v.
func negate(v val, not bool) val {
	if !not {
		return v
	}
	if v.Kind == Bool {
		return boolVal(!v.Bool)
	}
	return undef
}

// pathVal returns the value at p in r, with its JSON text.
func pathVal(r *Row, p Path) val {
	raw, ok := r.Lookup(p)
	if !ok {
		return undef
	}
	v, ok := FromJSON(raw)
	if !ok {
		return undef
	}
	return val{Value: v, raw: raw, root: len(p) == 0}
}

// compare returns the value of a op b: undefined when either is undefined
// or their kinds differ, and for any comparison of two arrays or two
// objects but =, as Cosmos has it.
func compare(op cmpOp, a, b val) val {
	if a.Kind == Undefined || a.Kind != b.Kind {
		return undef
	}
	switch {
	case op == opEq:
		return boolVal(equal(a.Value, b.Value))
	case a.Kind == Array || a.Kind == Object:
		return undef
	case op == opNe:
		return boolVal(!equal(a.Value, b.Value))
	}
	c := 0
	switch a.Kind {
	case Bool:
		c = boolInt(a.Bool) - boolInt(b.Bool)
	case Number:
		switch {
		case a.Num < b.Num:
			c = -1
		case a.Num > b.Num:
			c = 1
		}
	case String:
		c = strings.Compare(a.Str, b.Str)
	case Array, Object:
		return undef
	}
	switch op {
	case opLt:
		return boolVal(c < 0)
	case opLe:
		return boolVal(c <= 0)
	case opGt:
		return boolVal(c > 0)
	}
	return boolVal(c >= 0)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// equal reports whether a and b, two values of one kind, are equal:
// numbers as float64, strings by their bytes, arrays element by element,
// objects member by member in any order.
func equal(a, b Value) bool {
	switch a.Kind {
	case Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number:
		return a.Num == b.Num
	case String:
		return a.Str == b.Str
	case Array:
		return arraysEqual(a.Raw, b.Raw)
	case Object:
		return objectsEqual(a.Raw, b.Raw)
	}
	return false
}

// rawEqual reports whether the JSON values x and y are equal. A string that
// is no Unicode text equals nothing.
func rawEqual(x, y string) bool {
	a, okA := FromJSON(x)
	b, okB := FromJSON(y)
	return okA && okB && a.Kind == b.Kind && equal(a, b)
}

// arraysEqual reports whether two compact JSON arrays have as many
// elements, each equal to the other's.
func arraysEqual(x, y string) bool {
	i, j := 1, 1
	for {
		ex, ni, okX := nextElement(x, i)
		ey, nj, okY := nextElement(y, j)
		if !okX || !okY {
			return okX == okY
		}
		if !rawEqual(ex, ey) {
			return false
		}
		i, j = ni, nj
	}
}

// nextElement returns the element of arr, a compact JSON array, at byte i
// (1 for the first), and the byte of the next one; false at the end.
func nextElement(arr string, i int) (elem string, next int, ok bool) {
	if i <= 0 || i >= len(arr) || arr[i] == ']' || arr[0] != '[' {
		return "", 0, false
	}
	end := jsontext.Skip(bytesOf(arr), i)
	next = end
	if next < len(arr) && arr[next] == ',' {
		next++
	}
	return arr[i:end], next, true
}

// member is a member of a JSON object: its name, and its value's text.
type member struct{ name, raw string }

// members returns the members of obj, a compact JSON object, sorted by
// name; false when a name is no Unicode text.
func members(obj string) ([]member, bool) {
	var ms []member
	b := bytesOf(obj)
	for i := 1; i < len(b) && b[i] != '}'; {
		kEnd := jsontext.Skip(b, i)
		vEnd := jsontext.Skip(b, kEnd+1)
		name, ok := jsontext.Unquote(b[i:kEnd])
		if !ok {
			return nil, false
		}
		ms = append(ms, member{string(name), obj[kEnd+1 : vEnd]})
		i = vEnd
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
	slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
	return ms, true
}

// objectsEqual reports whether two compact JSON objects have the same
// members, each with equal values. An object that names a member twice
// equals nothing.
func objectsEqual(x, y string) bool {
	a, okA := members(x)
	b, okB := members(y)
	if !okA || !okB || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || i > 0 && a[i].name == a[i-1].name || !rawEqual(a[i].raw, b[i].raw) {
			return false
		}
	}
	return true
}

// objectHas reports whether the compact JSON object obj has every member
// of sub, each with an equal value (ARRAY_CONTAINS's partial match).
func objectHas(obj, sub string) bool {
	ms, ok := members(sub)
	if !ok {
		return false
	}
	for _, m := range ms {
		v, found, _ := jsontext.Member(bytesOf(obj), m.name)
		if !found || !rawEqual(stringOf(v), m.raw) {
			return false
		}
	}
	return true
}
