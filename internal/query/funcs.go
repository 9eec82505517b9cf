package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// funcID is a system function.
type funcID uint8

const (
	fIsDefined funcID = iota
	fIsNull
	fIsBool
	fIsNumber
	fIsString
	fIsArray
	fIsObject
	fIsPrimitive
	fStartsWith
	fEndsWith
	fContains
	fArrayContains
	fArrayLength
	fLength
	fLower
	fUpper
	fCount
)

// funcInfo is a function's identity and how many arguments it takes.
type funcInfo struct {
	id       funcID
	min, max int
}

// funcs are the functions the language has, by upper-case name. COUNT is
// the aggregate, which the parser takes only as the whole SELECT clause.
var funcs = map[string]funcInfo{
	"IS_DEFINED":     {fIsDefined, 1, 1},
	"IS_NULL":        {fIsNull, 1, 1},
	"IS_BOOL":        {fIsBool, 1, 1},
	"IS_NUMBER":      {fIsNumber, 1, 1},
	"IS_STRING":      {fIsString, 1, 1},
	"IS_ARRAY":       {fIsArray, 1, 1},
	"IS_OBJECT":      {fIsObject, 1, 1},
	"IS_PRIMITIVE":   {fIsPrimitive, 1, 1},
	"STARTSWITH":     {fStartsWith, 2, 3},
	"ENDSWITH":       {fEndsWith, 2, 3},
	"CONTAINS":       {fContains, 2, 3},
	"ARRAY_CONTAINS": {fArrayContains, 2, 3},
	"ARRAY_LENGTH":   {fArrayLength, 1, 1},
	"LENGTH":         {fLength, 1, 1},
	"LOWER":          {fLower, 1, 1},
	"UPPER":          {fUpper, 1, 1},
	"COUNT":          {fCount, 1, 1},
}

// aggregates are Cosmos's aggregate functions this subset does not have.
var aggregates = map[string]bool{"SUM": true, "AVG": true, "MIN": true, "MAX": true}

// kindTests are the kinds each IS_ function tests for.
var kindTests = map[funcID]Kind{
	fIsNull: Null, fIsBool: Bool, fIsNumber: Number, fIsString: String, fIsArray: Array, fIsObject: Object,
}

// call returns the value of the function call e for r.
func (b *Bound) call(e *expr, r *Row) val {
	x := b.eval(e.args[0], r)
	switch e.fn {
	case fIsDefined:
		return boolVal(x.Kind != Undefined)
	case fIsPrimitive:
		return boolVal(x.Kind >= Null && x.Kind <= String)
	case fIsNull, fIsBool, fIsNumber, fIsString, fIsArray, fIsObject:
		return boolVal(x.Kind == kindTests[e.fn])
	case fStartsWith, fEndsWith, fContains:
		return b.stringTest(e, x, r)
	case fArrayContains:
		return b.arrayContains(e, x, r)
	case fArrayLength:
		if x.Kind != Array {
			return undef
		}
		n := 0
		Elements(x.Raw, func(string) bool { n++; return true })
		return numVal(float64(n))
	case fLength:
		if x.Kind != String {
			return undef
		}
		return numVal(float64(utf8.RuneCountInString(x.Str)))
	case fLower, fUpper:
		if x.Kind != String {
			return undef
		}
		s := strings.ToLower(x.Str)
		if e.fn == fUpper {
			s = strings.ToUpper(x.Str)
		}
		return val{Value: Value{Kind: String, Str: s}}
	}
	return undef
}

func numVal(f float64) val { return val{Value: Value{Kind: Number, Num: f}} }

// stringTest returns the value of STARTSWITH, ENDSWITH or CONTAINS, whose
// first argument is s: undefined unless the first two arguments are
// strings and the third, if any, a boolean.
func (b *Bound) stringTest(e *expr, s val, r *Row) val {
	sub := b.eval(e.args[1], r)
	if s.Kind != String || sub.Kind != String {
		return undef
	}
	x, y := s.Str, sub.Str
	if len(e.args) == 3 {
		ic := b.eval(e.args[2], r)
		if ic.Kind != Bool {
			return undef
		}
		if ic.Bool {
			return boolVal(foldTest(e.fn, x, y))
		}
	}
	switch e.fn {
	case fStartsWith:
		return boolVal(strings.HasPrefix(x, y))
	case fEndsWith:
		return boolVal(strings.HasSuffix(x, y))
	}
	return boolVal(strings.Contains(x, y))
}

// foldTest is STARTSWITH, ENDSWITH or CONTAINS of x and y, ignoring case
// as Cosmos does (.NET's ordinal ignore-case): character by character, two
// characters equal when their upper cases are. So ς, σ and Σ are one, and
// so are ı, i and I, as UPPER makes them.
func foldTest(fn funcID, x, y string) bool {
	xs, ys := []rune(x), []rune(y)
	at := func(i int) bool { // whether ys is at xs[i:]
		for j, r := range ys {
			if a := xs[i+j]; a != r && unicode.ToUpper(a) != unicode.ToUpper(r) {
				return false
			}
		}
		return true
	}
	switch {
	case len(ys) > len(xs):
		return false
	case fn == fStartsWith:
		return at(0)
	case fn == fEndsWith:
		return at(len(xs) - len(ys))
	}
	for i := 0; i+len(ys) <= len(xs); i++ {
		if at(i) {
			return true
		}
	}
	return false
}

// arrayContains returns the value of ARRAY_CONTAINS(arr, v[, partial]):
// whether an element of arr equals v, or with partial true and v an
// object, holds every member of v with an equal value. Undefined unless
// arr is an array and partial, if given, a boolean.
func (b *Bound) arrayContains(e *expr, arr val, r *Row) val {
	v := b.eval(e.args[1], r)
	partial := false
	if len(e.args) == 3 {
		p := b.eval(e.args[2], r)
		if p.Kind != Bool {
			return undef
		}
		partial = p.Bool
	}
	if arr.Kind != Array {
		return undef
	}
	found := false
	Elements(arr.Raw, func(raw string) bool {
		el, ok := FromJSON(raw)
		switch {
		case !ok || el.Kind != v.Kind:
		case partial && v.Kind == Object:
			found = objectHas(el.Raw, v.Raw)
		default:
			found = equal(el, v.Value)
		}
		return !found
	})
	return boolVal(found)
}
