package query

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// convertFuncs are the conversions between strings and other values.
var convertFuncs = []*funcDef{
	{"TOSTRING", 1, 1, fnToString},
	{"STRINGTOARRAY", 1, 1, parseAs(Array)},
	{"STRINGTOBOOLEAN", 1, 1, parseAs(Bool)},
	{"STRINGTONULL", 1, 1, parseAs(Null)},
	{"STRINGTONUMBER", 1, 1, parseAs(Number)},
	{"STRINGTOOBJECT", 1, 1, parseAs(Object)},
}

// fnToString is TOSTRING(x): a string as it is, a number as formatNumber
// writes it, true, false and null by name, an array or an object as its
// compact JSON text; undefined stays undefined.
func fnToString(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	switch x.Kind {
	case String:
		return x
	case Number:
		return strVal(formatNumber(x.Num))
	case Bool:
		return strVal(strconv.FormatBool(x.Bool))
	case Null:
		return strVal("null")
	case Array, Object:
		return strVal(x.Raw)
	}
	return undef
}

// formatNumber writes f as the service's TOSTRING does: the fewest
// significant digits that read back as f, at least 15, laid out as C's %g
// with that precision P (an exponent when it is below -4 or at least P),
// the exponent of at least three digits; NaN, Infinity and -Infinity by
// name. The evidence: TOSTRING(125) is "125", TOSTRING(0.1234) "0.1234"
// (the sample corpus's tostring, which writes NaN and Infinity so too),
// and TOSTRING(2049537175849502700) "2.0495371758495027e+018" (the
// service's answer, recorded in the Cosmos .NET SDK's offline query
// engine, BuiltinFunctionEvaluator.cs). So 1e21 is "1e+021", 1e15
// "1e+015", 123456789012345 itself, and -0 "-0", as %g writes it.
func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	at := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[at+1:])
	digits := 0
	for _, c := range e[:at] {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if exp >= -4 && exp < max(15, digits) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	mant, sign, abs := e[:at], e[at+1], e[at+2:]
	for len(abs) < 3 {
		abs = "0" + abs
	}
	return mant + "e" + string(sign) + abs
}

// parseAs returns STRINGTOARRAY, STRINGTOBOOLEAN, STRINGTONULL,
// STRINGTONUMBER or STRINGTOOBJECT: the JSON value of kind k that the
// string argument holds, white space around it allowed; undefined for any
// other text (single quotes are no JSON: the sample corpus's
// stringtoarray, stringtoobject) and for an argument that is no string.
// Names are case-sensitive: "NULL" is no null (its stringtonull).
func parseAs(k Kind) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		x := b.arg(e, &r, 0)
		if x.Kind != String {
			return undef
		}
		text := strings.Trim(x.Str, " \t\r\n")
		switch k {
		case Null:
			if text == "null" {
				return val{Value: Value{Kind: Null}}
			}
		case Bool:
			if text == "true" || text == "false" {
				return boolVal(text == "true")
			}
		case Number:
			if isJSONNumber(text) {
				f, _ := strconv.ParseFloat(text, 64) // beyond float64: ±Inf, as FromJSON reads it
				return numVal(f)
			}
		case Array, Object:
			open := byte('[')
			if k == Object {
				open = '{'
			}
			if text == "" || text[0] != open || !json.Valid([]byte(text)) {
				return undef
			}
			var buf bytes.Buffer
			if json.Compact(&buf, []byte(text)) != nil {
				return undef
			}
			return rawVal(k, buf.String())
		}
		return undef
	}
}

// isJSONNumber reports whether s is a number as JSON writes them.
func isJSONNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	if n := digits(); n == 0 || n > 1 && s[start] == '0' {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
