package ttldb

import (
	"context"
	"sync"

	"github.com/ttldb/ttldb/engine"
)

// WriteOption makes a write conditional. The zero value adds no condition.
type WriteOption struct {
	ifMatch string
	set     bool
}

// IfMatch makes a write succeed only if the document is live and its _etag
// is etag (R10); otherwise it fails with [ErrPreconditionFailed], or with
// [ErrNotFound] when there is no live document (R4).
func IfMatch(etag string) WriteOption { return WriteOption{ifMatch: etag, set: true} }

// condition returns the etag the options require; the last [IfMatch] wins.
func condition(opts []WriteOption) (etag string, set bool) {
	for _, o := range opts {
		if o.set {
			etag, set = o.ifMatch, true
		}
	}
	return etag, set
}

// The writes of a whole document.
const (
	create  = engine.Create
	replace = engine.Replace
	upsert  = engine.Upsert
)

// intakeBuffers recycles the buffers documents are compacted into.
var intakeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// Create stores a new document. doc is JSON text ([]byte or
// json.RawMessage) or any value that encoding/json encodes to a JSON object
// (a struct, a map). It must have an id and may have a ttl (R2); the
// library adds _ts and _etag. Create returns the stored document.
//
// Errors: [ErrConflict] when a live document has the same partition key and
// id (an expired one is replaced, R4); [ErrInvalidDocument], [ErrTooLarge],
// [ErrInvalidID], [ErrInvalidPartitionKey] or [ErrInvalidTTL] for bad input,
// which changes nothing; [ErrClosed]; those of a context that is nil or done
// (see [Collection]). It takes O(log n + size of doc). For
// JSON text in a []byte, [Collection.CreateJSON] saves an allocation.
func (c *Collection) Create(ctx context.Context, doc any) (Document, error) {
	return c.writeAny(ctx, create, doc, nil)
}

// Replace replaces a live document with doc, which names it by its id and
// partition key. It takes the input and costs of Create.
//
// Errors: [ErrNotFound] when no live document has the key (R4);
// [ErrPreconditionFailed] when an [IfMatch] etag differs; and the input errors
// of Create.
func (c *Collection) Replace(ctx context.Context, doc any, opts ...WriteOption) (Document, error) {
	return c.writeAny(ctx, replace, doc, opts)
}

// Upsert replaces the live document with doc's key, or creates it when
// there is none (or it has expired, R4). With [IfMatch] it acts as Replace:
// there must be a live document with that etag. It takes the input and
// costs of Create, and returns its errors but [ErrConflict].
func (c *Collection) Upsert(ctx context.Context, doc any, opts ...WriteOption) (Document, error) {
	return c.writeAny(ctx, upsert, doc, opts)
}

// CreateJSON is [Collection.Create] for JSON text, which it reads and does
// not keep. Passing a []byte to Create converts it to an interface, which
// allocates; CreateJSON's only allocation, when it succeeds, is the stored
// document.
func (c *Collection) CreateJSON(ctx context.Context, doc []byte) (Document, error) {
	return c.write(ctx, create, doc, nil)
}

// ReplaceJSON is [Collection.Replace] for JSON text, with the one
// allocation of CreateJSON.
func (c *Collection) ReplaceJSON(ctx context.Context, doc []byte, opts ...WriteOption) (Document, error) {
	return c.write(ctx, replace, doc, opts)
}

// UpsertJSON is [Collection.Upsert] for JSON text, with the one allocation
// of CreateJSON.
func (c *Collection) UpsertJSON(ctx context.Context, doc []byte, opts ...WriteOption) (Document, error) {
	return c.write(ctx, upsert, doc, opts)
}

// writeAny writes what a caller passed as any, once it is JSON text.
func (c *Collection) writeAny(ctx context.Context, kind engine.Op, v any, opts []WriteOption) (Document, error) {
	if !ctxLive(ctx) {
		return Document{}, contextError(ctx, kind.String())
	}
	if c.unusable() {
		return Document{}, c.errClosed(kind.String())
	}
	src, err := encodeInput(v)
	if err != nil {
		return Document{}, err
	}
	return c.write(ctx, kind, src, opts) // which looks at ctx again: an inlined comparison
}

// write writes the JSON text src.
func (c *Collection) write(ctx context.Context, kind engine.Op, src []byte, opts []WriteOption) (Document, error) {
	if !ctxLive(ctx) {
		return Document{}, contextError(ctx, kind.String())
	}
	if c.unusable() {
		return Document{}, c.errClosed(kind.String())
	}
	bufp := intakeBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bufp) <= 64<<10 {
			intakeBuffers.Put(bufp)
		}
	}()
	var kb keyBuffer
	in, key, err := parseDocument(*bufp, kb[:0], src, c.pkPath)
	*bufp = in.out[:0]
	if err != nil {
		return Document{}, err
	}
	// The engine stamps the document as it stores it (R4: _ts is the
	// second of the write).
	w := engine.Write{Op: kind, Doc: engine.NewDoc(key, in.at, in.out, in.ttl, 0, 0)}
	w.IfMatch, w.HasIfMatch = condition(opts)
	d, err := c.apply(ctx, key, w)
	if err != nil {
		return Document{}, refused(err, &w, describeKey(key, in.at))
	}
	return c.document(d), nil
}
