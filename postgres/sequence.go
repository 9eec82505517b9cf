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
// its records with a seq and no LSN, then waits for a pass (passes.go):
// in a transaction of its own, which takes the collection's advisory
// lock, a pass numbers every committed record without an LSN, in seq
// order, from the collection's counter. One pass numbers the records of
// every write that committed before it, in any process, so that
// concurrent writers share its commit, as they share the flush of their
// first ones; in a process, one pass at a time serves every call waiting.
//
// Never wait for a pass while holding a document's row lock: a pass
// waits for the row locks of the documents it numbers.

// seqLockSQL takes the collection's sequencer lock until the transaction
// ends: a key from the schema and the collection's number. And it makes
// the pass's commit synchronous (syncOn, failure.go), whatever the
// connection's synchronous_commit says, its plans loops over index
// walks, never compiled (indexPlans), and generic (genericPlans).
const seqLockSQL = `SELECT ` + syncOn + `, ` + indexPlans + `, ` + genericPlans + `, pg_advisory_xact_lock(hashtextextended('ttldb sequencer ' || $1 || ' ' || $2::bigint::text, 0))`

// indexPlans makes the rest of the transaction plan its reads of tables
// as walks of indexes wherever an index serves (the planner's
// enable_seqscan and enable_bitmapscan, local to the transaction: a table
// with no index that serves is still scanned), its joins as nested loops
// (enable_hashjoin, enable_mergejoin), and its plans uncompiled (jit). A
// pass numbers the records it finds by the partial index of records
// without an LSN, and their documents by seq; a plan chosen by
// statistics picked a sequential scan of the documents, and a bitmap scan
// of that partial index, when the statistics were older than the tables
// (a new collection filled, before autovacuum's first ANALYZE): then each
// pass read every document, and
// the bitmap scan never marks the index's dead entries (each record's
// version before its LSN) as dead, so that each pass read them all again.
// Measured (BenchmarkPG's fill, 10,000 documents in batches of 10, fsync
// on): 4.1 s, a pass 0.3 ms on average and up to 7 ms; with indexPlans
// 2.2 s. Hash and merge joins are off too: with no statistics the planner
// guesses documents a seq by the hundred (140 at 20,000 documents, 1,454
// at 200,000), and joined the rows a pass locked to the documents by a
// hash join fed by a walk of the whole seq index (20,000 documents and 6
// records pending: 12.6 ms a pass, against 0.4 by the primary key).
// passSQL's joins are loops over the pass's records (or its waiters)
// with an index's lookups for each, and trimSQL's a loop over one row with
// a range of an index. And JIT compilation is off: the planner costs such
// loops on the same guesses, past jit_above_cost once the tables hold
// about 50,000 uncounted documents when the plan is made (a new
// connection's), and a generic plan keeps the decision, so that the
// server compiled the pass again at every pass on the connection: 40 ms
// for a pass of 20 records at 50,000 documents, 0.5 s from 130,000, for
// statements that run in 1-2 ms without it. TestPassPlansIndexWalks,
// TestPassPlanNoJIT.
const indexPlans = `set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('jit', 'off', true)`

// genericPlans makes the rest of the pass's transaction run passSQL (and
// trimSQL) by its generic plan (the planner's plan_cache_mode, local to
// the transaction; PostgreSQL 12 and later, as the schema's generated
// columns). Left to the server's default, passSQL was planned anew at
// every pass (a custom plan each time: 0.6 ms of planning at 23,000
// rows, against 0.035 ms for the generic plan, which is the same plan),
// where a write's statements switch to their generic plans by themselves
// after five executions on a connection. With pgx's default mode, which
// prepares each statement once a connection, the pass is then planned
// once a connection. Its statement finds its rows by the pending index,
// seqs and the collection's number, which no parameter's value changes.
// Measured (pg_stat_statements, 3,200 upserts by 16 writers, fsync on):
// planning 93 µs of the server's time a write before, 22 after; three
// runs of each alternating, the server's CPU a write 3-7% less, the time
// a write 0-4% less (postgres/DESIGN.md, "The floors").
const genericPlans = `set_config('plan_cache_mode', 'force_generic_plan', true)`

// passSQL numbers every committed record without an LSN, in seq order, and
// the documents whose current version is one of them; it raises the
// counter by as many, and the high-water mark of now, and, when it
// numbered any, queues the pass's one NOTIFY on channel $5 (watch.go),
// sent when the transaction commits. It writes the collection's row even
// when it numbers nothing, so that every pass's COMMIT writes WAL and so
// waits for its flush and for the synchronous standbys: a pass that
// serves LSNs another pass gave (of another process, whose wait for a
// standby may have been cut short: a canceled wait still commits on the
// primary) then acknowledges them only once its own commit, which comes
// after theirs in the WAL, is as durable as the server's settings make
// any commit. It returns the last LSN given out,
// and the LSNs of the records of seqs $3, in their order: given by this
// pass, or by an earlier one (of any process), read from the feed, or,
// for a record the feed's retention deleted since, from its document if
// that still holds its version (0 for none).
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
//
// No join in it pairs two of its CTEs by a value: the planner estimates
// the pending records (p) by statistics that, taken between passes, count
// none, so that it plans such a join as a nested loop, which compares
// every pair (a backlog of 3,000 records after passes failed: 4.5 M rows
// compared, a second a pass, and the next backlog larger). So each record's
// rank (rn) goes with it from p into l, and the documents' update walks l
// and the table's primary key, not n. TestPassPlanAfterAnalyze. Left: the
// LSNs of the waiters' seqs ($3) are found in n by a scan of it a waiter
// (128 waiters and 3,000 records: 15 ms).
const passSQL = `
WITH p AS (SELECT seq, $4 + octet_length(key) + octet_length(body) AS size, row_number() OVER (ORDER BY seq) AS rn FROM {s}.ttldb_feed_{n} WHERE lsn IS NULL ORDER BY seq),
l AS MATERIALIZED (SELECT d.h, d.seq, p.rn FROM {s}.ttldb_docs_{n} d JOIN p ON d.seq = p.seq ORDER BY d.h FOR UPDATE OF d),
c AS (
	UPDATE {s}.ttldb_collections c SET lsn = c.lsn + (SELECT count(*) FROM p), now_hwm = ` + nowSQL + `
	WHERE c.no = $1 AND (SELECT count(*) FROM l) >= 0
	RETURNING c.lsn - (SELECT count(*) FROM p) AS base, c.lsn),
n AS (SELECT p.seq, c.base + p.rn AS lsn,
	coalesce((SELECT f.cum FROM {s}.ttldb_feed_{n} f WHERE f.lsn = c.base), 0) + sum(p.size) OVER (ORDER BY p.seq) AS cum FROM p, c),
f AS (UPDATE {s}.ttldb_feed_{n} f SET lsn = n.lsn, cum = n.cum FROM n WHERE f.seq = n.seq RETURNING 1),
d AS (UPDATE {s}.ttldb_docs_{n} d SET lsn = c.base + l.rn FROM l, c WHERE d.h = l.h AND d.seq = l.seq RETURNING 1),
w AS (SELECT pg_notify($5, '') FROM c WHERE EXISTS (SELECT 1 FROM p))
SELECT coalesce((SELECT lsn FROM c), (SELECT lsn FROM {s}.ttldb_collections WHERE no = $1)),
	(SELECT count(*) FROM f), (SELECT count(*) FROM d), (SELECT count(*) FROM w),
	coalesce((SELECT array_agg(coalesce((SELECT n.lsn FROM n WHERE n.seq = m.seq),
			(SELECT g.lsn FROM {s}.ttldb_feed_{n} g WHERE g.seq = m.seq),
			(SELECT e.lsn FROM {s}.ttldb_docs_{n} e WHERE e.seq = m.seq), 0) ORDER BY m.o)
		FROM unnest($3::bigint[]) WITH ORDINALITY AS m(seq, o)), '{}')`

// pass runs one pass for the calls registered in the handle's passer,
// and serves them (passes.go). It is one round trip: BEGIN (READ
// COMMITTED, whatever the connection's default), the sequencer's lock,
// passSQL, the feed's retention (trimSQL, retention.go) and COMMIT, sent
// together as one pgx batch; the commit is synchronous (syncOn). It holds
// the lock from its second statement to its commit, without a round trip
// between. It waits for the lock and for the row locks of writes in
// progress on the documents it numbers.
//
// A pass whose connection is lost changes nothing until its commit, and
// one that committed left the records numbered, which the next finds
// (passSQL reads their LSNs from the feed): so it may start again
// (failure.go).
//
// Errors: the server's, naming the collection.
func (e *Engine) pass(ctx context.Context) error {
	if f := e.passes.hold.Load(); f != nil {
		(*f)()
	}
	ws := e.passes.waiting()
	seqs := make([]int64, 0, len(ws))
	for _, w := range ws {
		if w.seq != 0 {
			seqs = append(seqs, w.seq)
		}
	}
	clock := e.clockParam()
	var b pgx.Batch
	b.BeginTx(pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	b.Queue(seqLockSQL, e.schema, e.no)
	b.Queue(e.sql(passSQL), e.no, clock, seqs, recordOverhead, e.channel())
	b.Queue(e.sql(trimSQL), e.no, clock, recordOverhead, offGrace)
	b.Queue("COMMIT")
	br := e.pool.SendBatch(ctx, &b)
	// Once br is closed, the transaction is closed too when the COMMIT
	// ran (pgx sees the connection idle): Rollback then sends nothing.
	defer func() { _ = br.Tx().Rollback(ctx) }()
	var last, feed, docs, notified int64
	var lsns []int64
	var err error
	step := func(what string, f func() error) { // in the batch's order, until one fails
		if err == nil {
			if ferr := f(); ferr != nil {
				err = e.serverError(what, ferr)
			}
		}
	}
	exec := func() error { _, err := br.Exec(); return err }
	step("sequencing", exec) // BEGIN
	step("taking the sequencer's lock", exec)
	step("numbering the writes", func() error {
		return br.QueryRow().Scan(&last, &feed, &docs, &notified, &lsns)
	})
	step("trimming the change feed", exec)
	step("committing the LSNs", exec)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = e.serverError("committing the LSNs", cerr)
	}
	if err != nil {
		return err
	}
	e.passes.runs.Add(1)
	e.seen(last, 0)
	e.serve(ws, seqs, lsns)
	return nil
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
	if errors.Is(err, errLSNGone) {
		return 0, fmt.Errorf("ttldb: collection %q: %s committed, but its etag cannot be given: %w", e.Settings().Name, what, err)
	}
	if err != nil {
		return 0, fmt.Errorf("ttldb: collection %q: %s committed, but its LSN (and etag) could not be given: the next pass of any handle gives it: %w", e.Settings().Name, what, err)
	}
	return lsn, nil
}
