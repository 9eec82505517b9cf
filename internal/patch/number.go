package patch

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Number is the amount of an Incr: an integer, or a float when IsFloat.
type Number struct {
	Int     int64
	Float   float64
	IsFloat bool
}

func (n Number) String() string { return string(n.append(nil)) }

// append appends n as JSON.
func (n Number) append(dst []byte) []byte {
	if n.IsFloat {
		return appendFloat(dst, n.Float)
	}
	return strconv.AppendInt(dst, n.Int, 10)
}

// add returns the text of v, which must be a number, plus by. Two integers
// add as integers, exactly; an integer or a sum out of int64's range is an
// error, never rounded. Any other pair adds as float64, and a sum that is
// not finite is an error.
func add(v *value, by Number) ([]byte, error) {
	raw := v.raw
	if raw == nil || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil, fmt.Errorf("is %s, not a number: incr adds only to numbers", v.what())
	}
	if !by.IsFloat && isInteger(raw) {
		x, err := strconv.ParseInt(string(raw), 10, 64)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%.40s is an integer beyond the range of a 64-bit integer: an integer incr would round it (PatchIncrementFloat adds as float64)", raw)
		case (by.Int > 0 && x > math.MaxInt64-by.Int) || (by.Int < 0 && x < math.MinInt64-by.Int):
			return nil, fmt.Errorf("%s + %d is out of the range of a 64-bit integer", raw, by.Int)
		}
		return strconv.AppendInt(nil, x+by.Int, 10), nil
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("number %s: %w", raw, err)
	}
	d := by.Float
	if !by.IsFloat {
		d = float64(by.Int)
	}
	sum := x + d
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return nil, fmt.Errorf("%s + %v is beyond the range of a 64-bit float", raw, by)
	}
	return appendFloat(nil, sum), nil
}

// isInteger reports whether the number text raw has neither a fraction
// nor an exponent.
func isInteger(raw []byte) bool {
	for _, c := range raw {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// appendFloat appends f, finite, in the shortest form that reads back as
// f, as encoding/json writes it: plain digits between 1e-6 and 1e21, an
// exponent outside.
func appendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' { // 1e-07 is written 1e-7
		if m := len(dst) - n; m >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}
