package main

import (
	"strings"
	"testing"
)

// measuresSample is the output of the measures, cut down: a sweep, a
// feed lag and queries of pg and mem.
const measuresSample = sample + `# pgreport measures: -bench ^BenchmarkPGSweep$ -count 1 -benchtime 2x
BenchmarkPGSweep/pg/g=1-2   2   620348025 ns/op   12119640 base-max-ns   2629815 base-p50-ns   11025567 base-p99-ns   71040489 sweep-max-ns   620.3 sweep-ms   38.77 batch-ms   6022623 sweep-p50-ns   37326034 sweep-p99-ns   6448 swept/s   294.0 wbase/s   93.50 wsweep/s
BenchmarkPGFeedLag/pg/g=16-2   100   6956390 ns/op   14752901 lag-max-ns   3045653 lag-p50-ns   9000000 lag-p99-ns   142.7 ops/s
BenchmarkPGQuery/mem/eq-2   27505   42522 ns/op   23475 ops/s
BenchmarkPGQuery/pg/eq-2   100   1773787 ns/op   547.6 ops/s
BenchmarkPGQuery/pg/noindex/eq-2   3   356217775 ns/op   2.807 ops/s
`

// Issue 29, the PostgreSQL engine measured: the sweep's, the feed lag's and
// the indexed queries' tables give each figure, pg's ratios to the
// in-process store and to the unindexed query, and a dash where a store
// has no figure; a run without them renders no such table.
func TestRenderMeasures(t *testing.T) {
	if md := renderMeasures(parseRun(sample)); md != "" {
		t.Errorf("a run without the measures renders:\n%s", md)
	}
	md := renderMeasures(parseRun(measuresSample))
	for _, want := range []string{
		"| pg | 1 | 6.45k/s | 620 ms (38.8 ms) | 294/s | 93.5/s | 2.63 ms / 11.0 ms / 12.1 ms | 6.02 ms / 37.3 ms / 71.0 ms |",
		"| pg | 16 | 143/s | 3.05 ms | 9.00 ms | 14.8 ms |",
		// 1773787 / 42522; 356217775 / 1773787.
		"| `SELECT * FROM c WHERE c.grp = @g` | 42.5 µs (23.5k/s) | — | 1.77 ms (548/s) | 41.7x | — | — | 356 ms (2.81/s) | 201x |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the tables lack %q:\n%s", want, md)
		}
	}
}
