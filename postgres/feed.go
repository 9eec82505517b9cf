package postgres

import (
	"context"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// The change feed's reads (R11), as internal/local's feedread.go gives
// them, each page one statement, and so one snapshot: the collection's
// last LSN, the oldest record kept and the page agree, whatever passes and
// trims commit meanwhile.
//
// The all-versions-and-deletes feed is the feed table's numbered records
// (lsn not null), in LSN order; the LSNs kept have no gap, from the oldest
// kept to the last. A delete's record holds the version it deleted, its
// change's _ts in at, and that version's LSN in prev: Change.TS is at, and
// Change.Doc is the version deleted, its _ts and etag its own.
//
// The latest-version feed is the documents table: every document present
// with an LSN, expired or not, in the LSN order of its last write; a page
// shows the live ones (R4) and skips the expired (and, for a partition,
// the others'), each of which still advances its End. A version not yet
// numbered (a writer between its commit and its pass) is not shown: it
// will be, at the LSN its pass gives it, after any End read before.
//
// A page visits at most 4*Limit+1024 records or documents, as
// internal/local's does: one of a partition may come back short, even
// empty, with More set.

// maxPage bounds a read's Limit, so that the arithmetic of the budget
// stays far from overflow; a page of more is refused by the API anyway.
const maxPage = 1 << 30

// allSQL reads a page of the all-versions feed: $1 the collection's
// number; $2 From (0 FromAfter, 1 FromNow, 2 FromOldest), $3 After; $4
// the most records returned (Limit+1, to tell More), $5 the most LSNs
// visited; $6 Partition, $7 Prefix. The first row always comes: its first
// three columns are the last LSN, the oldest kept (the last + 1 for none)
// and the LSN the page starts after; the rest are a record's, NULL for
// none. No record is read for a start beyond the last or before the
// oldest kept, which the caller refuses.
const allSQL = `
WITH c AS (SELECT c.lsn AS last, coalesce((SELECT min(f.lsn) FROM {s}.ttldb_feed_{n} f WHERE f.lsn IS NOT NULL), c.lsn + 1) AS oldest
	FROM {s}.ttldb_collections c WHERE c.no = $1),
h AS (SELECT last, oldest, CASE $2::int WHEN 0 THEN $3::bigint WHEN 1 THEN last ELSE oldest - 1 END AS after FROM c)
SELECT h.last, h.oldest, h.after, r.lsn, r.op, r.key, r.pk_end, r.id_at, r.id_end, r.body, r.ts, r.ttl, r.expired, r.at, r.prev
FROM h LEFT JOIN LATERAL (
	SELECT f.* FROM {s}.ttldb_feed_{n} f
	WHERE f.lsn > h.after AND f.lsn <= least(h.last, least(h.after, h.last) + $5) AND h.after <= h.last AND h.after >= h.oldest - 1
		AND (NOT $6 OR substring(f.key FROM 1 FOR octet_length($7::bytea)) = $7::bytea)
	ORDER BY f.lsn LIMIT $4) r ON true
ORDER BY r.lsn`

// latestSQL reads a page of the latest-version feed: $1 the collection's
// number, $2 the handle's clock; $3 from now (true) or after $4; $5
// Partition, $6 Prefix; $7 the most documents visited plus one, $8 Limit.
// v is the documents written after the start, in LSN order (an ordered
// scan of the LSN index), as many as a page may visit and one (to tell
// More); x numbers them, and says whether each is shown; the
// page stops at the Limit-th shown, or at the budget, $7-1; n is how many
// v holds. The first row always comes: the last LSN, now, the start, the
// stop, n and the LSN at the stop; then a shown document's columns, NULL
// for none.
const latestSQL = `
WITH c AS (SELECT * FROM {s}.ttldb_collections WHERE no = $1),
t AS (SELECT ` + nowSQL + ` AS now, CASE WHEN $3 THEN c.lsn ELSE $4::bigint END AS after FROM c),
v AS (SELECT d.h, d.lsn, d.ts, d.ttl, (NOT $5 OR substring(d.key FROM 1 FOR octet_length($6::bytea)) = $6::bytea) AS inpart
	FROM {s}.ttldb_docs_{n} d WHERE d.lsn > (SELECT after FROM t) AND d.lsn <= (SELECT lsn FROM c) ORDER BY d.lsn LIMIT $7),
x AS (SELECT d.h, d.lsn, d.inpart AND ` + liveSQL + ` AS shown,
	row_number() OVER (ORDER BY d.lsn) AS i, count(*) FILTER (WHERE d.inpart AND ` + liveSQL + `) OVER (ORDER BY d.lsn) AS k
	FROM v d, c, t),
s AS (SELECT least(coalesce((SELECT min(i) FROM x WHERE shown AND k = $8), $7 - 1), $7 - 1) AS stop, (SELECT count(*) FROM x) AS n)
SELECT c.lsn, t.now, t.after, s.stop, s.n, (SELECT lsn FROM x WHERE i = s.stop),
	d.lsn, d.key, d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl
FROM c CROSS JOIN t CROSS JOIN s LEFT JOIN LATERAL (
	SELECT d.* FROM x JOIN {s}.ttldb_docs_{n} d ON d.h = x.h WHERE x.shown AND x.i <= s.stop) d ON true
ORDER BY d.lsn`

// ReadFeed implements [engine.Engine]: a page of the change feed (R11),
// in buf's room, as internal/local reads it: from r.From (after r.After,
// at the present, or at the oldest record kept, the beginning for the
// latest-version feed), at most r.Limit changes, of one partition when
// r.Partition (keys starting with r.Prefix), with the LSN the next page
// starts after (End) and whether changes were left (More). It costs one
// statement, which visits at most 4*Limit+1024 records or documents
// through the LSN indexes.
//
// Errors: *engine.FeedBeyond for a start after the last LSN;
// *engine.FeedTrimmed for an all-versions read that starts before the
// oldest record kept; ErrInvalidOption when the feed is off, or for a
// Limit below 1 or a From unknown; ErrClosed; ErrCorrupt for a record no
// ttldb writes; ctx's; the server's.
func (e *Engine) ReadFeed(ctx context.Context, r engine.FeedRead, buf []engine.Change) (engine.FeedPage, error) {
	if err := e.usable(ctx, "ReadFeed"); err != nil {
		return engine.FeedPage{}, err
	}
	switch {
	case !e.Settings().Feed:
		return engine.FeedPage{}, errorf(engine.ErrInvalidOption, "the change feed is off (Options.Feed.Off)")
	case r.Limit < 1:
		return engine.FeedPage{}, errorf(engine.ErrInvalidOption, "ReadFeed with Limit %d: a page holds 1 change at least", r.Limit)
	case r.From > engine.FromOldest:
		return engine.FeedPage{}, errorf(engine.ErrInvalidOption, "ReadFeed from FeedFrom(%d): the starts are FromAfter, FromNow and FromOldest", r.From)
	}
	limit := min(r.Limit, maxPage)
	budget := 4*limit + 1024
	after := int64(min(r.After, math.MaxInt64))
	if r.From != engine.FromAfter {
		after = 0
	}
	page := engine.FeedPage{Changes: buf[:0]}
	err := e.retry(ctx, func() error { // a lost connection: again (failure.go)
		page = engine.FeedPage{Changes: page.Changes[:0]}
		if r.Latest {
			return e.readLatest(ctx, r, after, limit, budget, &page)
		}
		return e.readAll(ctx, r, after, limit, budget, &page)
	})
	if err != nil {
		return engine.FeedPage{}, err
	}
	return page, nil
}

// readAll reads a page of the all-versions feed into page.
func (e *Engine) readAll(ctx context.Context, r engine.FeedRead, after int64, limit, budget int, page *engine.FeedPage) error {
	rows, err := e.pool.Query(ctx, e.sql(allSQL), e.no, int32(r.From), after, limit+1, budget, r.Partition, []byte(r.Prefix))
	if err != nil {
		return e.serverError("reading the change feed", err)
	}
	defer rows.Close()
	var last, oldest, start int64
	var n int
	header := false
	for rows.Next() {
		var f feedRow
		if err := rows.Scan(&last, &oldest, &start, &f.lsn, &f.op, &f.key, &f.pkEnd, &f.idAt, &f.idEnd, &f.body, &f.ts, &f.ttl, &f.expired, &f.at, &f.prev); err != nil {
			return e.serverError("reading the change feed", err)
		}
		header = true
		if f.lsn == nil {
			continue // the header alone
		}
		if n++; n > limit {
			page.More = true
			break
		}
		ch, err := e.change(&f)
		if err != nil {
			return err
		}
		page.Changes = append(page.Changes, ch)
		page.End = uint64(*f.lsn)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return e.serverError("reading the change feed", err)
	}
	if !header { // the collection's row is gone
		return e.serverError("reading the change feed", pgx.ErrNoRows)
	}
	e.seen(last, 0)
	switch {
	case r.From == engine.FromAfter && start > last:
		return &engine.FeedBeyond{Last: uint64(last)}
	case start+1 < oldest:
		return &engine.FeedTrimmed{After: uint64(start), Oldest: uint64(oldest)}
	case !page.More: // every record of the window was read: it ends the page
		page.End = uint64(min(last, start+int64(budget)))
		page.More = page.End < uint64(last)
	}
	return nil
}

// readLatest reads a page of the latest-version feed into page.
func (e *Engine) readLatest(ctx context.Context, r engine.FeedRead, after int64, limit, budget int, page *engine.FeedPage) error {
	rows, err := e.pool.Query(ctx, e.sql(latestSQL), e.no, e.clockParam(), r.From == engine.FromNow, after,
		r.Partition, []byte(r.Prefix), budget+1, limit)
	if err != nil {
		return e.serverError("reading the latest-version feed", err)
	}
	defer rows.Close()
	var last, now, start, stop, n int64
	var stopLSN *int64
	header := false
	for rows.Next() {
		var f feedRow
		if err := rows.Scan(&last, &now, &start, &stop, &n, &stopLSN, &f.lsn, &f.key, &f.pkEnd, &f.idAt, &f.idEnd, &f.body, &f.ts, &f.ttl); err != nil {
			return e.serverError("reading the latest-version feed", err)
		}
		header = true
		if f.lsn == nil {
			continue // the header alone
		}
		if f.pkEnd == nil || f.idAt == nil || f.idEnd == nil || f.body == nil || f.ts == nil || f.ttl == nil {
			return e.corrupt("the document of LSN %d has a NULL column", *f.lsn)
		}
		d := row{pkEnd: *f.pkEnd, idAt: *f.idAt, idEnd: *f.idEnd, body: *f.body, ts: *f.ts, ttl: *f.ttl, lsn: f.lsn}
		doc, err := e.doc(f.key, &d)
		if err != nil {
			return err
		}
		page.Changes = append(page.Changes, engine.Change{Op: engine.OpLatest, LSN: uint64(*d.lsn), TS: d.ts, Doc: doc})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return e.serverError("reading the latest-version feed", err)
	}
	if !header {
		return e.serverError("reading the latest-version feed", pgx.ErrNoRows)
	}
	e.seen(last, now)
	if r.From == engine.FromAfter && start > last {
		return &engine.FeedBeyond{Last: uint64(last)}
	}
	page.End, page.More = uint64(last), false
	if n > stop { // documents written after the stop are left
		if stopLSN == nil {
			return e.corrupt("the latest-version feed's page stops at document %d of %d, which has no LSN", stop, n)
		}
		page.End, page.More = uint64(*stopLSN), true
	}
	return nil
}

// feedRow is a record of the feed as allSQL reads it.
type feedRow struct {
	lsn                *int64
	op                 *int16
	key                []byte
	pkEnd, idAt, idEnd *int32
	body               *string
	ts                 *int64
	ttl                *int32
	expired            *bool
	at, prev           *int64
}

// change makes the Change of the record f, whose lsn is set: for a delete,
// the version deleted, its etag that of prev, and the change's _ts at.
//
// Errors: ErrCorrupt for a record no ttldb writes.
func (e *Engine) change(f *feedRow) (engine.Change, error) {
	if f.op == nil || f.pkEnd == nil || f.idAt == nil || f.idEnd == nil || f.body == nil || f.ts == nil || f.ttl == nil || f.expired == nil {
		return engine.Change{}, e.corrupt("the feed's record of LSN %d has a NULL column", *f.lsn)
	}
	op := uint8(*f.op)
	if op < engine.OpCreate || op > engine.OpDelete {
		return engine.Change{}, e.corrupt("the feed's record of LSN %d has the op %d", *f.lsn, *f.op)
	}
	r := row{pkEnd: *f.pkEnd, idAt: *f.idAt, idEnd: *f.idEnd, body: *f.body, ts: *f.ts, ttl: *f.ttl, lsn: f.lsn}
	ts := *f.ts
	if op == engine.OpDelete {
		if f.prev == nil {
			return engine.Change{}, e.corrupt("the feed's delete of LSN %d does not name the version it deleted", *f.lsn)
		}
		r.lsn = f.prev
		if *f.prev < 0 { // a version written by the same batch, -prev records before (batch.go)
			back := *f.lsn + *f.prev
			r.lsn = &back
		}
		if f.at != nil {
			ts = *f.at
		}
	}
	d, err := e.doc(f.key, &r)
	if err != nil {
		return engine.Change{}, err
	}
	return engine.Change{Op: op, LSN: uint64(*f.lsn), TS: ts, Doc: d, Expired: *f.expired}, nil
}

// feedStatsSQL reads the feed's counts: the last LSN, the oldest record
// kept (NULL for none), and the bytes of the records up to the last and up
// to before the oldest.
const feedStatsSQL = `
WITH c AS (SELECT lsn FROM {s}.ttldb_collections WHERE no = $1),
o AS (SELECT f.lsn, f.cum - ($2 + octet_length(f.key) + octet_length(f.body)) AS before FROM {s}.ttldb_feed_{n} f
	WHERE f.lsn IS NOT NULL ORDER BY f.lsn LIMIT 1)
SELECT c.lsn, (SELECT lsn FROM o), coalesce((SELECT f.cum FROM {s}.ttldb_feed_{n} f WHERE f.lsn = c.lsn), 0) - coalesce((SELECT before FROM o), 0)
FROM c`

// FeedStats implements [engine.Engine]: the feed's counts, at one
// instant: LastLSN, the last LSN given out; Oldest, the oldest record kept
// (LastLSN+1 for none); Records, how many are kept; Bytes, their size as
// the retention counts it (retention.go: each record's key and body plus
// recordOverhead, not the server's disk). It costs one statement of three
// index lookups.
//
// Errors: ErrInvalidOption when the feed is off; ErrClosed; ctx's; the
// server's.
func (e *Engine) FeedStats(ctx context.Context) (engine.FeedStats, error) {
	if err := e.usable(ctx, "FeedStats"); err != nil {
		return engine.FeedStats{}, err
	}
	if !e.Settings().Feed {
		return engine.FeedStats{}, errorf(engine.ErrInvalidOption, "FeedStats: the change feed is off (Options.Feed.Off)")
	}
	var last, bytes int64
	var oldest *int64
	err := e.retry(ctx, func() error { // a lost connection: again (failure.go)
		return e.pool.QueryRow(ctx, e.sql(feedStatsSQL), e.no, recordOverhead).Scan(&last, &oldest, &bytes)
	})
	if err != nil {
		return engine.FeedStats{}, e.serverError("reading the change feed's counts", err)
	}
	e.seen(last, 0)
	s := engine.FeedStats{LastLSN: uint64(last), Oldest: uint64(last) + 1}
	if oldest != nil {
		s.Oldest, s.Records, s.Bytes = uint64(*oldest), last-*oldest+1, bytes
	}
	return s, nil
}
