package postgres

import (
	"slices"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// TestSweptDeletesInTheFeed: the sweeper's deletes are in the
// all-versions feed, flagged expired, at the sweep's second, each naming
// the version it deleted with its _ts and etag; a version a dead writer
// left without an LSN is numbered first, then swept (R5, R11).
func TestSweptDeletesInTheFeed(t *testing.T) { // R5, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	a := h.mustPut(engine.Create, "a", `{"a":1}`, 0)  // LSN 1, expires at t0+100
	b := h.mustPut(engine.Create, "b", `{"b":1}`, 10) // LSN 2, expires at t0+10
	h.e.skipPass.Store(true)                          // a writer that dies between its commit and its pass
	if _, err := h.write("c", engine.Write{Op: engine.Create, Doc: doc("c", `{"c":1}`, 5)}); err == nil {
		t.Fatal("the write without its pass returned no error")
	}
	h.e.skipPass.Store(false)
	h.clock.set(t0 + 200)
	n, err := h.e.Sweep(t.Context())
	if err != nil || n != 3 {
		t.Fatalf("Sweep = %d, %v; want 3", n, err)
	}
	all := h.readAll(oldest)
	if len(all) != 6 {
		t.Fatalf("the feed holds %d changes, want 6: %q", len(all), h.describeAll(all))
	}
	// The deletes of one sweep come in an order the rules leave open.
	var ids []string
	for i, c := range all[3:] {
		if c.LSN != uint64(4+i) || c.Op != engine.OpDelete || !c.Expired {
			t.Errorf("change %q: want LSN %d, an expired delete", h.describe(c), 4+i)
		}
		ids = append(ids, c.Doc.ID())
	}
	if slices.Sort(ids); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Errorf("the sweep deleted %q, want a, b and c", ids)
	}
	want := map[string]*engine.Doc{"a": a, "b": b}
	for _, c := range all[3:] {
		if c.TS != t0+200 {
			t.Errorf("the delete of %s at %d, want %d", c.Doc.ID(), c.TS, t0+200)
		}
		if d := want[c.Doc.ID()]; d != nil && (c.Doc.Tag != d.Tag || c.Doc.TS != d.TS) {
			t.Errorf("the delete of %s names etag %s and _ts %d, want %s and %d", c.Doc.ID(), c.Doc.ETag(), c.Doc.TS, d.ETag(), d.TS)
		}
	}
}
