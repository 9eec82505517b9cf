package patch

import (
	"github.com/ttldb/ttldb/internal/jsontext"
)

// value is a JSON value on a patch's way: its compact text, until an
// operation needs its members or elements, then those.
type value struct {
	raw   []byte   // the text; nil once opened
	kind  byte     // '{' or '[' once opened
	names [][]byte // an object's member names, quoted as in the text
	kids  []value  // its members' values, or an array's elements
}

// open takes v apart into its members or elements, if it is an object or
// an array, and reports whether it is one. It counts them first, to
// allocate their slices once.
func (v *value) open() bool {
	if v.raw == nil {
		return true
	}
	b := v.raw
	if b[0] != '{' && b[0] != '[' {
		return false
	}
	n := 0
	for i := 1; b[i] != '}' && b[i] != ']'; n++ {
		if b[0] == '{' {
			i = jsontext.Skip(b, i) + 1 // past the name and the ':'
		}
		if i = jsontext.Skip(b, i); b[i] == ',' {
			i++
		}
	}
	v.kind, v.kids = b[0], make([]value, 0, n)
	if v.kind == '{' {
		v.names = make([][]byte, 0, n)
	}
	for i := 1; b[i] != '}' && b[i] != ']'; {
		if v.kind == '{' {
			end := jsontext.Skip(b, i)
			v.names = append(v.names, b[i:end])
			i = end + 1
		}
		end := jsontext.Skip(b, i)
		v.kids = append(v.kids, value{raw: b[i:end]})
		if i = end; b[i] == ',' {
			i++
		}
	}
	v.raw = nil
	return true
}

// what names v's JSON type, with its article: "a string", "an object".
func (v *value) what() string {
	c := v.kind
	if v.raw != nil {
		c = v.raw[0]
	}
	if c == '{' || c == '[' {
		return "an " + jsontext.Kind(c)
	}
	return "a " + jsontext.Kind(c)
}

// append appends v's compact text to dst.
func (v *value) append(dst []byte) []byte {
	if v.raw != nil {
		return append(dst, v.raw...)
	}
	dst = append(dst, v.kind)
	for i, kid := range v.kids {
		if i > 0 {
			dst = append(dst, ',')
		}
		if v.kind == '{' {
			dst = append(dst, v.names[i]...)
			dst = append(dst, ':')
		}
		dst = kid.append(dst)
	}
	if v.kind == '{' {
		return append(dst, '}')
	}
	return append(dst, ']')
}

// appendQuoted appends s, valid UTF-8, as a JSON string.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
