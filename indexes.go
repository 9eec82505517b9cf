package ttldb

import (
	"context"
	"errors"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// indexPath checks the path of a secondary index: a JSON Pointer of member
// names, as /status or /user/name.
func indexPath(ptr string) (query.Path, error) {
	p, err := query.ParsePointer(ptr)
	if err != nil {
		return nil, errorf(ErrInvalidOption, "index path %q: %v", ptr, err)
	}
	return p, nil
}

// CreateIndex declares a secondary index on the documents' values at path,
// a JSON Pointer of member names (/status, /user/name), and builds it. From
// then on queries (R13) may read it for their equalities, ranges,
// STARTSWITH and ORDER BY on that path; their rows stay the same, only
// their cost changes. A durable collection keeps the index across
// reopens (and rebuilds it as it opens).
//
// The build reads a snapshot without holding the collection's lock, so
// writers go on while it runs; it then takes the lock once, for the writes
// made meanwhile. It takes O(n log n) for n documents, and returns when
// the index is ready. Each index then costs each write that changes the
// value at its path O(log n), and holds one item (about 40 bytes beyond
// the value's and the key's bytes) per document.
//
// Errors: [ErrInvalidOption] for a nil ctx, a path that is not a JSON Pointer of
// member names, an index on path that exists or is being built, one
// dropped while it was built, or indexing mode none (R8); the context's
// error if ctx ends first; [ErrClosed]. An error leaves no index.
func (c *Collection) CreateIndex(ctx context.Context, path string) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "CreateIndex")
	}
	if c.unusable() {
		return c.errClosed("CreateIndex")
	}
	if _, err := indexPath(path); err != nil {
		return err
	}
	return c.eng.CreateIndex(ctx, path)
}

// DropIndex drops the secondary index on path, or stops its build, in
// O(1); queries no longer read it, and its memory goes back to the runtime
// once the queries in progress that read it end.
//
// Errors: [ErrInvalidOption] for a malformed path; [ErrNotFound] when no
// index on path exists; [ErrClosed].
func (c *Collection) DropIndex(ctx context.Context, path string) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "DropIndex")
	}
	if c.unusable() {
		return c.errClosed("DropIndex")
	}
	if _, err := indexPath(path); err != nil {
		return err
	}
	err := c.eng.DropIndex(ctx, path)
	if errors.Is(err, engine.ErrNotFound) {
		return errorf(ErrNotFound, "no index on %s", path)
	}
	return err
}

// Indexes returns the paths of the collection's secondary indexes, in the
// order they were made; not those still being built. It takes O(k) for k
// indexes.
func (c *Collection) Indexes() []string {
	if c.eng == nil {
		return nil
	}
	return slices.Clone(c.eng.Settings().Indexes)
}
