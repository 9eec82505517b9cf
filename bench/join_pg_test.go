package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// ---- BenchmarkQueryJoin's queries in PostgreSQL ----
//
// A plain table docs (id text PRIMARY KEY, body jsonb) of the same
// documents, in a schema of its own on the server of TTLDB_BENCH_PG
// (pgSchema), filled by INSERT ... SELECT unnest of arrays of 10,000
// documents, then VACUUM ANALYZE; each query is joinQuery.pg, the same
// question in PostgreSQL's SQL (jsonb_array_elements for the JOIN over
// the tags, EXISTS over it for the subquery, GROUP BY on body->>'user'),
// prepared by pgx on first use. No index serves them, as in the other
// stores. The server plans with its defaults: on this machine a scan may
// be split between the backend and parallel workers
// (max_parallel_workers_per_gather 2), which ttldb and buntdb, one
// goroutine each, do not do; the figures say so.

// joinPGChunk is the documents of one INSERT of the fill.
const joinPGChunk = 10_000

// openJoinPG fills the table docs with the n documents; it skips without
// TTLDB_BENCH_PG.
func openJoinPG(b *testing.B, n int) *joinStore {
	conn, _, poolURL := pgSchema(b)
	ctx := context.Background()
	var version, workers string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('max_parallel_workers_per_gather')").Scan(&version, &workers); err != nil {
		b.Fatalf("the server's settings: %v", err)
	}
	b.Logf("server: PostgreSQL %s, max_parallel_workers_per_gather=%s", version, workers)
	pool, err := pgxpool.New(ctx, poolURL)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE docs (id text PRIMARY KEY, body jsonb NOT NULL)`); err != nil {
		pool.Close()
		b.Fatal(err)
	}
	var buf []byte
	for first := 0; first < n; first += joinPGChunk {
		ids, bodies := make([]string, 0, joinPGChunk), make([]string, 0, joinPGChunk)
		for i := first; i < min(first+joinPGChunk, n); i++ {
			buf = joinDoc(buf[:0], i)
			ids, bodies = append(ids, string(appendPadded([]byte("key:"), i, 10))), append(bodies, string(buf))
		}
		if _, err := pool.Exec(ctx, `INSERT INTO docs SELECT unnest($1::text[]), unnest($2::text[])::jsonb`, ids, bodies); err != nil {
			pool.Close()
			b.Fatalf("fill: %v", err)
		}
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE docs`); err != nil {
		pool.Close()
		b.Fatal(err)
	}
	groups := func() (map[string]joinGroup, error) {
		rows, err := pool.Query(ctx, joinQueries[len(joinQueries)-1].pg)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		m := map[string]joinGroup{}
		for rows.Next() {
			var g joinGroup
			if err := rows.Scan(&g.User, &g.N, &g.Qty); err != nil {
				return nil, err
			}
			m[g.User] = g
		}
		return m, rows.Err()
	}
	run := func(q *joinQuery) (int, error) {
		args := make([]any, len(q.use))
		for i, k := range q.use {
			args[i] = joinParams[k]
		}
		if q.count {
			var n int
			err := pool.QueryRow(ctx, q.pg, args...).Scan(&n)
			return n, err
		}
		rows, err := pool.Query(ctx, q.pg, args...)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("%s: %w", q.pg, err)
		}
		return n, nil
	}
	return &joinStore{run: run, groups: groups, close: pool.Close}
}
