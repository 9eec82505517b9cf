package ttldb

import (
	"bytes"
	"encoding/json"
)

// kindOf names the JSON type of a value from its first byte.
func kindOf(c byte) string {
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

// keyIs reports whether the quoted JSON string key, as scanned, names name.
func keyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key[1:len(key)-1]) == name
	}
	return string(unquote(key)) == name
}

// unquote decodes a valid JSON string literal. Literals without escapes
// decode to a slice of the input.
func unquote(lit []byte) []byte {
	if bytes.IndexByte(lit, '\\') < 0 {
		return lit[1 : len(lit)-1]
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return nil // unreachable for scanned input
	}
	return []byte(s)
}

// member finds the value of member name in obj, a compact and valid JSON
// value. found is false when obj is not an object or has no such member; dup
// is true when the member appears more than once.
func member(obj []byte, name string) (val []byte, found, dup bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return nil, false, false
	}
	i := 1
	for i < len(obj) && obj[i] != '}' {
		kEnd := skip(obj, i)
		key := obj[i:kEnd]
		vEnd := skip(obj, kEnd+1)
		if keyIs(key, name) {
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

// skip returns the index just past the compact, valid JSON value that starts
// at b[i].
func skip(b []byte, i int) int {
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
				i = skip(b, i) - 1
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
