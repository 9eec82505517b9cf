package engine

import (
	"strconv"
	"unsafe"
)

// Doc is a stored document: its key, its body and its system properties, in
// one allocation. Every engine stores and returns documents as Docs, and
// the API wraps them, without copying, in the ttldb.Document a caller gets.
//
// A Doc is immutable once it is stored, so that snapshots, feed readers and
// the callers holding it share it without locks: set TS and Tag only on a
// Doc that NewDoc has just returned and nothing else holds yet (the write
// that stores it stamps them). Use a Doc only through the *Doc NewDoc
// returns: its text follows the header in the same allocation, so a copy of
// the struct would have none (go vet reports copies).
//
// The allocation is the header (HeaderSize bytes, no pointers, so the
// garbage collector never scans a document), then the key, then the body.
type Doc struct {
	_ noCopy
	// TS is _ts: the Unix second of the write that stored the document.
	TS int64
	// Tag is _etag as a number, unique within the collection for the
	// collection's life: the in-process engine uses a number drawn at
	// random for the collection plus the write's LSN.
	Tag uint64
	// TTL is the document's own ttl (R2): TTLInherit when it has none (or
	// null), TTLNever for -1, or a number of seconds from 1 to 2^31-1.
	TTL    int32
	n      uint32 // bytes of text after the header: the key, then the body
	Layout Layout // where the key's parts are
	keyLen uint16
}

// Layout says where the parts of a document's key are: key[:PK] is the
// partition-key encoding and key[IDAt:IDEnd] the id. A key is usually the
// encoding followed by the id; in a collection partitioned by /id the
// encoding alone is the key, and the id is inside it. The API computes it
// with the key; an engine stores it with the key, or the key's parts.
type Layout struct{ PK, IDAt, IDEnd uint16 }

// The TTL of a Doc that has no ttl of its own, and of one whose ttl is -1
// (R2).
const (
	TTLInherit int32 = 0
	TTLNever   int32 = -1
)

// noCopy is a marker that go vet's copylocks check reports copies of.
type noCopy struct{}

func (*noCopy) Lock() {}

func (*noCopy) Unlock() {}

// HeaderSize is the size of a Doc's header, before its text: what a
// document costs in memory beyond its key and body.
const HeaderSize = int(unsafe.Sizeof(Doc{}))

// NewDoc allocates a document whose text is key followed by body (compact
// JSON without _ts and _etag), with the given layout of the key, ttl, _ts
// and tag. It makes one allocation of HeaderSize plus the text's length.
func NewDoc[K, B string | []byte](key K, at Layout, body B, ttl int32, ts int64, tag uint64) *Doc {
	n := len(key) + len(body)
	buf := make([]byte, HeaderSize+n)
	copy(buf[HeaderSize:], key)
	copy(buf[HeaderSize+len(key):], body)
	// The allocation is at least HeaderSize bytes and, like every heap
	// object of that size, aligned for a Doc; the GC never moves it.
	d := (*Doc)(unsafe.Pointer(unsafe.SliceData(buf)))
	*d = Doc{TS: ts, Tag: tag, TTL: ttl, n: uint32(n), Layout: at, keyLen: uint16(len(key))}
	return d
}

// Size returns the bytes of the document's allocation: HeaderSize, its
// key and its body.
func (d *Doc) Size() int { return HeaderSize + int(d.n) }

// Text returns the key followed by the body, without copying.
func (d *Doc) Text() string {
	if d.n == 0 { // only a search key for "everything"; no byte follows
		return ""
	}
	return unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(d), HeaderSize)), d.n)
}

// Key returns the document's key: the partition-key encoding followed by
// the id, or the encoding alone in a collection partitioned by /id.
func (d *Doc) Key() string { return d.Text()[:d.keyLen] }

// Body returns the JSON object as written, in compact form, without the
// system properties.
func (d *Doc) Body() string { return d.Text()[d.keyLen:] }

// ID returns the document's id.
func (d *Doc) ID() string { return d.Text()[d.Layout.IDAt:d.Layout.IDEnd] }

// ETagLen is the length of every etag: 16 hexadecimal digits.
const ETagLen = 16

// AppendETag appends the etag of the number tag: its 16 hexadecimal digits.
func AppendETag(dst []byte, tag uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		dst = append(dst, digits[tag>>shift&0xf])
	}
	return dst
}

// ETag returns _etag.
func (d *Doc) ETag() string {
	var b [ETagLen]byte
	return string(AppendETag(b[:0], d.Tag))
}

// HasETag reports whether the document's _etag is etag, without allocating.
func (d *Doc) HasETag(etag string) bool {
	var b [ETagLen]byte
	return string(AppendETag(b[:0], d.Tag)) == etag
}

// AppendJSON appends the document with its system properties: the body
// with "_ts":N,"_etag":"E" added as its last members.
func (d *Doc) AppendJSON(dst []byte) []byte {
	body := d.Body()
	dst = append(dst, body[:len(body)-1]...)
	if len(body) > 2 { // not just "{}"
		dst = append(dst, ',')
	}
	dst = append(dst, `"_ts":`...)
	dst = strconv.AppendInt(dst, d.TS, 10)
	dst = append(dst, `,"_etag":"`...)
	dst = AppendETag(dst, d.Tag)
	return append(dst, `"}`...)
}

// JSONLen is the length of what AppendJSON appends, at most.
func (d *Doc) JSONLen() int { return len(d.Body()) + len(`,"_ts":,"_etag":""`) + 20 + ETagLen }
