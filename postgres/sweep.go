package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// The sweeper (R5; DESIGN.md, "Sweep"). A sweep deletes the expired
// documents in batches, each one transaction of one statement: it picks up
// to a batch of expired rows from the two expiry indexes (own: ts + ttl;
// inherit: ts), by the live predicate's limits (expiry.go, with R7's
// cut-offs), locks them FOR UPDATE SKIP LOCKED, deletes them and records
// each delete in the feed, flagged expired (R11). After the commit, one
// pass of the sequencer numbers those records (sequence.go).
//
// Any number of handles, in any number of processes, sweep at once: a row
// another sweep (or a writer) holds is skipped, and a row deleted by a
// sweep that committed is gone for the next, so each document is deleted,
// and its delete recorded, once. A writer over a document a batch holds
// waits for that batch's commit; no other call waits: the batch reads the
// collection's row without a lock, as writes do, and never takes the
// sequencer's lock while it holds rows.
//
// While the DefaultTTL is off, a sweep deletes nothing (R5), though
// documents that expired before it went off stay expired (R7) and Stats
// counts them.

// sweepSQL is one batch: it deletes up to $3 expired documents and records
// their deletes, flagged expired, at now, naming the version deleted by its
// LSN (feed.go); a version not yet numbered is left to the next batch after
// a pass (Sweep runs one first). $1 is the collection's number, $2 the
// handle's clock. It returns whether the collection's row was found, the
// number of documents deleted, and now.
//
// The two limits are read once, in c, and used as constants (InitPlans),
// so that each pick is an index scan in expiry order on the index made for
// it; the delete finds the rows picked by the primary key (= ANY of an
// array: a join with the picks, misjudged, reads the whole table). In
// read committed, a row that a writer changed and committed after
// the statement's snapshot is locked in its latest version, and the
// pick's condition is checked again on it (PostgreSQL's EvalPlanQual): a
// document a write renewed meanwhile is not deleted.
const sweepSQL = `
WITH c AS (
	SELECT c.def_on AS sweeps, t.now, ` + ownLimSQL + ` AS own, ` + inhLimSQL + ` AS inh
	FROM {s}.ttldb_collections c CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t WHERE c.no = $1),
o AS (
	SELECT d.h FROM {s}.ttldb_docs_{n} d
	WHERE d.ttl > 0 AND d.ts + d.ttl <= (SELECT own FROM c) AND (SELECT sweeps FROM c) AND d.lsn IS NOT NULL
	ORDER BY d.ts + d.ttl LIMIT $3 FOR UPDATE OF d SKIP LOCKED),
i AS (
	SELECT d.h FROM {s}.ttldb_docs_{n} d
	WHERE d.ttl = 0 AND d.ts <= (SELECT inh FROM c) AND (SELECT sweeps FROM c) AND d.lsn IS NOT NULL
	ORDER BY d.ts LIMIT $3 - (SELECT count(*) FROM o) FOR UPDATE OF d SKIP LOCKED),
x AS (
	DELETE FROM {s}.ttldb_docs_{n} d WHERE d.h = ANY (ARRAY (SELECT h FROM o UNION ALL SELECT h FROM i))
	RETURNING d.key, d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl, d.lsn),
f AS (
	INSERT INTO {s}.ttldb_feed_{n} (op, key, pk_end, id_at, id_end, body, ts, ttl, expired, at, prev)
	SELECT 3, key, pk_end, id_at, id_end, body, ts, ttl, true, (SELECT now FROM c), lsn FROM x RETURNING 1)
SELECT EXISTS (SELECT 1 FROM c), (SELECT count(*) FROM f), coalesce((SELECT now FROM c), 0)`

// batchSize returns the most documents a batch deletes: Options.SweepBatch,
// or ttldb.DefaultSweepBatch.
func (e *Engine) batchSize() int {
	if e.sweepBatch > 0 {
		return e.sweepBatch
	}
	return ttldb.DefaultSweepBatch
}

// Sweep implements [engine.Engine]: it deletes every document expired now
// (R4, R5, R7), in batches of Options.SweepBatch documents (zero:
// ttldb.DefaultSweepBatch), and returns how many it deleted. Each batch
// is one transaction, committed as the server commits writes, and records
// each delete in the feed, flagged expired (R11); a pass of the sequencer
// numbers them after its commit. It deletes nothing while the DefaultTTL
// is off. Other handles and processes may sweep at once: each document is
// deleted by one of them, once. When ctx ends it stops between two
// batches, or abandons the batch in progress (which then changes
// nothing), and returns those it deleted with an error wrapping ctx's.
//
// It costs, per batch, a transaction of three round trips holding the
// rows it deletes (a writer of one of them waits for it; no other call
// does), an index scan of each expiry index, and a pass of the sequencer.
// With nothing expired, one transaction that changes nothing.
//
// Errors: ErrClosed (also for a collection dropped on the server); ctx's;
// the server's.
func (e *Engine) Sweep(ctx context.Context) (int, error) {
	if err := e.usable(ctx, "Sweep"); err != nil {
		return 0, err
	}
	start := time.Now()
	// A version not yet numbered is not picked (its delete's record names
	// its LSN): number what waits first, as the background's round does.
	if err := e.passIfPending(ctx); err != nil {
		return 0, err
	}
	total := 0
	lost := 0
	for {
		n, err := e.sweepOnce(ctx)
		total += n
		if e.again(ctx, err, &lost) { // a lost connection before a commit (failure.go)
			continue
		}
		if err != nil {
			return total, err
		}
		if n < e.batchSize() {
			break // none left, or the rest are held by other sweeps
		}
		if err := e.usable(ctx, "Sweep"); err != nil {
			return total, err
		}
	}
	if total > 0 { // a round that found nothing keeps the last that did
		e.lastSweep.Store(int64(time.Since(start)))
	}
	return total, nil
}

// sweepOnce deletes one batch, commits it, and numbers its records. It
// returns the number of documents deleted.
func (e *Engine) sweepOnce(ctx context.Context) (int, error) {
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return 0, e.sweepError(ctx, err)
	}
	defer func() { // whatever ctx says, but bounded: a server gone never answers
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), passGrace)
		_ = tx.Rollback(rctx)
		cancel()
	}()
	var found bool
	var n, now int64
	if err := tx.QueryRow(ctx, e.sql(sweepSQL), e.no, e.clockParam(), e.batchSize()).Scan(&found, &n, &now); err != nil {
		return 0, e.sweepError(ctx, err)
	}
	if !found {
		return 0, e.serverError("Sweep", pgx.ErrNoRows)
	}
	if n == 0 {
		return 0, nil // the rollback ends it: nothing was changed
	}
	if hold := e.sweepHold.Load(); hold != nil {
		(*hold)()
	}
	// The rows are deleted: finish, whatever ctx says (for at most
	// passGrace beyond it: failure.go).
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), passGrace)
	defer cancel()
	if err := tx.Commit(cctx); err != nil {
		return 0, e.commitError("a sweep's batch", err, 0)
	}
	e.swept.Add(uint64(n))
	e.seen(0, now)
	if _, err := e.passAfterCommit(ctx, "a sweep's batch", 0); err != nil {
		return int(n), err
	}
	return int(n), nil
}

// sweepError returns the error of a batch that failed before it changed
// anything: ctx's when it ended, else the server's.
func (e *Engine) sweepError(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, pgx.ErrNoRows) {
		return engine.ContextError(ctx, "Sweep")
	}
	return e.serverError("Sweep", err)
}
