package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- helpers of the PostgreSQL engine's measures beyond BenchmarkPG ----
//
// BenchmarkPGSweep (pg_sweep_test.go), BenchmarkPGFeedLag
// (pg_feedlag_test.go) and BenchmarkPGQuery (pg_query_test.go) open the
// same three stores as BenchmarkPG (mem, dir with SyncAlways, pg in a
// schema of its own), each with options of its own, and report
// percentiles of times they take. cmd/pgreport runs them after
// BenchmarkPG, with -benchtime 1x for the first two (one round each).

// pgMeasureStores are the stores of the measures, in their order.
var pgMeasureStores = []string{"mem", "dir", "pg"}

// openMeasured opens store (mem, dir or pg) with opts (dir with
// SyncAlways), and returns it with its URL, which a second handle of the
// pg store opens (for the others, the URL is of no use: one handle a
// collection), and analyze, to call after a fill: for pg, it gives the
// tables their statistics (pgAnalyze); for the others, it does nothing.
// The pg store skips without TTLDB_BENCH_PG, as BenchmarkPG's does, and
// logs the server's line cmd/pgreport reads. Close is the caller's, before
// the schema is dropped (a b.Cleanup).
func openMeasured(b *testing.B, store string, opts ttldb.Options) (c *ttldb.Collection, u string, analyze func()) {
	b.Helper()
	analyze = func() {}
	switch store {
	case "mem":
		u = "mem:"
	case "dir":
		u = "file:" + durableDir(b)
		opts.Sync = ttldb.SyncAlways
	case "pg":
		conn, schema, poolURL := pgSchema(b)
		var version, fsync, syncCommit string
		if err := conn.QueryRow(bg, "SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit')").Scan(&version, &fsync, &syncCommit); err != nil {
			b.Fatalf("the server's settings: %v", err)
		}
		b.Logf("server: PostgreSQL %s, fsync=%s synchronous_commit=%s", version, fsync, syncCommit)
		u = poolURL
		analyze = func() {
			if err := pgAnalyze(conn, schema); err != nil {
				b.Fatal(err)
			}
		}
	default:
		b.Fatalf("no store %q", store)
	}
	c, err := ttldb.Open(bg, u, &opts)
	if err != nil {
		b.Fatalf("Open %s: %v", store, err)
	}
	return c, u, analyze
}

// fillBatches writes documents first to first+n-1, made by doc, in
// transactional batches of per documents, each batch in the partition of
// its first document (pk).
func fillBatches(b *testing.B, c *ttldb.Collection, first, n, per int, pk func(i int) ttldb.PartitionKey, doc func(dst []byte, i int) []byte) {
	b.Helper()
	buf := make([]byte, 0, 256)
	for at := first; at < first+n; at += per {
		batch := ttldb.NewBatch(pk(at))
		for i := at; i < min(at+per, first+n); i++ {
			buf = doc(buf[:0], i)
			batch.Upsert(buf)
		}
		if _, err := c.ExecuteBatch(bg, batch); err != nil {
			b.Fatalf("fill, batch at %d: %v", at, err)
		}
	}
}

// durations collects times of one kind, to report their percentiles.
type durations []time.Duration

// pct returns the p-th percentile (0 < p <= 100) of l, sorting it; 0 for
// none.
func (l durations) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	i := int(float64(len(l))*p/100+0.5) - 1
	return l[min(max(i, 0), len(l)-1)]
}

// report reports l's p50, p99 and maximum as metrics named prefix-p50-ns
// and so on.
func (l durations) report(b *testing.B, prefix string) {
	if len(l) == 0 {
		return
	}
	b.ReportMetric(float64(l.pct(50)), prefix+"-p50-ns")
	b.ReportMetric(float64(l.pct(99)), prefix+"-p99-ns")
	b.ReportMetric(float64(l.pct(100)), prefix+"-max-ns")
}

// measuredName is the sub-benchmark of g writers.
func measuredName(g int) string { return fmt.Sprintf("g=%d", g) }
