package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

// The measures beyond BenchmarkPG's table (issue 29's "Measured"): the
// sweep while writers run (BenchmarkPGSweep), the feed's lag to a watcher
// (BenchmarkPGFeedLag) and queries on secondary indexes
// (BenchmarkPGQuery), each a table after BenchmarkPG's.

// runMeasures runs the three benchmarks on the server of url, one go test
// each setting of -benchtime, their output to out and to stderr: the
// sweep with -benchtime 2x (two rounds, each a few seconds), the others
// with pgreport's -benchtime; each -count 1, to keep the report within
// minutes.
func runMeasures(url string, out io.Writer) error {
	for _, r := range []struct{ bench, benchtime string }{
		{"^BenchmarkPGSweep$", "2x"},
		{"^BenchmarkPG(FeedLag|Query)$", *benchtime},
	} {
		fmt.Fprintf(out, "# pgreport measures: -bench %s -count 1 -benchtime %s\n", r.bench, r.benchtime)
		cmd := exec.Command("go", "test", "-run", "^$", "-bench", r.bench, "-benchmem", "-v",
			"-count", "1", "-benchtime", r.benchtime, "-timeout", "30m", ".")
		cmd.Env = append(os.Environ(), "TTLDB_BENCH_PG="+url)
		cmd.Stdout = io.MultiWriter(out, os.Stderr)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go test -bench %s: %w", r.bench, err)
		}
	}
	return nil
}

// fig is the median of metric of the benchmark name (without
// "Benchmark"), ok false for none.
func (r pgRun) fig(name, metric string) (float64, bool) {
	return benchrun.Median(r.figs[name][metric])
}

// figNS is fig formatted as a time, "—" for none.
func (r pgRun) figNS(name, metric string) string {
	if v, ok := r.fig(name, metric); ok {
		return fmtNS(v)
	}
	return "—"
}

// figRate is fig formatted as a rate, "—" for none.
func (r pgRun) figRate(name, metric string) string {
	if v, ok := r.fig(name, metric); ok {
		return fmtRate(v)
	}
	return "—"
}

// pcts is the p50 / p99 / max of prefix in name's figures.
func (r pgRun) pcts(name, prefix string) string {
	return r.figNS(name, prefix+"-p50-ns") + " / " + r.figNS(name, prefix+"-p99-ns") + " / " + r.figNS(name, prefix+"-max-ns")
}

// storeLabels name the stores of the measures' rows.
var storeLabels = []struct{ name, label string }{
	{"mem", "mem"}, {"dir", "dir (Sync always)"}, {"pg", "pg"},
}

// renderMeasures returns the tables of the three benchmarks, "" when the
// run has none of their figures.
func renderMeasures(r pgRun) string {
	has := false
	for name := range r.figs {
		if strings.HasPrefix(name, "PGSweep/") || strings.HasPrefix(name, "PGFeedLag/") || strings.HasPrefix(name, "PGQuery/") {
			has = true
		}
	}
	if !has {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Sweep while writers run\n\n" +
		"`BenchmarkPGSweep` (`bench/pg_sweep_test.go`), in the same run, one process: per store, a backlog of 4,000 expired documents " +
		"(TTL 1 s, written in batches of 100, then waited for in real time) deleted by one `Sweep` (ManualSweep; batches of 256, " +
		"`ttldb.DefaultSweepBatch`) while 1 or 16 writers upsert the collection's 1,000 live documents as fast as they go; before it, " +
		"the same writers alone for 0.5 s. Two rounds a figure (`-benchtime 2x`), their documents and writes pooled. " +
		"A batch's time is the Sweep's over its 16 batches: issue 29 wants no writer to wait longer than one. " +
		"Write times are p50 / p99 / max.\n\n" +
		"| store | writers | swept/s | Sweep (a batch) | writes/s alone | writes/s during the Sweep | write alone | write during the Sweep |\n" +
		"|---|---|---|---|---|---|---|---|\n")
	for _, s := range storeLabels {
		for _, g := range []string{"1", "16"} {
			n := "PGSweep/" + s.name + "/g=" + g
			if r.figs[n] == nil {
				continue
			}
			sweep := "—"
			if v, ok := r.fig(n, "sweep-ms"); ok {
				sweep = fmtNS(v * 1e6)
				if bt, ok := r.fig(n, "batch-ms"); ok {
					sweep += " (" + fmtNS(bt*1e6) + ")"
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", s.label, g,
				r.figRate(n, "swept/s"), sweep, r.figRate(n, "wbase/s"), r.figRate(n, "wsweep/s"),
				r.pcts(n, "base"), r.pcts(n, "sweep"))
		}
	}
	b.WriteString("\n### Feed lag, from a write's return to a watcher\n\n" +
		"`BenchmarkPGFeedLag` (`bench/pg_feedlag_test.go`): 1 or 16 writers upsert random documents of 1,000, each waiting 1 ms " +
		"between its writes; a `WatchFeed` (all versions) notes when it yields each write's record. On pg it reads through a second " +
		"handle (`ttldb.Open` of the same URL: a pool and a listener of its own), as another process would; mem and dir have one " +
		"handle a collection, so there it watches the writers' own. A record seen before its write returned counts as 0.\n\n" +
		"| store | writers | writes/s | lag p50 | lag p99 | lag max |\n|---|---|---|---|---|---|\n")
	for _, s := range storeLabels {
		for _, g := range []string{"1", "16"} {
			n := "PGFeedLag/" + s.name + "/g=" + g
			if r.figs[n] == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.label, g, r.figRate(n, "ops/s"),
				r.figNS(n, "lag-p50-ns"), r.figNS(n, "lag-p99-ns"), r.figNS(n, "lag-max-ns"))
		}
	}
	b.WriteString("\n### Queries on a secondary index\n\n" +
		"`BenchmarkPGQuery` (`bench/pg_query_test.go`): 10,000 documents (BenchmarkPG's, with `grp`, one of 1,000 strings, " +
		"10 documents each across partitions, and `n`, the document's number), secondary indexes on `/grp` and `/n`; " +
		"each query returns 10 documents, across partitions, prepared, random parameters. Then the indexes are dropped and the " +
		"same queries scan (*unindexed*). Time per query (queries per second).\n\n" +
		"| query | mem | dir | pg | pg ÷ mem | pg ÷ dir | mem unindexed | pg unindexed | pg unindexed ÷ indexed |\n" +
		"|---|---|---|---|---|---|---|---|---|\n")
	for _, q := range []struct{ name, label string }{
		{"eq", "`SELECT * FROM c WHERE c.grp = @g`"},
		{"range", "`SELECT * FROM c WHERE c.n >= @lo AND c.n < @hi`"},
		{"order", "`SELECT TOP 10 * FROM c WHERE c.n >= @lo ORDER BY c.n`"},
	} {
		cell := func(store, prefix string) string {
			n := "PGQuery/" + store + "/" + prefix + q.name
			v, ok := r.fig(n, "ns/op")
			if !ok {
				return "—"
			}
			return fmtNS(v) + " (" + r.figRate(n, "ops/s") + ")"
		}
		ratio := func(a, b string) string {
			x, ok1 := r.fig("PGQuery/"+a, "ns/op")
			y, ok2 := r.fig("PGQuery/"+b, "ns/op")
			if !ok1 || !ok2 || y == 0 {
				return "—"
			}
			return fmtRatio(x / y)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", q.label,
			cell("mem", ""), cell("dir", ""), cell("pg", ""),
			ratio("pg/"+q.name, "mem/"+q.name), ratio("pg/"+q.name, "dir/"+q.name),
			cell("mem", "noindex/"), cell("pg", "noindex/"), ratio("pg/noindex/"+q.name, "pg/"+q.name))
	}
	return b.String()
}
