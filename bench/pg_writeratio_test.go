package bench

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkPGWriteRatio measures issue 29's write target on a loaded
// machine: upserts of the pg store and plain pgx upserts of BenchmarkPG's
// documents (the same 10,000, the same server), each by pgWriters
// goroutines, interleaved in blocks of writeBlock writes, 20 blocks of
// each per iteration, so that both meet the same load and the same disk
// (whose flush time moves tenfold from minute to minute with fsync on).
// It reports each one's time a write over all the blocks (wall time over
// writes, so the inverse of the rate), the ratio of the rates (plain time
// ÷ pg time: the target is at least 0.7) and the median of the blocks'
// ratios. From bench/:
//
//	TTLDB_PG_FSYNC=on ../.ci/pg sh -c 'TTLDB_BENCH_PG=$TTLDB_TEST_PG go test -run "^$" -bench PGWriteRatio -benchtime 1x -count 3'
func BenchmarkPGWriteRatio(b *testing.B) {
	c, pool := openPGBeside(b)
	ctx := context.Background()
	ids := CallerKeys(pgItems)
	docs := newGroupDocs()
	pkOf := func(i int) string { return string(appendKey(nil, "g-", i/pgPart)) }
	const writeBlock, blocks = 320, 20
	// run runs writeBlock writes, and returns the wall time they took.
	run := func(seed uint64, write func(i int, doc []byte) error) time.Duration {
		start := time.Now()
		pgWriteAll(b, docs, seed, writeBlock, write)
		return time.Since(start)
	}
	pgWrite := func(_ int, doc []byte) error { _, err := c.UpsertJSON(bg, doc); return err }
	plainWrite := func(i int, doc []byte) error {
		_, err := pool.Exec(ctx, plainUpsertSQL, ids[i], pkOf(i), string(doc))
		return err
	}
	var pgTime, plainTime time.Duration
	var ratios []float64
	seed := uint64(100)
	for b.Loop() {
		for range blocks {
			seed += 100
			pg := run(seed, pgWrite)
			plain := run(seed, plainWrite)
			if b.Failed() {
				return
			}
			pgTime, plainTime = pgTime+pg, plainTime+plain
			ratios = append(ratios, float64(plain)/float64(pg))
		}
	}
	slices.Sort(ratios)
	n := float64(len(ratios) * writeBlock)
	b.ReportMetric(float64(pgTime.Nanoseconds())/n/1000, "pg-µs/write")
	b.ReportMetric(float64(plainTime.Nanoseconds())/n/1000, "plain-µs/write")
	b.ReportMetric(float64(plainTime)/float64(pgTime), "ratio")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}

// pgWriteAll writes n of BenchmarkPG's documents, chosen at random from
// seed, by pgWriters goroutines, write(i, doc) each, and returns when all
// are written; a write that fails fails b and stops its goroutine.
func pgWriteAll(b *testing.B, docs *groupDocs, seed uint64, n int, write func(i int, doc []byte) error) {
	var wg sync.WaitGroup
	for w := range pgWriters {
		wg.Go(func() {
			r := newRNG(seed + uint64(w))
			doc := make([]byte, 0, 256)
			for range n / pgWriters {
				i := r.intn(pgItems)
				doc = appendPGDoc(docs, doc[:0], i)
				if err := write(i, doc); err != nil {
					b.Errorf("write of item %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
