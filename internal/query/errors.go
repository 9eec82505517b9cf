package query

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of what Parse accepts.
const (
	// MaxQueryLen is the longest query text Parse accepts, in bytes.
	MaxQueryLen = 256 << 10
	// MaxDepth is the deepest nesting of parentheses, brackets, function
	// calls, NOTs and steps after an expression (c[@p][@q]) Parse accepts.
	MaxDepth = 64
	// MaxJoins is the most sources a FROM clause joins (JOIN, and FROM x
	// IN).
	MaxJoins = 16
	// MaxJoinRows is the most rows the joins of a FROM clause may make of
	// one document, counting those of each join in turn (a row of the
	// first join's is one, and so is each row the second makes of it):
	// more, and the query fails rather than run on.
	MaxJoinRows = 100_000
	// MaxSubqueryBytes is the most bytes of JSON the results of one
	// ARRAY(SELECT ...) or scalar subquery may make, the largest document
	// a collection accepts (R10): more, and the query fails.
	MaxSubqueryBytes = 2 << 20
	// MaxWholeBytes is the most bytes of JSON of the documents a subquery
	// in FROM with DISTINCT, TOP or an aggregate reads at once (fromsub.go):
	// more, and the query fails. Their number is bounded by MaxJoinRows.
	MaxWholeBytes = 64 << 20
)

// Error is a query that does not parse, or uses a part of Cosmos SQL this
// subset does not support: what went wrong, and where.
type Error struct {
	Offset       int    // byte offset in the text, 0-based
	Line, Column int    // 1-based; Column counts characters (runes)
	Msg          string // what was expected and found, or what is not supported
	Unsupported  bool   // the query uses a part of Cosmos SQL this subset does not support
}

// Error returns the message with its position, as
// `at line 1, column 23: expected FROM, found "WHERE"`.
func (e *Error) Error() string {
	return fmt.Sprintf("at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// newError returns the error msg at byte off of text.
func newError(text string, off int, unsupported bool, msg string) *Error {
	off = max(0, min(off, len(text)))
	before := text[:off]
	line := 1 + strings.Count(before, "\n")
	col := 1 + utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:])
	return &Error{Offset: off, Line: line, Column: col, Msg: msg, Unsupported: unsupported}
}

// describe names a token for "found ...": its text, quoted and cut short,
// or the end of the query.
func describe(t token) string {
	if t.kind == tEOF {
		return "the end of the query"
	}
	s := t.text
	if utf8.RuneCountInString(s) > 32 {
		n, i := 0, 0
		for i = range s {
			if n == 29 {
				break
			}
			n++
		}
		s = s[:i] + "..."
	}
	return strconv.Quote(s)
}
