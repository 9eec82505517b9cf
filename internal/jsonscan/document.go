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
// an object, a noted member twice, or nested too deep; or too large, when
// TooLarge is set. Msg names the byte at fault where there is one.
type Error struct {
	TooLarge bool
	Msg      string
}

// Error returns Msg.
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
