package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// Open opens the collection named name, partitioned by partitionKeyPath,
// on the server pool connects to, in PostgreSQL's schema that its
// connections' search_path names first: it makes ttldb's tables there if
// they are missing, and the collection if it is missing, with the
// settings of opts, or else adopts it, as many processes do at once. An
// empty partitionKeyPath opens an existing collection with its stored
// path, and makes none. The engine does not own pool: closing the engine
// leaves it open ([OpenURL] makes a pool the engine owns).
//
// opts are ttldb's: those of [ttldb.NewCollection], validated by its rules
// (R1, R8, R10, R13), and read as [ttldb.Open] reads them for an existing
// directory, because every process shares the collection's settings:
// DefaultTTL, Indexing, Feed and Indexes make a new collection; for an
// existing one, a zero field means "as stored" and any other value must
// be the stored one. Now, when set, is the handle's clock in place of the
// server's (R4; for tests, never for a process sharing a collection with
// others). Open starts the handle's background goroutine, which, unless
// ManualSweep, sweeps every second (background.go), in batches of
// SweepBatch documents, and reads the gauges Metrics asks for
// (metrics.go). Logger, when set, gets the handle's records (logs.go).
// Sync is not read: a write is as durable as the
// server's commit (doc.go, "Durability"). nil opts are the zero Options.
//
// Open costs about ten round trips in one transaction, which holds an
// advisory lock of the PostgreSQL schema: the opens of one schema wait for
// each other, briefly. A refused open changes nothing on the server.
//
// Errors: [engine.ErrInvalidOption] for a nil ctx or pool, a name, path or
// option that NewCollection refuses (its errors, with their sentinels),
// Options.Dir, Options.Name or PartitionKeyPath set to other values than
// the arguments, an index path holding a 0x00 byte (which PostgreSQL's
// text cannot hold), a search_path that names no schema, ttldb's tables of a
// newer version than [SchemaVersion], an existing collection of another
// partition-key path or with other settings (each message names both
// values), and a missing one opened with no partition-key path; [engine.ErrCorrupt] for tables that no ttldb wrote; ctx's
// error; the server's, wrapped.
func Open(ctx context.Context, pool *pgxpool.Pool, name, partitionKeyPath string, opts *ttldb.Options) (*Engine, error) {
	if ctx == nil || ctx.Err() != nil {
		return nil, engine.ContextError(ctx, "Open")
	}
	if pool == nil {
		return nil, fmt.Errorf("%w: Open of collection %q with a nil *pgxpool.Pool: make one with pgxpool.New", engine.ErrInvalidOption, name)
	}
	var o ttldb.Options
	if opts != nil {
		o = *opts
	}
	w, err := want(name, partitionKeyPath, o)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	e := &Engine{pool: pool, clock: o.Now, sweepBatch: o.SweepBatch, passes: newPasser(), logger: o.Logger}
	e.lastNow.Store(-maxClock) // no now seen yet
	st, schema, err := openTx(ctx, pool, name, w, e.clockParam())
	if err != nil {
		return nil, err
	}
	e.schema, e.no, e.noArg = schema, st.no, st.no
	e.settings.Store(&st.settings)
	e.setRules(st.rules)
	e.seen(st.lsn, st.hwm)
	e.startWatch() // the feed's listener (watch.go), until Close
	e.startBackground(!o.ManualSweep)
	e.logOpen(st, time.Since(start))
	return e, nil
}

// want validates what Open was given and returns what it asks of the
// collection. The rules are the API's own (ttldb.CheckCollection), and
// the refusals of what PostgreSQL cannot hold.
func want(name, path string, o ttldb.Options) (*wanted, error) {
	switch {
	case o.Dir != "":
		return nil, fmt.Errorf("%w: Options.Dir %q: a collection on PostgreSQL lives on the server; Dir is for the in-process engine", engine.ErrInvalidOption, o.Dir)
	case o.Quota != ttldb.QuotaOptions{}:
		return nil, fmt.Errorf("%w: Options.Quota %+v: a collection on PostgreSQL lives on the server, which bounds its own memory and disk; the quota bounds the in-process engine's memory (R17)", engine.ErrInvalidOption, o.Quota)
	case o.Name != "" && o.Name != name:
		return nil, fmt.Errorf("%w: Open of collection %q with Options.Name %q: the name is Open's argument; leave Options.Name empty, or make it the same", engine.ErrInvalidOption, name, o.Name)
	case o.PartitionKeyPath != "" && o.PartitionKeyPath != path:
		return nil, fmt.Errorf("%w: Open with the partition-key path %q and Options.PartitionKeyPath %q: the path is Open's argument; leave Options.PartitionKeyPath empty, or make it the same", engine.ErrInvalidOption, path, o.PartitionKeyPath)
	}
	for _, p := range o.Indexes {
		if strings.IndexByte(p, 0) >= 0 {
			return nil, fmt.Errorf("%w: index path %q holds a 0x00 byte, which PostgreSQL's text cannot hold", engine.ErrInvalidOption, p)
		}
	}
	check := path
	if path == "" { // adopt only: the stored path; check the rest
		check = "/id"
	}
	if err := ttldb.CheckCollection(name, check, &o); err != nil {
		return nil, err
	}
	n, on := o.DefaultTTL.Seconds()
	w := &wanted{
		path: path,
		def:  engine.DefaultTTL{On: on, Seconds: n},
		mode: engine.Indexing(o.Indexing),
		feed: !o.Feed.Off,
		idx:  o.Indexes,
	}
	if w.feed {
		w.keep = retention{o.Feed.MaxRecords, o.Feed.MaxBytes, int64(o.Feed.MaxAge / time.Second)}
		if w.keep.bytes == 0 {
			w.keep.bytes = ttldb.DefaultFeedBytes
		}
	}
	w.set.def = o.DefaultTTL != ttldb.TTLOff()
	w.set.mode = o.Indexing != ttldb.IndexingConsistent
	w.set.feed = o.Feed != ttldb.FeedOptions{}
	w.set.idx = len(o.Indexes) > 0
	return w, nil
}

// openTx makes or adopts the collection in one transaction, under the
// advisory lock of the PostgreSQL schema, so that two processes that open
// at once make the tables and the collection once, and each sees them
// whole. It returns the collection's row and the schema's name, quoted.
func openTx(ctx context.Context, pool *pgxpool.Pool, name string, w *wanted, now *int64) (stored, string, error) {
	// Read committed, whatever the connections' default: each statement
	// then sees what another open committed before this one got the lock.
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return stored{}, "", fmt.Errorf("ttldb: opening collection %q: %w", name, err)
	}
	defer func() { _ = tx.Rollback(ctx) }() // after Commit, a no-op; with ctx done, pgx closes the connection
	var schema *string
	if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return stored{}, "", fmt.Errorf("ttldb: opening collection %q: %w", name, err)
	}
	if schema == nil {
		var path string
		_ = tx.QueryRow(ctx, `SHOW search_path`).Scan(&path) // for the message only
		return stored{}, "", fmt.Errorf("%w: opening collection %q: the connection's search_path (%s) names no schema that exists: create one, or set search_path to one", engine.ErrInvalidOption, name, path)
	}
	q := pgx.Identifier{*schema}.Sanitize()
	if _, err := tx.Exec(ctx, schemaLock, *schema); err != nil {
		return stored{}, "", fmt.Errorf("ttldb: opening collection %q: locking PostgreSQL schema %q: %w", name, *schema, err)
	}
	if err := useSchema(ctx, tx, *schema, q); err != nil {
		return stored{}, "", err
	}
	st, found, err := readCollection(ctx, tx, q, name)
	switch {
	case err != nil:
		return stored{}, "", err
	case found:
		if err := w.adopt(&st); err != nil {
			return stored{}, "", err
		}
		if err := tablesExist(ctx, tx, q, &st); err != nil {
			return stored{}, "", err
		}
	case w.path == "":
		return stored{}, "", fmt.Errorf("%w: collection %q is not in PostgreSQL schema %s: opening it with no partition-key path opens an existing one; give the path to make it (or set search_path to the schema that holds it)", engine.ErrInvalidOption, name, *schema)
	default:
		if st, err = createCollection(ctx, tx, q, name, w, now); err != nil {
			return stored{}, "", err
		}
		st.made = true
	}
	if err := tx.Commit(ctx); err != nil {
		return stored{}, "", fmt.Errorf("ttldb: opening collection %q: committing: %w", name, err)
	}
	return st, q, nil
}

// tablesExist checks that the tables (and the sequence) of the stored
// collection st exist.
// Errors: ErrCorrupt for one that is missing, dropped by hand.
func tablesExist(ctx context.Context, tx pgx.Tx, q string, st *stored) error {
	for _, t := range []string{"ttldb_docs_{n}", "ttldb_feed_{n}", "ttldb_seq_{n}", "ttldb_items_{n}"} {
		table := ddl("{s}."+t, q, st.no)
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok); err != nil {
			return fmt.Errorf("ttldb: opening collection %q: looking for table %s: %w", st.settings.Name, table, err)
		}
		if !ok {
			return fmt.Errorf("%w: collection %q has no %s: it was dropped by hand; ttldb cannot open the collection without it", engine.ErrCorrupt, st.settings.Name, table)
		}
	}
	return nil
}
