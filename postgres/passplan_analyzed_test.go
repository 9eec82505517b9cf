package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPassPlanAfterAnalyze checks that a pass's joins stay linear in a
// backlog when the planner's statistics say there is none: ANALYZE ran
// while every record was numbered (the common case: a pass numbers what a
// write left within milliseconds), so that the partial index of records
// without an LSN is estimated at a row, then passes failed while writes
// went on. A join of two of passSQL's CTEs planned as a nested loop for
// that one row compared every pair: 4.5 M rows removed by its filter for
// a backlog of 3,000, about a second a pass. R11.
func TestPassPlanAfterAnalyze(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "analyzed", nil)
	noAutovacuum(s)
	// 20,000 documents, numbered, then counted by ANALYZE.
	fillBehind(s, "k", 20000)
	if _, err := h.e.sequence(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	s.exec(`ANALYZE ` + s.ident() + `.ttldb_docs_1`)
	s.exec(`ANALYZE ` + s.ident() + `.ttldb_feed_1`)
	// A backlog of 3,000: new documents, and rewrites of old ones.
	fillBehind(s, "b", 2000)
	s.exec(`WITH d AS (UPDATE ` + s.ident() + `.ttldb_docs_1 SET seq = DEFAULT, lsn = NULL, body = '{"v":2}'
		WHERE key IN (SELECT convert_to('k' || i, 'UTF8') FROM generate_series(1, 1000) i)
		RETURNING seq, key)
		INSERT INTO ` + s.ident() + `.ttldb_feed_1 (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT seq, 1, key, 0, 0, 1, '{"v":2}', 1, -1 FROM d`)
	// 128 writers wait for the LSNs of their records: the last 128.
	var waiting []string
	rows, err := s.admin.Query(t.Context(), `SELECT seq::text FROM `+s.ident()+`.ttldb_feed_1 WHERE lsn IS NULL ORDER BY seq DESC LIMIT 128`)
	if err != nil {
		t.Fatal(err)
	}
	if waiting, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	p := passPlan(t, s, h, true, "EXPLAIN (ANALYZE, FORMAT JSON)", "{"+strings.Join(waiting, ",")+"}") // in a transaction rolled back
	if joined, filtered := parsePlan(t, p).removed(); joined > 30_000 {
		t.Errorf("a pass of 3,000 records removed %d rows by join filters (and %d by filters): a join that compares every pair\n%s", joined, filtered, p)
	} else {
		t.Logf("removed by join filters %d, by filters %d (the waiters' LSNs found in the CTE n, a scan a waiter)", joined, filtered)
	}
	if b := parsePlan(t, p).wholeReads(); len(b) != 0 {
		t.Errorf("the pass's plan reads the documents or the feed whole: %q\n%s", b, p)
	}
	if _, err := h.e.sequence(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1 WHERE lsn IS NULL`); n != 0 {
		t.Errorf("%d records without an LSN after a pass", n)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_docs_1 WHERE lsn IS NULL`); n != 0 {
		t.Errorf("%d documents without an LSN after a pass", n)
	}
}
