package query

import "math"

// intFuncs are the functions of 64-bit integers: IntAdd, IntSub, IntMul,
// IntDiv, IntMod and the bitwise ones. Each is undefined unless its
// arguments are integers (IntAdd(20, 0.10) is undefined, the sample
// corpus's intadd), and for a division by zero. They compute in int64,
// wrapping around on overflow as two's complement does, and a division
// truncates toward zero (IntMod(-12, -5) is -2). The result is a number,
// a float64 like every number of the language, so beyond 2^53 it is
// rounded.
var intFuncs = []*funcDef{
	{"INTADD", 2, 2, int2(func(x, y int64) (int64, bool) { return x + y, true })},
	{"INTSUB", 2, 2, int2(func(x, y int64) (int64, bool) { return x - y, true })},
	{"INTMUL", 2, 2, int2(func(x, y int64) (int64, bool) { return x * y, true })},
	{"INTDIV", 2, 2, int2(func(x, y int64) (int64, bool) {
		if y == 0 {
			return 0, false
		}
		return x / y, true
	})},
	{"INTMOD", 2, 2, int2(func(x, y int64) (int64, bool) {
		if y == 0 {
			return 0, false
		}
		return x % y, true
	})},
	{"INTBITAND", 2, 2, int2(func(x, y int64) (int64, bool) { return x & y, true })},
	{"INTBITOR", 2, 2, int2(func(x, y int64) (int64, bool) { return x | y, true })},
	{"INTBITXOR", 2, 2, int2(func(x, y int64) (int64, bool) { return x ^ y, true })},
	{"INTBITLEFTSHIFT", 2, 2, int2(shiftLeft)},
	{"INTBITRIGHTSHIFT", 2, 2, int2(shiftRight)},
	{"INTBITNOT", 1, 1, fnIntBitNot},
}

// toInt64 returns f as an int64, if it is an integer in range (2^63,
// which 9223372036854775807 reads as, is taken as that number).
func toInt64(v val) (int64, bool) {
	if v.Kind != Number || !isInt64(v.Num) {
		return 0, false
	}
	if v.Num >= math.MaxInt64 {
		return math.MaxInt64, true
	}
	return int64(v.Num), true
}

// int2 returns the function of two integers that is f; f's false makes it
// undefined.
func int2(f func(x, y int64) (int64, bool)) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		x, okX := toInt64(b.arg(e, &r, 0))
		y, okY := toInt64(b.arg(e, &r, 1))
		if !okX || !okY {
			return undef
		}
		z, ok := f(x, y)
		if !ok {
			return undef
		}
		return numVal(float64(z))
	}
}

// shiftLeft is IntBitLeftShift: undefined for a negative count, 0 for a
// count of 64 or more.
func shiftLeft(x, n int64) (int64, bool) {
	if n < 0 {
		return 0, false
	}
	if n >= 64 {
		return 0, true
	}
	return x << uint(n), true
}

// shiftRight is IntBitRightShift, arithmetic (the sign copied in):
// undefined for a negative count.
func shiftRight(x, n int64) (int64, bool) {
	if n < 0 {
		return 0, false
	}
	if n >= 64 {
		n = 63
	}
	return x >> uint(n), true
}

func fnIntBitNot(b *Bound, e *expr, r Row) val {
	x, ok := toInt64(b.arg(e, &r, 0))
	if !ok {
		return undef
	}
	return numVal(float64(^x))
}
