package ttldb

import (
	"strconv"
	"unsafe"
)

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

func (*noCopy) Lock() {}

func (*noCopy) Unlock() {}

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
