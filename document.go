package ttldb

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// Document is one stored document, as read or written. It is immutable: a
// later write to the same key stores a new [Document] and leaves this one as
// it was. The zero [Document] is empty: its methods return zero values and
// Decode reports [ErrNotFound].
type Document struct {
	d    *engine.Doc
	base uint64 // the collection's etag base: _etag is base + LSN
}

// LSN returns the log sequence number of the write that stored this
// version of the document (R11): the position of that write in the change
// feed; 0 for the zero [Document]. It is tied to the etag: _etag is the
// 16 hexadecimal digits of (E + LSN) mod 2^64, where E is a number drawn at
// random for each collection and fixed for its life. So two versions have
// the same etag exactly when they have the same LSN, and the etag of a
// [Change]'s Document is that of its LSN.
func (d Document) LSN() uint64 {
	if d.d == nil {
		return 0
	}
	return d.d.Tag - d.base
}

// ID returns the document's id.
func (d Document) ID() string {
	if d.d == nil {
		return ""
	}
	return d.d.ID()
}

// PartitionKey returns the document's partition-key value; for a document
// without one, the zero [PartitionKey] ("none").
func (d Document) PartitionKey() PartitionKey {
	if d.d == nil {
		return PartitionKey{}
	}
	k, _ := decodePartitionKey(d.d.Key()[:d.d.Layout.PK])
	return k
}

// TS returns _ts: the Unix second of the document's last write.
func (d Document) TS() int64 {
	if d.d == nil {
		return 0
	}
	return d.d.TS
}

// Timestamp returns _ts as a time.Time.
func (d Document) Timestamp() time.Time { return time.Unix(d.TS(), 0) }

// ETag returns _etag, which changes on every write: 16 hexadecimal digits.
// Pass it to [IfMatch] to make a later write conditional. It allocates the
// string it returns.
func (d Document) ETag() string {
	if d.d == nil {
		return ""
	}
	return d.d.ETag()
}

// TTL returns the document's own ttl: -1 or a number of seconds, with ok
// true; or ok false when the document has no ttl (or null) and so inherits
// the collection's [DefaultTTL].
func (d Document) TTL() (seconds int, ok bool) {
	if d.d == nil || d.d.TTL == ttlInherit {
		return 0, false
	}
	return int(d.d.TTL), true
}

// Body returns the document as written, without the system properties: its
// members in compact form (the ttl exactly as written, never the inherited
// default). It does not allocate: the string is the stored text.
func (d Document) Body() string {
	if d.d == nil {
		return ""
	}
	return d.d.Body()
}

// JSON returns the document with its system properties: Body with _ts and
// _etag added as its last members. It allocates the string it returns; to
// read without allocating, use Body, or AppendJSON with a reused buffer.
func (d Document) JSON() string {
	if d.d == nil {
		return ""
	}
	return string(d.d.AppendJSON(make([]byte, 0, d.d.JSONLen())))
}

// AppendJSON appends JSON() to dst and returns the extended slice. It
// allocates only when dst lacks room.
func (d Document) AppendJSON(dst []byte) []byte {
	if d.d == nil {
		return dst
	}
	return d.d.AppendJSON(dst)
}

// Decode unmarshals the document, with its system properties, into v, as
// encoding/json does. Errors: [ErrNotFound] for the zero [Document];
// [ErrInvalidDocument], wrapping encoding/json's error, when the document does
// not fit v.
func (d Document) Decode(v any) error {
	if d.d == nil {
		return errorf(ErrNotFound, "decode of an empty Document")
	}
	return decodeDoc(d.d, v, true)
}

// decodeBuffers recycles the buffers documents are decoded from.
var decodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// decodeDoc unmarshals the document d into v with encoding/json: its body, with
// the system properties when system is set. The text is copied into a
// recycled buffer first, so that nothing can reach the stored bytes.
func decodeDoc(d *engine.Doc, v any, system bool) error {
	bufp := decodeBuffers.Get().(*[]byte)
	buf := append((*bufp)[:0], d.Body()...)
	if system {
		buf = d.AppendJSON(buf[:0])
	}
	err := json.Unmarshal(buf, v)
	if cap(buf) <= 64<<10 {
		*bufp = buf
		decodeBuffers.Put(bufp)
	}
	if err != nil {
		into := strings.TrimPrefix(fmt.Sprintf("%T", v), "*") // the type decoded into, not the pointer to it
		return fmt.Errorf("%w: decode document %q into %s: %w", ErrInvalidDocument, d.ID(), into, err)
	}
	return nil
}

// String returns JSON(), so that a [Document] prints as its JSON.
func (d Document) String() string { return d.JSON() }
