// Package patch applies the operations of a partial document update (Cosmos
// DB's Patch API, after RFC 6902's JSON Patch) to a JSON object: add, set,
// replace, remove, incr and move, on paths written as JSON Pointers
// (RFC 6901).
//
// It works on compact, valid JSON text and returns compact JSON text. Only
// the values on the operations' paths are taken apart; the rest of the
// document is copied as it was, so a patch costs the size of the document
// plus that of the values it touches. It checks no rule of the collection
// (the id, the partition key, the ttl, the limits): the caller parses the
// result as it parses any document.
package patch

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxPathTokens is the most tokens a path may hold: a path longer than the
// deepest document allowed could name nothing.
const MaxPathTokens = 128

// Pointer splits a JSON Pointer, "/a/b~1c/0", into its reference tokens,
// decoding ~1 as '/' and ~0 as '~'. The empty pointer, the whole document,
// is refused: a patch changes members, and a whole new document is a
// replace.
func Pointer(p string) ([]string, error) {
	switch {
	case p == "":
		return nil, fmt.Errorf("the path is empty; a path names a member, as in \"/status\", and a whole new document is a Replace")
	case p[0] != '/':
		return nil, fmt.Errorf("path %.80q does not start with '/', as in \"/status\"", p)
	case !utf8.ValidString(p):
		return nil, fmt.Errorf("path %.80q is not valid UTF-8", p)
	}
	toks := strings.Split(p[1:], "/")
	if len(toks) > MaxPathTokens {
		return nil, fmt.Errorf("path %.40q... has %d tokens, at most %d are allowed", p, len(toks), MaxPathTokens)
	}
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("path %.80q holds '~' not followed by 0 or 1: write a '~' in a member name as ~0 and a '/' as ~1", p)
			}
			b.WriteByte("~/"[t[j+1]-'0'])
			j++
		}
		toks[i] = b.String()
	}
	return toks, nil
}

// Format writes tokens back as a JSON Pointer, for messages.
func Format(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escaper.Replace(t))
	}
	return b.String()
}

var escaper = strings.NewReplacer("~", "~0", "/", "~1")

// index reads an array index token: "0" or digits without a leading zero.
// ok is false for anything else, "-" included.
func index(tok string) (i int, ok bool) {
	if tok == "" || len(tok) > 9 || (tok[0] == '0' && len(tok) > 1) {
		return 0, false
	}
	for j := 0; j < len(tok); j++ {
		if tok[j] < '0' || tok[j] > '9' {
			return 0, false
		}
	}
	i, _ = strconv.Atoi(tok)
	return i, true
}

// HasPrefix reports whether the path p starts with all the tokens of
// prefix: p is prefix itself or lies inside it.
func HasPrefix(p, prefix []string) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}
