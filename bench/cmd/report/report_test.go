package main

import (
	"strings"
	"testing"
	"time"
)

const sample = `# report: count=2 benchtime=300ms slowtime=1x items=1000 quick=true start=2026-11-21T22:00:00Z end=2026-11-21T22:05:00Z load-before="1.0 1.0 1.0 1/100 1" load-after="2.0 2.0 2.0 1/100 1" args="-quick"
goos: linux
BenchmarkWrite/ttldb-2     	  100	      1000 ns/op	     512 B/op	       4 allocs/op
BenchmarkWrite/buntdb-2    	  100	      4000 ns/op	     512 B/op	       4 allocs/op
BenchmarkWrite/gocache-2   	  100	       400 ns/op	     512 B/op	       4 allocs/op
BenchmarkWrite/ttldb-2     	  100	      3000 ns/op	     512 B/op	       4 allocs/op
BenchmarkStall/ttldb-2     	    1	   5 ns/op	  900000 max-stall-ns	 20 sweep-ms	0.03 blocked-frac	1.5 slow-reads/s	0 quiet-slow-reads/s
BenchmarkWriteSize/ttldb/n=10-2    	  100	      1000 ns/op	     0 gc-cycles
BenchmarkWriteSize/buntdb/n=10-2   	  100	      3000 ns/op	     0 gc-cycles
BenchmarkWriteSize/gocache/n=10-2  	  100	       600 ns/op	     0 gc-cycles
BenchmarkWriteSize/ttldb/n=5000-2  	  100	      2500 ns/op	     1 gc-cycles
BenchmarkWriteSize/buntdb/n=5000-2 	  100	      5000 ns/op	     1 gc-cycles
BenchmarkWriteSize/gocache/n=5000-2	  100	      1000 ns/op	     1 gc-cycles
BenchmarkReadScale/ttldb/g=1-2     	  100	       100 ns/op	   100 ns/read	  10000000 reads/s
BenchmarkReadScale/ttldb/g=8-2     	  100	       200 ns/op	   400 ns/read	   5000000 reads/s
BenchmarkReadScale/gocache/g=1-2   	  100	        80 ns/op	    80 ns/read	  12500000 reads/s
BenchmarkReadScale/gocache/g=8-2   	  100	        80 ns/op	   160 ns/read	  12500000 reads/s
BenchmarkRemoval10k/ttldb-2        	    1	         5 ns/op	  25000000 ns/sweep
BenchmarkWrite/ttldb_feed_off-2    	  100	      1900 ns/op	     512 B/op	       4 allocs/op
BenchmarkWriteSize/ttldb_feed_off/n=10-2    	  100	      900 ns/op	     0 gc-cycles
BenchmarkWriteSize/ttldb_feed_off/n=5000-2  	  100	      2000 ns/op	     1 gc-cycles
BenchmarkHeap/ttldb-2              	    1	      5 ns/op	       150 B/item
BenchmarkHeap/ttldb_feed_off-2     	    1	      5 ns/op	       120 B/item
BenchmarkFeedRead/ttldb/n=100/latest-2 	  10	  20000 ns/op	     200 ns/doc	  0.016 allocs/doc	  237 B/doc
BenchmarkFeedRead/ttldb/n=1000/latest-2	  10	 300000 ns/op	     300 ns/doc	  0.016 allocs/doc	  237 B/doc
BenchmarkFeedRead/ttldb/n=1000/all-2   	  10	 200000 ns/op	     200 ns/change	  0.016 allocs/change	  1000 changes
BenchmarkRemoval10k/buntdb-2       	    1	         5 ns/op	  72000000 ns/sweep
BenchmarkRemoval10k/ttlcache-2     	    1	         5 ns/op	  20000000 ns/sweep
--- BENCH: BenchmarkStall/ttldb-2
    bench_test.go:1: filled
PASS
`

func TestParseAndMedian(t *testing.T) {
	res := parse(sample)
	if v, ok := res.median("Write", "ttldb", "ns/op"); !ok || v != 2000 {
		t.Errorf("median = %v, %v; want 2000", v, ok)
	}
	if v, _ := res.median("Stall", "ttldb", "max-stall-ns"); v != 900000 {
		t.Errorf("max-stall-ns = %v", v)
	}
	if p, v, _ := bestPeer(res, "Write", "ns/op"); p != "gocache" || v != 400 {
		t.Errorf("best peer = %s %v", p, v)
	}
	if v, _ := res.median("WriteSize/n=10", "ttldb", "ns/op"); v != 1000 {
		t.Errorf("WriteSize/n=10 = %v, want 1000", v)
	}
	run := runInfoFromRaw(sample)
	if run.Count != 2 || run.Benchtime != "300ms" || !run.Quick || run.Items != 1000 || run.Args != "-quick" ||
		!run.Start.Equal(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)) || run.LoadAfter != "2.0 2.0 2.0 1/100 1" {
		t.Errorf("run = %+v", run)
	}
	md := renderMarkdown(res, run, machineInfo{CPU: "cpu", NumCPU: 2})
	for _, want := range []string{"A quick run",
		"| Write with TTL at most 0.35x buntdb at 1,000 | 2 µs = 0.50x of buntdb (4 µs) | ≤ 0.35x | **no** |",
		"| Write with TTL within 2x go-cache at 1,000 | 2 µs = 5.00x of go-cache (400 ns) | ≤ 2.00x | **no** |",
		"| Write with TTL at most 0.35x buntdb at 10 | 1 µs = 0.33x of buntdb (3 µs) | ≤ 0.35x | yes |",
		"| Write with TTL within 2x go-cache at 10 | 1 µs = 1.67x of go-cache (600 ns) | ≤ 2.00x | yes |",
		"| Write with TTL at most 0.35x buntdb at 5,000 | 2.5 µs = 0.50x of buntdb (5 µs) | ≤ 0.35x | **no** |",
		"| Write with TTL within 2x go-cache at 5,000 | 2.5 µs = 2.50x of go-cache (1 µs) | ≤ 2.00x | **no** |",
		"| 1. Write with a TTL into a full store of 5,000 | 2.5 µs | 5 µs | 1 µs | — | — | 2.50x (vs go-cache) |",
		"| A write of raw JSON allocates once | 4 | ≤ 1 | **no** |",
		"| Mixed 90/10 on all cores within 1.2x go-cache | missing |",
		"| Remove 10 expired of 1,000 at most 0.5x the best peer | 25 ms = 1.25x of ttlcache, the best peer (20 ms) | ≤ 0.50x | **no** |",
		"| Longest read stall during a mass expiry under 1 ms | 900 µs | < 1 ms | yes |",
		"| Reads blocked by the sweeper during a mass expiry under 5% of the reader's time | 3% | < 5% | yes |",
		"| Slow reads per second during the sweep within 2x of the quiet second | 1.5/s = 1.50x of quiet-slow-reads/s (0/s) | ≤ 2.00x of max(quiet-slow-reads/s, 1/s) | yes |",
		"| Write at 5,000: collections during the timed writes | 1 | 1 | 1 | | |",
		"| ttldb | 100 ns (10 M/s) | — | — | 400 ns (5 M/s) | 4.00x |",
		"| go-cache | 80 ns (12.5 M/s) | — | — | 160 ns (12.5 M/s) | 2.00x |",
		"| ttldb ÷ go-cache | 1.25x | | | 2.50x | 2.00x |",
		"| Write with the change feed on at most 1.15x the write with it off at 10 | 1 µs = 1.11x of ttldb, feed off (900 ns) | ≤ 1.15x | yes |",
		"| Write with the change feed on at most 1.15x the write with it off at 1,000 | 2 µs = 1.05x of ttldb, feed off (1.9 µs) | ≤ 1.15x | yes |",
		"| Write with the change feed on at most 1.15x the write with it off at 5,000 | 2.5 µs = 1.25x of ttldb, feed off (2 µs) | ≤ 1.15x | **no** |",
		"| Latest-version feed read of 1,000 documents: under 0.01 allocations per document | 0.016 | < 0.01 | **no** |",
		"| Write with a TTL into a full store of 1,000 | 2 µs (1 µs – 3 µs) | 1.9 µs | 1.05x |",
		"| Heap per item beyond key and value, 1,000 items | 150 B | 120 B | +30 B |",
		"| Latest version: time per document | 200 ns | 300 ns | 1.50x |",
		"| All versions and deletes: changes read (the records the retention keeps) | — | 1000 | |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if svg := renderSVG(res, run); !strings.Contains(svg, "5.00x go-cache") || !strings.Contains(svg, "store of 5,000") {
		t.Errorf("the chart lacks the write bars:\n%s", svg)
	}
}

func TestParseLine(t *testing.T) {
	for _, c := range []struct{ line, bench, store string }{
		{"BenchmarkWrite/ttldb-2   100   5 ns/op", "Write", "ttldb"},
		{"BenchmarkWrite/ttldb   100   5 ns/op", "Write", "ttldb"}, // GOMAXPROCS 1: no suffix
		{"BenchmarkWriteSize/gocache/n=5000000-8   100   5 ns/op", "WriteSize/n=5000000", "gocache"},
		{"BenchmarkReadScale/ttldb/g=8   100   5 ns/op   9 ns/read", "ReadScale/g=8", "ttldb"},
	} {
		bench, store, m, ok := parseLine(c.line)
		if !ok || bench != c.bench || store != c.store || m["ns/op"] != 5 {
			t.Errorf("parseLine(%q) = %q, %q, %v, %v; want %q, %q", c.line, bench, store, m, ok, c.bench, c.store)
		}
	}
	if _, _, _, ok := parseLine("BenchmarkHeap-2   1   5 ns/op"); ok {
		t.Error("a line without a store was parsed")
	}
}

// TestPatchBatch: the patch and batch figures (R14) make their table and
// their target, the batch as a ratio to the same writes one by one.
func TestPatchBatch(t *testing.T) {
	raw := `# report: count=2 benchtime=300ms slowtime=1x items=1000000 quick=true start=2026-11-21T22:00:00Z end=2026-11-21T22:05:00Z load-before="1" load-after="1" args=""
BenchmarkBatch/ttldb/batch-2     	  100	    300000 ns/op	      3000 ns/doc	  187696 B/op	    1400 allocs/op
BenchmarkBatch/ttldb/batch-2     	  100	    500000 ns/op	      5000 ns/doc	  187696 B/op	    1400 allocs/op
BenchmarkBatch/ttldb/singles-2   	  100	    200000 ns/op	      2000 ns/doc	   31618 B/op	     100 allocs/op
BenchmarkPatch/ttldb/set-2       	  100	      3000 ns/op	    3605 B/op	      30 allocs/op
BenchmarkPatch/ttldb/incr-2      	  100	      6000 ns/op	    3640 B/op	      34 allocs/op
BenchmarkPatch/ttldb/replace-2   	  100	      2000 ns/op	     314 B/op	       1 allocs/op
`
	res := parse(raw)
	md := renderMarkdown(res, runInfoFromRaw(raw), machineInfo{CPU: "cpu", NumCPU: 2})
	for _, want := range []string{
		"| Batch of 100 upserts of one partition key within 2x 100 single writes, in a store of 100,000 | 400 µs = 2.00x of 100 single writes (200 µs) | ≤ 2.00x | yes |",
		"## Patch and batch",
		"a collection of 100,000 documents",
		"| Batch of 100 upserts of one partition key (NewBatch, 100 Upsert, ExecuteBatch), per batch | 400 µs (300 µs – 500 µs) | 2.00x of 100 singles |",
		"| Batch of 100: allocations per batch | 1400 | 14.0x of 100 singles |",
		"| Patch of one member: set /status | 3 µs | 1.50x of replace |",
		"| Patch of one member: incr /count | 6 µs | 3.00x of replace |",
		"| ReplaceJSON of the whole document (about 200 bytes) | 2 µs | |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	res["Batch/batch"]["ttldb"]["ns/op"] = []float64{500000}
	for _, tg := range targets {
		if tg.bench != "Batch/batch" {
			continue
		}
		if _, _, met, known := tg.check(res, 1_000_000); !known || met {
			t.Errorf("a batch 2.5x the singles: known %v, met %v; want known and not met", known, met)
		}
		delete(res, "Batch/singles")
		if _, against, _, known := tg.check(res, 1_000_000); known || against != "100 single writes missing" {
			t.Errorf("without the singles: known %v, %q", known, against)
		}
		return
	}
	t.Fatal("no target of Batch/batch")
}

// TestQuery: the queries' figures (issue 15) make their tables and their
// three targets, at the run's size.
func TestQuery(t *testing.T) {
	raw := `# report: count=2 benchtime=300ms slowtime=1x items=1000 quick=true start=2026-11-21T22:00:00Z end=2026-11-21T22:05:00Z load-before="1" load-after="1" args=""
BenchmarkQuery/ttldb/get-2        	 1000	      1000 ns/op	       0 B/op	       0 allocs/op
BenchmarkQuery/ttldb/eq-2         	 1000	     10000 ns/op	    4000 B/op	      30 allocs/op	        10.00 examined/op
BenchmarkQuery/ttldb/eq-2         	 1000	     30000 ns/op	    4000 B/op	      30 allocs/op	        10.00 examined/op
BenchmarkQuery/ttldb/range-2      	 1000	     40000 ns/op	    8000 B/op	      50 allocs/op	        20.00 examined/op
BenchmarkQuery/ttldb/scan-2       	   10	 100000000 ns/op	     500 B/op	      10 allocs/op	      1000 examined/op
BenchmarkQuery/ttldb/decode-2     	    1	 150000000 ns/op	 9000000 B/op	   90000 allocs/op
BenchmarkQuery/buntdb/get-2       	 1000	      2000 ns/op	     300 B/op	       2 allocs/op
BenchmarkQuery/buntdb/eq-2        	 1000	     10000 ns/op	    1000 B/op	      12 allocs/op
BenchmarkQuery/buntdb/range-2     	 1000	     16000 ns/op	    2000 B/op	      24 allocs/op
BenchmarkQueryIndex/ttldb/idx=0-2 	 1000	      3000 ns/op	     300 B/op	       1 allocs/op
BenchmarkQueryIndex/ttldb/build-2 	    1	 500000000 ns/op	     90.5 B/doc	    2000 B/op	       9 allocs/op
BenchmarkQueryIndex/ttldb/idx=1-2 	 1000	      4000 ns/op	     400 B/op	       3 allocs/op
BenchmarkQueryIndex/ttldb/idx=3-2 	 1000	      6000 ns/op	     600 B/op	       7 allocs/op
`
	res := parse(raw)
	md := renderMarkdown(res, runInfoFromRaw(raw), machineInfo{CPU: "cpu", NumCPU: 2})
	for _, want := range []string{
		"| Indexed equality returning 10 documents of 1,000 within 20x a point Get | 20 µs = 20.0x of a point Get (1 µs) | ≤ 20.0x | yes |",
		"| Indexed range with ORDER BY and LIMIT 20 on 1,000 documents under 50 µs | 40 µs | < 50 µs | yes |",
		"| Unindexed filter over 1,000 documents at least 2x faster than decoding each into a map | 100 ms = 0.67x of decoding into maps (150 ms) | ≤ 0.50x | **no** |",
		"## Queries and secondary indexes",
		"a store of its own of 1,000 documents",
		"| Indexed equality, 10 documents of 1,000: `WHERE c.status = @status` | 20 µs (10 µs – 30 µs) | 10 µs | 2.00x | 20.0x of a point Get |",
		"| Indexed range: `WHERE c.total >= @min ORDER BY c.total OFFSET 0 LIMIT 20` | 40 µs | 16 µs | 2.50x | 40.0x of a point Get |",
		"| The same count without a query: `All`, each `Body` decoded into a `map[string]any`, the filter in Go | 150 ms | | | |",
		"| Indexed equality: documents examined per query | 10 | | | |",
		"| The same writes, 1 index (`/status`) | 4 µs | 1.33x (+1 µs per index) |",
		"| The same writes, 3 indexes (`/status`, `/total`, `/createdAt`) | 6 µs | 2.00x (+1 µs per index) |",
		"| Write, 3 indexes: allocations | 7 | 7.00x (+2 per index) |",
		"| Heap of one index (`/status`) per document: the store with it minus without | 90 B | |",
		"| CreateIndex of `/status` on 1,000 documents | 500 ms | |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

// TestPartialRun checks which runs may not replace the report's full run
// of their CPU in the default file (main refuses them without -md).
func TestPartialRun(t *testing.T) {
	q, b, st, it, c := *quick, *benchRE, *storeList, *items, *count
	defer func() { *quick, *benchRE, *storeList, *items, *count = q, b, st, it, c }()
	for _, tc := range []struct {
		set     map[string]bool
		change  func()
		partial bool
	}{
		{nil, func() {}, false},
		{map[string]bool{"count": true}, func() { *count = 7 }, false},
		{map[string]bool{"benchtime": true}, func() {}, false},
		{map[string]bool{"quick": true}, func() { *quick = true; *count = 3 }, true},
		{map[string]bool{"count": true}, func() { *count = 3 }, true},
		{map[string]bool{"bench": true}, func() { *benchRE = "^Write$" }, true},
		{map[string]bool{"stores": true}, func() { *storeList = "ttldb,buntdb" }, true},
		{map[string]bool{"items": true}, func() { *items = 10_000 }, true},
	} {
		*quick, *benchRE, *storeList, *items, *count = q, b, st, it, c
		tc.change()
		if why := partialRun(tc.set); (why != "") != tc.partial {
			t.Errorf("flags %v: partialRun = %q, want partial %v", tc.set, why, tc.partial)
		}
	}
}
