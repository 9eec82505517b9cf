package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ---- plain pgx on the same server: the baseline of issue 29's targets ----
//
// The pgx store of BenchmarkPG: the same documents in a plain table (id,
// partition key, body as text) of a schema of its own, read and written
// with plain pgx statements on a pool of the same size as the engine's:
// what PostgreSQL costs without ttldb's rules (no expiry, no LSN, no
// feed). Issue 29's targets: the engine's upserts by 16 writers at least
// 0.7x the plain upsert's rate, its reads at least 0.7x the plain select's.

const (
	plainUpsertSQL = `INSERT INTO plain (id, pk, body) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET pk = excluded.pk, body = excluded.body`
	plainGetSQL    = `SELECT body FROM plain WHERE id = $1`
	plainQuerySQL  = `SELECT body FROM plain WHERE pk = $1 ORDER BY id`
)

// benchPlainPGX runs BenchmarkPG's operations, but the feed's, with plain
// pgx statements.
func benchPlainPGX(b *testing.B) {
	conn, schema, poolURL := pgSchema(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, poolURL)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE plain (id text PRIMARY KEY, pk text NOT NULL, body text NOT NULL);
		CREATE INDEX plain_pk ON plain (pk)`); err != nil {
		b.Fatal(err)
	}
	ids, pks := CallerKeys(pgItems), pgPartitions()
	docs := newGroupDocs()
	pkOf := func(i int) string { return string(appendKey(nil, "g-", i/pgPart)) }
	// batch writes the documents of partition g in one transaction.
	batch := func(g int, buf []byte) error {
		var q pgx.Batch
		for i := g * pgPart; i < (g+1)*pgPart; i++ {
			buf = appendPGDoc(docs, buf[:0], i)
			q.Queue(plainUpsertSQL, ids[i], pkOf(i), string(buf))
		}
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, &q).Close() })
	}
	start := time.Now()
	buf := make([]byte, 0, 256)
	for g := range pks {
		if err := batch(g, buf); err != nil {
			b.Fatalf("fill: %v", err)
		}
	}
	b.Logf("filled %d rows in %v", pgItems, time.Since(start).Round(time.Millisecond))
	if err := pgAnalyze(conn, schema); err != nil {
		b.Fatal(err)
	}
	b.Run("get", func(b *testing.B) {
		r := newRNG(1)
		var body string
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			i := r.intn(pgItems)
			if err := pool.QueryRow(ctx, plainGetSQL, ids[i]).Scan(&body); err != nil {
				b.Fatalf("select %s: %v", ids[i], err)
			}
		}
		opsPerSecond(b, start)
	})
	b.Run("query", func(b *testing.B) {
		r := newRNG(2)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			rows, err := pool.Query(ctx, plainQuerySQL, pkOf(r.intn(pgItems)))
			if err != nil {
				b.Fatal(err)
			}
			bodies, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil || len(bodies) != pgPart {
				b.Fatalf("select of a partition: %d rows, %v; want %d", len(bodies), err, pgPart)
			}
		}
		opsPerSecond(b, start)
	})
	upsert := func(b *testing.B, writers int) {
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				r := newRNG(uint64(10 + w))
				buf := make([]byte, 0, 256)
				for k := w; k < b.N; k += writers {
					i := r.intn(pgItems)
					buf = appendPGDoc(docs, buf[:0], i)
					if _, err := pool.Exec(ctx, plainUpsertSQL, ids[i], pkOf(i), string(buf)); err != nil {
						b.Errorf("upsert: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		opsPerSecond(b, start)
	}
	b.Run("upsert/g=1", func(b *testing.B) { upsert(b, 1) })
	b.Run(fmt.Sprintf("upsert/g=%d", pgWriters), func(b *testing.B) { upsert(b, pgWriters) })
	b.Run("batch", func(b *testing.B) {
		r := newRNG(4)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			if err := batch(r.intn(len(pks)), buf); err != nil {
				b.Fatalf("batch: %v", err)
			}
		}
		opsPerSecond(b, start)
	})
}
