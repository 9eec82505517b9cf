package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// The sequencer gives out LSNs (R11; DESIGN.md, "LSNs"). A write commits
// its records with a seq and no LSN, then runs a pass: in a second
// transaction it takes the collection's advisory lock and, unless its
// record was numbered meanwhile by another's pass, numbers every committed
// record without an LSN, in seq order, from the collection's counter. One
// pass numbers the records of every write that committed before it, so
// that concurrent writers share its commit, as they share the flush of
// their first ones.
//
// Never take the advisory lock while holding a document's row lock: a pass
// waits for the row locks of the documents it numbers.

// seqLockSQL takes the collection's sequencer lock until the transaction
// ends: a key from the schema and the collection's number. And it makes
// the pass's commit synchronous (syncOn, failure.go), whatever the
// connection's synchronous_commit says.
const seqLockSQL = `SELECT ` + syncOn + `, pg_advisory_xact_lock(hashtextextended('ttldb sequencer ' || $1 || ' ' || $2::bigint::text, 0))`

// passSQL numbers every committed record without an LSN, in seq order, and
// the documents whose current version is one of them; it raises the
// counter by as many, and the high-water mark of now. It returns the last
// LSN given out, and the LSN it gave the record of seq $3 (NULL for none).
// $1 is the collection's number, $2 the handle's clock, $4 what a record
// counts beyond its key and body (recordOverhead): each record's cum is
// the bytes of the records up to it (feed.go). It first locks
// the rows it numbers in the order of their key hash (l, which c's
// condition makes run before any update), the order in which a batch locks
// its rows (batch.go): a pass that held one row while it waited for
// another could wait for a batch that waits for it. It updates only the
// rows l locked: a row l passed over (changed since the statement's
// snapshot) may have been locked since by a batch, which the update
// would wait for.
const passSQL = `
WITH p AS (SELECT seq, $4 + octet_length(key) + octet_length(body) AS size FROM {s}.ttldb_feed_{n} WHERE lsn IS NULL ORDER BY seq),
l AS MATERIALIZED (SELECT d.h FROM {s}.ttldb_docs_{n} d WHERE d.seq IN (SELECT seq FROM p) ORDER BY d.h FOR UPDATE),
c AS (
	UPDATE {s}.ttldb_collections c SET lsn = c.lsn + (SELECT count(*) FROM p), now_hwm = ` + nowSQL + `
	WHERE c.no = $1 AND EXISTS (SELECT 1 FROM p) AND (SELECT count(*) FROM l) >= 0
	RETURNING c.lsn - (SELECT count(*) FROM p) AS base, c.lsn),
n AS (SELECT p.seq, c.base + row_number() OVER (ORDER BY p.seq) AS lsn,
	coalesce((SELECT f.cum FROM {s}.ttldb_feed_{n} f WHERE f.lsn = c.base), 0) + sum(p.size) OVER (ORDER BY p.seq) AS cum FROM p, c),
f AS (UPDATE {s}.ttldb_feed_{n} f SET lsn = n.lsn, cum = n.cum FROM n WHERE f.seq = n.seq RETURNING 1),
d AS (UPDATE {s}.ttldb_docs_{n} d SET lsn = n.lsn FROM n WHERE d.seq = n.seq AND d.h IN (SELECT h FROM l) RETURNING 1)
SELECT coalesce((SELECT lsn FROM c), (SELECT lsn FROM {s}.ttldb_collections WHERE no = $1)),
	(SELECT count(*) FROM f), (SELECT count(*) FROM d), (SELECT lsn FROM n WHERE seq = $3)`

// sequence runs a pass, unless the record of seq mine (0 for none) has an
// LSN by the time it holds the lock, and returns mine's LSN (0 for none).
// It costs a transaction of four or five round trips, holding the
// collection's sequencer lock, and waits for the lock and for the row
// locks of writes in progress on the documents it numbers.
//
// A pass whose connection is lost starts again (failure.go): it changes
// nothing until its commit, and one that committed left mine numbered,
// which the next finds.
//
// Errors: ErrCorrupt for a record mine that is gone or still has no LSN;
// ctx's; the server's.
func (e *Engine) sequence(ctx context.Context, mine int64) (lsn int64, err error) {
	err = e.retry(ctx, func() error {
		lsn, err = e.sequenceOnce(ctx, mine)
		return err
	})
	return lsn, err
}

// sequenceOnce is one attempt of sequence.
func (e *Engine) sequenceOnce(ctx context.Context, mine int64) (int64, error) {
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return 0, e.serverError("sequencing", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, seqLockSQL, e.schema, e.no); err != nil {
		return 0, e.serverError("taking the sequencer's lock", err)
	}
	var lsn *int64
	if mine != 0 {
		if lsn, err = e.lsnOf(ctx, tx, mine); err != nil || lsn != nil {
			return deref(lsn), err // numbered by another's pass
		}
	}
	var last, feed, docs int64
	if err := tx.QueryRow(ctx, e.sql(passSQL), e.no, e.clockParam(), mine, recordOverhead).Scan(&last, &feed, &docs, &lsn); err != nil {
		return 0, e.serverError("numbering the writes", err)
	}
	if mine != 0 && lsn == nil {
		return 0, e.corrupt("the write's record of seq %d has no LSN after a pass", mine)
	}
	if feed > 0 { // the feed's retention, and one NOTIFY for the pass (feed.go)
		if err := e.afterPass(ctx, tx); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, e.serverError("committing the LSNs", err)
	}
	e.seen(last, 0)
	return deref(lsn), nil
}

// lsnOf returns the LSN of the feed's record seq, nil for none yet.
func (e *Engine) lsnOf(ctx context.Context, tx pgx.Tx, seq int64) (*int64, error) {
	var lsn *int64
	err := tx.QueryRow(ctx, e.sql(`SELECT lsn FROM {s}.ttldb_feed_{n} WHERE seq = $1`), seq).Scan(&lsn)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, e.corrupt("the write's record of seq %d is gone from the feed before it was numbered", seq)
	}
	if err != nil {
		return nil, e.serverError("reading a write's LSN", err)
	}
	if lsn != nil {
		e.seen(*lsn, 0)
	}
	return lsn, nil
}

// corrupt returns ErrCorrupt with a message about the collection.
func (e *Engine) corrupt(format string, args ...any) error {
	return errorf(engine.ErrCorrupt, "collection %q: "+format, append([]any{e.Settings().Name}, args...)...)
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// LastLSN implements [engine.Engine]: the largest LSN given out that this
// handle has seen, from its own passes and reads of the collection's row
// (at Open, at each Get and write); other processes' writes show after
// this handle's next call that reads it. It does not wait, and costs
// nothing.
func (e *Engine) LastLSN() uint64 { return e.lastLSN.Load() }

// passAfterCommit runs the pass of what, whose last record has seq mine,
// once its transaction committed: whatever ctx says, for at most
// passGrace (failure.go) after ctx ends. It returns mine's LSN, or an error that says
// the write committed.
func (e *Engine) passAfterCommit(ctx context.Context, what string, mine int64) (int64, error) {
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(passGrace, cancel)
		context.AfterFunc(pctx, func() { t.Stop() })
	})
	defer stop()
	lsn, err := e.sequence(pctx, mine)
	if err != nil {
		return 0, fmt.Errorf("ttldb: collection %q: %s committed, but its LSN (and etag) could not be given: the next pass of any handle gives it: %w", e.Settings().Name, what, err)
	}
	return lsn, nil
}
