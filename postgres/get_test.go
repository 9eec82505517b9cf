package postgres

import (
	"context"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/ttldb/ttldb/engine"
)

// TestGetAllocates bounds what a Get allocates: the Doc, which holds the
// body read from the connection's buffer, and pgx's own few; not the
// statement's text (14 allocations and about 2 KB a Get when it was made
// anew each time), nor the destinations of its Scan (get.go).
func TestGetAllocates(t *testing.T) { // R4: a Get reads the live document
	// Not parallel: AllocsPerRun refuses to run beside other tests.
	s := newServer(t)
	h := open(t, s, "allocs", nil)
	body := `{"note":"` + strings.Repeat("x", 200) + `"}`
	h.mustPut(engine.Create, "a", body, 60)
	var d *engine.Doc
	k, _ := key("a")
	// A context that is never done, as the benchmarks': pgx watches one
	// that can end, which costs it 4 allocations a statement more.
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		var err error
		if d, err = h.e.Get(ctx, k); err != nil {
			panic(err)
		}
	})
	if d.Body() != body || d.ID() != "a" || d.TTL != 60 || d.TS != t0 || h.lsn(d) != 1 {
		t.Fatalf("Get = %s (id %q, ttl %d, _ts %d, LSN %d); want %s, a, 60, %d, 1", d.Body(), d.ID(), d.TTL, d.TS, h.lsn(d), body, t0)
	}
	const mostAllocs = 10
	// Measured 8: the Doc, the key's and the clock's parameters
	// (Options.Now's reading: on the server's clock there is none), and
	// pgx's own (its rows, its Scan's plans, its command tag).
	if allocs > mostAllocs && !raceDetector() { // under -race, sync.Pool drops what it holds at random
		t.Fatalf("a Get made %.1f allocations; want at most %d", allocs, mostAllocs)
	}
	t.Logf("a Get made %.1f allocations", allocs)
}

// TestGetReadsItsOwnCollection reads one key in two collections of one
// schema, by two handles of one process: each handle's statements name its
// own tables (the texts each handle keeps, engine.go's sql).
func TestGetReadsItsOwnCollection(t *testing.T) { // R4, R16
	t.Parallel()
	s := newServer(t)
	a, b := open(t, s, "a", nil), open(t, s, "b", nil)
	a.mustPut(engine.Create, "k", `{"in":"a"}`, 0)
	b.mustPut(engine.Create, "k", `{"in":"b"}`, 0)
	for range 3 {
		a.live("k", `{"in":"a"}`)
		b.live("k", `{"in":"b"}`)
	}
}

// raceDetector reports whether the test binary was built with -race.
func raceDetector() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}
