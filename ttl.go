package ttldb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/jsonscan"
)

// MaxTTL is the largest number of seconds a [DefaultTTL] or a document ttl may
// hold: 2147483647, about 68 years (R1, R2).
const MaxTTL = 2147483647

// DefaultTTL is a collection's time-to-live setting, in one of the three
// states of rule R1:
//
//   - off (TTLOff, and the zero value): no document expires, whatever its
//     own ttl says, and the sweeper does nothing;
//   - on without a default (TTLNoDefault, "-1"): documents expire only when
//     their own ttl says so;
//   - n seconds (TTLSeconds(n) or TTLDuration(n*time.Second),
//     1 <= n <= MaxTTL): documents expire n seconds after their last write
//     unless their own ttl overrides it.
//
// The states cannot be confused: there is no integer whose zero means both
// "off" and "0 seconds". A [DefaultTTL] built from a value outside R1 is
// refused with [ErrInvalidTTL] by [NewCollection] and SetDefaultTTL, with a hint
// when the value looks like a mistake of unit (nanoseconds for seconds).
//
// In JSON a [DefaultTTL] is null (off), -1 or n, as in Cosmos DB's defaultTtl.
// [DefaultTTL] values are comparable with ==.
type DefaultTTL struct {
	on      bool
	seconds int64         // -1 or n when on; may hold an invalid value until validated
	dur     time.Duration // TTLDuration's argument when it is not a valid setting, for the error
	fromDur bool          // built by TTLDuration from an invalid duration
}

// TTLOff returns the "off" setting: no document expires. It equals the zero
// [DefaultTTL].
func TTLOff() DefaultTTL { return DefaultTTL{} }

// TTLNoDefault returns the "-1" setting: TTL is on, and documents expire only
// when their own ttl is a number of seconds.
func TTLNoDefault() DefaultTTL { return DefaultTTL{on: true, seconds: -1} }

// TTLSeconds returns the setting "documents expire n seconds after their last
// write". n must be -1 (the same as [TTLNoDefault]) or from 1 to [MaxTTL]; any
// other value is reported as [ErrInvalidTTL] where the setting is used.
func TTLSeconds(n int64) DefaultTTL { return DefaultTTL{on: true, seconds: n} }

// TTLDuration returns the setting "documents expire d after their last
// write", for d a whole number of seconds from 1s to [MaxTTL] seconds:
// TTLDuration(30*time.Minute) equals TTLSeconds(1800). TTL counts whole
// seconds (R4), so any other d (1500*time.Millisecond, 0, a negative d) is
// reported as [ErrInvalidTTL] where the setting is used. For "no default" use
// [TTLNoDefault], for off [TTLOff].
func TTLDuration(d time.Duration) DefaultTTL {
	if n := int64(d / time.Second); d%time.Second == 0 && n >= 1 && n <= MaxTTL {
		return TTLSeconds(n)
	}
	return DefaultTTL{on: true, dur: d, fromDur: true}
}

// Seconds reports the setting as Cosmos DB writes it: on is false for off;
// otherwise n is -1 or the number of seconds.
func (d DefaultTTL) Seconds() (n int64, on bool) { return d.seconds, d.on }

// Duration reports the setting "n seconds" as a time.Duration, with ok
// true; ok is false for off and for -1, under which no default applies.
func (d DefaultTTL) Duration() (ttl time.Duration, ok bool) {
	if !d.on || d.seconds < 1 || d.fromDur {
		return 0, false
	}
	return time.Duration(d.seconds) * time.Second, true
}

// String returns "off", "-1" or the number of seconds.
func (d DefaultTTL) String() string {
	switch {
	case !d.on:
		return "off"
	case d.fromDur:
		return d.dur.String()
	}
	return strconv.FormatInt(d.seconds, 10)
}

// validate reports whether d is one of the three states of R1.
func (d DefaultTTL) validate() error {
	switch {
	case d.fromDur && d.dur%time.Second != 0:
		return errorf(ErrInvalidTTL, "DefaultTTL %v is not a whole number of seconds: TTL counts whole seconds (R1)", d.dur)
	case d.fromDur && d.dur <= 0:
		return errorf(ErrInvalidTTL, "DefaultTTL %v is invalid: TTLDuration takes 1s to %ds; for \"on, no default\" use TTLNoDefault, for off TTLOff (R1)", d.dur, MaxTTL)
	case d.fromDur:
		return errorf(ErrInvalidTTL, "DefaultTTL %v is over the most, %ds (about 68 years) (R1)", d.dur, MaxTTL)
	case !d.on || d.seconds == -1 || (d.seconds >= 1 && d.seconds <= MaxTTL):
		return nil
	}
	return errorf(ErrInvalidTTL, "DefaultTTL %d is invalid: allowed are off, -1 (on, no default) or an integer from 1 to %d seconds (R1)%s", d.seconds, MaxTTL, unitHint(d.seconds))
}

// unitHint explains a number of seconds over [MaxTTL] that looks like a
// time.Duration, which counts nanoseconds, or a count of milliseconds.
func unitHint(n int64) string {
	switch {
	case n <= MaxTTL:
		return ""
	case n%int64(time.Second) == 0:
		return fmt.Sprintf("; %d looks like a time.Duration in nanoseconds (%v): TTL counts seconds, so use TTLDuration(%v) or %d", n, time.Duration(n), time.Duration(n), n/int64(time.Second))
	case n%1000 == 0 && n/1000 <= MaxTTL:
		return fmt.Sprintf("; %d looks like milliseconds: TTL counts seconds (%d)", n, n/1000)
	}
	return ""
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
// 1 to [MaxTTL]. Any other value is an error wrapping [ErrInvalidTTL], and d is
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
	ttlInherit = engine.TTLInherit
	ttlNever   = engine.TTLNever
)

// parseDocTTL validates the JSON value of a document's ttl member (R2). The
// value must be null, -1, or an integral number from 1 to [MaxTTL].
func parseDocTTL[T string | []byte](id T, raw []byte) (int32, error) {
	v, ok := parseTTLValue(raw)
	if !ok {
		hint := ""
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			hint = unitHint(n)
		}
		return 0, errorf(ErrInvalidTTL, "document %q: ttl %s is invalid: allowed are null or absent (inherit DefaultTTL), -1 (never expire) or an integer from 1 to %d seconds (R2)%s", id, clip(raw), MaxTTL, hint)
	}
	return int32(v), nil
}

// parseTTLValue reads a compact JSON value that R1 and R2 both accept: null
// (returned as ttlInherit), or a number that is exactly an integer equal to
// -1 or from 1 to [MaxTTL]; ok is false for anything else. "10", "10.0" and
// "1e1" are all 10; "10.5", "2147483648", "0", strings, bools, objects and
// arrays are refused.
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
// integer of at most ten decimal digits, decided exactly, with no floating
// point: "10", "10.0", "1e1" and "100e-1" are 10; "2147483647.0000000001" is
// not an integer. Anything but a JSON number gives ok false.
func exactInt(raw []byte) (int64, bool) {
	const most = 9_999_999_999
	if n := len(raw); n > 0 && n <= 10 && raw[0] >= '1' && raw[0] <= '9' {
		// The commonest form, up to ten plain digits: read here.
		v := int64(0)
		for _, c := range raw {
			if c < '0' || c > '9' {
				v = -1
				break
			}
			v = v*10 + int64(c-'0')
		}
		if v >= 0 {
			return v, true
		}
	}
	if d := bytes.TrimPrefix(raw, []byte("-")); len(raw) <= 11 && len(d) > 0 && (d[0] != '0' || len(d) == 1) && d[0] != '+' {
		// The other plain forms (signed, a lone zero, eleven bytes):
		// strconv alone.
		if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return v, v >= -most && v <= most
		}
	}
	if !jsonscan.IsNumber(raw) {
		return 0, false // not a JSON number
	}
	// The long form: a fraction, an exponent or many digits. The value is
	// digits * 10^scale; once the zeros that carry no value are trimmed, an
	// integer of ten digits has at most ten left, which strconv reads.
	lit := string(raw)
	neg := strings.HasPrefix(lit, "-")
	mant, exp, hasExp := strings.Cut(strings.TrimPrefix(lit, "-"), "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(mant, "E")
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, true // zero, however written
	}
	sig := strings.TrimRight(digits, "0")
	if len(sig) > 10 {
		return 0, false // a fraction, or more than ten digits
	}
	scale := len(digits) - len(sig) - len(frac)
	if hasExp {
		// An exponent further out than the literal is long leaves a value
		// that is no integer of ten digits, whatever the digits.
		e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
		if err != nil || e > len(lit)+10 || e < -len(lit)-10 {
			return 0, false
		}
		scale += e
	}
	if scale < 0 || len(sig)+scale > 10 {
		return 0, false
	}
	v, _ := strconv.ParseInt(sig+strings.Repeat("0", scale), 10, 64) // at most ten digits
	if neg {
		v = -v
	}
	return v, true
}

// engine returns d as an engine holds it; d is valid (R1).
func (d DefaultTTL) engine() engine.DefaultTTL {
	return engine.DefaultTTL{On: d.on, Seconds: d.seconds}
}

// defaultTTLOf returns the DefaultTTL an engine holds as d.
func defaultTTLOf(d engine.DefaultTTL) DefaultTTL {
	return DefaultTTL{on: d.On, seconds: d.Seconds}
}
