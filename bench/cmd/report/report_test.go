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
BenchmarkStall/ttldb-2     	    1	   5 ns/op	  900000 max-stall-ns	 20 sweep-ms
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
	run := runInfoFromRaw(sample)
	if run.Count != 2 || run.Benchtime != "300ms" || !run.Quick || run.Items != 1000 || run.Args != "-quick" ||
		!run.Start.Equal(time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)) || run.LoadAfter != "2.0 2.0 2.0 1/100 1" {
		t.Errorf("run = %+v", run)
	}
	md := renderMarkdown(res, run, machineInfo{CPU: "cpu", NumCPU: 2})
	for _, want := range []string{"A quick run", "| Write with TTL at most 0.5x buntdb | 2 µs = 0.50x of buntdb (4 µs) | ≤ 0.50x | yes |",
		"| Write with TTL within 2x go-cache | 2 µs = 5.00x of go-cache (400 ns) | ≤ 2.00x | **no** |",
		"| Longest read stall during a mass expiry under 1 ms | 900 µs | < 1 ms | yes |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if svg := renderSVG(res, run); !strings.Contains(svg, "5.00x go-cache") {
		t.Errorf("the chart lacks the write bar:\n%s", svg)
	}
}
