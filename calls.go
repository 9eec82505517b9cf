package ttldb

import (
	"bytes"
	"context"
	"errors"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// The calls into the engine. For the in-process engine (c.fast) they are
// direct calls: an argument of a call through an interface escapes to the
// heap, and a key built on the stack would cost every Get and write an
// allocation. Any other engine gets its own copy of the key, which a
// round trip to a server dwarfs. Both paths do the same (the conformance
// suite runs the in-process engine through the interface too).

// get reads the live document with the key.
func (c *Collection) get(ctx context.Context, key []byte) (d *engine.Doc, err error) {
	if c.fast != nil {
		d, err = c.fast.Get(ctx, key)
	} else {
		d, err = c.eng.Get(ctx, bytes.Clone(key))
	}
	c.m.read(err)
	return d, err
}

// apply makes the write w of the document with the key.
func (c *Collection) apply(ctx context.Context, key []byte, w engine.Write) (d *engine.Doc, err error) {
	if c.fast != nil {
		d, err = c.fast.Write(ctx, key, w)
	} else {
		d, err = c.eng.Write(ctx, bytes.Clone(key), w)
	}
	if err == nil {
		c.m.wrote(w.Op)
	}
	return d, err
}

// snapshot opens a snapshot that reads the indexes on paths, or the keys
// when it has none of them.
func (c *Collection) snapshot(ctx context.Context, paths []string) (engine.Snapshot, error) {
	if c.fast != nil {
		return c.fast.Snapshot(ctx, paths, false)
	}
	return c.eng.Snapshot(ctx, slices.Clone(paths), false)
}

// refused words an engine's refusal of w, a write of the document that
// what names ("document "a" in partition "p""), as the API reports it; any
// other error passes as it is.
func refused(err error, w *engine.Write, what string) error {
	var m *engine.ETagMismatch
	switch {
	case errors.As(err, &m):
		return errorf(ErrPreconditionFailed, "%v: %s has etag %q, not %q", w.Op, what, m.Current, w.IfMatch)
	case errors.Is(err, engine.ErrConflict):
		return errorf(ErrConflict, "%s exists", what)
	case errors.Is(err, engine.ErrNotFound):
		return errorf(ErrNotFound, "%v: %s is not there or has expired", w.Op, what)
	}
	return err
}

// unusable reports whether calls must fail with [ErrClosed]: after Close, or
// on a [Collection] not made by [NewCollection].
func (c *Collection) unusable() bool {
	if c.fast != nil {
		return c.fast.Unusable() // closed also when its files failed
	}
	return c.eng == nil || c.closed.Load()
}

// errClosed returns the [ErrClosed] of op on a collection that is unusable.
func (c *Collection) errClosed(op string) error {
	switch {
	case c.fast != nil:
		return c.fast.ErrClosed(op)
	case c.eng == nil:
		return errorf(ErrClosed, "%s on a Collection not made by NewCollection", op)
	}
	return errorf(ErrClosed, "%s on collection %q after Close", op, c.name)
}
