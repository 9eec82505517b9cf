package postgres

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestPassPlansIndexWalks checks that a pass finds the records it numbers
// and their documents through indexes whatever the planner's statistics
// say (indexPlans): here the tables hold 20,000 documents and records
// that no ANALYZE has counted, as after a new collection's first fill,
// where the statistics' plan read every document a pass (a sequential
// scan and a hash join) and the pending records by a bitmap scan. R11.
func TestPassPlansIndexWalks(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "filled", nil)
	// No ANALYZE by autovacuum meanwhile: the test is of plans made
	// without statistics.
	for _, table := range []string{"ttldb_docs_1", "ttldb_feed_1"} {
		s.exec(`ALTER TABLE ` + s.ident() + `.` + table + ` SET (autovacuum_enabled = off)`)
	}
	// 20,000 documents and their records, written behind the planner's
	// back, then numbered as passes do (each record's version without an
	// LSN is left dead in the partial index of pending records), then 20
	// not yet numbered.
	s.exec(`WITH d AS (INSERT INTO ` + s.ident() + `.ttldb_docs_1 (key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT convert_to('k' || i, 'UTF8'), 0, 0, 1 + length(i::text), '{}', 1, -1 FROM generate_series(1, 20000) i
		RETURNING seq, key)
		INSERT INTO ` + s.ident() + `.ttldb_feed_1 (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT seq, 1, key, 0, 0, 1, '{}', 1, -1 FROM d`)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_feed_1 SET lsn = seq`)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_docs_1 SET lsn = seq`)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_collections SET lsn = (SELECT max(lsn) FROM ` + s.ident() + `.ttldb_feed_1) WHERE no = 1`)
	s.exec(`WITH d AS (INSERT INTO ` + s.ident() + `.ttldb_docs_1 (key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT convert_to('p' || i, 'UTF8'), 0, 0, 1 + length(i::text), '{}', 1, -1 FROM generate_series(1, 20) i
		RETURNING seq, key)
		INSERT INTO ` + s.ident() + `.ttldb_feed_1 (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT seq, 1, key, 0, 0, 1, '{}', 1, -1 FROM d`)

	bad := func(p string) []string {
		var found []string
		for _, l := range strings.Split(p, "\n") {
			if strings.Contains(l, "Seq Scan on ttldb_docs_1") || strings.Contains(l, "Seq Scan on ttldb_feed_1") ||
				strings.Contains(l, "Bitmap Heap Scan on ttldb_feed_1") || strings.Contains(l, "Bitmap Heap Scan on ttldb_docs_1") {
				found = append(found, strings.TrimSpace(l))
			}
		}
		return found
	}
	// The test sees what it guards against: without the settings, the
	// statistics of one document plan scans of the whole tables.
	if b := bad(passPlan(t, s, h, false, "EXPLAIN", "{}")); len(b) == 0 {
		t.Errorf("without indexPlans, the plan walks indexes too: the test shows nothing here (the server planned otherwise)")
	}
	if p := passPlan(t, s, h, true, "EXPLAIN", "{}"); len(bad(p)) != 0 {
		t.Errorf("the pass's plan reads the documents or the feed whole: %q\n%s", bad(p), p)
	}
	// A backlog of 3,000 records (passes that failed while writes went
	// on): the pass's joins stay linear in it. A nested loop over two of
	// its CTEs, which no index serves, compared every pair: 9,000,000
	// rows removed by its filter here, a pass of 10,000 taking 4 s.
	s.exec(`WITH d AS (INSERT INTO ` + s.ident() + `.ttldb_docs_1 (key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT convert_to('b' || i, 'UTF8'), 0, 0, 1 + length(i::text), '{}', 1, -1 FROM generate_series(1, 3000) i
		RETURNING seq, key)
		INSERT INTO ` + s.ident() + `.ttldb_feed_1 (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT seq, 1, key, 0, 0, 1, '{}', 1, -1 FROM d`)
	p := passPlan(t, s, h, true, "EXPLAIN (ANALYZE)", "{}") // in a transaction rolled back
	removed := 0
	for _, l := range strings.Split(p, "\n") {
		if _, n, ok := strings.Cut(l, "Rows Removed by Join Filter: "); ok {
			var k int
			if _, err := fmt.Sscan(n, &k); err == nil {
				removed += k
			}
		}
	}
	if removed > 30_000 {
		t.Errorf("a pass of 3,020 records removed %d rows by join filters: a join that compares every pair\n%s", removed, p)
	}
	// And the pass numbers the 3,020 it finds, after the 20,000.
	if _, err := h.e.sequence(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1 WHERE lsn IS NULL`); n != 0 {
		t.Errorf("%d records without an LSN after a pass", n)
	}
}

// passPlan returns the plan of passSQL as a pass runs it (prepared, with
// its parameters; seqs is the waiters' seqs, $3, an array's text), by explain (EXPLAIN, or EXPLAIN (ANALYZE): in a
// transaction rolled back), after the pass's lock and settings when
// settings is set.
func passPlan(t *testing.T, s *server, h *handle, settings bool, explain, seqs string) string {
	t.Helper()
	ctx := t.Context()
	tx, err := s.admin.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if settings {
		if _, err := tx.Exec(ctx, seqLockSQL, h.e.schema, h.e.no); err != nil {
			t.Fatalf("the pass's lock and settings: %v", err)
		}
	}
	if _, err := tx.Exec(ctx, `PREPARE pass_plan(bigint, bigint, bigint[], bigint, text) AS `+h.e.sql(passSQL)); err != nil {
		t.Fatalf("preparing passSQL: %v", err)
	}
	rows, err := tx.Query(ctx, explain+` EXECUTE pass_plan(1, NULL, '`+seqs+`', 0, 'ttldb_test_channel')`)
	if err != nil {
		t.Fatalf("EXPLAIN of passSQL: %v", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("EXPLAIN of passSQL: %v", err)
	}
	if _, err := tx.Exec(ctx, `DEALLOCATE pass_plan`); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestPassPlanGeneric checks that the pass runs passSQL by its generic
// plan (genericPlans: the server's default planned it anew at every pass,
// 0.6 ms at 23,000 rows), and that the setting ends with the pass's
// transaction: every connection of the pool is back to the server's
// plan_cache_mode after writes and their passes. R11.
func TestPassPlanGeneric(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "generic", nil)
	for i := range 12 {
		h.mustPut(engine.Upsert, fmt.Sprint("d", i), `{"n":1}`, 0)
	}
	ctx := t.Context()
	conns := h.e.pool.AcquireAllIdle(ctx)
	var generic, custom int64
	for _, c := range conns {
		var mode string
		require.NoError(t, c.QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode))
		require.Equal(t, "auto", mode, "plan_cache_mode after the passes' transactions")
		var g, cu int64
		require.NoError(t, c.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)
			FROM pg_prepared_statements WHERE statement LIKE '%WHERE lsn IS NULL ORDER BY seq%'`).Scan(&g, &cu))
		generic, custom = generic+g, custom+cu
		c.Release()
	}
	require.NotEmpty(t, conns)
	require.Positive(t, generic, "passSQL ran by its generic plan")
	require.Zero(t, custom, "passSQL planned anew at a pass")
}
