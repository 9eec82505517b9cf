package query

import (
	"encoding/binary"
	"math"
	"strconv"
	"unsafe"

	"github.com/ttldb/ttldb/internal/jsontext"
)

// Kind is the type of a [Value], in the order ORDER BY sorts them (Cosmos):
// undefined < null < false < true < numbers < strings, then arrays and
// objects, which ORDER BY does not sort among themselves.
type Kind uint8

// The kinds, in sort order.
const (
	Undefined Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"undefined", "null", "boolean", "number", "string", "array", "object"}

// String returns the kind's name, as "number".
func (k Kind) String() string {
	if int(k) >= len(kindNames) {
		return "Kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Value is a JSON value, or undefined, as a query sees it. The zero Value
// is undefined.
type Value struct {
	Kind Kind
	Bool bool    // Bool
	Num  float64 // Number
	Str  string  // String: the text, unquoted
	Raw  string  // Array, Object: the compact JSON text
}

// FromJSON returns the value of raw, one compact, valid JSON value (as the
// collection stores them). ok is false for a string holding a lone
// surrogate escape, which is no Unicode text: it reads as undefined. It
// allocates only for a string with escapes.
func FromJSON(raw string) (v Value, ok bool) {
	if raw == "" {
		return Value{}, true
	}
	switch raw[0] {
	case 'n':
		return Value{Kind: Null}, true
	case 't':
		return Value{Kind: Bool, Bool: true}, true
	case 'f':
		return Value{Kind: Bool}, true
	case '"':
		s, ok := jsontext.Unquote(bytesOf(raw))
		if !ok {
			return Value{}, false
		}
		return Value{Kind: String, Str: stringOf(s)}, true
	case '[':
		return Value{Kind: Array, Raw: raw}, true
	case '{':
		return Value{Kind: Object, Raw: raw}, true
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !math.IsInf(f, 0) { // 1e400 is valid JSON, and reads as infinity
		return Value{}, false
	}
	return Value{Kind: Number, Num: f}, true
}

// The first byte of each kind's key: see AppendKey.
const (
	keyUndefined byte = 0x01 + iota
	keyNull
	keyFalse
	keyTrue
	keyNumber
	keyString
	keyArray
	keyObject
)

// AppendKey appends v's key: bytes whose order is the order ORDER BY sorts
// values in, and which no other value's key is a prefix of, so that a key
// followed by anything still sorts by the value first. Numbers that are
// equal (1 and 1.0, 0 and -0) have one key; strings sort by their bytes
// (ordinal); arrays and objects have one key per kind, as ORDER BY does not
// order them among themselves.
//
//	undefined 01; null 02; false 03; true 04
//	number    05, then the float64's bits, made to sort as numbers
//	string    06, then the bytes with 00 written 00 FF, then 00 01
//	array 07; object 08
func AppendKey(dst []byte, v Value) []byte {
	switch v.Kind {
	case Null:
		return append(dst, keyNull)
	case Bool:
		if v.Bool {
			return append(dst, keyTrue)
		}
		return append(dst, keyFalse)
	case Number:
		f := v.Num
		if f == 0 {
			f = 0 // -0 and 0 are one number
		}
		b := math.Float64bits(f)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		return binary.BigEndian.AppendUint64(append(dst, keyNumber), b)
	case String:
		dst = append(dst, keyString)
		return append(appendEscaped(dst, v.Str), 0x00, 0x01)
	case Array:
		return append(dst, keyArray)
	case Object:
		return append(dst, keyObject)
	}
	return append(dst, keyUndefined)
}

// appendEscaped appends s with every 00 byte written 00 FF.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0x00, 0xFF)
		} else {
			dst = append(dst, s[i])
		}
	}
	return dst
}

// AppendStringPrefixKey appends the key prefix every string starting with
// prefix has (for STARTSWITH).
func AppendStringPrefixKey(dst []byte, prefix string) []byte {
	return appendEscaped(append(dst, keyString), prefix)
}

// KindKey returns the key range [from, to) of every value of kind k.
func KindKey(k Kind) (from, to []byte) {
	b := keyUndefined + byte(k)
	switch {
	case k == Bool:
		return []byte{keyFalse}, []byte{keyTrue + 1}
	case k > Bool:
		b++
	}
	return []byte{b}, []byte{b + 1}
}

// PrefixEnd returns the least byte string greater than every string that
// starts with p, or nil when there is none (p is empty or all FF bytes).
func PrefixEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xFF {
			end := append([]byte(nil), p[:i+1]...)
			end[i]++
			return end
		}
	}
	return nil
}

// bytesOf and stringOf view a string as bytes and bytes as a string without
// a copy; the bytes are never written.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

func stringOf(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// IsKey reports whether b is the whole key of a value, as AppendKey writes
// it, rather than a part of one (as AppendStringPrefixKey's).
func IsKey(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	switch b[0] {
	case keyNumber:
		return len(b) == 9
	case keyString:
		for i := 1; i+1 < len(b); i++ {
			if b[i] != 0 {
				continue
			}
			if b[i+1] == 0x01 {
				return i+2 == len(b)
			}
			if b[i+1] != 0xFF {
				return false
			}
			i++
		}
		return false
	}
	return len(b) == 1 && b[0] >= keyUndefined && b[0] <= keyObject
}

// nonFinite turns e, a path whose name names no alias (none when noFrom),
// into the literal it spells, if it is NaN or Infinity (as JavaScript
// spells them, case and all: the samples' StringToNumber and ToString
// scripts use them without FROM), and reports whether it did.
func nonFinite(e *expr, alias string, noFrom bool) bool {
	if len(e.path) > 0 || !noFrom && e.root == alias {
		return false
	}
	var f float64
	switch e.root {
	case "NaN":
		f = math.NaN()
	case "Infinity":
		f = math.Inf(1)
	default:
		return false
	}
	*e = expr{kind: xLit, off: e.off, lit: val{Value: Value{Kind: Number, Num: f}}}
	return true
}
