package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// JSON's tokens at the level of bytes, which the scanner (scan.go) and
// its fast path (fast.go) share: runs of plain string bytes, numbers
// and literals. Each takes the text and a position and returns a position,
// so that a caller can keep its own in a register.

// plainEnd returns the index of the first byte from src[i] on that a string
// does not hold as it is (see plain), or len(src): eight bytes at a time
// (special8), then one at a time.
func plainEnd(src []byte, i int) int {
	for i+8 <= len(src) {
		if m := special8(binary.LittleEndian.Uint64(src[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(src) && plain[src[i]] {
		i++
	}
	return i
}

// strFault is what makes a string invalid, for stringEnd.
type strFault uint8

const (
	strOK        strFault = iota
	strUnclosed           // the text ends before the closing quote
	strBadEscape          // a backslash not followed by an escape
	strBadHex             // \u not followed by four hexadecimal digits
	strControl            // a control character, not escaped
	strBadUTF8            // bytes that are not UTF-8
)

// stringEnd scans the string whose opening quote is at src[i-1]: it
// returns the index just past its closing quote and whether it held an
// escape; or, with a fault, the index of the byte at fault (len(src) for
// an end too soon). Plain bytes go eight at a time (plainEnd).
func stringEnd(src []byte, i int) (end int, escaped bool, fault strFault) {
	for {
		if i = plainEnd(src, i); i >= len(src) {
			return i, escaped, strUnclosed
		}
		switch c := src[i]; {
		case c == '"':
			return i + 1, escaped, strOK
		case c == '\\':
			escaped = true
			if i++; i >= len(src) {
				return i, escaped, strBadEscape
			}
			switch src[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for range 4 {
					if i++; i >= len(src) || !isHex(src[i]) {
						return i, escaped, strBadHex
					}
				}
				i++
			default:
				return i, escaped, strBadEscape
			}
		case c < 0x20:
			return i, escaped, strControl
		default: // beyond ASCII: plainEnd passes the rest of it
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				return i, escaped, strBadUTF8
			}
			i += n
		}
	}
}

// special8 marks the bytes of x (little-endian) that are not plain: a
// quote, a backslash, a control character or a byte of a multi-byte
// character (the high bit), by the usual word-at-a-time tests. It returns
// zero when all eight are plain; otherwise the lowest byte whose high bit
// it sets is the first byte that is not plain (a borrow can mark a byte
// after it, never one before).
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^('"'*ones), x^('\\'*ones) // zero where x has one
	control := x - 0x20*ones                        // high bit where x has a byte below 0x20
	return (x | (control & ^x) | ((quote - ones) & ^quote) | ((backslash - ones) & ^backslash)) & highs
}

// plain marks the bytes a string holds as they are: ASCII, neither a
// control character, a quote nor a backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// numberEnd scans the JSON number that starts at src[i], i < len(src):
// it returns the index just past it, or, with ok false, the index where a
// digit was wanted.
func numberEnd(src []byte, i int) (end int, ok bool) {
	if src[i] == '-' {
		i++
	}
	if i < len(src) && src[i] == '0' {
		i++
	} else if j := digitsEnd(src, i); j > i {
		i = j
	} else {
		return i, false
	}
	if i < len(src) && src[i] == '.' {
		j := digitsEnd(src, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digitsEnd(src, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// IsNumber reports whether b is exactly one JSON number.
func IsNumber(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	end, ok := numberEnd(b, 0)
	return ok && end == len(b)
}

// digitsEnd returns the index of the first byte from src[i] on that is not
// a decimal digit.
func digitsEnd(src []byte, i int) int {
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	return i
}

// hasWord reports whether src holds word at i.
func hasWord(src []byte, i int, word string) bool {
	return len(src)-i >= len(word) && string(src[i:i+len(word)]) == word
}
