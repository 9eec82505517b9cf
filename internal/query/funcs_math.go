package query

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// mathFuncs are the mathematical functions. Each takes numbers and is
// undefined for any other argument (null included: the sample corpus's
// floor, power, square). A result that is NaN or infinite is a number
// still (IS_FINITE_NUMBER(SQRT(-1)) is false, the sample corpus's
// is-finite-number), which a result writes as null.
var mathFuncs = []*funcDef{
	{"ABS", 1, 1, num1(math.Abs)},
	{"ACOS", 1, 1, num1(math.Acos)},
	{"ASIN", 1, 1, num1(math.Asin)},
	{"ATAN", 1, 1, num1(math.Atan)},
	{"ATN2", 2, 2, num2(math.Atan2)}, // ATN2(y, x): the sample corpus's atn2
	{"CEILING", 1, 1, num1(math.Ceil)},
	{"COS", 1, 1, num1(cos)},
	{"COT", 1, 1, num1(cot)},
	{"DEGREES", 1, 1, num1(func(x float64) float64 { return 180 / math.Pi * x })},
	{"EXP", 1, 1, num1(math.Exp)},
	{"FLOOR", 1, 1, num1(math.Floor)},
	{"LOG", 1, 2, fnLog},
	{"LOG10", 1, 1, num1(func(x float64) float64 { return logBase(x, 10) })},
	{"NUMBERBIN", 1, 2, fnNumberBin},
	{"PI", 0, 0, func(*Bound, *expr, Row) val { return numVal(math.Pi) }},
	{"POWER", 2, 2, num2(math.Pow)},
	{"RAND", 0, 0, func(*Bound, *expr, Row) val { return numVal(rand.Float64()) }}, // in [0, 1)
	{"RADIANS", 1, 1, num1(func(x float64) float64 { return math.Pi * x / 180 })},
	{"ROUND", 1, 1, num1(math.Round)}, // half away from zero: ROUND(2.5) is 3, ROUND(-2.5) -3
	{"SIGN", 1, 1, num1(signum)},
	{"SIN", 1, 1, num1(sin)},
	{"SQRT", 1, 1, num1(math.Sqrt)},
	{"SQUARE", 1, 1, num1(func(x float64) float64 { return x * x })},
	{"TAN", 1, 1, num1(tan)},
	{"TRUNC", 1, 1, num1(math.Trunc)},
}

// num1 returns the function of one number that is f.
func num1(f func(float64) float64) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		x := b.arg(e, &r, 0)
		if x.Kind != Number {
			return undef
		}
		return numVal(f(x.Num))
	}
}

// num2 returns the function of two numbers that is f.
func num2(f func(x, y float64) float64) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		x, y := b.arg(e, &r, 0), b.arg(e, &r, 1)
		if x.Kind != Number || y.Kind != Number {
			return undef
		}
		return numVal(f(x.Num, y.Num))
	}
}

// fnLog is LOG(x[, base]): the natural logarithm, or the logarithm to
// base.
func fnLog(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	if x.Kind != Number {
		return undef
	}
	if len(e.args) == 1 {
		return numVal(logBase(x.Num, math.E))
	}
	base := b.arg(e, &r, 1)
	if base.Kind != Number {
		return undef
	}
	return numVal(logBase(x.Num, base.Num))
}

// The logarithms are computed with 128 bits and rounded once, as the
// service's are: LOG10(5) is 0.6989700043360189 and LOG(2, 10)
// 0.3010299956639812 (the sample corpus's log10 and log-base), where Go's
// math.Log10(5) is 0.6989700043360187 and ln(2)/ln(10) 0.30102999566398114.

const logPrec = 128

var (
	bigLn2, _, _  = big.ParseFloat("0.69314718055994530941723212145817656807550013436025525412068000949339362196969471560586332699641868754200148102057068573", 10, logPrec, big.ToNearestEven)
	bigLn10, _, _ = big.ParseFloat("2.30258509299404568401799145468436420760110148862877297603332790096757260967735248023599720508959829834196778404228624863", 10, logPrec, big.ToNearestEven)
)

// logBase returns the logarithm of x to base (math.E: the natural one).
// Where x or base is not a finite positive number, or base is 1, it is
// what float64 arithmetic gives (NaN, ±Inf).
func logBase(x, base float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) || !(base > 0) || math.IsInf(base, 0) || base == 1 {
		return math.Log(x) / math.Log(base)
	}
	ln := bigLog(x)
	switch base {
	case math.E:
	case 10:
		ln.Quo(ln, bigLn10)
	default:
		ln.Quo(ln, bigLog(base))
	}
	f, _ := ln.Float64()
	return f
}

// bigLog returns ln(x), x finite and positive, to logPrec bits: with x =
// m·2^k, m in [1/√2, √2), ln(x) = k·ln(2) + 2·atanh(z), z = (m-1)/(m+1),
// |z| < 0.172, summed as z + z³/3 + z⁵/5... until a term no longer counts.
func bigLog(x float64) *big.Float {
	m, k := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m, k = m*2, k-1
	}
	newF := func() *big.Float { return new(big.Float).SetPrec(logPrec) }
	z := newF().SetFloat64(m - 1) // exact: m is within a factor 2 of 1
	den := newF().SetFloat64(m)
	z.Quo(z, den.Add(den, newF().SetInt64(1)))
	z2 := newF().Mul(z, z)
	sum, pow, term, n := newF().Set(z), newF().Set(z), newF(), newF()
	for i := int64(3); pow.Sign() != 0; i += 2 {
		pow.Mul(pow, z2)
		term.Quo(pow, n.SetInt64(i))
		if term.MantExp(nil) < sum.MantExp(nil)-logPrec-2 {
			break
		}
		sum.Add(sum, term)
	}
	sum.Mul(sum, n.SetInt64(2))
	return sum.Add(sum, n.SetInt64(int64(k)).Mul(n, bigLn2))
}

// fnNumberBin is NUMBERBIN(x[, size]): x rounded down to a multiple of
// size (1 when left out); undefined for a size of 0 (the Learn reference).
// A negative size rounds the other way: NUMBERBIN(37.752, -100) is 100.
func fnNumberBin(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	size := numVal(1)
	if len(e.args) == 2 {
		size = b.arg(e, &r, 1)
	}
	if x.Kind != Number || size.Kind != Number || size.Num == 0 {
		return undef
	}
	return numVal(math.Floor(x.Num/size.Num) * size.Num)
}

// signum is SIGN: -1, 0 or 1 (NaN for NaN).
func signum(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// The trigonometric functions reduce their argument by π/2 exactly (with
// 300 bits of π), then take the sine and cosine of the rest, and TAN and
// COT their quotient. Go's math.Tan is off by units of the last place
// where the service is not: TAN(PI()/2) is 16331239353195370 and
// TAN(124.1332) -24.80651023035602 in the sample corpus's tan, and
// math.Tan gives 16331239353195392 and -24.806510230356018.

var halfPi, _, _ = big.ParseFloat("1.5707963267948966192313216916397514420985846996875529104874722961539082031431044993140174126710585339910740432566411533", 10, 300, big.ToNearestEven)

// reduce returns r and k with x = k·π/2 + r, |r| ≤ π/4 (about), k taken
// modulo 4. It returns x itself for an x beyond 2^52 or not finite, whose
// reduction would need more digits of π than the 300 bits.
func reduce(x float64) (r float64, k int) {
	if math.Abs(x) <= math.Pi/4 || math.IsNaN(x) || math.Abs(x) > 1<<52 {
		return x, 0
	}
	n := math.Round(x / (math.Pi / 2))
	bx := new(big.Float).SetPrec(300).SetFloat64(x)
	bn := new(big.Float).SetPrec(300).SetFloat64(n)
	r, _ = bx.Sub(bx, bn.Mul(bn, halfPi)).Float64()
	return r, int(math.Mod(n, 4)+4) % 4
}

// sinCos returns the sine and cosine of x.
func sinCos(x float64) (s, c float64) {
	r, k := reduce(x)
	s, c = math.Sin(r), math.Cos(r)
	switch k {
	case 1:
		return c, -s
	case 2:
		return -s, -c
	case 3:
		return -c, s
	}
	return s, c
}

func sin(x float64) float64 { s, _ := sinCos(x); return s }

func cos(x float64) float64 { _, c := sinCos(x); return c }

func tan(x float64) float64 { s, c := sinCos(x); return s / c }

func cot(x float64) float64 { s, c := sinCos(x); return c / s }
