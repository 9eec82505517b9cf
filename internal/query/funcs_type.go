package query

import "math"

// typeFuncs are the type checks beyond those the index planner knows
// (funcs.go), and the conditionals.
var typeFuncs = []*funcDef{
	{"IS_FINITE_NUMBER", 1, 1, fnIsFiniteNumber},
	{"IS_INTEGER", 1, 1, fnIsInteger},
	{"IIF", 3, 3, fnIIF},
	{"CHOOSE", 2, -1, fnChoose},
}

// isKind returns IS_NULL, IS_BOOL... : whether the argument is of kind k.
func isKind(k Kind) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val { return boolVal(b.arg(e, &r, 0).Kind == k) }
}

func fnIsDefined(b *Bound, e *expr, r Row) val { return boolVal(b.arg(e, &r, 0).Kind != Undefined) }

func fnIsPrimitive(b *Bound, e *expr, r Row) val {
	k := b.arg(e, &r, 0).Kind
	return boolVal(k >= Null && k <= String)
}

// fnIsFiniteNumber is IS_FINITE_NUMBER: whether the argument is a number
// neither infinite nor NaN (false for any other value).
func fnIsFiniteNumber(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	return boolVal(x.Kind == Number && !math.IsInf(x.Num, 0) && !math.IsNaN(x.Num))
}

// fnIsInteger is IS_INTEGER: whether the argument is a number with no
// fraction within the range of a 64-bit integer. The bounds are compared
// as float64, so 9223372036854775807, which reads as 2^63, is an integer
// and 18446744073709551615 is not (the sample corpus's is-integer).
func fnIsInteger(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	return boolVal(x.Kind == Number && isInt64(x.Num))
}

// isInt64 reports whether f is integral and within [-2^63, 2^63].
func isInt64(f float64) bool {
	return f == math.Trunc(f) && f >= math.MinInt64 && f <= math.MaxInt64
}

// fnIIF is IIF(cond, a, b): a when cond is true, else b, whatever cond is
// (the sample corpus's iif: a number, a string, an array or an object
// choose b).
func fnIIF(b *Bound, e *expr, r Row) val {
	if c := b.arg(e, &r, 0); c.Kind == Bool && c.Bool {
		return b.arg(e, &r, 1)
	}
	return b.arg(e, &r, 2)
}

// fnChoose is CHOOSE(i, v1, v2...): the value at the 1-based position i
// of the list; undefined when i is no integer or is out of the list.
func fnChoose(b *Bound, e *expr, r Row) val {
	i := b.arg(e, &r, 0)
	if i.Kind != Number || i.Num != math.Trunc(i.Num) || i.Num < 1 || i.Num >= float64(len(e.args)) {
		return undef
	}
	return b.arg(e, &r, int(i.Num))
}
