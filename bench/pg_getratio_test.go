package bench

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb"
)

// BenchmarkPGGetRatio measures issue 29's read target on a loaded machine:
// the pg store's Get and the plain pgx select of BenchmarkPG (the same
// 10,000 documents, the same server) interleaved in blocks of 300, 30
// blocks of each per iteration, so that both meet the same load. It
// reports each one's time a Get over all the blocks, the ratio of the
// rates (plain time ÷ pg time: the target is at least 0.7) and the median
// of the blocks' ratios, steadier than the whole when the load moves
// within a run. BenchmarkPG runs the two minutes apart, and on the shared
// 2-core machine their ratio moved 0.2-1.5x between runs of one binary.
// From bench/:
//
//	TTLDB_PG_FSYNC=on ../.ci/pg sh -c 'TTLDB_BENCH_PG=$TTLDB_TEST_PG go test -run "^$" -bench PGGetRatio -benchtime 1x -count 3'
func BenchmarkPGGetRatio(b *testing.B) {
	c, pool := openPGBeside(b)
	ids, pks := CallerKeys(pgItems), pgPartitions()
	const block, blocks = 300, 30
	r := newRNG(1)
	var body string
	ctx := context.Background()
	var pgTime, plainTime time.Duration
	var ratios []float64
	for b.Loop() {
		for range blocks {
			start := time.Now()
			for range block {
				i := r.intn(pgItems)
				if _, err := c.Get(bg, pks[i/pgPart], ids[i]); err != nil {
					b.Fatalf("Get %s: %v", ids[i], err)
				}
			}
			pg := time.Since(start)
			start = time.Now()
			for range block {
				i := r.intn(pgItems)
				if err := pool.QueryRow(ctx, plainGetSQL, ids[i]).Scan(&body); err != nil {
					b.Fatalf("select %s: %v", ids[i], err)
				}
			}
			plain := time.Since(start)
			pgTime, plainTime = pgTime+pg, plainTime+plain
			ratios = append(ratios, float64(plain)/float64(pg))
		}
	}
	slices.Sort(ratios)
	n := float64(len(ratios) * block)
	b.ReportMetric(float64(pgTime.Nanoseconds())/n/1000, "pg-µs/get")
	b.ReportMetric(float64(plainTime.Nanoseconds())/n/1000, "plain-µs/get")
	b.ReportMetric(float64(plainTime)/float64(pgTime), "ratio")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}

// openPGBeside opens the pg store (openPGServer), closed when b ends, and
// the plain table beside it (plainFilled): the two that the ratio
// benchmarks measure side by side.
func openPGBeside(b *testing.B) (*ttldb.Collection, *pgxpool.Pool) {
	b.Helper()
	c := openPGServer(b)
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Errorf("Close: %v", err)
		}
	})
	return c, plainFilled(b)
}

// plainFilled makes the plain table of benchPlainPGX (its id the primary
// key, and an index of its partition key) in a schema of its own on the
// server of TTLDB_BENCH_PG, filled with BenchmarkPG's documents
// (10,000, by partition) and analyzed, and returns a pool on it, closed
// when the benchmark ends. Without the variable it skips the benchmark.
func plainFilled(b *testing.B) *pgxpool.Pool {
	b.Helper()
	_, _, poolURL := pgSchema(b)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, poolURL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE plain (id text PRIMARY KEY, pk text NOT NULL, body text NOT NULL);
		CREATE INDEX plain_pk ON plain (pk)`); err != nil {
		b.Fatal(err)
	}
	ids := CallerKeys(pgItems)
	fillByPartition(b, pool, func(q *pgx.Batch, i int, doc string) {
		q.Queue(plainUpsertSQL, ids[i], string(appendKey(nil, "g-", i/pgPart)), doc)
	})
	if _, err := pool.Exec(ctx, "ANALYZE plain"); err != nil {
		b.Fatal(err)
	}
	return pool
}

// fillByPartition writes BenchmarkPG's 10,000 documents through pool, in
// one transaction a partition: queue adds document i's statements, doc
// its JSON, to the partition's batch.
func fillByPartition(b *testing.B, pool *pgxpool.Pool, queue func(q *pgx.Batch, i int, doc string)) {
	b.Helper()
	ctx := context.Background()
	docs := newGroupDocs()
	buf := make([]byte, 0, 256)
	for g := range pgItems / pgPart {
		var q pgx.Batch
		for i := g * pgPart; i < (g+1)*pgPart; i++ {
			buf = appendPGDoc(docs, buf[:0], i)
			queue(&q, i, string(buf))
		}
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, &q).Close() }); err != nil {
			b.Fatalf("fill: %v", err)
		}
	}
}
