// Package postgres is to be ttldb's engine on PostgreSQL (issue 29): one
// collection kept on a PostgreSQL server, shared by every process that
// opens it, so that the replicas of a service share their sessions, tokens
// and idempotency keys, with ttldb's rules (R1-R16) judged by the server.
// It is a module of its own, so that a program that embeds ttldb in
// process never pulls in a database driver.
//
// # What exists, and what does not yet
//
// [Engine] implements engine.Engine, and passes ttldb's conformance suite
// (conformance_test.go: every check of R1-R16 in its quick forms, with two
// handles on one collection for R16's sharing): ttldb.FromEngine makes a
// ttldb.Collection of it, and importing the package registers the URL
// schemes "postgres" and "postgresql" with ttldb.Open ([OpenURL]). It is
// new: query pushdown beyond the reads of secondary indexes and of a
// partition is to come (issue 29), and its schema (version 2, to which
// Open upgrades version 1) may still change. DESIGN.md is the plan and
// says where the code departs from it.
//
//   - [Open], which makes ttldb's tables on the server if they are missing,
//     checks their version, and makes a collection or adopts an existing
//     one, safely when several processes open at once; [OpenURL], which
//     does it on a pool of its own made from a URL, for ttldb.Open;
//   - the collection's identity and settings, read from the server
//     ([Engine.Settings]), and [Engine.Close];
//   - the engine's clock: the server's, never going backward;
//   - the point operations: [Engine.Get], [Engine.Write] (Create, Replace,
//     Upsert, Delete, Touch, Patch), [Engine.SetDefaultTTL] with R7's
//     cut-offs, [Engine.ExpiresAt] and [Engine.LastLSN], with LSNs given
//     out by a sequencer that writers help, so that commits group
//     (sequence.go), one pass at a time per handle serving every call
//     that waits for one (passes.go);
//   - [Engine.Batch] (R14): one transaction, all or none, at one _ts, whose
//     records one pass numbers after its commit with consecutive LSNs
//     (batch.go);
//   - [Engine.Snapshot] (R13): a REPEATABLE READ transaction held until
//     Release, Scan in key order, Index and Count read from the indexes'
//     items on the server, and [Engine.CreateIndex] (which builds while
//     writers go on), [Engine.DropIndex], [Engine.SetIndexing]
//     (snapshot.go, items.go, indexread.go, build.go);
//   - the change feed's reads: [Engine.ReadFeed], both feeds, from a LSN,
//     the present or the oldest record kept, of one partition or all;
//     [Engine.FeedStats]; the feed's retention, which the sequencer's pass
//     applies; and [Engine.FeedChanged], woken by one NOTIFY per pass, with
//     a poll every second as the fallback (feed.go, retention.go, watch.go);
//   - [Engine.Sweep] and [Engine.Stats] (R5), and the background goroutine
//     that Open starts, which, unless Options.ManualSweep, sweeps every
//     second and numbers what a writer that died left unnumbered; Close
//     stops it (sweep.go, stats.go, background.go);
//   - [Engine.Metrics] (engine.Meter, R17), which answers from memory:
//     the gauges the background goroutine last read, on a Metrics call's
//     request (metrics.go); and what the handle logs through
//     Options.Logger: its open, its sweepers behind, its background
//     rounds failing (logs.go).
//
// # Where the collection lives
//
// Open takes a *pgxpool.Pool that the caller makes and closes. The tables
// are in PostgreSQL's schema that the pool's connections' search_path names
// first (the public schema, by default); Open pins it, so a later change
// of search_path does not move them. Every process that shares a
// collection must open it in the same schema.
//
// Size the pool for the cursors a program keeps open. Each query or All
// iteration holds one of the pool's connections from its first document
// to its end (its snapshot is a transaction on it), as a pgx.Rows does;
// every other call takes one for its statements and gives it back. So a
// call made while the pool's connections all hold open cursors waits for
// one until its context ends, and a Get called inside an iteration needs
// a second connection. The feed's listener has a connection of its own,
// taken from the pool once and then outside it; the background goroutine
// takes one a round. pgxpool's default, the larger of 4 and the number of
// CPUs, suits a program that keeps at most one or two cursors open.
//
// A schema holds, for every collection in it:
//
//   - ttldb_schema: one row, the version of ttldb's tables
//     ([SchemaVersion]). Open refuses a newer version than it knows.
//   - ttldb_collections: one row per collection, by name: its number (which
//     names its tables), partition-key path, ID and ETagBase (random 64-bit
//     numbers drawn when it was made), DefaultTTL (R1), R7's two cut-offs
//     (and the history of inherit cuts, for ExpiresAt), indexing mode
//     (R8), the last
//     LSN given out (R11), the high-water mark of "now" (R4), whether the
//     feed is kept and its retention (R11), and the paths of the secondary
//     indexes (R13).
//
// and for each collection, a sequence (ttldb_seq_N, which orders its
// writes) and a pair of tables named from its number N (never from its
// name, which is the caller's input):
//
//   - ttldb_docs_N: the documents. The primary key is the SHA-256 of the
//     key (the partition-key encoding and the id), kept whole beside it
//     and matched on every read: a key of R10's largest sizes is longer
//     than a btree item may be (2704 bytes), so a btree on the key itself
//     refuses it. The order of keys is an index on its first 1024 bytes,
//     and the expiry order (R5, R7) two partial indexes, one per kind of
//     ttl.
//   - ttldb_feed_N: the all-versions change feed's records (R11), by seq.
//   - ttldb_items_N: an item per document and secondary index (R13), its
//     key query.AppendKey's, so that the server orders them as ttldb
//     does; deleted with the document (items.go, DESIGN.md).
//
// A write's rows take a seq from the sequence and no LSN; the sequencer
// gives LSNs to committed records, in seq order, without gaps
// (sequence.go, DESIGN.md).
//
// Every statement is fixed text: a caller's input (a name, a path, a key)
// is always a bound parameter, never part of the SQL.
//
// # The clock
//
// "Now" is the server's clock, the start of the transaction in whole Unix
// seconds, so that processes whose machines' clocks disagree judge expiry
// alike (R4). It never goes backward: SQL function ttldb_now(clock, hwm)
// never answers below the high-water mark stored in the collection's row,
// which every write's pass raises (sequence.go), as do each round of the
// background goroutine and Close, to the latest now the handle judged by,
// reads included (clock.go). Its bound: when the server's clock steps
// back, "now" stays at the mark, which is as recent as the last operation
// that raised it (a background period, a second, while a process runs); a
// document that expired after the mark and before the step reads live
// again for at most that gap. A handle
// opened with ttldb.Options.Now uses that clock instead of the server's,
// for tests that move time without sleeping; processes sharing a
// collection in production leave it nil.
//
// # Durability
//
// A write is acknowledged once its transaction has committed and the
// sequencer's pass that numbered it has committed, both synchronously:
// each raises synchronous_commit from off to on for itself (a stronger
// setting, such as remote_apply, is kept). A reader that meets a version
// not yet numbered runs a pass before it returns it, and the feed gives
// only numbered records. So whatever the connections' synchronous_commit,
// and whatever Options.Sync says (the engine does not read it: the
// in-process engine's policies are about its own log, and this engine
// keeps no files), what a call acknowledges, every version it returns and
// every absence it reports of a document a call deleted has reached the
// server's disk: the guarantee of ttldb.SyncAlways. (A sweep commits as
// the connection says: what it deletes had expired, and a crash that
// undoes it leaves it expired.) With synchronous replication (synchronous_standby_names)
// it has reached a standby too, and a failover keeps it; with
// asynchronous replication, a failover may lose acknowledged writes, which
// no client can detect. fsync = off, as the tests' throwaway server runs,
// keeps nothing through a crash of the machine.
//
// # Failures
//
// A connection the server ends (a restart, a crash, a failover) or the
// network breaks fails no call where nothing can have committed: a read,
// or a transaction before its COMMIT, starts again on another of the
// pool's connections while its context lasts. A write whose COMMIT's
// answer is lost asks the server what became of it (txid_status), and
// returns an error saying its outcome is unknown only when the server
// cannot be reached. A write is acknowledged only once its pass committed
// synchronously, whatever the connection's synchronous_commit: an
// acknowledged write survives a crash, and its LSN is never given out
// again. A timeout of the server (statement_timeout, lock_timeout), a
// full disk, or a server down fail the call with the server's error,
// naming the collection, and change nothing; the same handle works once
// the server does. No call waits longer than its context (a write's pass,
// once it committed, passGrace more). A failover loses no acknowledged
// write when the standby replicates synchronously (synchronous_standby_names);
// with asynchronous replication it may, and may give their LSNs out again.
// DESIGN.md, "Failures", says what is tested, and what is left.
//
// # Testing
//
// The tests run against a real server when TTLDB_TEST_PG holds its URL,
// and skip, saying so, when it is unset. From this directory,
//
//	../.ci/pg go test ./...
//
// starts a throwaway PostgreSQL 15 on 127.0.0.1 (installing it with
// apt-get if it is missing), runs the tests against it, and removes it.
// Each test works in a PostgreSQL schema of its own, so they run in
// parallel.
package postgres
