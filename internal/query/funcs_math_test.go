package query

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The mathematical functions, with the sample corpus's facts (R13).
func TestFuncsMath(t *testing.T) { // R13
	params := map[string]string{"inf": `1e400`}
	checkFuncs(t, []funcCase{
		// absolute-value
		{`ABS(-1)`, `1`}, {`ABS(0)`, `0`}, {`ABS(1)`, `1`},
		// arccosine, asin (whose query is ACOS's), atan, atn2
		{`ACOS(-1)`, `3.141592653589793`},
		{`ASIN(1)`, `1.5707963267948966`},
		{`ATAN(-45.01)`, `-1.5485826962062663`},
		{`ATN2(35.175643, 129.44)`, `0.265344532064832`},
		// ceiling, floor
		{`CEILING(123.45)`, `124`}, {`CEILING(-45.72)`, `-45`}, {`CEILING(0)`, `0`},
		{`FLOOR(62.6)`, `62`}, {`FLOOR(-145.12)`, `-146`}, {`FLOOR(0.2989)`, `0`}, {`FLOOR(0.0)`, `0`}, {`FLOOR(null)`, `-`},
		// cos, cot, sin, tan (PI()/2 written out: arithmetic is another
		// part of the language)
		{`COS(14.78)`, `-0.5994654261946543`},
		{`COT(124.1332)`, `-0.040311998371148884`},
		{`SIN(45.175643)`, `0.929607286611012`},
		{`TAN(1.5707963267948966)`, `16331239353195370`},
		{`TAN(124.1332)`, `-24.80651023035602`},
		{`SIN(0)`, `0`}, {`COS(0)`, `1`}, {`TAN(0.5)`, `0.5463024898437905`},
		{`SIN(-3.141592653589793)`, `-1.2246467991473532e-16`},
		{`IS_FINITE_NUMBER(COS(1e300))`, `true`}, // beyond the exact reduction: Go's math.Cos
		// degrees, radians
		{`DEGREES(1.5707963267948966)`, `90`}, {`DEGREES(3.141592653589793)`, `180`},
		{`DEGREES(4.71238898038469)`, `270`}, {`DEGREES(6.283185307179586)`, `360`},
		{`RADIANS(90)`, `1.5707963267948966`}, {`RADIANS(180)`, `3.141592653589793`},
		{`RADIANS(270)`, `4.71238898038469`}, {`RADIANS(360)`, `6.283185307179586`},
		// exp, log-base, log10
		{`EXP(0)`, `1`}, {`EXP(10)`, `22026.465794806718`}, {`EXP(20)`, `485165195.4097903`},
		{`LOG(5)`, `1.6094379124341003`}, {`LOG(2, 10)`, `0.3010299956639812`},
		{`LOG10(5)`, `0.6989700043360189`}, {`LOG10(2)`, `0.3010299956639812`}, {`LOG10(100)`, `2`},
		{`LOG(8, 2)`, `3`}, {`LOG(2, "10")`, `-`},
		// numberbin, numberbin-field (the Learn reference: a size of 0 is
		// undefined)
		{`NumberBin(37.752, -100)`, `100`}, {`NumberBin(37.752, 10)`, `30`},
		{`NumberBin(37.752, 1)`, `37`}, {`NumberBin(37.752, 0)`, `-`},
		{`NumberBin(37.752, 0.1)`, `37.7`}, {`NumberBin(37.752, 0.01)`, `37.75`},
		{`NumberBin(c.price, 0.01)`, `155.23`}, {`NumberBin(c.n)`, `37`}, {`NumberBin(c.n, null)`, `-`},
		// pi, power, round, sign, sqrt, square, trunc
		{`PI()`, `3.141592653589793`},
		{`RAND() >= 0 AND RAND() < 1 AND IS_NUMBER(RAND())`, `true`}, // rand: no fixed value
		{`POWER(1, 1)`, `1`}, {`POWER(2, 2)`, `4`}, {`POWER(3, 3)`, `27`}, {`POWER(4, 4)`, `256`},
		{`POWER(5, 5)`, `3125`}, {`POWER(0, 2)`, `0`}, {`POWER(null, 3)`, `-`}, {`POWER(2, null)`, `-`},
		{`ROUND(2.4)`, `2`}, {`ROUND(2.6)`, `3`}, {`ROUND(2.5)`, `3`}, {`ROUND(-2.4)`, `-2`}, {`ROUND(-2.6)`, `-3`},
		{`ROUND(c.neg)`, `-3`},
		{`SIGN(-2)`, `-1`}, {`SIGN(-1)`, `-1`}, {`SIGN(0)`, `0`}, {`SIGN(1)`, `1`}, {`SIGN(2)`, `1`},
		{`SQRT(0)`, `0`}, {`SQRT(1)`, `1`}, {`SQRT(4)`, `2`}, {`SQRT(17)`, `4.123105625617661`}, {`SQRT(25)`, `5`},
		{`SQUARE(0)`, `0`}, {`SQUARE(1)`, `1`}, {`SQUARE(2)`, `4`}, {`SQUARE(3)`, `9`}, {`SQUARE(null)`, `-`},
		{`TRUNC(2.37)`, `2`}, {`TRUNC(-2.78)`, `-2`}, {`TRUNC(2)`, `2`}, {`TRUNC(0.0000714)`, `0`}, {`TRUNC(PI())`, `3`},
		// Other kinds are undefined; NaN and infinite results are numbers,
		// written null.
		{`ABS("1")`, `-`}, {`ABS(c.missing)`, `-`}, {`SIN(true)`, `-`}, {`ATN2(1, [1])`, `-`},
		{`SQRT(-1)`, `null`}, {`IS_NUMBER(SQRT(-1))`, `true`}, {`EXP(@inf)`, `null`},
		{`SIN(@inf)`, `null`},
	}, params)
}

// The functions of 64-bit integers, with the sample corpus's facts (R13).
func TestFuncsInt(t *testing.T) { // R13
	checkFuncs(t, []funcCase{
		// intadd, intsub, intmul
		{`IntAdd(20, 10)`, `30`}, {`IntAdd(20, 0)`, `20`}, {`IntAdd(20, 0.10)`, `-`},
		{`IntSub(25, 50)`, `-25`}, {`IntSub(25, 15)`, `10`}, {`IntSub(25, 25)`, `0`},
		{`IntSub(25, 0)`, `25`}, {`IntSub(25, 2.5)`, `-`},
		{`IntMul(5, 2)`, `10`}, {`IntMul(5, -2)`, `-10`}, {`IntMul(-5, -2)`, `10`}, {`IntMul(5, 5)`, `25`},
		{`IntMul(5, IntMul(5, 5))`, `125`}, {`IntMul(5, 0)`, `0`}, {`IntMul(5, 0.5)`, `-`},
		// intdiv, intmod
		{`IntDiv(10, 2)`, `5`}, {`IntDiv(10, -2)`, `-5`}, {`IntDiv(-10, -2)`, `5`}, {`IntDiv(10, 10)`, `1`},
		{`IntDiv(10, 0)`, `-`}, {`IntDiv(10, 0.1)`, `-`}, {`IntDiv(7, 2)`, `3`}, {`IntDiv(-7, 2)`, `-3`},
		{`IntMod(12, 5)`, `2`}, {`IntMod(12, -5)`, `2`}, {`IntMod(-12, -5)`, `-2`}, {`IntMod(15, 5)`, `0`},
		{`IntMod(12, 0)`, `-`}, {`IntMod(12, 0.2)`, `-`},
		// intbitand, intbitor, intbitxor, intbitnot, intbitleftshift,
		// intbitrightshift (not validated against the emulator by the
		// corpus, but given with the Learn reference)
		{`IntBitAnd(15, 25)`, `9`}, {`IntBitAnd(15, 0)`, `0`}, {`IntBitAnd(15, 15)`, `15`}, {`IntBitAnd(15, 1.5)`, `-`},
		{`IntBitOr(56, 100)`, `124`}, {`IntBitOr(56, 56)`, `56`}, {`IntBitOr(56, 0)`, `56`}, {`IntBitOr(56, 0.1)`, `-`},
		{`IntBitXor(56, 100)`, `92`}, {`IntBitXor(56, 56)`, `0`}, {`IntBitXor(56, 0)`, `56`}, {`IntBitXor(56, 0.1)`, `-`},
		{`IntBitNot(65)`, `-66`}, {`IntBitNot(0)`, `-1`}, {`IntBitNot(0.1)`, `-`},
		{`IntBitLeftShift(16, 4)`, `256`}, {`IntBitLeftShift(16, 0.4)`, `-`},
		{`IntBitRightShift(16, 4)`, `1`}, {`IntBitRightShift(16, 0.4)`, `-`},
		// Edges: shifts out of range, overflow wraps, other kinds.
		{`IntBitLeftShift(1, -1)`, `-`}, {`IntBitLeftShift(1, 64)`, `0`}, {`IntBitLeftShift(1, 62)`, `4611686018427388000`},
		{`IntBitRightShift(-16, 2)`, `-4`}, {`IntBitRightShift(-16, 100)`, `-1`}, {`IntBitRightShift(1, -1)`, `-`},
		// Results are float64, written as encoding/json does (2^62 is
		// 4611686018427387904, -2^63 -9223372036854775808).
		{`IntAdd(9223372036854775807, 1)`, `-9223372036854776000`},
		{`IntDiv(-9223372036854775808, -1)`, `-9223372036854776000`},
		{`IntAdd(18446744073709551615, 1)`, `-`}, {`IntAdd("1", 1)`, `-`}, {`IntAdd(null, 1)`, `-`},
	}, nil)
}

// The logarithms are within a unit of the last place of Go's, exact at
// powers of 10 and of 2 (R13).
func TestLogBase(t *testing.T) { // R13
	r := rand.New(rand.NewPCG(1, 2))
	ulps := func(a, b float64) uint64 {
		x, y := math.Float64bits(a), math.Float64bits(b)
		if x > y {
			return x - y
		}
		return y - x
	}
	for range 20000 {
		x := math.Exp(r.Float64()*1400 - 700)
		require.LessOrEqual(t, ulps(logBase(x, 10), math.Log10(x)), uint64(1), "LOG10(%v)", x)
		require.LessOrEqual(t, ulps(logBase(x, math.E), math.Log(x)), uint64(1), "LOG(%v)", x)
	}
	for k := -300; k <= 300; k++ {
		require.Equal(t, float64(k), logBase(math.Pow(10, float64(k)), 10), "LOG10(1e%d)", k)
		require.Equal(t, float64(k), logBase(math.Ldexp(1, k), 2), "LOG(2^%d, 2)", k)
	}
	require.True(t, math.IsInf(logBase(0, 10), -1))
	require.True(t, math.IsNaN(logBase(-1, 10)))
	require.True(t, math.IsNaN(logBase(2, 1)) || math.IsInf(logBase(2, 1), 0))
}
