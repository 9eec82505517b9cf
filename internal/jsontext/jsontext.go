// Package jsontext reads compact, valid JSON text in place: the values a
// document's scanner has checked, and the documents the collection stores.
// Nothing in it allocates but Unquote of a literal with escapes.
package jsontext

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Clip shortens a text for an error message: its first 40 bytes, and "..."
// when there are more.
func Clip(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}

// Kind names the JSON type of a value from its first byte.
func Kind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// KeyIs reports whether the quoted JSON string key, as scanned, names name.
// A key that holds a lone surrogate escape names nothing.
func KeyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key[1:len(key)-1]) == name
	}
	s, ok := Unquote(key)
	return ok && string(s) == name
}

// Unquote decodes a valid JSON string literal. Literals without escapes
// decode to a slice of the input. ok is false when the literal holds a
// \u escape of a lone surrogate (as "\ud800"), which is valid JSON but no
// Unicode text: encoding/json would decode it as U+FFFD, so that "\ud800"
// and "\udc00" would read as one string.
func Unquote(lit []byte) (s []byte, ok bool) {
	body := lit[1 : len(lit)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return body, true
	}
	out := append(make([]byte, 0, len(body)), body[:i]...)
	for i < len(body) {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		e := body[i+1]
		i += 2
		if e != 'u' {
			out = append(out, unescaped[e])
			continue
		}
		r := rune(hex4(body[i:]))
		i += 4
		if utf16.IsSurrogate(r) {
			// A pair is a high surrogate escape followed by a low one.
			if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
				return nil, false
			}
			r = utf16.DecodeRune(r, rune(hex4(body[i+2:])))
			if r == unicode.ReplacementChar {
				return nil, false
			}
			i += 6
		}
		out = utf8.AppendRune(out, r)
	}
	return out, true
}

// unescaped maps the byte after a backslash to the byte it stands for.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads four hexadecimal digits, which the scanner has checked.
func hex4(b []byte) uint16 {
	var v uint16
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		v = v<<4 | uint16(c)
	}
	return v
}

// Member finds the value of member name in obj, a compact and valid JSON
// value. found is false when obj is not an object or has no such Member; dup
// is true when the Member appears more than once.
func Member(obj []byte, name string) (val []byte, found, dup bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return nil, false, false
	}
	i := 1
	for i < len(obj) && obj[i] != '}' {
		kEnd := Skip(obj, i)
		key := obj[i:kEnd]
		vEnd := Skip(obj, kEnd+1)
		if KeyIs(key, name) {
			if found {
				return nil, false, true
			}
			val, found = obj[kEnd+1:vEnd], true
		}
		i = vEnd
		if i < len(obj) && obj[i] == ',' {
			i++
		}
	}
	return val, found, false
}

// Skip returns the index just past the compact, valid JSON value that starts
// at b[i].
func Skip(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = Skip(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}
