package ttldb

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb/internal/jsonscan"
)

// Limits of rule R10. The size and the depth are those of what is stored:
// _ts and _etag members of an incoming document, which the library drops
// and writes itself, count toward neither (they must still be JSON, nested
// at most 10,000 levels).
const (
	// MaxDocumentSize is the largest document accepted, in bytes of its
	// compact JSON encoding without the system properties _ts and _etag:
	// 2 MiB.
	MaxDocumentSize = jsonscan.MaxSize
	// MaxDepth is the deepest nesting accepted: the document object itself
	// is level 1, an object or array inside it level 2, and so on.
	MaxDepth = jsonscan.MaxDepth
	// MaxIDLength is the longest id accepted, in bytes of UTF-8.
	MaxIDLength = 1023
	// MaxPartitionKeyLength is the longest partition-key string accepted,
	// in bytes of UTF-8.
	MaxPartitionKeyLength = 2048
)

// MaxNameLength is the longest collection name accepted, in bytes.
const MaxNameLength = 255

// validateID applies R10 to an id: a non-empty UTF-8 string of at most
// [MaxIDLength] bytes without '/', '\', '?', '#' or control characters.
func validateID[T string | []byte](id T) error {
	if p := nameProblem(id, MaxIDLength); p != "" {
		return errorf(ErrInvalidID, "id %.80q %s (R10)", id, p)
	}
	return nil
}

// nameProblem describes what is wrong with a name or an id under R10, or
// returns "" when nothing is.
func nameProblem[T string | []byte](s T, max int) string {
	if len(s) == 0 {
		return "is empty"
	}
	if len(s) > max {
		return "is " + strconv.Itoa(len(s)) + " bytes, at most " + strconv.Itoa(max) + " are allowed"
	}
	i := 0
	for i < len(s) && plainNameByte[s[i]] {
		i++
	}
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '/' || c == '\\' || c == '?' || c == '#':
				return "holds " + strconv.QuoteRune(rune(c)) + ", which is not allowed"
			case c < 0x20 || c == 0x7f:
				return "holds the control character " + strconv.QuoteRune(rune(c))
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && n == 1:
			return "is not valid UTF-8"
		case r >= 0x80 && r <= 0x9f:
			return "holds the control character " + strconv.QuoteRune(r)
		}
		i += n
	}
	return ""
}

// plainNameByte holds the bytes a name may hold that need no closer look:
// printable ASCII but for / \ ? and #.
var plainNameByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '/' && c != '\\' && c != '?' && c != '#'
	}
	return t
}()

// parsePath splits a partition-key path "/a/b" into its segments.
func parsePath(path string) ([]string, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, errorf(ErrInvalidOption, "partition-key path %q must start with '/', as in \"/customerId\"", path)
	}
	segs := strings.Split(path[1:], "/")
	if len(segs) >= MaxDepth {
		return nil, errorf(ErrInvalidOption, "partition-key path %.40q... has %d segments, at most %d are allowed", path, len(segs), MaxDepth-1)
	}
	if segs[0] == "_ts" || segs[0] == "_etag" {
		return nil, errorf(ErrInvalidOption, "partition-key path %q names a system property, which the library writes itself", path)
	}
	for _, s := range segs {
		if p := nameProblem(s, MaxNameLength); s != "" && p != "" {
			return nil, errorf(ErrInvalidOption, "partition-key path %q: segment %q %s", path, s, p)
		}
		if s == "" {
			return nil, errorf(ErrInvalidOption, "partition-key path %q has an empty segment", path)
		}
	}
	return segs, nil
}
