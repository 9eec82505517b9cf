package ttldb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// keyBuffer is large enough for most keys, so that building one for a
// lookup does not allocate.
type keyBuffer [192]byte

// lookupKey validates a partition key and id given by a caller and appends
// the document key they make to buf.
func (c *Collection) lookupKey(buf []byte, pk PartitionKey, id string) ([]byte, error) {
	if pk.kind == pkString && pk.s == id {
		// A valid id is a valid string key: check the string once, and
		// report a bad one as a bad partition key first, as below.
		if err := validateID(id); err != nil {
			if perr := pk.validate(); perr != nil {
				return nil, perr
			}
			return nil, err
		}
		return keyFor(buf, pk, id, c.byID), nil
	}
	if err := pk.validate(); err != nil {
		return nil, err
	}
	if err := validateID(id); err != nil {
		return nil, err
	}
	return keyFor(buf, pk, id, c.byID), nil
}

// Get returns the live document with partition key pk and id id. It takes
// O(1) on average and does not allocate when it finds the document. It
// takes no collection-wide lock: it waits for neither writers nor the
// sweeper, but for one change of the key map at most, or for a
// transactional batch applying its changes, so that it sees all of a batch
// or none of it (R14).
//
// Errors: [ErrNotFound] when there is none or it has expired (R4);
// [ErrInvalidPartitionKey] or [ErrInvalidID] for a bad key; [ErrClosed];
// those of a context that is nil or done (see [Collection]).
func (c *Collection) Get(ctx context.Context, pk PartitionKey, id string) (Document, error) {
	if !ctxLive(ctx) {
		return Document{}, contextError(ctx, "Get")
	}
	if c.unusable() {
		return Document{}, c.errClosed("Get")
	}
	var buf keyBuffer
	key, err := c.lookupKey(buf[:0], pk, id)
	if err != nil {
		return Document{}, err
	}
	d, err := c.get(ctx, key)
	if errors.Is(err, engine.ErrNotFound) {
		return Document{}, errorf(ErrNotFound, "document %q in partition %v is not there or has expired", id, pk)
	}
	if err != nil {
		return Document{}, err
	}
	return c.document(d), nil
}

// Delete deletes the live document with partition key pk and id id. It
// takes O(log n).
//
// Errors: [ErrNotFound] when there is none or it has expired (R4);
// [ErrPreconditionFailed] when an [IfMatch] etag differs;
// [ErrInvalidPartitionKey] or [ErrInvalidID] for a bad key; [ErrClosed];
// those of a context that is nil or done (see [Collection]).
func (c *Collection) Delete(ctx context.Context, pk PartitionKey, id string, opts ...WriteOption) error {
	_, err := c.modify(ctx, engine.Delete, pk, id, opts, nil)
	return err
}

// Touch renews the live document's _ts and _etag and changes nothing else:
// a write that restarts its countdown (R6), for sliding expiry. It takes
// O(log n + size of the document) and returns the document as stored.
//
// Errors: those of Delete.
func (c *Collection) Touch(ctx context.Context, pk PartitionKey, id string, opts ...WriteOption) (Document, error) {
	return c.modify(ctx, engine.Touch, pk, id, opts, nil)
}

// modify makes the write op (Delete, Touch or Change, with change) of the
// live document with the key, under the write's condition.
func (c *Collection) modify(ctx context.Context, op engine.Op, pk PartitionKey, id string, opts []WriteOption, change func(old *engine.Doc, now int64) (*engine.Doc, error)) (Document, error) {
	if !ctxLive(ctx) {
		return Document{}, contextError(ctx, op.String())
	}
	if c.unusable() {
		return Document{}, c.errClosed(op.String())
	}
	var buf keyBuffer
	key, err := c.lookupKey(buf[:0], pk, id)
	if err != nil {
		return Document{}, err
	}
	w := engine.Write{Op: op, Change: change}
	w.IfMatch, w.HasIfMatch = condition(opts)
	d, err := c.apply(ctx, key, w)
	if err != nil {
		return Document{}, refused(err, &w, fmt.Sprintf("document %q in partition %v", id, pk))
	}
	if d == nil {
		return Document{}, nil
	}
	return c.document(d), nil
}

// ExpiresAt returns the instant d expires, or expired, under the
// collection's [DefaultTTL] (R3, R4): its _ts plus its effective TTL. A
// document that expired under an earlier [DefaultTTL] keeps the instant it
// expired at, whatever the setting now (R7). ok is false when d does not
// expire. It answers for the [Document] given, even if the collection has
// since replaced or deleted it; the zero [Document], and any after Close,
// give ok false. The answer follows changes of [DefaultTTL], which is why it
// is asked of the collection and not of the document. It takes O(1).
func (c *Collection) ExpiresAt(d Document) (at time.Time, ok bool) {
	if d.d == nil || c.eng == nil {
		return time.Time{}, false
	}
	sec, ok := c.eng.ExpiresAt(d.d)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}
