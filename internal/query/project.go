package query

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendResult appends the result of a projection (SELECT VALUE or items)
// for r. It returns false, with dst as it was, when there is none: SELECT
// VALUE of undefined, or an aggregate. For SELECT * it appends the whole
// document, though the caller renders it itself (see Star), or FROM a path
// the value there. A subquery beyond a limit leaves its value undefined
// and sets r.Err, which the caller checks.
func (b *Bound) AppendResult(dst []byte, r Row) ([]byte, bool) { return b.project(b.q, dst, &r) }

// project appends the result of q's projection for r: q is the Bound's
// query or one of its subqueries.
func (b *Bound) project(q *Query, dst []byte, rp *Row) ([]byte, bool) {
	r := *rp
	if r.agg == nil && (len(q.aggs) > 0 || len(q.group) > 0) {
		return dst, false // a result of all the rows, or of a group's
	}
	switch q.sel {
	case selStar:
		if q.iter { // FROM x IN c.path: the element
			v := bindVal(&r, 1, nil)
			if v.Kind == Undefined {
				return dst, false
			}
			return appendVal(dst, v, &r), true
		}
		if len(q.from) > 0 { // FROM c.path: the value there
			v := pathVal(&r, q.from)
			if v.Kind == Undefined {
				return dst, false
			}
			return appendVal(dst, v, &r), true
		}
		return appendDoc(dst, &r), true
	case selValue:
		v := b.eval(q.items[0].e, &r)
		if v.Kind == Undefined {
			return dst, false
		}
		return appendVal(dst, v, &r), true
	case selItems:
		dst = append(dst, '{')
		first := true
		for _, it := range q.items {
			v := b.eval(it.e, &r)
			if v.Kind == Undefined {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(appendString(dst, it.name), ':')
			dst = appendVal(dst, v, &r)
		}
		return append(dst, '}'), true
	}
	return dst, false
}

// appendVal appends v, a defined value of r, as JSON: the text it was read
// from, if any.
func appendVal(dst []byte, v val, r *Row) []byte {
	switch {
	case v.root:
		return appendDoc(dst, r)
	case v.raw != "":
		return append(dst, v.raw...)
	}
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		return strconv.AppendBool(dst, v.Bool)
	case Number:
		return appendNumber(dst, v.Num)
	case String:
		return appendString(dst, v.Str)
	}
	return append(dst, v.Raw...)
}

// appendDoc appends r's document with its system properties, as SELECT *
// gives it: the body, with _ts and _etag added at its end.
func appendDoc(dst []byte, r *Row) []byte {
	body := r.Body
	if len(body) < 2 || body[len(body)-1] != '}' {
		return append(dst, body...) // no object: not a stored document
	}
	dst = append(dst, body[:len(body)-1]...)
	if len(body) > 2 {
		dst = append(dst, ',')
	}
	dst = strconv.AppendInt(append(dst, `"_ts":`...), r.TS, 10)
	dst = appendString(append(dst, `,"_etag":`...), r.ETag)
	return append(dst, '}')
}

// appendNumber appends f as encoding/json writes a float64: without an
// exponent from 1e-6 to 1e21, else with the shortest one. JSON has no
// infinity, nor NaN: those are written null.
func appendNumber(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-07 becomes e-7, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, as encoding/json writes it with
// HTML escaping off: control characters, U+2028 and U+2029 escaped, and
// invalid UTF-8 as U+FFFD.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, `\b`...)
			case '\f':
				dst = append(dst, `\f`...)
			case '\n':
				dst = append(dst, `\n`...)
			case '\r':
				dst = append(dst, `\r`...)
			case '\t':
				dst = append(dst, `\t`...)
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}
