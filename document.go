package ttldb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Limits of rule R10.
const (
	// MaxDocumentSize is the largest document accepted, in bytes of its
	// compact JSON encoding without the system properties _ts and _etag:
	// 2 MiB.
	MaxDocumentSize = 2 << 20
	// MaxDepth is the deepest nesting accepted: the document object itself
	// is level 1, an object or array inside it level 2, and so on.
	MaxDepth = 128
	// MaxIDLength is the longest id accepted, in bytes of UTF-8.
	MaxIDLength = 1023
	// MaxPartitionKeyLength is the longest partition-key string accepted,
	// in bytes of UTF-8.
	MaxPartitionKeyLength = 2048
)

// Document is one stored document, as read or written. It is immutable: a
// later write to the same key stores a new Document and leaves this one as
// it was. The zero Document is empty: its methods return zero values and
// Decode reports ErrNotFound.
type Document struct {
	d *doc
}

// doc is a stored document. It is never modified once stored, so snapshots
// and Documents handed to callers share it safely.
//
// A doc and its text are one allocation of bytes: this header, then the key
// (the partition-key encoding, then the id, or the encoding alone in a
// collection partitioned by /id: see keyFor), then the body (the compact
// JSON object as written, without _ts and _etag, which are kept as numbers
// and written out on demand). The header holds no pointers, so the garbage
// collector never scans a document: a million documents are a million
// objects to mark, not two million to mark and scan.
//
// A doc is only ever used through the *doc newDoc returns: a copy of the
// header would not have the text after it. noCopy makes go vet report one.
type doc struct {
	_      noCopy
	ts     int64  // _ts, Unix seconds
	tag    uint64 // _etag as a number: unique within the collection
	ttl    int32  // ttlInherit, ttlNever or seconds
	n      uint32 // bytes of text after the header: the key, then the body
	at     keyLayout
	keyLen uint16
}

// noCopy is a marker that go vet's copylocks check reports copies of.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// keyLayout says where the parts of a document key are: key[:pk] is the
// partition-key encoding and key[idAt:idEnd] the id. A key is usually the
// encoding followed by the id; in a collection partitioned by /id the
// encoding alone is the key, and the id is inside it (see keyFor).
type keyLayout struct{ pk, idAt, idEnd uint16 }

// splitLayout is the layout of a key made of the partition-key encoding
// (enc bytes) followed by the id.
func splitLayout(enc, keyLen int) keyLayout {
	return keyLayout{pk: uint16(enc), idAt: uint16(enc), idEnd: uint16(keyLen)}
}

// docHeader is the size of the header before a doc's text.
const docHeader = int(unsafe.Sizeof(doc{}))

// newDoc allocates a document whose text is key followed by body.
func newDoc[K, B string | []byte](key K, at keyLayout, body B, ttl int32, ts int64, tag uint64) *doc {
	n := len(key) + len(body)
	buf := make([]byte, docHeader+n)
	copy(buf[docHeader:], key)
	copy(buf[docHeader+len(key):], body)
	// The allocation is at least docHeader bytes and, like every heap
	// object of that size, aligned for a doc; the GC never moves it.
	d := (*doc)(unsafe.Pointer(unsafe.SliceData(buf)))
	*d = doc{ts: ts, tag: tag, ttl: ttl, n: uint32(n), at: at, keyLen: uint16(len(key))}
	return d
}

// keyDoc returns a document that holds only a key, to search a tree with.
func keyDoc(key string) *doc { return newDoc(key, keyLayout{}, "", 0, 0, 0) }

// text returns the key followed by the body.
func (d *doc) text() string {
	if d.n == 0 { // only a search key for "everything"; no byte follows
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(d), docHeader)), d.n)
}

// key returns the document's key: the partition-key encoding followed by
// the id, or the encoding alone in a collection partitioned by /id (keyFor).
func (d *doc) key() string { return d.text()[:d.keyLen] }

// body returns the JSON object as written, in compact form, without the
// system properties.
func (d *doc) body() string { return d.text()[d.keyLen:] }

func (d *doc) id() string { return d.text()[d.at.idAt:d.at.idEnd] }

// etagLen is the length of every etag: 16 hexadecimal digits.
const etagLen = 16

// appendETag appends the etag with the number tag.
func appendETag(dst []byte, tag uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, digits[tag>>shift&0xf])
	}
	return dst
}

// etag returns _etag.
func (d *doc) etag() string {
	var b [etagLen]byte
	return string(appendETag(b[:0], d.tag))
}

// hasETag reports whether the document's _etag is etag, without allocating.
func (d *doc) hasETag(etag string) bool {
	var b [etagLen]byte
	return string(appendETag(b[:0], d.tag)) == etag
}

// appendJSON appends the document with its system properties: the body
// with "_ts":N,"_etag":"E" added as its last members.
func (d *doc) appendJSON(dst []byte) []byte {
	body := d.body()
	dst = append(dst, body[:len(body)-1]...)
	if len(body) > 2 { // not just "{}"
		dst = append(dst, ',')
	}
	dst = append(dst, `"_ts":`...)
	dst = strconv.AppendInt(dst, d.ts, 10)
	dst = append(dst, `,"_etag":"`...)
	dst = appendETag(dst, d.tag)
	return append(dst, `"}`...)
}

// jsonLen is the length of what appendJSON appends, at most.
func (d *doc) jsonLen() int { return len(d.body()) + len(`,"_ts":,"_etag":""`) + 20 + etagLen }

// ID returns the document's id.
func (d Document) ID() string {
	if d.d == nil {
		return ""
	}
	return d.d.id()
}

// PartitionKey returns the document's partition-key value; for a document
// without one, the zero PartitionKey ("none").
func (d Document) PartitionKey() PartitionKey {
	if d.d == nil {
		return PartitionKey{}
	}
	k, _ := decodePartitionKey(d.d.key()[:d.d.at.pk])
	return k
}

// TS returns _ts: the Unix second of the document's last write.
func (d Document) TS() int64 {
	if d.d == nil {
		return 0
	}
	return d.d.ts
}

// Timestamp returns _ts as a time.Time.
func (d Document) Timestamp() time.Time { return time.Unix(d.TS(), 0) }

// ETag returns _etag, which changes on every write: 16 hexadecimal digits.
// Pass it to IfMatch to make a later write conditional. It allocates the
// string it returns.
func (d Document) ETag() string {
	if d.d == nil {
		return ""
	}
	return d.d.etag()
}

// TTL returns the document's own ttl: -1 or a number of seconds, with ok
// true; or ok false when the document has no ttl (or null) and so inherits
// the collection's DefaultTTL.
func (d Document) TTL() (seconds int, ok bool) {
	if d.d == nil || d.d.ttl == ttlInherit {
		return 0, false
	}
	return int(d.d.ttl), true
}

// Body returns the document as written, without the system properties: its
// members in compact form (the ttl exactly as written, never the inherited
// default). It does not allocate: the string is the stored text.
func (d Document) Body() string {
	if d.d == nil {
		return ""
	}
	return d.d.body()
}

// JSON returns the document with its system properties: Body with _ts and
// _etag added as its last members. It allocates the string it returns; to
// read without allocating, use Body, or AppendJSON with a reused buffer.
func (d Document) JSON() string {
	if d.d == nil {
		return ""
	}
	return string(d.d.appendJSON(make([]byte, 0, d.d.jsonLen())))
}

// AppendJSON appends JSON() to dst and returns the extended slice. It
// allocates only when dst lacks room.
func (d Document) AppendJSON(dst []byte) []byte {
	if d.d == nil {
		return dst
	}
	return d.d.appendJSON(dst)
}

// Decode unmarshals the document, with its system properties, into v, as
// encoding/json does. Errors: ErrNotFound for the zero Document;
// ErrInvalidDocument, wrapping encoding/json's error, when the document does
// not fit v.
func (d Document) Decode(v any) error {
	if d.d == nil {
		return errorf(ErrNotFound, "decode of an empty Document")
	}
	if err := json.Unmarshal(d.d.appendJSON(make([]byte, 0, d.d.jsonLen())), v); err != nil {
		return fmt.Errorf("%w: decode document %q into %T: %w", ErrInvalidDocument, d.d.id(), v, err)
	}
	return nil
}

// String returns JSON(), so that a Document prints as its JSON.
func (d Document) String() string { return d.JSON() }

// encodeInput turns what a caller passes to a write into JSON text: []byte
// and json.RawMessage are taken as JSON; any other value is encoded with
// encoding/json.
func encodeInput(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case json.RawMessage:
		return x, nil
	case nil:
		return nil, errorf(ErrInvalidDocument, "document is nil, want a JSON object")
	case string:
		return nil, errorf(ErrInvalidDocument, "document is a Go string %.40q, which encodes to a JSON string, not an object; pass []byte for JSON text", x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, errorf(ErrInvalidDocument, "document of type %T does not encode to JSON: %v", v, err)
	}
	return b, nil
}

// intake is a validated incoming document: its compact JSON without the
// system properties, and its ttl. Its key comes apart, so that escape
// analysis can keep the key's buffer on the stack.
type intake struct {
	out []byte // the compact object, system properties removed
	at  keyLayout
	ttl int32
}

// describeKey names the document with the key for messages. It copies what
// it formats, so the key does not escape.
func describeKey(key []byte, at keyLayout) string {
	pk, _ := decodePartitionKey(string(key[:at.pk]))
	return fmt.Sprintf("document %q in partition %v", string(key[at.idAt:at.idEnd]), pk)
}

// span is a range of intake.out holding one JSON value.
type span struct{ start, end int }

func (s span) set() bool { return s.end > 0 }

// scanner validates JSON and writes it compactly.
type scanner struct {
	src    []byte
	i      int
	out    []byte
	pkRoot string // name of the top-level member the partition-key path starts with
	id     span
	ttl    span
	pk     span
}

// parseDocument validates src as a document of a collection whose partition
// key lives at the path pkPath (split into segments), appending its compact
// form to buf and its key (as keyFor builds it) to keyBuf. Errors wrap ErrInvalidDocument,
// ErrTooLarge, ErrInvalidID, ErrInvalidPartitionKey or ErrInvalidTTL, naming
// the value at fault.
func parseDocument(buf, keyBuf, src []byte, pkPath []string) (in intake, key []byte, err error) {
	s := scanner{src: src, out: buf[:0], pkRoot: pkPath[0]}
	s.ws()
	if s.i >= len(src) {
		return intake{}, nil, errorf(ErrInvalidDocument, "document is empty, want a JSON object")
	}
	if first := src[s.i]; first != '{' {
		if err := s.value(1); err != nil {
			return intake{}, nil, err
		}
		return intake{}, nil, errorf(ErrInvalidDocument, "document is a JSON %s, not an object", kindOf(first))
	}
	if err := s.object(1); err != nil {
		return intake{}, nil, err
	}
	s.ws()
	if s.i < len(src) {
		return intake{}, nil, errorf(ErrInvalidDocument, "invalid JSON at byte %d: data %q after the document", s.i, clip(src[s.i:]))
	}
	if len(s.out) > MaxDocumentSize {
		return intake{}, nil, errorf(ErrTooLarge, "document is %d bytes, at most %d are allowed (R10)", len(s.out), MaxDocumentSize)
	}
	in = intake{out: s.out}

	// id (R10)
	if !s.id.set() {
		return intake{}, nil, errorf(ErrInvalidID, "document has no id (R10)")
	}
	idRaw := s.out[s.id.start:s.id.end]
	if idRaw[0] != '"' {
		return intake{}, nil, errorf(ErrInvalidID, "id %s is a JSON %s, want a string (R10)", clip(idRaw), kindOf(idRaw[0]))
	}
	id := unquote(idRaw)
	if err := validateID(id); err != nil {
		return intake{}, nil, err
	}

	// ttl (R2)
	if s.ttl.set() {
		t, err := parseDocTTL(id, s.out[s.ttl.start:s.ttl.end])
		if err != nil {
			return intake{}, nil, err
		}
		in.ttl = t
	}

	// partition key (R10): follow the path from the top-level member; a
	// document without it is in the "none" partition.
	pkRaw := []byte(nil)
	if s.pk.set() {
		pkRaw = s.out[s.pk.start:s.pk.end]
		for _, seg := range pkPath[1:] {
			val, found, dup := member(pkRaw, seg)
			if dup {
				return intake{}, nil, errorf(ErrInvalidDocument, "document %q: member %q of the partition-key path appears twice", id, seg)
			}
			pkRaw = val
			if !found {
				break
			}
		}
	}
	key, err = appendPartitionKeyJSON(keyBuf[:0], pkRaw)
	if err != nil {
		return intake{}, nil, fmt.Errorf("document %q: %w", id, err)
	}
	if isIDPath(pkPath) {
		// The key is the encoding of the id as a string key: see keyFor.
		in.at = keyLayout{pk: uint16(len(key)), idAt: 1, idEnd: uint16(len(key) - 2)}
		return in, key, nil
	}
	in.at = splitLayout(len(key), len(key)+len(id))
	return in, append(key, id...), nil
}

func (s *scanner) ws() {
	i, src := s.i, s.src
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	s.i = i
}

func (s *scanner) syntax(want string) error {
	if s.i >= len(s.src) {
		return errorf(ErrInvalidDocument, "invalid JSON: unexpected end of input, want %s", want)
	}
	return errorf(ErrInvalidDocument, "invalid JSON at byte %d: found %q, want %s", s.i, s.src[s.i], want)
}

// value scans one value that sits at the given nesting level.
func (s *scanner) value(depth int) error {
	if s.i >= len(s.src) {
		return s.syntax("a value")
	}
	if len(s.out) > MaxDocumentSize {
		return errorf(ErrTooLarge, "document is over %d bytes (R10)", MaxDocumentSize)
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

func (s *scanner) deep(depth int) error {
	if depth > MaxDepth {
		return errorf(ErrInvalidDocument, "document is nested more than %d levels deep (R10)", MaxDepth)
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
	s.out = append(s.out, '{')
	s.ws()
	if s.i < len(s.src) && s.src[s.i] == '}' {
		s.i++
		s.out = append(s.out, '}')
		return nil
	}
	kept := 0
	for {
		s.ws()
		if s.i >= len(s.src) || s.src[s.i] != '"' {
			return s.syntax("a member name")
		}
		mark := len(s.out)
		if kept > 0 {
			s.out = append(s.out, ',')
		}
		keyAt := len(s.out)
		if err := s.str(); err != nil {
			return err
		}
		keyEnd := len(s.out)
		s.ws()
		if s.i >= len(s.src) || s.src[s.i] != ':' {
			return s.syntax("':'")
		}
		s.i++
		s.out = append(s.out, ':')
		s.ws()
		valAt := len(s.out)
		if err := s.value(depth); err != nil {
			return err
		}
		kept++
		if depth == 1 {
			name := s.out[keyAt+1 : keyEnd-1]
			if bytes.IndexByte(name, '\\') >= 0 {
				name = unquote(s.out[keyAt:keyEnd])
			}
			if string(name) == "_ts" || string(name) == "_etag" {
				s.out = s.out[:mark] // the library writes these itself
				kept--
			} else if err := s.note(name, span{valAt, len(s.out)}); err != nil {
				return err
			}
		}
		s.ws()
		if s.i >= len(s.src) {
			return s.syntax("',' or '}'")
		}
		switch s.src[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			s.out = append(s.out, '}')
			return nil
		default:
			return s.syntax("',' or '}'")
		}
	}
}

// note records a top-level member, by its decoded name, that rules R2 and
// R10 read.
func (s *scanner) note(name []byte, val span) error {
	if string(name) == "id" {
		if err := noteOnce(&s.id, "id", val); err != nil {
			return err
		}
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
func noteOnce(at *span, name string, val span) error {
	if at.set() {
		return errorf(ErrInvalidDocument, "member %q appears twice", name)
	}
	*at = val
	return nil
}

func (s *scanner) array(depth int) error {
	if err := s.deep(depth); err != nil {
		return err
	}
	s.i++
	s.out = append(s.out, '[')
	s.ws()
	if s.i < len(s.src) && s.src[s.i] == ']' {
		s.i++
		s.out = append(s.out, ']')
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
			s.out = append(s.out, ',')
		case ']':
			s.i++
			s.out = append(s.out, ']')
			return nil
		default:
			return s.syntax("',' or ']'")
		}
	}
}

// str scans a string: escapes must be valid, control characters escaped,
// and the text valid UTF-8.
func (s *scanner) str() error {
	start := s.i
	s.i++
	for s.i < len(s.src) {
		i, src := s.i, s.src // the common case, fast: plain bytes
		for i < len(src) && plain[src[i]] {
			i++
		}
		if s.i = i; i >= len(src) {
			break
		}
		c := s.src[s.i]
		switch {
		case c == '"':
			s.i++
			s.out = append(s.out, s.src[start:s.i]...)
			return nil
		case c == '\\':
			s.i++
			if s.i >= len(s.src) {
				return s.syntax("an escape")
			}
			switch s.src[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				s.i++
				for k := 0; k < 4; k++ {
					if s.i >= len(s.src) || !isHex(s.src[s.i]) {
						return s.syntax("a hexadecimal digit")
					}
					s.i++
				}
			default:
				return s.syntax("an escape")
			}
		case c < 0x20:
			return errorf(ErrInvalidDocument, "invalid JSON at byte %d: control character %#x in a string", s.i, c)
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.src[s.i:])
			if r == utf8.RuneError && n == 1 {
				return errorf(ErrInvalidDocument, "invalid JSON at byte %d: invalid UTF-8 in a string", s.i)
			}
			s.i += n
		}
	}
	return s.syntax("'\"'")
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

func (s *scanner) digits() int {
	i, src := s.i, s.src
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	n := i - s.i
	s.i = i
	return n
}

func (s *scanner) number() error {
	start := s.i
	if s.src[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.src) && s.src[s.i] == '0' {
		s.i++
	} else if s.digits() == 0 {
		return s.syntax("a digit")
	}
	if s.i < len(s.src) && s.src[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.syntax("a digit")
		}
	}
	if s.i < len(s.src) && (s.src[s.i] == 'e' || s.src[s.i] == 'E') {
		s.i++
		if s.i < len(s.src) && (s.src[s.i] == '+' || s.src[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.syntax("a digit")
		}
	}
	s.out = append(s.out, s.src[start:s.i]...)
	return nil
}

func (s *scanner) literal(lit string) error {
	if len(s.src)-s.i < len(lit) || string(s.src[s.i:s.i+len(lit)]) != lit {
		return s.syntax(strconv.Quote(lit))
	}
	s.i += len(lit)
	s.out = append(s.out, lit...)
	return nil
}

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

// validateID applies R10 to an id: a non-empty UTF-8 string of at most
// MaxIDLength bytes without '/', '\', '?', '#' or control characters.
func validateID[T string | []byte](id T) error {
	if p := nameProblem(id, MaxIDLength); p != "" {
		return errorf(ErrInvalidID, "id %.80q %s (R10)", id, p)
	}
	return nil
}
