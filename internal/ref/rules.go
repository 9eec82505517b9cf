package ref

// Oracles of R1, R2 and R10 from the text of SPEC.md: ids, partition-key
// strings, the value of a ttl.

import (
	"math/big"
	"regexp"
	"strings"
	"unicode/utf8"
)

// IDOK is R10 for ids: non-empty, at most 1023 bytes, UTF-8, without '/',
// '\', '?', '#' or control characters (U+0000-U+001F, U+007F-U+009F).
func IDOK(id string) bool {
	if id == "" || len(id) > 1023 || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if r == '/' || r == '\\' || r == '?' || r == '#' || r <= 0x1f || (r >= 0x7f && r <= 0x9f) {
			return false
		}
	}
	return true
}

// PKStringOK is R10 for a string partition key.
func PKStringOK(s string) bool { return len(s) <= 2048 && utf8.ValidString(s) }

// number is a JSON number, its integer part, fraction and exponent apart.
var number = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// ttlOracle is R1/R2 for a JSON value given as its text (no surrounding
// space): null (inherit: 0, true), or a JSON number that is exactly an
// integer equal to -1 or from 1 to 2147483647. It decides with math/big,
// never with floating point and without the library's exactInt.
func ttlOracle(lit string) (int64, bool) {
	if lit == "null" {
		return 0, true
	}
	m := number.FindStringSubmatch(lit)
	if m == nil {
		return 0, false
	}
	// The value is mant * 10^k, mant the significant digits.
	frac := strings.TrimPrefix(m[2], ".")
	k := big.NewInt(0)
	if m[3] != "" {
		if _, ok := k.SetString(strings.TrimPrefix(m[3][1:], "+"), 10); !ok {
			panic("exponent " + m[3])
		}
	}
	k.Sub(k, big.NewInt(int64(len(frac))))
	mant := strings.TrimLeft(m[1]+frac, "0")
	if mant == "" {
		return 0, false // zero
	}
	n := int64(len(mant))
	// 10^(n-1) <= mant < 10^n, so |value| >= 10^(n-1+k) >= 10^k, and
	// |value| < 10^(n+k): decide the far-out cases without big powers
	// (big.Rat.SetString refuses exponents beyond a million).
	if k.Cmp(big.NewInt(10)) > 0 {
		return 0, false // |value| >= 1e11
	}
	if new(big.Int).Add(k, big.NewInt(n)).Sign() <= 0 {
		return 0, false // 0 < |value| < 1
	}
	var r big.Rat
	if _, ok := r.SetString(lit); !ok {
		// Only for more than a million significant digits: build the
		// value from its parts.
		num, _ := new(big.Int).SetString(mant, 10)
		p := new(big.Int).Exp(big.NewInt(10), new(big.Int).Abs(k), nil)
		if k.Sign() >= 0 {
			r.SetInt(num.Mul(num, p))
		} else {
			r.SetFrac(num, p)
		}
		if lit[0] == '-' {
			r.Neg(&r)
		}
	}
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	v := r.Num().Int64()
	if v == -1 || (v >= 1 && v <= 2147483647) {
		return v, true
	}
	return 0, false
}
