package query

import (
	"math"
	"strings"

	"github.com/ttldb/ttldb/internal/jsontext"
)

// arrayFuncs are the functions of arrays and sets but ARRAY_CONTAINS
// (funcs.go), and OBJECTTOARRAY. Each is undefined unless its arguments
// are of the kinds it takes.
var arrayFuncs = []*funcDef{
	{"ARRAY_CONCAT", 2, -1, fnArrayConcat},
	{"ARRAY_CONTAINS_ALL", 2, -1, containsAllAny(true)},
	{"ARRAY_CONTAINS_ANY", 2, -1, containsAllAny(false)},
	{"ARRAY_LENGTH", 1, 1, fnArrayLength},
	{"ARRAY_SLICE", 2, 3, fnArraySlice},
	{"OBJECTTOARRAY", 1, 3, fnObjectToArray},
	{"SETINTERSECT", 2, 2, fnSetIntersect},
	{"SETUNION", 2, 2, fnSetUnion},
}

// elements returns the JSON texts of the elements of arr, a compact JSON
// array.
func elements(arr string) []string {
	var out []string
	Elements(arr, func(raw string) bool { out = append(out, raw); return true })
	return out
}

// arrayOf returns the array of the elements given as JSON texts.
func arrayOf(elems []string) val {
	return rawVal(Array, "["+strings.Join(elems, ",")+"]")
}

func fnArrayLength(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	if x.Kind != Array {
		return undef
	}
	n := 0
	Elements(x.Raw, func(string) bool { n++; return true })
	return numVal(float64(n))
}

// fnArrayContains is ARRAY_CONTAINS(arr, v[, partial]): whether an element
// of arr equals v, or with partial true and v an object, holds every
// member of v with an equal value. Undefined unless arr is an array and
// partial, if given, a boolean.
func fnArrayContains(b *Bound, e *expr, r Row) val {
	arr, v := b.arg(e, &r, 0), b.arg(e, &r, 1)
	partial := false
	if len(e.args) == 3 {
		p := b.arg(e, &r, 2)
		if p.Kind != Bool {
			return undef
		}
		partial = p.Bool
	}
	if arr.Kind != Array {
		return undef
	}
	return boolVal(contains(arr.Raw, v.Value, partial))
}

// contains reports whether an element of arr equals v (with partial and v
// an object: holds v's members).
func contains(arr string, v Value, partial bool) bool {
	found := false
	Elements(arr, func(raw string) bool {
		el, ok := FromJSON(raw)
		switch {
		case !ok || el.Kind != v.Kind:
		case partial && v.Kind == Object:
			found = objectHas(el.Raw, v.Raw)
		default:
			found = equal(el, v)
		}
		return !found
	})
	return found
}

// containsAllAny returns ARRAY_CONTAINS_ALL (all) or ARRAY_CONTAINS_ANY:
// whether the array holds all (any) of the other arguments. An undefined
// argument is unknown, as the Learn reference's examples have it:
// ANY([1, 2, 3, 4], 1, undefined) is true but ANY([1, 2, 3, 4], 5,
// undefined) undefined; ALL([1, 2, 3, 4], 5, undefined) is false but
// ALL([1, 2, 3, 4], 1, undefined) undefined.
func containsAllAny(all bool) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		arr := b.arg(e, &r, 0)
		if arr.Kind != Array {
			return undef
		}
		unknown := false
		for i := 1; i < len(e.args); i++ {
			v := b.arg(e, &r, i)
			if v.Kind == Undefined {
				unknown = true
				continue
			}
			if contains(arr.Raw, v.Value, false) != all {
				return boolVal(!all)
			}
		}
		if unknown {
			return undef
		}
		return boolVal(all)
	}
}

// fnArrayConcat is ARRAY_CONCAT(a1, a2...): their elements in order.
func fnArrayConcat(b *Bound, e *expr, r Row) val {
	var elems []string
	for i := range e.args {
		a := b.arg(e, &r, i)
		if a.Kind != Array {
			return undef
		}
		elems = append(elems, elements(a.Raw)...)
	}
	return arrayOf(elems)
}

// fnArraySlice is ARRAY_SLICE(arr, start[, length]), with integral start
// and length: a negative start counts from the end (-1 is the last
// element), clamped to the first; a length of 0 or less gives [].
func fnArraySlice(b *Bound, e *expr, r Row) val {
	arr := b.arg(e, &r, 0)
	start, ok := intArg(b.arg(e, &r, 1))
	n := math.MaxInt
	if len(e.args) == 3 {
		var okN bool
		n, okN = intArg(b.arg(e, &r, 2))
		ok = ok && okN
	}
	if arr.Kind != Array || !ok {
		return undef
	}
	elems := elements(arr.Raw)
	if start < 0 {
		start = max(start+len(elems), 0)
	}
	if start >= len(elems) || n <= 0 {
		return rawVal(Array, "[]")
	}
	return arrayOf(elems[start : start+min(n, len(elems)-start)])
}

// set is a set of JSON values, found by their keys (AppendKey), which
// tell primitives apart, and then compared (arrays and objects share one
// key per kind).
type set map[string][]string

// add adds raw, and reports whether it was not in s already. A string that
// is no Unicode text equals nothing, so is always added.
func (s set) add(raw string) bool {
	if s.has(raw) {
		return false
	}
	k := s.key(raw)
	s[k] = append(s[k], raw)
	return true
}

// has reports whether s holds a value equal to raw.
func (s set) has(raw string) bool {
	for _, x := range s[s.key(raw)] {
		if rawEqual(x, raw) {
			return true
		}
	}
	return false
}

func (set) key(raw string) string {
	v, _ := FromJSON(raw)
	return string(AppendKey(nil, v))
}

// setOf returns the set of arr's elements.
func setOf(arr string) set {
	s := set{}
	Elements(arr, func(raw string) bool { s.add(raw); return true })
	return s
}

// fnSetIntersect is SETINTERSECT(a, b): the distinct elements of b that a
// holds, in b's order (SetIntersect([1, 2, "A", "B"], ["A", 1]) is ["A",
// 1], the sample corpus's setintersect and setintersect-field).
func fnSetIntersect(b *Bound, e *expr, r Row) val {
	x, y := b.arg(e, &r, 0), b.arg(e, &r, 1)
	if x.Kind != Array || y.Kind != Array {
		return undef
	}
	in, seen, out := setOf(x.Raw), set{}, []string{}
	Elements(y.Raw, func(raw string) bool {
		if in.has(raw) && seen.add(raw) {
			out = append(out, raw)
		}
		return true
	})
	return arrayOf(out)
}

// fnSetUnion is SETUNION(a, b): the distinct elements of a, then those of
// b not in a, in order (the sample corpus's setunion).
func fnSetUnion(b *Bound, e *expr, r Row) val {
	x, y := b.arg(e, &r, 0), b.arg(e, &r, 1)
	if x.Kind != Array || y.Kind != Array {
		return undef
	}
	seen, out := set{}, []string{}
	for _, arr := range []string{x.Raw, y.Raw} {
		Elements(arr, func(raw string) bool {
			if seen.add(raw) {
				out = append(out, raw)
			}
			return true
		})
	}
	return arrayOf(out)
}

// fnObjectToArray is OBJECTTOARRAY(obj[, kName[, vName]]): an array of an
// object for each member of obj, in order, {"k": name, "v": value}, with
// the names kName and vName when given (the sample corpus's
// objecttoarray).
func fnObjectToArray(b *Bound, e *expr, r Row) val {
	obj := b.arg(e, &r, 0)
	names := [2]val{strVal("k"), strVal("v")}
	for i := 1; i < len(e.args); i++ {
		names[i-1] = b.arg(e, &r, i)
	}
	if obj.Kind != Object || names[0].Kind != String || names[1].Kind != String {
		return undef
	}
	k := string(appendString(nil, names[0].Str))
	v := string(appendString(nil, names[1].Str))
	var elems []string
	raw := bytesOf(obj.Raw)
	for i := 1; i < len(raw) && raw[i] != '}'; {
		kEnd := jsontext.Skip(raw, i)
		vEnd := jsontext.Skip(raw, kEnd+1)
		elems = append(elems, "{"+k+":"+obj.Raw[i:kEnd]+","+v+":"+obj.Raw[kEnd+1:vEnd]+"}")
		i = vEnd
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
	return arrayOf(elems)
}
