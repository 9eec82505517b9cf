package query

import (
	"strconv"
)

// funcDef is a system function: its name (upper case), how many arguments
// it takes, and how it computes its value. A function is added by adding
// its funcDef to the list of its family (funcs_math.go, funcs_string.go...),
// which funcList gathers.
type funcDef struct {
	name     string
	min, max int                                // the arguments it takes; max -1: any number from min
	impl     func(b *Bound, e *expr, r Row) val // the value of the call e for r; nil for COUNT, an aggregate, which the parser takes apart
}

// funcID is a system function, as a call names it.
type funcID = *funcDef

// takes reports whether f takes n arguments.
func (f *funcDef) takes(n int) bool { return n >= f.min && (f.max < 0 || n <= f.max) }

// arity says how many arguments f takes, as "2 or 3 arguments".
func (f *funcDef) arity() string {
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return strconv.Itoa(n) + " arguments"
	}
	switch {
	case f.max < 0:
		return "at least " + plural(f.min)
	case f.min == f.max:
		return plural(f.min)
	case f.max == f.min+1:
		return strconv.Itoa(f.min) + " or " + plural(f.max)
	}
	return strconv.Itoa(f.min) + " to " + plural(f.max)
}

// The functions the index planner (ranges.go) knows by name.
var (
	fIsDefined     = &funcDef{"IS_DEFINED", 1, 1, fnIsDefined}
	fIsNull        = &funcDef{"IS_NULL", 1, 1, isKind(Null)}
	fIsBool        = &funcDef{"IS_BOOL", 1, 1, isKind(Bool)}
	fIsNumber      = &funcDef{"IS_NUMBER", 1, 1, isKind(Number)}
	fIsString      = &funcDef{"IS_STRING", 1, 1, isKind(String)}
	fIsArray       = &funcDef{"IS_ARRAY", 1, 1, isKind(Array)}
	fIsObject      = &funcDef{"IS_OBJECT", 1, 1, isKind(Object)}
	fIsPrimitive   = &funcDef{"IS_PRIMITIVE", 1, 1, fnIsPrimitive}
	fStartsWith    = &funcDef{"STARTSWITH", 2, 3, stringTest(testPrefix)}
	fEndsWith      = &funcDef{"ENDSWITH", 2, 3, stringTest(testSuffix)}
	fContains      = &funcDef{"CONTAINS", 2, 3, stringTest(testContains)}
	fArrayContains = &funcDef{"ARRAY_CONTAINS", 2, 3, fnArrayContains}
	fCount         = &funcDef{"COUNT", 1, 1, nil}
)

// funcs are the functions the language has, by upper-case name. COUNT,
// listed here, and SUM, AVG, MIN and MAX are aggregates (aggexpr.go).
var funcs = func() map[string]*funcDef {
	m := map[string]*funcDef{}
	for _, family := range [][]*funcDef{
		{fIsDefined, fIsNull, fIsBool, fIsNumber, fIsString, fIsArray, fIsObject, fIsPrimitive,
			fStartsWith, fEndsWith, fContains, fArrayContains, fCount},
		typeFuncs, mathFuncs, intFuncs, stringFuncs, convertFuncs, arrayFuncs, dateTimeFuncs, spatialFuncs, vectorFuncs,
	} {
		for _, f := range family {
			if m[f.name] != nil {
				panic("query: the function " + f.name + " is defined twice")
			}
			m[f.name] = f
		}
	}
	return m
}()

// argKinds are, for the functions besides those ranges.go knows by name
// that are true only when their first argument is of one kind, that kind:
// the index planner reads the keys of that kind alone.
var argKinds = map[string]Kind{
	"IS_FINITE_NUMBER": Number, "IS_INTEGER": Number,
	"REGEXMATCH": String, "STRINGEQUALS": String,
	"ARRAY_CONTAINS_ALL": Array, "ARRAY_CONTAINS_ANY": Array,
}

// aggregates are the aggregates besides COUNT, which the parser, like
// COUNT, takes in any expression of the SELECT clause.
var aggregates = map[string]bool{"SUM": true, "AVG": true, "MIN": true, "MAX": true}

// kindTests are the kinds each IS_ function tests for.
var kindTests = map[funcID]Kind{
	fIsNull: Null, fIsBool: Bool, fIsNumber: Number, fIsString: String, fIsArray: Array, fIsObject: Object,
}

// call returns the value of the function call e for r.
func (b *Bound) call(e *expr, r *Row) val {
	if e.fn == nil || e.fn.impl == nil {
		return undef
	}
	// The row goes by value: a pointer given to a function through a
	// variable escapes, which would put every row matched on the heap.
	return e.fn.impl(b, e, *r)
}

// arg returns the value of e's argument i for r; undefined when e has no
// argument i (an optional one left out).
func (b *Bound) arg(e *expr, r *Row, i int) val {
	if i >= len(e.args) {
		return undef
	}
	return b.eval(e.args[i], r)
}

func numVal(f float64) val { return val{Value: Value{Kind: Number, Num: f}} }

func strVal(s string) val { return val{Value: Value{Kind: String, Str: s}} }

// rawVal returns the array or object whose compact JSON text is raw.
func rawVal(k Kind, raw string) val { return val{Value: Value{Kind: k, Raw: raw}} }
