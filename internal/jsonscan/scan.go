package jsonscan

import (
	"bytes"
	"strconv"

	"github.com/ttldb/ttldb/internal/jsontext"
)

// scanner validates JSON and writes it compactly. It copies the text in
// runs, not token by token: src[from:i] is compact text not yet copied to
// out, and a run ends only where the text and its compact form part (white
// space, a dropped member), so that compact input is copied once, at the
// end.
type scanner struct {
	src    []byte
	i      int
	out    []byte // the compact text up to the pending run
	from   int    // where the pending run starts in src
	pkRoot string // name of the top-level member the partition-key path starts with
	id     Span
	ttl    Span
	pk     Span
	idLike string // a top-level member named "id" in other letters ("ID", "Id"), for the error when id is missing

	// dropping is set while the value of a member the library drops (_ts,
	// _etag) is scanned: it is checked as JSON but not stored, so R10's
	// limits do not apply to it, and what it writes to out from dropAt on
	// is thrown away as it goes.
	dropping bool
	dropAt   int

	escaped bool // the last string scanned held an escape
}

// small reports whether src is at most droppedRun bytes long, so that the
// compact text can reach neither MaxSize nor a dropped run's cut,
// and value need not check either.
func (s *scanner) small() bool { return len(s.src) <= droppedRun }

// droppedRun is how much of a dropped member's compact text the scanner
// keeps before it cuts it back.
const droppedRun = 64 << 10

// maxDroppedDepth bounds the nesting of a dropped member's value, which
// R10 does not limit, so that the scanner's recursion stays shallow.
const maxDroppedDepth = 10_000

// Span is a range of [Result.Out] holding one JSON value; the zero Span is
// none.
type Span struct{ Start, End int }

// Set reports whether the span holds a value.
func (s Span) Set() bool { return s.End > 0 }

// pos returns the length of the compact text so far: a position in out
// once the pending run is flushed.
func (s *scanner) pos() int { return len(s.out) + s.i - s.from }

// flush copies the pending run to out.
func (s *scanner) flush() {
	s.out = append(s.out, s.src[s.from:s.i]...)
	s.from = s.i
}

// cut flushes and drops the compact text from position at on.
func (s *scanner) cut(at int) {
	s.flush()
	s.out = s.out[:at]
}

// skipTo leaves src[i:j] out of the compact text.
func (s *scanner) skipTo(j int) {
	s.flush()
	s.i, s.from = j, j
}

// ws skips white space, which the compact text leaves out.
func (s *scanner) ws() {
	if i := s.i; i < len(s.src) && s.src[i] > ' ' {
		return // the common case: none (every byte of white space is at most ' ')
	}
	s.space()
}

// space is ws's slow path, kept out of line so that ws inlines.
//
//go:noinline
func (s *scanner) space() {
	i, src := s.i, s.src
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	if i != s.i {
		s.skipTo(i)
	}
}

func (s *scanner) syntax(want string) error {
	if s.i >= len(s.src) {
		return invalid("invalid JSON: unexpected end of input, want %s", want)
	}
	return invalid("invalid JSON at byte %d: found %q, want %s", s.i, s.src[s.i], want)
}

// document scans src, which must be one JSON object, white space around it
// allowed.
func (s *scanner) document() error {
	s.ws()
	if s.i >= len(s.src) {
		return invalid("document is empty, want a JSON object")
	}
	if first := s.src[s.i]; first != '{' {
		if err := s.value(1); err != nil {
			return err
		}
		return invalid("document is a JSON %s, not an object", jsontext.Kind(first))
	}
	if err := s.object(1); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.src) {
		return invalid("invalid JSON at byte %d: data %q after the document", s.i, jsontext.Clip(s.src[s.i:]))
	}
	return nil
}

// value scans one value that sits at the given nesting level.
func (s *scanner) value(depth int) error {
	if s.i >= len(s.src) {
		return s.syntax("a value")
	}
	if !s.small() {
		switch {
		case s.dropping && s.pos()-s.dropAt > droppedRun:
			s.cut(s.dropAt) // not stored: nothing reads it back
		case !s.dropping && s.pos() > MaxSize:
			return tooLarge("document is over %d bytes (R10)", MaxSize)
		}
	}
	switch c := s.src[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.syntax("a value")
}

// deep checks the nesting level of a container about to be scanned: at
// most MaxDepth (R10), or maxDroppedDepth inside a dropped member. The
// common case, no deeper than MaxDepth, inlines.
func (s *scanner) deep(depth int) error {
	if depth <= MaxDepth { // maxDroppedDepth is deeper
		return nil
	}
	return s.tooDeep(depth)
}

func (s *scanner) tooDeep(depth int) error {
	if s.dropping && depth > maxDroppedDepth {
		return invalid("a system property (_ts or _etag) the library drops is nested more than %d levels deep", maxDroppedDepth)
	}
	if !s.dropping {
		return invalid("document is nested more than %d levels deep (R10)", MaxDepth)
	}
	return nil
}

// object scans an object at nesting level depth; at level 1 it drops the
// system properties _ts and _etag and notes where id, ttl and the
// partition-key member are.
func (s *scanner) object(depth int) error {
	if err := s.deep(depth); err != nil {
		return err
	}
	s.i++
	s.ws()
	if s.i < len(s.src) && s.src[s.i] == '}' {
		s.i++
		return nil
	}
	kept := 0
	for {
		s.ws()
		if s.i >= len(s.src) || s.src[s.i] != '"' {
			return s.syntax("a member name")
		}
		mark := s.pos() // where the member starts in the compact text
		if kept > 0 {
			mark-- // with the ',' before it
		}
		keyAt := s.i
		if err := s.str(); err != nil {
			return err
		}
		keyEnd := s.i
		s.ws()
		if s.i >= len(s.src) || s.src[s.i] != ':' {
			return s.syntax("':'")
		}
		s.i++
		s.ws()
		var name []byte
		drop := false
		if depth == 1 {
			name = s.src[keyAt+1 : keyEnd-1]
			if s.escaped {
				if n, ok := jsontext.Unquote(s.src[keyAt:keyEnd]); ok {
					name = n
				} // else a name with a lone surrogate escape, kept escaped: none the library reads
			}
			// The library writes _ts and _etag itself (R10): their values
			// are scanned as JSON, and neither stored nor measured.
			drop = string(name) == "_ts" || string(name) == "_etag"
			s.dropping, s.dropAt = drop, mark
		}
		valAt := s.pos()
		if err := s.value(depth); err != nil {
			return err
		}
		switch {
		case drop:
			s.cut(mark)
			s.dropping = false
		case depth == 1:
			if err := s.note(name, Span{valAt, s.pos()}); err != nil {
				return err
			}
			kept++
		default:
			kept++
		}
		s.ws()
		if s.i >= len(s.src) {
			return s.syntax("',' or '}'")
		}
		switch s.src[s.i] {
		case ',':
			if kept == 0 { // every member so far dropped: so is the ','
				s.skipTo(s.i + 1)
			} else {
				s.i++
			}
		case '}':
			s.i++
			return nil
		default:
			return s.syntax("',' or '}'")
		}
	}
}

// note records a top-level member, by its decoded name, that rules R2 and
// R10 read.
func (s *scanner) note(name []byte, val Span) error {
	if string(name) == "id" {
		if err := noteOnce(&s.id, "id", val); err != nil {
			return err
		}
	} else if s.idLike == "" && len(name) == 2 && bytes.EqualFold(name, []byte("id")) {
		s.idLike = string(name)
	}
	if string(name) == "ttl" {
		if err := noteOnce(&s.ttl, "ttl", val); err != nil {
			return err
		}
	}
	if string(name) == s.pkRoot {
		return noteOnce(&s.pk, s.pkRoot, val)
	}
	return nil
}

// noteOnce records val in at, refusing a member that appears twice.
func noteOnce(at *Span, name string, val Span) error {
	if at.Set() {
		return invalid("member %q appears twice", name)
	}
	*at = val
	return nil
}

func (s *scanner) array(depth int) error {
	if err := s.deep(depth); err != nil {
		return err
	}
	s.i++
	s.ws()
	if s.i < len(s.src) && s.src[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.src) {
			return s.syntax("',' or ']'")
		}
		switch s.src[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.syntax("',' or ']'")
		}
	}
}

// str scans a string: escapes must be valid, control characters escaped,
// and the text valid UTF-8 (stringEnd). It notes in escaped whether it
// held an escape.
func (s *scanner) str() error {
	end, escaped, fault := stringEnd(s.src, s.i+1)
	s.i, s.escaped = end, escaped
	switch fault {
	case strOK:
		return nil
	case strUnclosed:
		return s.syntax("'\"'")
	case strBadEscape:
		return s.syntax("an escape")
	case strBadHex:
		return s.syntax("a hexadecimal digit")
	case strControl:
		return invalid("invalid JSON at byte %d: control character %#x in a string", s.i, s.src[s.i])
	}
	return invalid("invalid JSON at byte %d: invalid UTF-8 in a string", s.i)
}

// number scans a number, which starts at s.src[s.i].
func (s *scanner) number() error {
	i, ok := numberEnd(s.src, s.i)
	s.i = i
	if !ok {
		return s.syntax("a digit")
	}
	return nil
}

func (s *scanner) literal(lit string) error {
	if !hasWord(s.src, s.i, lit) {
		return s.syntax(strconv.Quote(lit))
	}
	s.i += len(lit)
	return nil
}
