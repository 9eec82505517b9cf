package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb/engine"
)

// Engine is a handle on one collection kept on a PostgreSQL server, which
// other handles, in this process or others, share. Open makes it. It is
// safe for concurrent use.
//
// It is groundwork: it holds the collection's identity and settings and
// its clock, and has no document operation yet, so it does not implement
// [engine.Engine]. The zero Engine is closed: its Settings are zero.
type Engine struct {
	pool   *pgxpool.Pool
	schema string // PostgreSQL's schema that holds the tables, quoted
	no     int64  // the collection's number, which names its tables
	clock  func() time.Time

	settings atomic.Pointer[engine.Settings]
	closed   atomic.Bool
}

// Settings returns the collection's identity and settings as this handle
// last read them from the server (at Open): Name, PartitionKeyPath, ID,
// ETagBase, DefaultTTL, Indexing, Feed and Indexes, the slice being the
// engine's own, to read only. It does not wait, and costs nothing; after
// Close it returns the same.
func (e *Engine) Settings() engine.Settings {
	if s := e.settings.Load(); s != nil {
		return *s
	}
	return engine.Settings{} // the zero Engine's
}

// Close releases the handle: its later calls return an error wrapping
// [engine.ErrClosed]. It does not close the pool, which is the caller's,
// nor change anything on the server. It is idempotent and returns nil.
func (e *Engine) Close() error {
	e.closed.Store(true)
	return nil
}

// usable returns the error of a call named op that must not start: ctx nil
// or done, or the handle closed.
func (e *Engine) usable(ctx context.Context, op string) error {
	if ctx == nil || ctx.Err() != nil {
		return engine.ContextError(ctx, op)
	}
	if e.pool == nil {
		return fmt.Errorf("%w: %s on a zero Engine: make one with Open", engine.ErrClosed, op)
	}
	if e.closed.Load() {
		return fmt.Errorf("%w: %s on collection %q after Close", engine.ErrClosed, op, e.Settings().Name)
	}
	return nil
}

// sql returns the statement text with {s} the schema's name and {n} the
// collection's number.
func (e *Engine) sql(text string) string { return ddl(text, e.schema, e.no) }

// serverError wraps an error of the server met while doing what, naming
// the collection. A collection whose row is gone (dropped by hand) is
// closed for good: ErrClosed.
func (e *Engine) serverError(what string, err error) error {
	name := e.Settings().Name
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: collection %q: its row of %s.ttldb_collections is gone: it was dropped on the server", engine.ErrClosed, name, e.schema)
	}
	return fmt.Errorf("ttldb: collection %q: %s: %w", name, what, err)
}
