package ttldb

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb/internal/jsonscan"
	"github.com/ttldb/ttldb/internal/jsontext"
)

// PartitionKey is a partition-key value: a string, a number, a bool, JSON
// null, or "none" for documents that lack the partition-key path (R10).
// The zero value is "none". Documents are unique by (partition key, id).
//
// Numbers are compared as float64, so 1 and 1.0 are the same partition.
type PartitionKey struct {
	kind pkKind
	s    string
	f    float64
}

type pkKind uint8

// The kinds, in the order listings visit partitions.
const (
	pkNone pkKind = iota
	pkNull
	pkFalse
	pkTrue
	pkNumber
	pkString
)

// NoPartitionKey returns the "none" partition key of documents that lack the
// partition-key path. It equals the zero [PartitionKey].
func NoPartitionKey() PartitionKey { return PartitionKey{} }

// NullKey returns the partition key JSON null.
func NullKey() PartitionKey { return PartitionKey{kind: pkNull} }

// BoolKey returns a bool partition key.
func BoolKey(b bool) PartitionKey {
	if b {
		return PartitionKey{kind: pkTrue}
	}
	return PartitionKey{kind: pkFalse}
}

// NumberKey returns a number partition key. NaN and infinities are reported
// as [ErrInvalidPartitionKey] where the key is used.
func NumberKey(f float64) PartitionKey { return PartitionKey{kind: pkNumber, f: f} }

// StringKey returns a string partition key. A string that is not UTF-8 or is
// longer than [MaxPartitionKeyLength] bytes is reported as
// [ErrInvalidPartitionKey] where the key is used.
func StringKey(s string) PartitionKey { return PartitionKey{kind: pkString, s: s} }

// PartitionKeyOf converts a Go value: nil is JSON null; a bool, a string, a
// json.Number, or a value of any integer or floating-point type (named types
// such as `type TenantID string` too) becomes the matching key. Numbers
// become float64, as in JSON, so integers beyond 2^53 lose precision. Any
// other type is an error wrapping [ErrInvalidPartitionKey], as is a number
// that is not finite and a string of R10's wrong kind.
func PartitionKeyOf(v any) (PartitionKey, error) {
	var k PartitionKey
	if n, ok := v.(json.Number); ok {
		// JSON's grammar first: strconv would also take "0x1p4" and "Inf".
		f, err := strconv.ParseFloat(string(n), 64)
		if !jsonscan.IsNumber([]byte(n)) || err != nil {
			return PartitionKey{}, errorf(ErrInvalidPartitionKey, "partition key %q is not a finite number", string(n))
		}
		k = NumberKey(f)
		return k, k.validate() // NaN and Inf parse
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Invalid: // nil
		k = NullKey()
	case reflect.Bool:
		k = BoolKey(rv.Bool())
	case reflect.String:
		k = StringKey(rv.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		k = NumberKey(float64(rv.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		k = NumberKey(float64(rv.Uint()))
	case reflect.Float32, reflect.Float64:
		k = NumberKey(rv.Float())
	default:
		return PartitionKey{}, errorf(ErrInvalidPartitionKey, "partition key of type %T: want a string, number, bool or nil (R10)", v)
	}
	return k, k.validate()
}

// IsNone reports whether k is the "none" partition key.
func (k PartitionKey) IsNone() bool { return k.kind == pkNone }

// Value returns the key as a Go value: nil for JSON null, a bool, a float64
// or a string. ok is false for "none".
func (k PartitionKey) Value() (v any, ok bool) {
	switch k.kind {
	case pkNull:
		return nil, true
	case pkFalse:
		return false, true
	case pkTrue:
		return true, true
	case pkNumber:
		return k.f, true
	case pkString:
		return k.s, true
	}
	return nil, false
}

// String returns the key as JSON (`"c1"`, `42`, `true`, `null`), or "none".
func (k PartitionKey) String() string {
	switch k.kind {
	case pkNone:
		return "none"
	case pkString:
		return strconv.Quote(k.s)
	case pkNumber:
		return strconv.FormatFloat(k.f, 'g', -1, 64)
	case pkNull:
		return "null"
	}
	return strconv.FormatBool(k.kind == pkTrue)
}

// validate applies R10 to a key built in Go.
func (k PartitionKey) validate() error {
	switch k.kind {
	case pkNone, pkNull, pkFalse, pkTrue:
		return nil
	case pkNumber:
		if math.IsNaN(k.f) || math.IsInf(k.f, 0) {
			return errorf(ErrInvalidPartitionKey, "partition key %v is not a finite number (R10)", k.f)
		}
		return nil
	case pkString:
		if len(k.s) > MaxPartitionKeyLength {
			return errorf(ErrInvalidPartitionKey, "partition key %.40q... is %d bytes, at most %d are allowed (R10)", k.s, len(k.s), MaxPartitionKeyLength)
		}
		if !utf8.ValidString(k.s) {
			return errorf(ErrInvalidPartitionKey, "partition key %q is not valid UTF-8 (R10)", k.s)
		}
		return nil
	}
	return errorf(ErrInvalidPartitionKey, "partition key of unknown kind %d", k.kind)
}

// A document's key is its partition key, encoded so that the encoding is
// prefix-free and sorts like the values, followed by the id (in a collection
// partitioned by /id, the encoding alone: see keyFor). Keys compare as byte
// strings: by partition (none, null, false, true, numbers ascending, strings
// by bytes), then by id.
//
// The encoding: one kind byte; for numbers 8 bytes that sort like the
// float64; for strings the bytes with 0x00 written as 0x00 0xff, ended by
// 0x00 0x01.

// appendEncoded appends the encoding of k to b. k must be valid.
func (k PartitionKey) appendEncoded(b []byte) []byte {
	b = append(b, byte(k.kind)+1)
	switch k.kind {
	case pkNumber:
		f := k.f
		if f == 0 {
			f = 0 // -0 and 0 are one partition
		}
		bits := math.Float64bits(f)
		if bits>>63 == 1 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		b = binary.BigEndian.AppendUint64(b, bits)
	case pkString:
		b = appendEncodedString(b, k.s)
	}
	return b
}

// appendEncodedString appends the encoding of a string key's bytes.
func appendEncodedString[T string | []byte](b []byte, s T) []byte {
	i := 0
	for i < len(s) && s[i] != 0 {
		i++
	}
	b = append(b, s[:i]...) // in one copy: most keys hold no 0x00
	for ; i < len(s); i++ {
		b = append(b, s[i])
		if s[i] == 0 {
			b = append(b, 0xff)
		}
	}
	return append(b, 0, 1)
}

// decodePartitionKey reverses appendEncoded; enc is exactly one encoding.
func decodePartitionKey(enc string) (PartitionKey, bool) {
	if len(enc) == 0 || enc[0] == 0 || enc[0] > byte(pkString)+1 {
		return PartitionKey{}, false
	}
	kind := pkKind(enc[0] - 1)
	rest := enc[1:]
	switch kind {
	case pkNumber:
		if len(rest) != 8 {
			return PartitionKey{}, false
		}
		bits := binary.BigEndian.Uint64([]byte(rest))
		if bits>>63 == 1 {
			bits &^= 1 << 63
		} else {
			bits = ^bits
		}
		return NumberKey(math.Float64frombits(bits)), true
	case pkString:
		if !strings.HasSuffix(rest, "\x00\x01") {
			return PartitionKey{}, false
		}
		rest = rest[:len(rest)-2]
		if !strings.Contains(rest, "\x00") {
			return StringKey(rest), true
		}
		var b []byte
		for i := 0; i < len(rest); i++ {
			b = append(b, rest[i])
			if rest[i] == 0 {
				if i+1 >= len(rest) || rest[i+1] != 0xff {
					return PartitionKey{}, false
				}
				i++
			}
		}
		return StringKey(string(b)), true
	}
	return PartitionKey{kind: kind}, len(rest) == 0
}

// appendPartitionKeyJSON appends the encoding of the partition key whose
// compact, valid JSON is raw (nil: the path is absent, the "none" key) to b.
func appendPartitionKeyJSON(b, raw []byte) ([]byte, error) {
	if raw == nil {
		return NoPartitionKey().appendEncoded(b), nil
	}
	switch raw[0] {
	case '"':
		s, ok := jsontext.Unquote(raw)
		if !ok {
			return nil, errorf(ErrInvalidPartitionKey, "partition key %s holds a lone surrogate escape, which is not Unicode text (R10)", clip(raw))
		}
		if len(s) > MaxPartitionKeyLength {
			return nil, errorf(ErrInvalidPartitionKey, "partition key %.40q... is %d bytes, at most %d are allowed (R10)", s, len(s), MaxPartitionKeyLength)
		}
		return appendEncodedString(append(b, byte(pkString)+1), s), nil
	case 't':
		return BoolKey(true).appendEncoded(b), nil
	case 'f':
		return BoolKey(false).appendEncoded(b), nil
	case 'n':
		return NullKey().appendEncoded(b), nil
	case '{', '[':
		return nil, errorf(ErrInvalidPartitionKey, "partition key %s is a JSON %s: want a string, number, bool or null (R10)", clip(raw), jsontext.Kind(raw[0]))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil, errorf(ErrInvalidPartitionKey, "partition key %s is out of the range of a float64 (R10)", clip(raw))
	}
	return NumberKey(f).appendEncoded(b), nil
}
