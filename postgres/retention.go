package postgres

import "github.com/ttldb/ttldb/engine"

// The feed's retention (R11, R15). The collection's row holds the bounds,
// keep_records, keep_bytes and keep_age (0: no bound), and feed, whether
// the feed is kept at all. The sequencer's pass trims: after it has
// numbered records (every pass, in its one round trip: sequence.go), in
// its transaction and under its lock, it deletes the
// oldest numbered records beyond the bounds; with the feed off, every
// numbered record whose change is older than offGrace (they were written
// only for the sequencer to number, DESIGN.md). Trimming in the pass rather than in a statement of its own:
// one trimmer at a time, under a lock already held, so trimmers never
// wait for each other's rows; the records kept always end at the last LSN
// and start at the oldest kept, without a gap, in every snapshot a reader
// takes; and each pass deletes about as many records as it numbered, so
// the cost is the pass's own, amortized. The pass's commit also sends the
// feed's one NOTIFY for the pass (watch.go).
//
// A record's bytes, what keep_bytes bounds and FeedStats.Bytes counts, are
// what internal/local counts (SPEC R11): the record's document, header and
// text (key and body), plus 24 bytes; not what the server stores on disk,
// which depends on its pages, TOAST and indexes. The pass stores in each
// record's cum the bytes of every record numbered up to it, so that the
// bytes from any record to the last are one subtraction.

// recordOverhead is what a record counts beyond its key and body.
const recordOverhead = 24 + engine.HeaderSize

// offGrace is how long, in seconds of the collection's clock, the records
// of a collection whose feed is off are kept once numbered: a write whose
// record another handle's pass numbered finds its LSN, hence its etag, in
// its record while its document changed since (passSQL reads it there).
// Without it, an Upsert racing another process's write of the same
// document could commit and not know its etag. It costs what the writes of
// offGrace seconds take in the feed's table; the feed's reads are refused
// while it is off, so nobody reads them.
const offGrace = 10

// trimSQL deletes the oldest numbered records beyond the retention, read
// from the collection's row $1, at now (clock $2). The new oldest is the
// largest of the bounds': the last keep_records; the first whose bytes to
// the last fit keep_bytes; the first whose change's _ts is within keep_age
// seconds of now; with the feed off, the first whose change's _ts is
// within offGrace seconds of now ($4). Each is found from the oldest
// record on, through the LSN index, and stops at the first it keeps: it
// visits what it deletes.
const trimSQL = `
WITH c AS (SELECT feed, keep_records, keep_bytes, keep_age, lsn, ` + `{s}.ttldb_now($2, now_hwm) AS now
	FROM {s}.ttldb_collections WHERE no = $1),
l AS (SELECT coalesce((SELECT f.cum FROM {s}.ttldb_feed_{n} f, c WHERE f.lsn = c.lsn), 0) AS cum),
o AS (SELECT CASE WHEN NOT c.feed THEN coalesce((SELECT f.lsn FROM {s}.ttldb_feed_{n} f
		WHERE f.lsn IS NOT NULL AND coalesce(f.at, f.ts) > c.now - $4
		ORDER BY f.lsn LIMIT 1), c.lsn + 1) ELSE greatest(
	CASE WHEN c.keep_records > 0 THEN c.lsn - c.keep_records + 1 ELSE 0 END,
	CASE WHEN c.keep_bytes > 0 THEN coalesce((SELECT f.lsn FROM {s}.ttldb_feed_{n} f
		WHERE f.lsn IS NOT NULL AND f.cum - ($3 + octet_length(f.key) + octet_length(f.body)) >= l.cum - c.keep_bytes
		ORDER BY f.lsn LIMIT 1), c.lsn + 1) ELSE 0 END,
	CASE WHEN c.keep_age > 0 THEN coalesce((SELECT f.lsn FROM {s}.ttldb_feed_{n} f
		WHERE f.lsn IS NOT NULL AND coalesce(f.at, f.ts) > c.now - c.keep_age
		ORDER BY f.lsn LIMIT 1), c.lsn + 1) ELSE 0 END) END AS oldest FROM c, l)
DELETE FROM {s}.ttldb_feed_{n} f USING o WHERE f.lsn IS NOT NULL AND f.lsn < o.oldest`
