package ttldb

import (
	"encoding/json"
	"strconv"
)

// MaxTTL is the largest number of seconds a DefaultTTL or a document ttl may
// hold: 2147483647, about 68 years (R1, R2).
const MaxTTL = 2147483647

// DefaultTTL is a collection's time-to-live setting, in one of the three
// states of rule R1:
//
//   - off (TTLOff, and the zero value): no document expires, whatever its
//     own ttl says, and the sweeper does nothing;
//   - on without a default (TTLNoDefault, "-1"): documents expire only when
//     their own ttl says so;
//   - n seconds (TTLSeconds(n), 1 <= n <= MaxTTL): documents expire n seconds
//     after their last write unless their own ttl overrides it.
//
// The states cannot be confused: there is no integer whose zero means both
// "off" and "0 seconds". A DefaultTTL built with TTLSeconds from a value
// outside R1 is refused with ErrInvalidTTL by NewCollection and SetDefaultTTL.
//
// In JSON a DefaultTTL is null (off), -1 or n, as in Cosmos DB's defaultTtl.
type DefaultTTL struct {
	on      bool
	seconds int64 // -1 or n when on; may hold an invalid value until validated
}

// TTLOff returns the "off" setting: no document expires. It equals the zero
// DefaultTTL.
func TTLOff() DefaultTTL { return DefaultTTL{} }

// TTLNoDefault returns the "-1" setting: TTL is on, and documents expire only
// when their own ttl is a number of seconds.
func TTLNoDefault() DefaultTTL { return DefaultTTL{on: true, seconds: -1} }

// TTLSeconds returns the setting "documents expire n seconds after their last
// write". n must be -1 (the same as TTLNoDefault) or from 1 to MaxTTL; any
// other value is reported as ErrInvalidTTL where the setting is used.
func TTLSeconds(n int64) DefaultTTL { return DefaultTTL{on: true, seconds: n} }

// Seconds reports the setting as Cosmos DB writes it: on is false for off;
// otherwise n is -1 or the number of seconds.
func (d DefaultTTL) Seconds() (n int64, on bool) { return d.seconds, d.on }

// String returns "off", "-1" or the number of seconds.
func (d DefaultTTL) String() string {
	if !d.on {
		return "off"
	}
	return strconv.FormatInt(d.seconds, 10)
}

// validate reports whether d is one of the three states of R1.
func (d DefaultTTL) validate() error {
	if !d.on || d.seconds == -1 || (d.seconds >= 1 && d.seconds <= MaxTTL) {
		return nil
	}
	return errorf(ErrInvalidTTL, "DefaultTTL %d is invalid: allowed are off, -1 (on, no default) or an integer from 1 to %d seconds (R1)", d.seconds, MaxTTL)
}

// MarshalJSON encodes d as null, -1 or n.
func (d DefaultTTL) MarshalJSON() ([]byte, error) {
	if !d.on {
		return []byte("null"), nil
	}
	if err := d.validate(); err != nil {
		return nil, err
	}
	return strconv.AppendInt(nil, d.seconds, 10), nil
}

// UnmarshalJSON decodes null (off), -1 or an integral number of seconds from
// 1 to MaxTTL. Any other value is an error wrapping ErrInvalidTTL, and d is
// left unchanged.
func (d *DefaultTTL) UnmarshalJSON(b []byte) error {
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return errorf(ErrInvalidTTL, "DefaultTTL %.40q is not JSON (R1): %v", b, err)
	}
	v, ok := parseTTLValue(raw)
	if !ok {
		return errorf(ErrInvalidTTL, "DefaultTTL %s is invalid: allowed are null (off), -1 (on, no default) or an integer from 1 to %d seconds (R1)", clip(raw), MaxTTL)
	}
	if v == ttlInherit {
		*d = TTLOff()
		return nil
	}
	*d = TTLSeconds(int64(v))
	return nil
}

// A document's ttl as stored: ttlInherit for absent or null, ttlNever for -1,
// or the number of seconds.
const (
	ttlInherit int32 = 0
	ttlNever   int32 = -1
)

// parseDocTTL validates the JSON value of a document's ttl member (R2). The
// value must be null, -1, or an integral number from 1 to MaxTTL.
func parseDocTTL[T string | []byte](id T, raw []byte) (int32, error) {
	v, ok := parseTTLValue(raw)
	if !ok {
		return 0, errorf(ErrInvalidTTL, "document %q: ttl %s is invalid: allowed are null or absent (inherit DefaultTTL), -1 (never expire) or an integer from 1 to %d seconds (R2)", id, clip(raw), MaxTTL)
	}
	return int32(v), nil
}

// parseTTLValue reads a compact JSON value that R1 and R2 both accept: null
// (returned as ttlInherit), or a number that is exactly an integer equal to
// -1 or from 1 to MaxTTL; ok is false for anything else. "10", "10.0" and "1e1" are all 10; "10.5",
// "2147483648", "0", strings, bools, objects and arrays are refused.
func parseTTLValue(raw []byte) (int32, bool) {
	if string(raw) == "null" {
		return ttlInherit, true
	}
	v, ok := exactInt(raw)
	if !ok || !(v == -1 || (v >= 1 && v <= MaxTTL)) {
		return 0, false
	}
	return int32(v), true
}

// exactInt returns the value of the JSON number literal raw when it is an
// integer whose magnitude fits in ten decimal digits, deciding exactly, with
// no floating point: "2147483647.0000000001" is not an integer.
func exactInt(raw []byte) (int64, bool) {
	i, neg := 0, false
	if i < len(raw) && raw[i] == '-' {
		neg, i = true, i+1
	}
	// The significant digits, integer and fraction parts together, and the
	// power of ten that scales them.
	var digits []byte
	var buf [32]byte
	scale := 0
	start := i
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	if i == start {
		return 0, false
	}
	digits = append(buf[:0], raw[start:i]...)
	if i < len(raw) && raw[i] == '.' {
		i++
		fs := i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		if i == fs {
			return 0, false
		}
		digits = append(digits, raw[fs:i]...)
		scale -= i - fs
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		eneg := false
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			eneg, i = raw[i] == '-', i+1
		}
		// An exponent beyond limit decides the answer whatever the digits
		// (out of range, or a fraction), so it is not read further.
		limit := len(raw) + 12
		es := i
		e := 0
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			if e < limit {
				e = e*10 + int(raw[i]-'0')
			}
			i++
		}
		if i == es {
			return 0, false
		}
		if eneg {
			e = -e
		}
		scale += e
	}
	if i != len(raw) {
		return 0, false
	}
	// Drop leading zeros; all zeros is the integer 0.
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0, true
	}
	// Trailing zeros raise the scale: "100e-2" is 1.
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		scale++
	}
	if scale < 0 || len(digits)+scale > 10 {
		return 0, false // a fraction, or more than ten digits
	}
	var v int64
	for _, c := range digits {
		v = v*10 + int64(c-'0')
	}
	for ; scale > 0; scale-- {
		v *= 10
	}
	if neg {
		v = -v
	}
	return v, true
}

// effectiveTTL is rule R3: the number of seconds after _ts at which a
// document with the given ttl expires under def, and whether it expires at
// all.
//
//	                 | DefaultTTL off | DefaultTTL -1 | DefaultTTL n
//	ttl absent/null  | never          | never         | after n
//	ttl -1           | never          | never         | never
//	ttl m            | never          | after m       | after m
func effectiveTTL(def DefaultTTL, ttl int32) (seconds int64, expires bool) {
	switch {
	case !def.on, ttl == ttlNever:
		return 0, false
	case ttl > 0:
		return int64(ttl), true
	case def.seconds > 0: // ttl inherits
		return def.seconds, true
	default:
		return 0, false
	}
}
