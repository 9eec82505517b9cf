package main

import (
	"math"
	"strings"
	"testing"
)

// The output of three rounds of each revision, as the processes print it
// (with the lines that are not figures).
var oldRounds = []string{`goos: linux
cpu: Some CPU
BenchmarkWrite/ttldb-2   	 1000000	      1000 ns/op	     512 B/op	       1 allocs/op
BenchmarkRead/ttldb-2    	 1000000	       200 ns/op	     208 B/op	       1 allocs/op
--- BENCH: BenchmarkWrite/ttldb-2
    bench_test.go:60: built ttldb in 1.2s
PASS
`, `BenchmarkWrite/ttldb-2   	 1000000	      1100 ns/op	     512 B/op	       1 allocs/op
BenchmarkRead/ttldb-2    	 1000000	       204 ns/op	     208 B/op	       1 allocs/op
BenchmarkDurable/ttldb/always/g=16-2 	 1000	  50000 ns/op	  20000 writes/s	  3 allocs/op	 100 B/op
`, `BenchmarkWrite/ttldb-2   	 1000000	       900 ns/op	     512 B/op	       1 allocs/op
BenchmarkRead/ttldb-2    	 1000000	       202 ns/op	     208 B/op	       1 allocs/op
BenchmarkDurable/ttldb/always/g=16-2 	 1000	  52000 ns/op	  19000 writes/s	  3 allocs/op	 100 B/op
`}

var newRounds = []string{`BenchmarkWrite/ttldb-2   	 1000000	      1100 ns/op	     600 B/op	       2 allocs/op
BenchmarkRead/ttldb-2    	 1000000	       210 ns/op	     208 B/op	       1 allocs/op
BenchmarkOnlyNew/ttldb-2 	 1000000	       5 ns/op
`, `BenchmarkWrite/ttldb-2   	 1000000	      1150 ns/op	     600 B/op	       2 allocs/op
BenchmarkRead/ttldb-2    	 1000000	       200 ns/op	     208 B/op	       1 allocs/op
BenchmarkDurable/ttldb/always/g=16-2 	 1000	  51000 ns/op	  19500 writes/s	  3 allocs/op	 100 B/op
`, `BenchmarkWrite/ttldb-2   	 1000000	      1200 ns/op	     600 B/op	       2 allocs/op
BenchmarkRead/ttldb-2    	 1000000	       205 ns/op	     208 B/op	       1 allocs/op
`}

func compared() *comparison {
	c := &comparison{CPU: "Some CPU", GOMAXPROCS: 2, Go: "go1.26", Old: "54e54a3", New: "54e54a3-dirty (the working tree)",
		Rounds: 3, Benchtime: "200ms", Slowtime: "1x", Items: 100000, Bench: "^(Write|Read)$/^ttldb$",
		Command: "go run ./cmd/compare -count 3", old: samples{}, new: samples{}}
	for i := range oldRounds { // the order of the rounds: old, new, new, old, old, new
		if i%2 == 0 {
			c.old.add(oldRounds[i], &c.order)
			c.new.add(newRounds[i], &c.order)
		} else {
			c.new.add(newRounds[i], &c.order)
			c.old.add(oldRounds[i], &c.order)
		}
	}
	return c
}

func TestSamples(t *testing.T) {
	c := compared()
	if got := strings.Join(c.order, ","); got != "Write/ttldb,Read/ttldb,OnlyNew/ttldb,Durable/ttldb/always/g=16" {
		t.Errorf("order = %s", got)
	}
	if got := c.old["Write/ttldb"]["ns/op"]; len(got) != 3 || got[0] != 1000 || got[1] != 1100 || got[2] != 900 {
		t.Errorf("old Write ns/op = %v", got)
	}
	if got := c.old["Durable/ttldb/always/g=16"]["writes/s"]; len(got) != 2 {
		t.Errorf("old Durable writes/s = %v, want the 2 rounds that have it", got)
	}
	if _, ok := c.old["OnlyNew/ttldb"]; ok {
		t.Error("old has OnlyNew")
	}
}

func TestFiguresAndRatios(t *testing.T) {
	c := compared()
	o, n := c.get(c.old, "Write/ttldb", "ns/op"), c.get(c.new, "Write/ttldb", "ns/op")
	if o.median != 1000 || n.median != 1150 || o.n != 3 {
		t.Errorf("Write medians = %v, %v", o, n)
	}
	if math.Abs(o.spread-0.2) > 1e-9 { // (1100 - 900) / 1000
		t.Errorf("old Write spread = %v, want 0.2", o.spread)
	}
	if r, ok := ratio(o, n); !ok || math.Abs(r-1.15) > 1e-9 {
		t.Errorf("Write ratio = %v, %v; want 1.15", r, ok)
	}
	// An even count: the mean of the middle two.
	if d := c.get(c.new, "Durable/ttldb/always/g=16", "ns/op"); d.median != 51000 {
		t.Errorf("new Durable median = %v", d.median)
	}
	if d := c.get(c.old, "Durable/ttldb/always/g=16", "ns/op"); d.median != 51000 || d.n != 2 {
		t.Errorf("old Durable median = %v over %d", d.median, d.n)
	}
	for _, x := range []struct {
		o, n figure
		want float64
		ok   bool
	}{
		{figure{median: 0, n: 3}, figure{median: 0, n: 3}, 1, true},
		{figure{median: 0, n: 3}, figure{median: 2, n: 3}, 0, false},
		{figure{}, figure{median: 2, n: 3}, 0, false},
		{figure{median: 4, n: 3}, figure{median: 3, n: 3}, 0.75, true},
	} {
		if r, ok := ratio(x.o, x.n); ok != x.ok || r != x.want {
			t.Errorf("ratio(%v, %v) = %v, %v; want %v, %v", x.o, x.n, r, ok, x.want, x.ok)
		}
	}
}

func TestFlags(t *testing.T) {
	c := compared()
	for name, want := range map[string]string{
		"Write/ttldb":               "**time +15.0%**, **allocs 1 → 2**",
		"Read/ttldb":                "", // 202 → 205: +1.5%, within 3%
		"OnlyNew/ttldb":             "only in new",
		"Durable/ttldb/always/g=16": "",
	} {
		if got := strings.Join(c.flags(name), ", "); got != want {
			t.Errorf("flags(%s) = %q, want %q", name, got, want)
		}
	}
	// The limit either way: -3.5% is flagged, -2.5% not.
	c.new["Read/ttldb"]["ns/op"] = []float64{194.93}
	if got := c.flags("Read/ttldb"); len(got) != 1 || got[0] != "**time -3.5%**" {
		t.Errorf("flags at -3.5%% = %q", got)
	}
	c.new["Read/ttldb"]["ns/op"] = []float64{196.95}
	if got := c.flags("Read/ttldb"); len(got) != 0 {
		t.Errorf("flags at -2.5%% = %q", got)
	}
}

func TestTable(t *testing.T) {
	c := compared()
	md := c.markdown()
	for _, want := range []string{
		"- old: 54e54a3, new: 54e54a3-dirty (the working tree)\n",
		"- CPU: Some CPU, GOMAXPROCS 2, go1.26\n",
		"- 3 rounds (old and new alternating, each benchmark group in its own process, -count 1 -benchmem a round), -benchtime 200ms (slow group 1x), -items 100,000, -bench ^(Write|Read)$/^ttldb$\n",
		"- command: `go run ./cmd/compare -count 3`\n",
		"| benchmark | old ns/op | new ns/op | new/old | old spread | new spread | old allocs/op | new allocs/op | new/old | flag |\n|---|---:|---:|",
		"| Write/ttldb | 1,000 | 1,150 | 1.150 | 20.0% | 8.7% | 1 | 2 | 2.000 | **time +15.0%**, **allocs 1 → 2** |\n",
		"| Read/ttldb | 202 | 205 | 1.015 | 2.0% | 4.9% | 1 | 1 | 1.000 |  |\n",
		"| OnlyNew/ttldb | — | 5 | — | — | — | — | — | — | only in new |\n",
		"| Durable/ttldb/always/g=16 | 51,000 | 51,000 | 1.000 | 3.9% | — | 3 | 3 | 1.000 |  |\n",
		"Other metrics:",
		"| Write/ttldb | B/op | 512 | 600 | 1.172 | 0.0% | 0.0% |\n",
		"| Durable/ttldb/always/g=16 | B/op | 100 | 100 | 1.000 | 0.0% | — |\n| Durable/ttldb/always/g=16 | writes/s | 19,500 | 19,500 | 1.000 | 5.1% | — |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	text := c.text()
	if strings.Contains(text, "| Write") || strings.Contains(text, "**") {
		t.Errorf("the text has Markdown in it:\n%s", text)
	}
	for _, want := range []string{"old: 54e54a3, new: 54e54a3-dirty", "Write/ttldb  ", "time +15.0%, allocs 1 → 2"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 3: "3", 202.5: "202", 1234567.8: "1,234,568", 0.0162: "0.0162", 19.25: "19.2", -1500: "-1,500", 100000: "100,000"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestCommandLine(t *testing.T) {
	got := commandLine([]string{"-old", "HEAD~1", "-bench", "^(Write|Read)$/^ttldb$", "-md", "/tmp/a b.md", "-new", "."})
	want := `go run ./cmd/compare -old 'HEAD~1' -bench '^(Write|Read)$/^ttldb$' -md '/tmp/a b.md' -new .`
	if got != want {
		t.Errorf("commandLine = %s, want %s", got, want)
	}
}
