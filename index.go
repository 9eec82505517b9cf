package ttldb

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/btree"
)

// PartitionKey is a partition-key value: a string, a number, a bool, JSON
// null, or "none" for documents that lack the partition-key path (R10).
// The zero value is "none". Documents are unique by (partition key, id).
//
// Numbers are compared as float64, so 1 and 1.0 are the same partition.
type PartitionKey struct {
	kind pkKind
	s    string
	f    float64
}

type pkKind uint8

// The kinds, in the order listings visit partitions.
const (
	pkNone pkKind = iota
	pkNull
	pkFalse
	pkTrue
	pkNumber
	pkString
)

// NoPartitionKey returns the "none" partition key of documents that lack the
// partition-key path. It equals the zero PartitionKey.
func NoPartitionKey() PartitionKey { return PartitionKey{} }

// NullKey returns the partition key JSON null.
func NullKey() PartitionKey { return PartitionKey{kind: pkNull} }

// BoolKey returns a bool partition key.
func BoolKey(b bool) PartitionKey {
	if b {
		return PartitionKey{kind: pkTrue}
	}
	return PartitionKey{kind: pkFalse}
}

// NumberKey returns a number partition key. NaN and infinities are reported
// as ErrInvalidPartitionKey where the key is used.
func NumberKey(f float64) PartitionKey { return PartitionKey{kind: pkNumber, f: f} }

// StringKey returns a string partition key. A string that is not UTF-8 or is
// longer than MaxPartitionKeyLength bytes is reported as
// ErrInvalidPartitionKey where the key is used.
func StringKey(s string) PartitionKey { return PartitionKey{kind: pkString, s: s} }

// PartitionKeyOf converts a Go value: nil is JSON null; a bool, string,
// json.Number, or any integer or float type becomes the matching key. Any
// other type is an error wrapping ErrInvalidPartitionKey.
func PartitionKeyOf(v any) (PartitionKey, error) {
	var k PartitionKey
	switch x := v.(type) {
	case nil:
		k = NullKey()
	case bool:
		k = BoolKey(x)
	case string:
		k = StringKey(x)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return PartitionKey{}, errorf(ErrInvalidPartitionKey, "partition key %q is not a finite number", string(x))
		}
		k = NumberKey(f)
	case float64:
		k = NumberKey(x)
	case float32:
		k = NumberKey(float64(x))
	case int:
		k = NumberKey(float64(x))
	case int8:
		k = NumberKey(float64(x))
	case int16:
		k = NumberKey(float64(x))
	case int32:
		k = NumberKey(float64(x))
	case int64:
		k = NumberKey(float64(x))
	case uint:
		k = NumberKey(float64(x))
	case uint8:
		k = NumberKey(float64(x))
	case uint16:
		k = NumberKey(float64(x))
	case uint32:
		k = NumberKey(float64(x))
	case uint64:
		k = NumberKey(float64(x))
	default:
		return PartitionKey{}, errorf(ErrInvalidPartitionKey, "partition key of type %T: want a string, number, bool or nil (R10)", v)
	}
	return k, k.validate()
}

// IsNone reports whether k is the "none" partition key.
func (k PartitionKey) IsNone() bool { return k.kind == pkNone }

// Value returns the key as a Go value: nil for JSON null, a bool, a float64
// or a string. ok is false for "none".
func (k PartitionKey) Value() (v any, ok bool) {
	switch k.kind {
	case pkNull:
		return nil, true
	case pkFalse:
		return false, true
	case pkTrue:
		return true, true
	case pkNumber:
		return k.f, true
	case pkString:
		return k.s, true
	}
	return nil, false
}

// String returns the key as JSON (`"c1"`, `42`, `true`, `null`), or "none".
func (k PartitionKey) String() string {
	switch k.kind {
	case pkNone:
		return "none"
	case pkString:
		return strconv.Quote(k.s)
	case pkNumber:
		return strconv.FormatFloat(k.f, 'g', -1, 64)
	case pkNull:
		return "null"
	}
	return strconv.FormatBool(k.kind == pkTrue)
}

// validate applies R10 to a key built in Go.
func (k PartitionKey) validate() error {
	switch k.kind {
	case pkNone, pkNull, pkFalse, pkTrue:
		return nil
	case pkNumber:
		if math.IsNaN(k.f) || math.IsInf(k.f, 0) {
			return errorf(ErrInvalidPartitionKey, "partition key %v is not a finite number (R10)", k.f)
		}
		return nil
	case pkString:
		if len(k.s) > MaxPartitionKeyLength {
			return errorf(ErrInvalidPartitionKey, "partition key %.40q... is %d bytes, at most %d are allowed (R10)", k.s, len(k.s), MaxPartitionKeyLength)
		}
		if !utf8.ValidString(k.s) {
			return errorf(ErrInvalidPartitionKey, "partition key %q is not valid UTF-8 (R10)", k.s)
		}
		return nil
	}
	return errorf(ErrInvalidPartitionKey, "partition key of unknown kind %d", k.kind)
}

// appendPartitionKeyJSON appends the encoding of the partition key whose
// compact, valid JSON is raw (nil: the path is absent, the "none" key) to b.
func appendPartitionKeyJSON(b, raw []byte) ([]byte, error) {
	if raw == nil {
		return NoPartitionKey().appendEncoded(b), nil
	}
	switch raw[0] {
	case '"':
		s := unquote(raw)
		if len(s) > MaxPartitionKeyLength {
			return nil, errorf(ErrInvalidPartitionKey, "partition key %.40q... is %d bytes, at most %d are allowed (R10)", s, len(s), MaxPartitionKeyLength)
		}
		return appendEncodedString(append(b, byte(pkString)+1), s), nil
	case 't':
		return BoolKey(true).appendEncoded(b), nil
	case 'f':
		return BoolKey(false).appendEncoded(b), nil
	case 'n':
		return NullKey().appendEncoded(b), nil
	case '{', '[':
		return nil, errorf(ErrInvalidPartitionKey, "partition key %s is a JSON %s: want a string, number, bool or null (R10)", clip(raw), kindOf(raw[0]))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil, errorf(ErrInvalidPartitionKey, "partition key %s is out of the range of a float64 (R10)", clip(raw))
	}
	return NumberKey(f).appendEncoded(b), nil
}

// A document's key is its partition key, encoded so that the encoding is
// prefix-free and sorts like the values, followed by the id (in a collection
// partitioned by /id, the encoding alone: see keyFor). Keys compare as byte
// strings: by partition (none, null, false, true, numbers ascending, strings
// by bytes), then by id.
//
// The encoding: one kind byte; for numbers 8 bytes that sort like the
// float64; for strings the bytes with 0x00 written as 0x00 0xff, ended by
// 0x00 0x01.

// appendEncoded appends the encoding of k to b. k must be valid.
func (k PartitionKey) appendEncoded(b []byte) []byte {
	b = append(b, byte(k.kind)+1)
	switch k.kind {
	case pkNumber:
		f := k.f
		if f == 0 {
			f = 0 // -0 and 0 are one partition
		}
		bits := math.Float64bits(f)
		if bits>>63 == 1 {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		b = binary.BigEndian.AppendUint64(b, bits)
	case pkString:
		b = appendEncodedString(b, k.s)
	}
	return b
}

// appendEncodedString appends the encoding of a string key's bytes.
func appendEncodedString[T string | []byte](b []byte, s T) []byte {
	i := 0
	for i < len(s) && s[i] != 0 {
		i++
	}
	b = append(b, s[:i]...) // in one copy: most keys hold no 0x00
	for ; i < len(s); i++ {
		b = append(b, s[i])
		if s[i] == 0 {
			b = append(b, 0xff)
		}
	}
	return append(b, 0, 1)
}

// decodePartitionKey reverses appendEncoded; enc is exactly one encoding.
func decodePartitionKey(enc string) (PartitionKey, bool) {
	if len(enc) == 0 || enc[0] == 0 || enc[0] > byte(pkString)+1 {
		return PartitionKey{}, false
	}
	kind := pkKind(enc[0] - 1)
	rest := enc[1:]
	switch kind {
	case pkNumber:
		if len(rest) != 8 {
			return PartitionKey{}, false
		}
		bits := binary.BigEndian.Uint64([]byte(rest))
		if bits>>63 == 1 {
			bits &^= 1 << 63
		} else {
			bits = ^bits
		}
		return NumberKey(math.Float64frombits(bits)), true
	case pkString:
		if !strings.HasSuffix(rest, "\x00\x01") {
			return PartitionKey{}, false
		}
		rest = rest[:len(rest)-2]
		if !strings.Contains(rest, "\x00") {
			return StringKey(rest), true
		}
		var b []byte
		for i := 0; i < len(rest); i++ {
			b = append(b, rest[i])
			if rest[i] == 0 {
				if i+1 >= len(rest) || rest[i+1] != 0xff {
					return PartitionKey{}, false
				}
				i++
			}
		}
		return StringKey(string(b)), true
	}
	return PartitionKey{kind: kind}, len(rest) == 0
}

// keyFor appends the key of the document with a valid partition key and id
// to b; byID says the collection's partition-key path is /id. The key is the
// encoding of pk followed by the id, except when the path is /id: then pk
// is the id as a string key, and its encoding alone is the key. The id is
// inside it verbatim, as ids hold no 0x00 byte, so it is not stored twice.
// A key built from a pk that is not the id cannot equal such a key, so a
// lookup by it finds nothing, as it should.
func keyFor(b []byte, pk PartitionKey, id string, byID bool) []byte {
	b = pk.appendEncoded(b)
	if byID && pk.kind == pkString && pk.s == id {
		return b
	}
	return append(b, id...)
}

// isIDPath reports whether the partition-key path (split into segments) is
// /id.
func isIDPath(pkPath []string) bool { return len(pkPath) == 1 && pkPath[0] == "id" }

// splitKey splits a document key into its partition-key encoding and id.
// For the key of a collection partitioned by /id, id is empty: the id is
// the string the encoding holds.
func splitKey(key string) (enc, id string, ok bool) {
	if len(key) == 0 || key[0] == 0 || key[0] > byte(pkString)+1 {
		return "", "", false
	}
	n := 1
	switch pkKind(key[0] - 1) {
	case pkNumber:
		n = 9
	case pkString:
		for n = 1; ; n++ {
			if n+1 >= len(key) {
				return "", "", false
			}
			if key[n] == 0 {
				if key[n+1] == 1 {
					n += 2
					break
				}
				n++ // 0x00 0xff
			}
		}
	}
	if n > len(key) {
		return "", "", false
	}
	return key[:n], key[n:], true
}

// btreeDegree is the degree of every B-tree: wide nodes, few levels.
const btreeDegree = 32

// primary is the primary index: every stored document, live or expired but
// not yet swept, by key. The map answers point reads; the B-tree gives the
// stable order of listings and, through its copy-on-write Clone, their
// snapshots. Guarded by Collection.mu.
//
// A Go map never gives its memory back, so after most of its documents are
// deleted (a mass expiry), the map is moved to a new one of the right size,
// a few entries per write and a batch per sweep, never all at once: each
// document is then in exactly one of byKey and old, and cursor is the key
// from which the B-tree still has documents to move.
type primary struct {
	byKey  *docMap
	old    *docMap // nil unless a move is under way
	cursor string
	peak   int // the most documents since the last move
	tree   *btree.BTreeG[*doc]
}

// shrinkBelow is the smallest peak worth moving a map for.
const shrinkBelow = 1024

func keyLess(a, b *doc) bool { return a.key() < b.key() }

func newPrimary() primary {
	return primary{byKey: newDocMap(), tree: btree.NewG(btreeDegree, keyLess)}
}

// get returns the document stored under key, live or not. It does not
// allocate.
func (p *primary) get(key []byte) *doc {
	if d := p.byKey.get(key); d != nil || p.old == nil {
		return d
	}
	return p.old.get(key)
}

// put stores d, replacing any document with its key.
func (p *primary) put(d *doc) {
	p.byKey.put(d)
	if p.old != nil {
		p.old.remove(d.key())
		p.move(8)
	}
	p.tree.ReplaceOrInsert(d)
	p.peak = max(p.peak, p.len())
}

// remove drops d.
func (p *primary) remove(d *doc) {
	p.byKey.remove(d.key())
	p.tree.Delete(d)
	if p.old != nil {
		p.old.remove(d.key())
		p.move(8)
	} else if p.peak >= shrinkBelow && p.len() < p.peak/4 {
		// No size hint: a map made for n entries allocates them all at once,
		// under the lock; one without grows a small table at a time.
		p.old, p.byKey, p.cursor = p.byKey, newDocMap(), ""
	}
}

// move moves up to n documents from old to byKey, in key order, and ends
// the move when none is left.
func (p *primary) move(n int) {
	if p.old == nil {
		return
	}
	end := true
	p.tree.AscendGreaterOrEqual(keyDoc(p.cursor), func(d *doc) bool {
		key := d.key()
		if n == 0 {
			p.cursor, end = key, false
			return false
		}
		if p.old.remove(key) {
			p.byKey.put(d)
			n--
		}
		return true
	})
	if end || p.old.len() == 0 {
		p.old, p.cursor, p.peak = nil, "", p.byKey.len()
	}
}

func (p *primary) len() int {
	if p.old == nil {
		return p.byKey.len()
	}
	return p.byKey.len() + p.old.len()
}

// docMap maps document keys to documents. It is a Go map keyed by a 64-bit
// hash of the key, whose slots take 16 bytes where a string key's take 24:
// about 18 bytes less per document, and no load of the key to find its
// slot. A key whose hash is already another key's, which is rare (about one
// in 30 million collections of a million documents), is kept in clash instead.
// Every key in clash has a hash whose slot in byHash holds another key.
type docMap struct {
	byHash map[uint64]*doc
	clash  map[string]*doc // usually nil
	seed   maphash.Seed
	mask   uint64 // all ones; tests narrow it to make hashes collide
}

func newDocMap() *docMap {
	return &docMap{byHash: make(map[uint64]*doc), seed: maphash.MakeSeed(), mask: ^uint64(0)}
}

func (m *docMap) hash(key string) uint64 { return maphash.String(m.seed, key) & m.mask }

func (m *docMap) len() int { return len(m.byHash) + len(m.clash) }

// get returns the document stored under key, or nil. It does not allocate.
func (m *docMap) get(key []byte) *doc {
	if d := m.byHash[maphash.Bytes(m.seed, key)&m.mask]; d != nil && d.key() == string(key) {
		return d
	}
	if m.clash == nil {
		return nil
	}
	return m.clash[string(key)]
}

// put stores d, replacing any document with its key.
func (m *docMap) put(d *doc) {
	key := d.key()
	h := m.hash(key)
	if cur := m.byHash[h]; cur == nil || cur.key() == key {
		m.byHash[h] = d
		return
	}
	if m.clash == nil {
		m.clash = make(map[string]*doc)
	}
	m.clash[key] = d
}

// remove drops the document stored under key, and reports whether there
// was one. A key from clash with the freed hash takes its slot.
func (m *docMap) remove(key string) bool {
	h := m.hash(key)
	if cur := m.byHash[h]; cur == nil || cur.key() != key {
		_, ok := m.clash[key]
		delete(m.clash, key)
		return ok
	}
	delete(m.byHash, h)
	for k, d := range m.clash {
		if m.hash(k) == h {
			m.byHash[h] = d
			delete(m.clash, k)
			break
		}
	}
	return true
}
