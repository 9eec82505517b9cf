package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb/engine"
)

// Engine is a handle on one collection kept on a PostgreSQL server, which
// other handles, in this process or others, share. Open makes it. It is
// safe for concurrent use.
//
// It implements [engine.Engine]: ttldb.FromEngine makes a
// ttldb.Collection of it (doc.go says what each part is). The zero Engine
// is closed: its Settings are zero.
type Engine struct {
	pool    *pgxpool.Pool
	ownPool bool   // OpenURL made the pool: Close closes it
	schema  string // PostgreSQL's schema that holds the tables, quoted
	no      int64  // the collection's number, which names its tables
	noArg   any    // no, boxed once: a statement's parameter without an allocation
	clock   func() time.Time

	settings atomic.Pointer[engine.Settings]
	rules    atomic.Pointer[rules] // the DefaultTTL and cut-offs last read (ExpiresAt)
	lastLSN  atomic.Uint64         // the largest LSN given out that this handle has seen
	lastNow  atomic.Int64          // the largest "now" the server gave this handle
	closed   atomic.Bool

	// The statement texts made for this handle (sql), by template:
	// copied on write, under textsMu, and read without a lock.
	texts   atomic.Pointer[map[string]string]
	textsMu sync.Mutex

	passes *passer // one pass of the sequencer at a time, serving every call that waits (passes.go)

	// skipPass, set by a test, makes a write commit and return errSkipped
	// without its pass: a writer that died between the two.
	skipPass atomic.Bool

	watch *watcher // the feed's listener (watch.go), from Open to Close
	// The open snapshots, each holding a connection, which Close releases
	// (snapshot.go).
	snaps struct {
		sync.Mutex
		open map[*snapshot]struct{}
	}
	// The sweeper (sweep.go, stats.go, background.go).
	sweepBatch int           // Options.SweepBatch; 0: ttldb.DefaultSweepBatch
	swept      atomic.Uint64 // the documents this handle's sweeps deleted
	lastSweep  atomic.Int64  // how long its last complete sweep that deleted took, in ns
	bg         *background   // its background goroutine (background.go); nil for the zero Engine

	logger *slog.Logger           // ttldb.Options.Logger; nil logs nothing (logs.go)
	logs   logState               // the background goroutine's, of what it logged
	gauges atomic.Pointer[gauges] // the gauges last read, for Metrics (metrics.go); nil: none yet
	// sweepHold, set by a test, is called in a sweep's batch, its rows
	// deleted, before its commit.
	sweepHold atomic.Pointer[func()]
	// buildHook, set by a test, is called by CreateIndex after each batch
	// of its backfill commits, with the documents done so far (build.go).
	buildHook atomic.Pointer[func(done int)]
	// writeHold, set by a test, is called by a write once it has read the
	// collection's row, before it writes (write.go).
	writeHold atomic.Pointer[func()]
}

// seen records what a statement read of the collection's row: its last
// LSN and its now.
func (e *Engine) seen(lsn, now int64) {
	for {
		old := e.lastLSN.Load()
		if uint64(lsn) <= old || e.lastLSN.CompareAndSwap(old, uint64(lsn)) {
			break
		}
	}
	for {
		old := e.lastNow.Load()
		if now <= old || e.lastNow.CompareAndSwap(old, now) {
			break
		}
	}
}

// setRules stores the rules read from the collection's row, and the
// DefaultTTL in the settings when it changed.
func (e *Engine) setRules(r rules) {
	e.rules.Store(&r)
	if s := e.settings.Load(); s != nil && s.DefaultTTL != r.def {
		e.updateSettings(func(s *engine.Settings) { s.DefaultTTL = r.def })
	}
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
// [engine.ErrClosed]. It ends the open snapshots' transactions, giving
// their connections back to the pool (their later reads return
// ErrClosed), stops the handle's background goroutine and waits for it
// (background.go), and stops the feed's listener, closing its connection,
// and closes FeedChanged's channel (watch.go). Then it raises the
// collection's stored "now" to the latest this handle was given
// (clock.go, storeNow: R4 across a reopen), a statement that it waits for
// at most storeNowTimeout, and whose failure it ignores (a server gone:
// the mark is then the bound clock.go states). It closes the pool when
// OpenURL made it, and otherwise leaves it to the caller, who made it. No
// connection or goroutine of the handle outlives Close. It is idempotent
// and returns nil.
func (e *Engine) Close() error {
	if e.closed.Swap(true) || e.pool == nil {
		return nil
	}
	e.releaseSnapshots()
	e.stopBackground()
	e.stopWatch()
	ctx, cancel := context.WithTimeout(context.Background(), storeNowTimeout)
	defer cancel()
	_ = e.storeNow(ctx)
	if e.ownPool {
		e.pool.Close()
	}
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
// collection's number. It makes each text once per handle, and then finds
// it in the handle's texts: a map lookup, no allocation (a Get's text
// made anew cost 14 allocations and about 2 KB).
func (e *Engine) sql(text string) string {
	if m := e.texts.Load(); m != nil {
		if s, ok := (*m)[text]; ok {
			return s
		}
	}
	s := ddl(text, e.schema, e.no)
	e.textsMu.Lock()
	defer e.textsMu.Unlock()
	old := e.texts.Load()
	if old != nil && len(*old) >= maxTexts {
		return s // not kept: every text is a constant, so this is a bound never met
	}
	m := make(map[string]string, 1+len(mapOf(old)))
	for k, v := range mapOf(old) {
		m[k] = v
	}
	m[text] = s
	e.texts.Store(&m)
	return s
}

// maxTexts bounds the statement texts a handle keeps (sql): the package's
// statements are fewer than 100.
const maxTexts = 256

// mapOf returns *m, or nil for a nil m.
func mapOf(m *map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	return *m
}

// errorf returns an error wrapping sentinel with the message made of
// format and args.
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
