package benchrun

import (
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	for _, c := range []struct{ line, name string }{
		{"BenchmarkWrite/ttldb-2   100   5 ns/op", "Write/ttldb"},
		{"BenchmarkWrite/ttldb   100   5 ns/op", "Write/ttldb"}, // GOMAXPROCS 1: no suffix
		{"BenchmarkWriteSize/gocache/n=5000000-8   100   5 ns/op", "WriteSize/gocache/n=5000000"},
		{"BenchmarkReadScale/ttldb/g=8   100   5 ns/op   9 ns/read", "ReadScale/ttldb/g=8"},
		{"BenchmarkDurable/ttldb/always/g=16-2   100   5 ns/op   1 B/op   0 allocs/op", "Durable/ttldb/always/g=16"},
	} {
		name, m, ok := ParseLine(c.line)
		if !ok || name != c.name || m["ns/op"] != 5 {
			t.Errorf("ParseLine(%q) = %q, %v, %v; want %q", c.line, name, m, ok, c.name)
		}
	}
	for _, line := range []string{"BenchmarkWrite/ttldb-2   100", "--- BENCH: BenchmarkWrite/ttldb-2", "BenchmarkWrite/ttldb-2   x   5 ns/op", "PASS"} {
		if _, _, ok := ParseLine(line); ok {
			t.Errorf("ParseLine(%q) parsed", line)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if m, ok := Median(c.v); !ok || m != c.want {
			t.Errorf("Median(%v) = %v, %v; want %v", c.v, m, ok, c.want)
		}
	}
	if _, ok := Median(nil); ok {
		t.Error("Median(nil) ok")
	}
}

func TestSelect(t *testing.T) {
	for _, c := range []struct{ group, store, expr, want string }{
		{FastGroup, "ttldb", "", FastGroup},
		{FastGroup, "ttldb_feed_off", "", "Heap|Write"},
		{SizeGroup, "ttldb_feed_off", "", "WriteSize"},
		{SlowGroup, "ttldb_feed_off", "", ""},
		{FastGroup, "ttldb_listed", "", "Heap|Write"},
		{SizeGroup, "ttldb_listed", "", "WriteSize"},
		{SlowGroup, "ttldb_listed", "", "Removal10k"},
		{SlowGroup, "ttldb", "", SlowGroup},
		{FastGroup, "ttldb", "^BenchmarkWrite$/ttldb$", "Write"},
		{FastGroup, "ttldb", "^(Heap|Write|WriteSize|FeedRead)$", "Heap|Write|FeedRead"},
		{SizeGroup, "gocache", "^(Heap|Write|WriteSize|FeedRead)$", "WriteSize"},
		{SlowGroup, "ttldb", "^(Heap|Write|WriteSize|FeedRead)$", ""},
		{DiskGroup, "gocache", "", ""},
		{DiskGroup, "ttldb_mem", "^(Write|Durable)$", "Durable"},
	} {
		if got, err := SelectGroup(c.group, c.store, c.expr); err != nil || got != c.want {
			t.Errorf("SelectGroup(%q, %q, %q) = %q, %v; want %q", c.group, c.store, c.expr, got, err, c.want)
		}
	}
	if _, err := SelectGroup(FastGroup, "ttldb", "^(Write$"); err == nil {
		t.Error("SelectGroup took a bad expression")
	}
	all := []string{"ttldb", "ttldb_feed_off", "buntdb"}
	if got, err := SelectStores(all, "^Write$/^ttldb"); err != nil || strings.Join(got, ",") != "ttldb,ttldb_feed_off" {
		t.Errorf("SelectStores = %v, %v", got, err)
	}
	if got, _ := SelectStores(all, "^Write$"); len(got) != 3 {
		t.Errorf("SelectStores without a stores' part = %v", got)
	}
	if _, err := SelectStores(all, "^Write$/^nothing$"); err == nil {
		t.Error("SelectStores matched none without an error")
	}
}
