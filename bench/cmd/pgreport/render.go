package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

// pgRun is what pgreport reads from the output of a run.
type pgRun struct {
	facts  map[string]string               // the header's "# pgreport KEY: VALUE" lines
	cpu    string                          // go test's "cpu:" line
	server string                          // "PostgreSQL 15.18, fsync=on synchronous_commit=on"
	fsync  string                          // on, off
	figs   map[string]map[string][]float64 // "PG/pg/get" -> "ns/op" -> one value a run
}

// parseRun reads the raw output of a run (run's header, go test -v's
// output).
func parseRun(raw string) pgRun {
	r := pgRun{facts: map[string]string{}, figs: map[string]map[string][]float64{}}
	for _, line := range strings.Split(raw, "\n") {
		if kv, ok := strings.CutPrefix(line, "# pgreport "); ok {
			if k, v, ok := strings.Cut(kv, ": "); ok {
				r.facts[k] = v
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "cpu: "); ok {
			r.cpu = strings.TrimSpace(v)
			continue
		}
		if _, v, ok := strings.Cut(line, ": server: "); ok {
			r.server = strings.TrimSpace(v)
			if _, f, ok := strings.Cut(v, "fsync="); ok {
				r.fsync, _, _ = strings.Cut(f, " ")
			}
			continue
		}
		name, m, ok := benchrun.ParseLine(line)
		if !ok {
			continue
		}
		if r.figs[name] == nil {
			r.figs[name] = map[string][]float64{}
		}
		for k, v := range m {
			r.figs[name][k] = append(r.figs[name][k], v)
		}
	}
	return r
}

// pgOps are BenchmarkPG's operations, in the table's order, with their
// rows' names.
var pgOps = []struct{ name, label string }{
	{"get", "Get of a random document (a hit)"},
	{"query", "Query of one partition, `SELECT * FROM c` (prepared): its 10 documents"},
	{"feed", "Change feed: a page of 100 records (all versions, after a random LSN)"},
	{"upsert/g=1", "UpsertJSON of a random document, 1 writer"},
	{"upsert/g=16", "UpsertJSON, 16 writers (per write, all of them)"},
	{"batch", "Transactional batch of the 10 upserts of one partition (per batch)"},
}

// median is the median of the runs of store's op in metric, ok false for
// none.
func (r pgRun) median(store, op, metric string) (float64, bool) {
	return benchrun.Median(r.figs["PG/"+store+"/"+op][metric])
}

// cell is a store's figure for op: the median time per operation, the
// lowest – highest of the runs, and the median ops/s.
func (r pgRun) cell(store, op string) string {
	v := r.figs["PG/"+store+"/"+op]["ns/op"]
	m, ok := benchrun.Median(v)
	if !ok {
		return "—"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	s := fmt.Sprintf("%s (%s – %s)", fmtNS(m), fmtNS(lo), fmtNS(hi))
	if ops, ok := r.median(store, op, "ops/s"); ok {
		s += ", " + fmtRate(ops)
	}
	return s
}

// ratio is pg's median time over store's for op.
func (r pgRun) ratio(store, op string) string {
	pg, ok1 := r.median("pg", op, "ns/op")
	other, ok2 := r.median(store, op, "ns/op")
	if !ok1 || !ok2 || other == 0 {
		return "—"
	}
	return fmtRatio(pg / other)
}

// render returns the section of BENCHMARKS.md of the run.
func render(r pgRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## PostgreSQL engine, server fsync %s\n\n", r.fsync)
	b.WriteString("The PostgreSQL engine (module `postgres/`, issue 29) beside the in-process engine, the same operations " +
		"on the same documents, in one run (`BenchmarkPG`, `bench/pg_test.go`): 10,000 documents of about 200 bytes " +
		"partitioned by `/pk` (1,000 partitions of 10), TTL an hour, filled by one batch per partition. " +
		"*mem*: in memory (`mem:`); *dir*: a directory on the machine's disk with `Sync: SyncAlways` (a write returns once it is synced); " +
		"*pg*: the PostgreSQL engine opened with `ttldb.Open` on a `postgres://` URL with a pool of 20 connections, " +
		"in a schema made for the run and dropped after it, on a server on the same machine reached over loopback, " +
		"its tables ANALYZEd after the fill (as autovacuum would within a minute; without statistics the planner takes the new tables for a few hundred rows and the sequencer's pass scans them whole, which cost 8-9 ms a write at 10,000 documents); *plain pgx*: the same operations but the feed's as plain pgx statements on a plain table of the same server, in a schema of its own (below). Each store runs in turn in the same process; " +
		"figures are the medians of the runs (time per operation, the lowest – highest of the runs, operations per second); " +
		"the ratios are pg's median time over the in-process store's. ")
	fmt.Fprintf(&b, "Produced by `cd bench && %s../.ci/pg go run ./cmd/pgreport`.\n\n", map[string]string{"on": "TTLDB_PG_FSYNC=on "}[r.fsync])
	b.WriteString("| | |\n|---|---|\n")
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "| %s | %s |\n", k, v)
		}
	}
	row("date", r.facts["start"]+" – "+r.facts["end"])
	row("machine", r.cpu+gomaxprocs(r)+"; shared with other work")
	row("load average", "before: "+r.facts["load-before"]+"; after: "+r.facts["load-after"])
	row("server", r.server+", on 127.0.0.1")
	row("ttldb measured", r.facts["ttldb"])
	row("settings", r.facts["settings"]+", one process")
	b.WriteString("\n| operation | mem | dir (Sync always) | pg | plain pgx | pg ÷ mem | pg ÷ dir | pg ÷ plain pgx |\n|---|---|---|---|---|---|---|---|\n")
	for _, op := range pgOps {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", op.label,
			r.cell("mem", op.name), r.cell("dir", op.name), r.cell("pg", op.name), r.cell("pgx", op.name),
			r.ratio("mem", op.name), r.ratio("dir", op.name), r.ratio("pgx", op.name))
	}
	b.WriteString("\nIssue 29's targets, against plain pgx statements on a plain table of the same server " +
		"(`id` primary key, `pk` indexed, `body` text; `INSERT ... ON CONFLICT DO UPDATE`, `SELECT body ... WHERE id = $1`, " +
		"the batch one transaction of 10 such upserts sent as a pgx.Batch): ")
	for i, t := range []struct{ label, op string }{
		{"upserts by 16 writers at least 0.7x the plain upsert's rate", "upsert/g=16"},
		{"Get at least 0.7x the plain select's rate", "get"},
	} {
		pg, ok1 := r.median("pg", t.op, "ops/s")
		plain, ok2 := r.median("pgx", t.op, "ops/s")
		v := "no figure"
		if ok1 && ok2 && plain > 0 {
			met := "not met"
			if pg/plain >= 0.7 {
				met = "met"
			}
			v = fmtRatio(pg/plain) + ", " + met
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", t.label, v)
	}
	b.WriteString(".\n")
	if g1, ok1 := r.median("pg", "upsert/g=1", "ops/s"); ok1 {
		if g16, ok2 := r.median("pg", "upsert/g=16", "ops/s"); ok2 && g1 > 0 {
			fmt.Fprintf(&b, "\nThe sequencer's grouping: pg's upserts by 16 writers ran at %s the rate of one writer's (dir: %s).\n",
				fmtRatio(g16/g1), groupRatio(r, "dir"))
		}
	}
	return b.String()
}

// groupRatio is store's ops/s with 16 writers over 1, or "—".
func groupRatio(r pgRun, store string) string {
	g1, ok1 := r.median(store, "upsert/g=1", "ops/s")
	g16, ok2 := r.median(store, "upsert/g=16", "ops/s")
	if !ok1 || !ok2 || g1 == 0 {
		return "—"
	}
	return fmtRatio(g16 / g1)
}

// gomaxprocs is ", GOMAXPROCS n" from the header, or "".
func gomaxprocs(r pgRun) string {
	if n := r.facts["gomaxprocs"]; n != "" {
		return ", GOMAXPROCS " + n
	}
	return ""
}

// fmtNS formats a time in nanoseconds with three significant digits.
func fmtNS(ns float64) string {
	switch {
	case ns >= 1e9:
		return sig3(ns/1e9) + " s"
	case ns >= 1e6:
		return sig3(ns/1e6) + " ms"
	case ns >= 1e3:
		return sig3(ns/1e3) + " µs"
	}
	return sig3(ns) + " ns"
}

// fmtRate formats operations per second.
func fmtRate(v float64) string {
	switch {
	case v >= 1e6:
		return sig3(v/1e6) + "M/s"
	case v >= 1e3:
		return sig3(v/1e3) + "k/s"
	}
	return sig3(v) + "/s"
}

// fmtRatio formats a ratio: "52.3x".
func fmtRatio(v float64) string { return sig3(v) + "x" }

// sig3 formats v with three significant digits, without an exponent.
func sig3(v float64) string {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return fmt.Sprint(v)
	}
	d := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	return fmt.Sprintf("%.*f", d, v)
}
