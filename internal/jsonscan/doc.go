// Package jsonscan is the intake of ttldb's documents: it validates an
// incoming document's JSON text and writes it compactly, in one pass, noting
// the top-level members the rules read (id, ttl and the first member of the
// partition-key path) and dropping the system properties _ts and _etag,
// which the library writes itself (R10).
//
// [Document] is the one entry point. It tries a fast path first (fast.go),
// for the commonest text, compact JSON of at most 64 KiB without a member
// it drops, in one loop over the bytes; any other text, valid or not, goes
// to the full scanner (scan.go), which alone reports errors. Both share the
// byte-level tokens of tokens.go. It takes O(len(src)) and allocates
// nothing but the growth of dst.
//
// Errors are [*Error]: the caller wraps them in its own sentinels, as
// ttldb does with ErrInvalidDocument and ErrTooLarge.
package jsonscan

import "fmt"

// Limits of rule R10, which ttldb exports as MaxDocumentSize and MaxDepth.
// Both count the compact text without the members the scanner drops.
const (
	// MaxSize is the largest compact document accepted, in bytes.
	MaxSize = 2 << 20
	// MaxDepth is the deepest nesting accepted: the document object is
	// level 1.
	MaxDepth = 128
)

// Result is a scanned document. The zero Result is none.
type Result struct {
	// Out is the compact text, without _ts and _etag, appended to the dst
	// given to Document.
	Out []byte
	// ID, TTL and PK are where the values of the top-level members "id",
	// "ttl" and the one the partition-key path starts with are in Out; a
	// zero Span when the member is absent.
	ID, TTL, PK Span
	// IDLike is a top-level member named "id" in other letters ("ID",
	// "Id"), when there is one, for the error of a document without id.
	IDLike string
}

// Error is what is wrong with a text that is not a document: not JSON, not
// an object, a noted member twice, nested too deep (Kind Invalid), or too
// large (Kind TooLarge). Its message names the byte at fault where there is
// one.
type Error struct {
	TooLarge bool
	Msg      string
}

func (e *Error) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

func tooLarge(format string, args ...any) error {
	return &Error{TooLarge: true, Msg: fmt.Sprintf(format, args...)}
}

// Document scans src, which must be one JSON object, white space around it
// allowed, whose partition-key path starts with the member pkRoot,
// appending its compact form to dst[:0].
func Document(dst, src []byte, pkRoot string) (Result, error) {
	fresh := scanner{src: src, out: dst[:0], pkRoot: pkRoot}
	s := fresh
	if !s.fastDocument() {
		s = fresh // the fast path leaves s spent
		if err := s.document(); err != nil {
			return Result{Out: s.out}, err
		}
	}
	s.flush()
	if len(s.out) > MaxSize {
		return Result{Out: s.out}, tooLarge("document is %d bytes, at most %d are allowed (R10)", len(s.out), MaxSize)
	}
	return Result{Out: s.out, ID: s.id, TTL: s.ttl, PK: s.pk, IDLike: s.idLike}, nil
}
