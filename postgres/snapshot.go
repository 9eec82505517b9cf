package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// A snapshot (R13) is a REPEATABLE READ, READ ONLY transaction held on one
// of the pool's connections until Release: every read of it, a cursor's
// pages included, sees the collection as of its first statement, which
// reads the collection's row (now, the limits of the live predicate, the
// setting and cut-offs, the indexes). It blocks no writer: PostgreSQL
// keeps the row versions it may read (which holds back VACUUM for its
// life: release it soon).
//
// A version committed before the snapshot whose pass had not yet numbered
// it reads with lsn NULL, and stays so in the snapshot; its LSN (and so
// its etag) is found outside it, by a pass on another connection
// (Engine.sequence, which returns the LSN of the record of that seq).

// snapOpenSQL is a snapshot's first statement: now, the two limits at now,
// the setting and cut-offs (for Judge), the indexing mode and indexes, and
// the last LSN.
const snapOpenSQL = `SELECT t.now, ` + ownLimSQL + `, ` + inhLimSQL + `, c.def_on, c.def_n, c.own_cut, c.inherit_cuts,
	c.indexing, c.indexes, c.lsn, c.ix_paths, c.ix_ids
FROM {s}.ttldb_collections c CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t WHERE c.no = $1`

// liveParamSQL is the live predicate of a document d (liveSQL) with the
// limits as parameters $1 (own) and $2 (inherit): the snapshot's.
const liveParamSQL = `(d.ttl = -1 OR (d.ttl > 0 AND d.ts + d.ttl > $1) OR (d.ttl = 0 AND d.ts > $2))`

// orderSQL is the key order: the index on the key's first 1024 bytes, then
// the key, which is the order of the keys themselves (bytea compares as Go
// strings do).
const orderSQL = `substring(d.key FROM 1 FOR 1024)`

// scanSQL reads a page of the live documents in key order: those whose
// order prefix is at or above $3 and below $4 (NULL: no end), whose key
// starts with $5, after the key $6 (NULL: from the start), at most $7.
const scanSQL = `SELECT d.key, d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl, d.seq, d.lsn
FROM {s}.ttldb_docs_{n} d
WHERE ` + orderSQL + ` >= $3::bytea AND ($4::bytea IS NULL OR ` + orderSQL + ` < $4)
	AND substring(d.key FROM 1 FOR octet_length($5::bytea)) = $5::bytea
	AND ($6::bytea IS NULL OR ` + orderSQL + ` > substring($6::bytea FROM 1 FOR 1024) OR d.key > $6::bytea)
	AND ` + liveParamSQL + `
ORDER BY ` + orderSQL + `, d.key LIMIT $7`

// pageSize is how many documents a read of a snapshot takes from the
// server at once, and so how often it looks at its context (R16): a
// page is held in memory, never more.
const pageSize = 256

// snapshot is the engine's [engine.Snapshot]. It is not safe for
// concurrent use (nor is the API's use of it concurrent), but Close may
// release it from another goroutine: mu guards tx against that.
type snapshot struct {
	e     *Engine
	mu    sync.Mutex // held while tx is used, and by Release
	tx    pgx.Tx
	paths []string // the indexes asked for that the collection has
	ids   []int64  // the number of each, whose items the snapshot reads
	keys  bool     // Scan allowed
	ctx   context.Context

	lim     limits    // the limits expiry is judged by
	rules   rules     // the setting and cut-offs as of the opening, for Judge
	now     int64     // the now lim was computed at
	openNow int64     // the server's now at the opening
	opened  time.Time // when, on this machine's monotonic clock

	released atomic.Bool
}

// Snapshot implements [engine.Engine]: it begins a REPEATABLE READ, READ
// ONLY transaction on a connection of the pool, which it holds until
// Release, and reads the collection's row in it, which takes the
// snapshot. It refreshes the handle's Settings().Indexing and Indexes
// from that row. Indexes() are the paths asked for that the collection
// has; Scan is allowed when keys is set or none of them is there. It
// costs a round trip for BEGIN and one for the row, and a connection of
// the pool for the snapshot's life: as many snapshots open at once as the
// pool has connections leave none for anything else, a snapshot's
// included (a read that meets a version not yet numbered runs a pass on
// another connection).
//
// Errors: ErrClosed; ErrCorrupt for a row no ttldb writes; ctx's; the
// server's.
func (e *Engine) Snapshot(ctx context.Context, paths []string, keys bool) (snap engine.Snapshot, err error) {
	if err := e.usable(ctx, "Query"); err != nil {
		return nil, err
	}
	err = e.retry(ctx, func() error { // a lost connection: again (failure.go)
		snap, err = e.openSnapshot(ctx, paths, keys)
		return err
	})
	return snap, err
}

// openSnapshot is one attempt of Snapshot.
func (e *Engine) openSnapshot(ctx context.Context, paths []string, keys bool) (engine.Snapshot, error) {
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, e.readError(ctx, "opening a snapshot", err)
	}
	s := &snapshot{e: e, tx: tx, keys: keys, ctx: ctx, opened: time.Now()}
	if !e.track(s) { // closed meanwhile
		s.Release()
		return nil, e.readError(ctx, "opening a snapshot", nil)
	}
	var cuts []int64
	var mode int16
	var indexes []string
	var last int64
	var ixPaths []string
	var ixIDs []int64
	r := &s.rules
	s.mu.Lock()
	err = tx.QueryRow(ctx, e.sql(snapOpenSQL), e.no, e.clockParam()).Scan(&s.openNow, &s.lim.own, &s.lim.inherit,
		&r.def.On, &r.def.Seconds, &r.ownCut, &cuts, &mode, &indexes, &last, &ixPaths, &ixIDs)
	if s.released.Load() { // Close released it under the statement
		err = engine.ErrClosed
	}
	s.mu.Unlock()
	if err != nil {
		s.Release()
		return nil, e.readError(ctx, "opening a snapshot", err)
	}
	var ok bool
	if r.cuts, ok = pairs(cuts); !ok || !r.def.Valid() {
		s.Release()
		return nil, e.corrupt("its row of ttldb_collections holds DefaultTTL %v and inherit_cuts %v, which no ttldb writes", r.def, cuts)
	}
	s.now = s.openNow
	e.seen(last, s.openNow)
	e.setIndexes(engine.Indexing(mode), indexes)
	for _, p := range paths {
		if slices.Contains(indexes, p) && !slices.Contains(s.paths, p) {
			i := slices.Index(ixPaths, p)
			if i < 0 || i >= len(ixIDs) {
				s.Release()
				return nil, e.corrupt("its row of ttldb_collections holds the ready index %q without its number", p)
			}
			s.paths, s.ids = append(s.paths, p), append(s.ids, ixIDs[i])
		}
	}
	s.keys = keys || len(s.paths) == 0
	return s, nil
}

// Indexes implements [engine.Snapshot]: the paths asked for that the
// collection had at the snapshot's instant. It costs nothing.
func (s *snapshot) Indexes() []string { return s.paths }

// Expired implements [engine.Snapshot]: whether d had expired at the
// instant the snapshot judges by (its opening, or its last Judge), by the
// live predicate in Go. It does not wait.
func (s *snapshot) Expired(d *engine.Doc) bool { return !s.lim.live(d.TS, d.TTL) }

// Judge implements [engine.Snapshot]: from now on the snapshot judges
// expiry as of now, under the DefaultTTL and cut-offs of its instant. It
// does not wait, so it asks the server nothing: now is the server's now
// at the opening plus the whole seconds this machine's monotonic clock
// has counted since, or the handle's Options.Now, never before the
// instant judged by so far.
func (s *snapshot) Judge() {
	now := s.openNow + int64(time.Since(s.opened)/time.Second)
	if p := s.e.clockParam(); p != nil {
		now = *p
	}
	s.now = max(s.now, now, s.e.lastNow.Load())
	s.lim = s.rules.limits(s.now)
}

// Release implements [engine.Snapshot]: it ends the transaction and gives
// its connection back to the pool (a connection whose read was cut off by
// a context is closed instead). It is idempotent. It waits at most
// releaseTimeout for the server, and for a read of the snapshot in
// progress in another goroutine (Close's call) to end.
func (s *snapshot) Release() {
	s.mu.Lock()
	if !s.released.Swap(true) {
		ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
		_ = s.tx.Rollback(ctx)
		cancel()
	}
	s.mu.Unlock()
	s.e.untrack(s)
}

// track adds s to the handle's open snapshots, which Close releases; false
// when the handle is closed.
func (e *Engine) track(s *snapshot) bool {
	e.snaps.Lock()
	defer e.snaps.Unlock()
	if e.closed.Load() {
		return false
	}
	if e.snaps.open == nil {
		e.snaps.open = map[*snapshot]struct{}{}
	}
	e.snaps.open[s] = struct{}{}
	return true
}

// untrack removes s from the handle's open snapshots.
func (e *Engine) untrack(s *snapshot) {
	e.snaps.Lock()
	defer e.snaps.Unlock()
	delete(e.snaps.open, s)
}

// releaseSnapshots releases the handle's open snapshots (Close): their
// connections go back to the pool, and their later reads return ErrClosed.
// track refuses new ones once closed is set.
func (e *Engine) releaseSnapshots() {
	e.snaps.Lock()
	open := make([]*snapshot, 0, len(e.snaps.open))
	for s := range e.snaps.open {
		open = append(open, s)
	}
	e.snaps.Unlock()
	for _, s := range open {
		s.Release()
	}
}

// releaseTimeout bounds the wait of Release, which has no context, for the
// server's answer to its ROLLBACK.
const releaseTimeout = 10 * time.Second

// Scan implements [engine.Snapshot]: the live documents (as of the
// instant the snapshot judges by) whose key starts with prefix, in key
// order, after the key after when resume, until fn returns false. It
// reads pages of pageSize documents, by the index of the key order, one
// round trip each, and looks at ctx between two.
//
// Errors: ErrInvalidOption for a snapshot opened without keys (with
// indexes); ErrClosed after Release or Close; ErrCorrupt; ctx's; the
// server's.
func (s *snapshot) Scan(ctx context.Context, prefix, after string, resume bool, fn func(*engine.Doc) bool) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	if !s.keys {
		return errorf(engine.ErrInvalidOption, "a scan of a snapshot opened without keys")
	}
	lo := []byte(prefix[:min(len(prefix), 1024)])
	hi := query.PrefixEnd(lo)
	var from []byte
	if resume {
		from = []byte(after)
		if a := from[:min(len(from), 1024)]; string(a) > string(lo) {
			lo = a
		}
	}
	for {
		page, err := s.page(ctx, s.e.sql(scanSQL), s.lim.own, s.lim.inherit, lo, hi, []byte(prefix), from, pageSize)
		if err != nil {
			return err
		}
		for _, d := range page {
			if !strings.HasPrefix(d.Key(), prefix) { // the server said otherwise: never
				return s.e.corrupt("a scan of the prefix %q met the key %q", prefix, d.Key())
			}
			if !fn(d) {
				return nil
			}
		}
		if len(page) < pageSize {
			return nil
		}
		from = []byte(page[len(page)-1].Key())
		lo = from[:min(len(from), 1024)]
	}
}

// usable returns the error of a read of the snapshot that must not start.
func (s *snapshot) usable(ctx context.Context) error {
	if ctx == nil || ctx.Err() != nil {
		return engine.ContextError(ctx, "Query")
	}
	if s.e.closed.Load() {
		return fmt.Errorf("%w: a read of a snapshot of collection %q after Close", engine.ErrClosed, s.e.Settings().Name)
	}
	if s.released.Load() {
		return errorf(engine.ErrClosed, "a read of a snapshot after its Release")
	}
	s.ctx = ctx
	return nil
}

// page runs sql, a read of documents (columns as scanSQL's) with args, in
// the snapshot, and returns its documents, each version not yet numbered
// given its LSN by a pass outside the snapshot.
func (s *snapshot) page(ctx context.Context, sql string, args ...any) ([]*engine.Doc, error) {
	_, docs, err := s.pageOf(ctx, false, sql, args...)
	return docs, err
}

// pageOf is page, for a read whose first column is an index's item when
// withItem: it returns the items too.
func (s *snapshot) pageOf(ctx context.Context, withItem bool, sql string, args ...any) ([][]byte, []*engine.Doc, error) {
	items, keys, rs, err := s.read(ctx, withItem, sql, args...)
	if err != nil {
		return nil, nil, err
	}
	docs := make([]*engine.Doc, len(rs))
	for i := range rs {
		if rs[i].lsn == nil { // committed before the snapshot, numbered after
			lsn, err := s.e.sequence(ctx, rs[i].seq)
			if err != nil {
				return nil, nil, err
			}
			rs[i].lsn = &lsn
		}
		if docs[i], err = s.e.doc(keys[i], &rs[i]); err != nil {
			return nil, nil, err
		}
	}
	return items, docs, nil
}

// read runs sql in the snapshot's transaction and returns its rows'
// items (when withItem: the first column), keys and rows, under mu.
func (s *snapshot) read(ctx context.Context, withItem bool, sql string, args ...any) (items, keys [][]byte, rs []row, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(ctx); err != nil { // Release or Close came first
		return nil, nil, nil, err
	}
	rows, err := s.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, nil, nil, s.e.readError(ctx, "reading a snapshot", err)
	}
	defer rows.Close()
	for rows.Next() {
		var it, k []byte
		var r row
		dst := []any{&k, &r.pkEnd, &r.idAt, &r.idEnd, &r.body, &r.ts, &r.ttl, &r.seq, &r.lsn}
		if withItem {
			dst = append([]any{&it}, dst...)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, nil, nil, s.e.readError(ctx, "reading a snapshot", err)
		}
		if withItem {
			items = append(items, it)
		}
		keys, rs = append(keys, k), append(rs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, s.e.readError(ctx, "reading a snapshot", err)
	}
	return items, keys, rs, nil
}

// readError wraps an error met by a read: ctx's when it is done (the
// read was cut off by it), ErrClosed after Close, else the server's.
func (e *Engine) readError(ctx context.Context, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return engine.ContextError(ctx, "Query")
	case e.closed.Load():
		return fmt.Errorf("%w: %s of collection %q after Close", engine.ErrClosed, what, e.Settings().Name)
	}
	return e.serverError(what, err)
}

var _ engine.Snapshot = (*snapshot)(nil)
