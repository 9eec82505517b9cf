package main

import (
	"strings"
	"testing"
)

// sample is the output of a run of two rounds, cut down: the header, go
// test -v's lines, the server's line, and figures of get and the upserts.
const sample = `# pgreport start: 2026-11-26T20:49:33Z
# pgreport load-before: 1.00 1.00 1.00 1/1 1
# pgreport ttldb: commit abc1234
# pgreport settings: -count 2 -benchtime 1s
# pgreport gomaxprocs: 2
cpu: Intel(R) Xeon(R) Processor @ 2.50GHz
BenchmarkPG/mem/get-2   1000   200 ns/op   5000000 ops/s   0 B/op   0 allocs/op
BenchmarkPG/mem/get-2   1000   300 ns/op   3333333 ops/s   0 B/op   0 allocs/op
BenchmarkPG/dir/get-2   1000   250 ns/op   4000000 ops/s   0 B/op   0 allocs/op
BenchmarkPG/pg
    pg_test.go:84: server: PostgreSQL 15.18, fsync=on synchronous_commit=on
BenchmarkPG/pg/get-2   100   100000 ns/op   10000 ops/s   4541 B/op   28 allocs/op
BenchmarkPG/pg/get-2   100   150000 ns/op   6667 ops/s   4541 B/op   28 allocs/op
BenchmarkPG/pg/upsert/g=1-2   100   2000000 ns/op   500 ops/s
BenchmarkPG/pg/upsert/g=16-2   100   500000 ns/op   2000 ops/s
BenchmarkPG/pgx/get-2   100   50000 ns/op   20000 ops/s
BenchmarkPG/pgx/upsert/g=16-2   100   100000 ns/op   10000 ops/s
# pgreport end: 2026-11-26T20:50:00Z
# pgreport load-after: 2.00 2.00 2.00 1/1 1
`

// Issue 29, the PostgreSQL engine measured: the section gives each store's median, its range and ops/s, and pg's
// ratios to the in-process stores' medians; the server's fsync names the
// section; a store without a figure shows a dash.
func TestRender(t *testing.T) {
	r := parseRun(sample)
	if r.fsync != "on" || !strings.Contains(r.server, "PostgreSQL 15.18") {
		t.Fatalf("server %q, fsync %q", r.server, r.fsync)
	}
	md := render(r)
	for _, want := range []string{
		"## PostgreSQL engine, server fsync on",
		"TTLDB_PG_FSYNC=on ../.ci/pg go run ./cmd/pgreport",
		"| machine | Intel(R) Xeon(R) Processor @ 2.50GHz, GOMAXPROCS 2; shared with other work |",
		"| load average | before: 1.00 1.00 1.00 1/1 1; after: 2.00 2.00 2.00 1/1 1 |",
		"| ttldb measured | commit abc1234 |",
		// mem: median of 200 and 300; pg: of 100 and 150 µs; ratios 125000/250 and /250.
		"| Get of a random document (a hit) | 250 ns (200 ns – 300 ns), 4.17M/s | 250 ns (250 ns – 250 ns), 4.00M/s | 125 µs (100 µs – 150 µs), 8.33k/s | 50.0 µs (50.0 µs – 50.0 µs), 20.0k/s | 500x | 500x | 2.50x |",
		"| UpsertJSON of a random document, 1 writer | — | — | 2.00 ms (2.00 ms – 2.00 ms), 500/s | — | — | — | — |",
		// pg's rate over plain pgx's: 2000/10000 and 8333/20000.
		"upserts by 16 writers at least 0.7x the plain upsert's rate: 0.200x, not met; Get at least 0.7x the plain select's rate: 0.417x, not met.",
		"16 writers ran at 4.00x the rate of one writer's (dir: —)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
}
