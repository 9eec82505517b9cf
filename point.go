package ttldb

import (
	"context"
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

// live returns the entry of key when its document is live at now, or
// nil, and the key's hash. Call with mu held.
func (c *Collection) live(key []byte, now int64) (*entry, uint64) {
	e, h := c.prim.get(key)
	if e == nil || c.exp.limits(now).expired(e.doc()) {
		return nil, h
	}
	return e, h
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
	// No collection lock: the maps' own, shared, and the published rules.
	// The clock and the rules are read before the document: a document
	// written since is no older than that instant, and is judged by them
	// as it would have been then; read after, the instant could be one at
	// which the older document found had expired while its key was renewed.
	now, rules := c.now(), c.rules.Load()
	d, open := c.lookup(key)
	if !open || c.unusable() {
		return Document{}, c.errClosed("Get")
	}
	if d == nil || rules.limits(now).expired(d) {
		return Document{}, errorf(ErrNotFound, "document %q in partition %v is not there or has expired", id, pk)
	}
	return c.document(d), nil
}

// lookup is prim.lookup, but never amid a batch's changes: it reads
// again when a batch applied changes while it read, and waits for a batch
// applying them now, so that a reader sees all of a batch or none of it
// (R14). With no batch, it costs two loads of a word no write but a
// batch's touches.
func (c *Collection) lookup(key []byte) (d *engine.Doc, open bool) {
	for {
		seq := c.batching.Load()
		if seq&1 != 0 { // a batch holds mu while it applies its changes
			c.mu.RLock()
			c.mu.RUnlock() //lint:ignore SA2001 the wait is the point
			continue
		}
		d, open = c.prim.lookup(key)
		if c.batching.Load() == seq {
			return d, open
		}
	}
}

// Delete deletes the live document with partition key pk and id id. It
// takes O(log n).
//
// Errors: [ErrNotFound] when there is none or it has expired (R4);
// [ErrPreconditionFailed] when an [IfMatch] etag differs;
// [ErrInvalidPartitionKey] or [ErrInvalidID] for a bad key; [ErrClosed];
// those of a context that is nil or done (see [Collection]).
func (c *Collection) Delete(ctx context.Context, pk PartitionKey, id string, opts ...WriteOption) error {
	_, err := c.modify(ctx, "Delete", pk, id, opts, func(e *entry, _ uint64, now int64) (*engine.Doc, error) {
		c.remove(e, now)
		return nil, nil
	})
	return err
}

// Touch renews the live document's _ts and _etag and changes nothing else:
// a write that restarts its countdown (R6), for sliding expiry. It takes
// O(log n + size of the document) and returns the document as stored.
//
// Errors: those of Delete.
func (c *Collection) Touch(ctx context.Context, pk PartitionKey, id string, opts ...WriteOption) (Document, error) {
	return c.modify(ctx, "Touch", pk, id, opts, func(e *entry, h uint64, now int64) (*engine.Doc, error) {
		old := e.doc()
		d := engine.NewDoc(old.Key(), old.Layout, old.Body(), old.TTL, 0, 0)
		c.stamp(d, now)
		c.store(e, d, h, OpReplace)
		return d, nil
	})
}

// modify runs change on the live document with the key, under the lock and
// the write's condition, at now: the instant the document was found live
// at, which the change must use too (one reading of the clock per call). An
// error of change must come before it changes anything.
func (c *Collection) modify(ctx context.Context, op string, pk PartitionKey, id string, opts []WriteOption, change func(e *entry, h uint64, now int64) (*engine.Doc, error)) (_ Document, err error) {
	if !ctxLive(ctx) {
		return Document{}, contextError(ctx, op)
	}
	if c.unusable() {
		return Document{}, c.errClosed(op)
	}
	var buf keyBuffer
	key, err := c.lookupKey(buf[:0], pk, id)
	if err != nil {
		return Document{}, err
	}
	c.lock()
	defer c.settle(&err)
	if c.unusable() {
		return Document{}, c.errClosed(op)
	}
	now := c.now()
	e, h := c.live(key, now)
	etag, cond := condition(opts)
	switch {
	case e == nil:
		return Document{}, errorf(ErrNotFound, "%s: document %q in partition %v is not there or has expired", op, id, pk)
	case cond && !e.doc().HasETag(etag):
		return Document{}, errorf(ErrPreconditionFailed, "%s: document %q in partition %v has etag %q, not %q", op, id, pk, e.doc().ETag(), etag)
	}
	d, err := change(e, h, now)
	if err != nil {
		return Document{}, err
	}
	return c.document(d), nil
}

// remove deletes e's document, live, at now: the deletion a caller asked
// for. Call with mu held.
func (c *Collection) remove(e *entry, now int64) {
	c.logDelete(e, now, false)
	c.sec.update(e, e.doc(), nil)
	c.prim.remove(e)
	c.exp.remove(e, e.doc())
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
	if d.d == nil || c.unusable() {
		return time.Time{}, false
	}
	c.mu.RLock()
	if c.unusable() { // Close may have emptied the index since the look above
		c.mu.RUnlock()
		return time.Time{}, false
	}
	sec, ok := c.exp.expiresAt(d.d, c.now())
	c.mu.RUnlock()
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}
