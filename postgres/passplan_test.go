package postgres

import (
	"encoding/json"
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
	noAutovacuum(s)
	// 20,000 documents and their records, written behind the planner's
	// back, then numbered as passes do (each record's version without an
	// LSN is left dead in the partial index of pending records), then 20
	// not yet numbered.
	fillBehind(s, "k", 20000)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_feed_1 SET lsn = seq`)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_docs_1 SET lsn = seq`)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_collections SET lsn = (SELECT max(lsn) FROM ` + s.ident() + `.ttldb_feed_1) WHERE no = 1`)
	fillBehind(s, "p", 20)

	bad := func(p string) []string { return parsePlan(t, p).wholeReads() }
	// The test sees what it guards against: without the settings, the
	// statistics of one document plan scans of the whole tables.
	if b := bad(passPlan(t, s, h, false, "EXPLAIN (FORMAT JSON)", "{}")); len(b) == 0 {
		t.Errorf("without indexPlans, the plan walks indexes too: the test shows nothing here (the server planned otherwise)")
	}
	if p := passPlan(t, s, h, true, "EXPLAIN (FORMAT JSON)", "{}"); len(bad(p)) != 0 {
		t.Errorf("the pass's plan reads the documents or the feed whole: %q\n%s", bad(p), p)
	}
	// A backlog of 3,000 records (passes that failed while writes went
	// on): the pass's joins stay linear in it. A nested loop over two of
	// its CTEs, which no index serves, compared every pair: 9,000,000
	// rows removed by its filter here, a pass of 10,000 taking 4 s.
	fillBehind(s, "b", 3000)
	p := passPlan(t, s, h, true, "EXPLAIN (ANALYZE, FORMAT JSON)", "{}") // in a transaction rolled back
	if joined, _ := parsePlan(t, p).removed(); joined > 30_000 {
		t.Errorf("a pass of 3,020 records removed %d rows by join filters: a join that compares every pair\n%s", joined, p)
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
// its parameters; seqs is $3, the waiters' seqs, as an array's text), by
// explain (EXPLAIN, or EXPLAIN (ANALYZE): in a transaction rolled back),
// after the pass's lock and settings when settings is set, and after the
// statements before.
func passPlan(t *testing.T, s *server, h *handle, settings bool, explain, seqs string, before ...string) string {
	t.Helper()
	ctx := t.Context()
	tx, err := s.admin.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, sql := range before {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
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
	defer func() { // before the pool closes, whatever fails: Close waits for them
		for _, c := range conns {
			c.Release()
		}
	}()
	var generic, custom int64
	for _, c := range conns {
		var mode string
		require.NoError(t, c.QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode))
		require.Equal(t, "auto", mode, "plan_cache_mode after the passes' transactions")
		for _, name := range []string{"enable_seqscan", "enable_bitmapscan", "enable_hashjoin", "enable_mergejoin", "jit"} {
			var on, def string
			require.NoError(t, c.QueryRow(ctx, `SELECT setting, reset_val FROM pg_settings WHERE name = $1`, name).Scan(&on, &def))
			require.Equal(t, def, on, "%s after the passes' transactions", name)
		}
		var g, cu int64
		require.NoError(t, c.QueryRow(ctx, `SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)
			FROM pg_prepared_statements WHERE statement LIKE '%WHERE lsn IS NULL ORDER BY seq%'`).Scan(&g, &cu))
		generic, custom = generic+g, custom+cu
	}
	require.NotEmpty(t, conns)
	require.Positive(t, generic, "passSQL ran by its generic plan")
	require.Zero(t, custom, "passSQL planned anew at a pass")
}

// planNode is a node of EXPLAIN (FORMAT JSON)'s plan, with what the tests
// read of it.
type planNode struct {
	Type       string     `json:"Node Type"`
	Relation   string     `json:"Relation Name"`
	Index      string     `json:"Index Name"`
	IndexCond  string     `json:"Index Cond"`
	Loops      float64    `json:"Actual Loops"`
	JoinFilter float64    `json:"Rows Removed by Join Filter"`
	Filter     float64    `json:"Rows Removed by Filter"`
	Plans      []planNode `json:"Plans"`
}

// parsePlan returns the plan that EXPLAIN (FORMAT JSON) printed as p.
func parsePlan(t *testing.T, p string) planNode {
	t.Helper()
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(p), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("EXPLAIN's JSON: %v\n%s", err, p)
	}
	return plans[0].Plan
}

// wholeReads returns the nodes under n that read a collection's documents
// or feed whole: a sequential scan, a bitmap scan (which never marks an
// index's dead entries dead), or a walk of a whole index (no Index Cond)
// but the partial index of the pending records, which holds those alone.
func (n planNode) wholeReads() []string {
	var found []string
	if strings.HasPrefix(n.Relation, "ttldb_docs_") || strings.HasPrefix(n.Relation, "ttldb_feed_") {
		switch n.Type {
		case "Seq Scan", "Bitmap Heap Scan":
			found = append(found, n.Type+" on "+n.Relation)
		case "Index Scan", "Index Only Scan":
			if n.IndexCond == "" && !strings.HasSuffix(n.Index, "_pending") {
				found = append(found, n.Type+" using "+n.Index+" without an Index Cond")
			}
		}
	}
	for _, c := range n.Plans {
		found = append(found, c.wholeReads()...)
	}
	return found
}

// removed returns the rows removed by join filters and by filters in the
// plan under n, over all their loops (EXPLAIN gives each node's average a
// loop).
func (n planNode) removed() (joined, filtered int) {
	joined, filtered = int(n.JoinFilter*n.Loops), int(n.Filter*n.Loops)
	for _, c := range n.Plans {
		j, f := c.removed()
		joined, filtered = joined+j, filtered+f
	}
	return joined, filtered
}

// TestPassPlanNoJIT checks that a pass never compiles its plan (indexPlans):
// with no statistics the planner costs its loops on guesses that grow with
// the tables, past jit_above_cost from about 50,000 documents, and a
// generic plan keeps its JIT for every pass on the connection (0.5 s a
// pass from 130,000 documents). Here the cost threshold is 0, so that any
// plan would be compiled. R11.
func TestPassPlanNoJIT(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "nojit", nil)
	h.mustPut(engine.Upsert, "d", `{"n":1}`, 0)
	var available bool
	require.NoError(t, s.admin.QueryRow(t.Context(), `SELECT pg_jit_available()`).Scan(&available))
	lower := `SELECT set_config('jit_above_cost', '0', true), set_config('jit', 'on', true)`
	jitted := func(settings bool) bool {
		p := passPlan(t, s, h, settings, "EXPLAIN (ANALYZE, FORMAT JSON)", "{}", lower)
		var plans []map[string]any
		require.NoError(t, json.Unmarshal([]byte(p), &plans))
		require.Len(t, plans, 1)
		_, ok := plans[0]["JIT"]
		return ok
	}
	if available {
		require.True(t, jitted(false), "without indexPlans the server compiles the plan: the test shows what it guards against")
	} else {
		t.Log("this server has no JIT (pg_jit_available() is false): the test checks only that the pass asks for none")
	}
	require.False(t, jitted(true), "the pass's plan was compiled")
}

// noAutovacuum keeps autovacuum off collection 1's documents and feed, so
// that no ANALYZE counts them behind a test's back.
func noAutovacuum(s *server) {
	for _, table := range []string{"ttldb_docs_1", "ttldb_feed_1"} {
		s.exec(`ALTER TABLE ` + s.ident() + `.` + table + ` SET (autovacuum_enabled = off)`)
	}
}

// fillBehind writes n documents of collection 1, keyed prefix and 1 to n,
// and their feed records, without an LSN, behind the engine's back.
func fillBehind(s *server, prefix string, n int) {
	s.exec(`WITH d AS (INSERT INTO `+s.ident()+`.ttldb_docs_1 (key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT convert_to($1 || i, 'UTF8'), 0, 0, 1 + length(i::text), '{}', 1, -1 FROM generate_series(1, $2::int) i
		RETURNING seq, key)
		INSERT INTO `+s.ident()+`.ttldb_feed_1 (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
		SELECT seq, 1, key, 0, 0, 1, '{}', 1, -1 FROM d`, prefix, n)
}
