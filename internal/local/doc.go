// Package local is ttldb's in-process engine: a collection's documents in
// the memory of the program, and, with a directory, on disk too (R12). It
// is the default engine and the fastest; package ttldb opens it with
// [Open] and a [Config], and reaches it through [engine.Engine], which
// [Engine] implements, with the capabilities [engine.Compacter],
// [engine.Backuper] and [engine.Recoverer]; beyond the interface, it asks only whether the engine
// is closed, and why ([Engine.Unusable], [Engine.ErrClosed]), and calls
// the interface's methods on *Engine directly, so that no argument escapes
// to the heap.
//
// # What a collection is made of
//
// One struct, collection (collection.go), holds everything; [Engine] is
// the same struct under another name, whose methods are the engine
// interface (engine.go, batch.go, engine_snapshot.go, and the exported
// methods of the other files), so that the contract's methods and the
// machinery's stay apart.
//
//   - The primary index (index.go): the key map (keymap.go), an extendible
//     hash table that point reads use without a lock, and the key order
//     (order.go), a B-tree of every key built only once something lists or
//     scans, so that a collection used as a cache never pays for it. Each
//     key has an entry (entry.go) that the other structures point at.
//   - The expiry index (expiry.go, buckets.go): the documents that can
//     expire, in buckets of one second, on two sides (those with a ttl of
//     their own, by _ts + ttl; those that inherit the DefaultTTL, by _ts),
//     so that a change of the DefaultTTL costs O(1) (R7). Reads judge
//     expiry by the published rules (R4) and never see an expired
//     document; the sweeper (sweeper.go) deletes them in batches, handing
//     the lock to any waiting caller between two (lock.go, R5).
//   - Secondary indexes (secondary.go, indexes.go): a B-tree of value keys
//     per indexed path, kept by every write, built in the background.
//   - Snapshots (snapshot.go, engine_snapshot.go): a consistent view for
//     listings and queries that blocks no writer: the older versions of
//     the documents a write replaces are kept while a snapshot may read
//     them.
//   - The change feed (feedstate.go, changelog.go, latest.go, feed.go,
//     feedread.go): the order of last writes for the latest-version feed,
//     and a log of every change, within its retention, for the
//     all-versions-and-deletes feed (R11, R15).
//   - Durability (R12): the journal (journal.go, durable.go) writes each
//     change's records (records.go) to the log with group commit; the
//     files (files.go, logchain.go) are a snapshot and the logs after it;
//     opening replays them (recover.go, replay.go), cutting a torn tail and
//     refusing damage with an [engine.CorruptError]; compaction (compact.go,
//     walk.go) writes a new snapshot while writers go on. A backup
//     (backup.go) is a snapshot written to a stream, and a restore makes a
//     directory of one; [Verify] (verify.go) reads a directory as an open
//     does, writing nothing.
//
// # Concurrency
//
// A collection has one lock, collection.mu. Writes, the sweeper's
// batches, setting changes and the openings of snapshots hold it; point
// reads take none (the key map and the expiry rules are published with
// atomic stores). Whoever starts a goroutine stops it: Close stops the
// sweeper, the journal's goroutine, the compactor and any build of the
// key order or of an index, and waits for them.
//
// # Tests
//
// The tests beside the engine drive it through a small stand-in for the
// API (kit_test.go) and look inside it; [Engine.Check] checks its
// structures against each other, and [Engine.Dump] describes what it keeps
// across a reopen, for the API's own tests and its crash harness. The
// rules themselves are the conformance suite's (package conformance),
// which the API's tests run on this engine in memory and on a directory.
package local
