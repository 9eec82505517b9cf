package postgres

import (
	"testing"
	"time"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// metricsNow asks for the gauges, as a metrics system's read does, and
// has the background goroutine read them (a round serves the ask first),
// then returns what Metrics answers.
func (h *handle) metricsNow() engine.Metrics {
	h.t.Helper()
	h.e.gauges.Store(nil) // as never read: Metrics asks
	_ = h.e.Metrics()
	if err := h.kick(); err != nil {
		h.t.Fatalf("a round: %v", err)
	}
	if h.e.gauges.Load() == nil {
		h.t.Fatal("a round after Metrics asked read no gauges")
	}
	return h.e.Metrics()
}

func TestMetricsGauges(t *testing.T) { // R17, R4, R5, R7
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	if m := h.e.Metrics(); m != (engine.Metrics{}) {
		t.Fatalf("Metrics right after Open = %+v, want zero gauges (none read yet)", m)
	}
	bodies := map[string]string{"forever": `{"n":1}`, "forever2": `{"n":22}`, "inherits": `{"n":333}`, "inherits2": `{}`, "own": `{"s":"own"}`}
	ttls := map[string]int32{"forever": engine.TTLNever, "forever2": engine.TTLNever, "inherits": engine.TTLInherit, "inherits2": engine.TTLInherit, "own": 50}
	var size int64
	for _, id := range []string{"forever", "forever2", "inherits", "inherits2", "own"} {
		h.mustPut(engine.Create, id, bodies[id], ttls[id])
		size += int64(len(bodies[id]))
	}
	want := engine.Metrics{Documents: 5, Bytes: size, LastLSN: 5, FeedOldest: 1}
	if m := h.metricsNow(); m != want {
		t.Errorf("Metrics of 5 live documents = %+v, want %+v", m, want)
	}

	// The own ttl expired at t0+50: in the backlog, no more live, still held.
	h.clock.set(t0 + 60)
	want = engine.Metrics{Backlog: 1, OldestDue: t0 + 50, Documents: 4, Bytes: size, LastLSN: 5, FeedOldest: 1}
	if m := h.metricsNow(); m != want {
		t.Errorf("Metrics with one expired = %+v, want %+v", m, want)
	}
	// The backlog alone (the sweepers' check, logs.go) counts no documents,
	// and says so: none, not the live ones less the backlog.
	if g, _, err := h.e.readBacklog(t.Context(), false); err != nil || g.backlog != 1 || g.documents != 0 || g.bytes != 0 {
		t.Errorf("readBacklog without the documents = %+v, %v; want a backlog of 1 and no documents", g, err)
	}

	// The inheriting ones expired at t0+100 under DefaultTTL 100; a longer
	// DefaultTTL set afterwards leaves them expired then (R7's cut), and
	// the oldest of the backlog is still the own ttl's.
	h.clock.set(t0 + 150)
	if err := h.e.SetDefaultTTL(t.Context(), engine.DefaultTTL{On: true, Seconds: 1000}); err != nil {
		t.Fatal(err)
	}
	want = engine.Metrics{Backlog: 3, OldestDue: t0 + 50, Documents: 2, Bytes: size, LastLSN: 5, FeedOldest: 1}
	if m := h.metricsNow(); m != want {
		t.Errorf("Metrics with three expired = %+v, want %+v", m, want)
	}
	// Swept: the oldest of an own ttl gone, the backlog's oldest is the
	// inheriting ones' expiry by the cut's setting (100), not the current
	// one's (1000).
	k, _ := key("own")
	if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); err == nil {
		t.Fatal("a delete of an expired document succeeded (R4)")
	}
	if _, err := s.pool().Exec(t.Context(), `DELETE FROM `+s.ident()+`.ttldb_docs_1 WHERE ttl = 50`); err != nil {
		t.Fatal(err)
	}
	size -= int64(len(bodies["own"]))
	want = engine.Metrics{Backlog: 2, OldestDue: t0 + 100, Documents: 2, Bytes: size, LastLSN: 5, FeedOldest: 1}
	if m := h.metricsNow(); m != want {
		t.Errorf("Metrics with two inheriting expired under a cut = %+v, want %+v", m, want)
	}

	// A sweep: the backlog empty, the handle's counter up, two deletes in
	// the feed.
	if n, err := h.e.Sweep(t.Context()); err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2", n, err)
	}
	size -= int64(len(bodies["inherits"]) + len(bodies["inherits2"]))
	want = engine.Metrics{Swept: 2, Documents: 2, Bytes: size, LastLSN: 7, FeedOldest: 1}
	if m := h.metricsNow(); m != want {
		t.Errorf("Metrics after the sweep = %+v, want %+v", m, want)
	}

	// Through the API: the engine's figures beside the API's counters.
	c, err := ttldb.FromEngine(h.e)
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Metrics(); m.Swept != 2 || m.Documents != 2 || m.Bytes != size || m.LastLSN != 7 || m.FeedOldest != 1 {
		t.Errorf("Collection.Metrics = %+v, want the engine's Swept 2, Documents 2, Bytes %d, LastLSN 7, FeedOldest 1", m, size)
	}

	// After Close: the counter as it stood, the gauges zero.
	if err := h.e.Close(); err != nil {
		t.Fatal(err)
	}
	if m := h.e.Metrics(); m != (engine.Metrics{Swept: 2}) {
		t.Errorf("Metrics after Close = %+v, want Swept 2 alone", m)
	}
}

func TestMetricsCostNothingUnread(t *testing.T) { // R17
	t.Parallel()
	s := newServer(t)
	h := openBackground(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	h.mustPut(engine.Create, "a", `{}`, engine.TTLNever)
	// Rounds that nobody's Metrics asked for read no gauges.
	for range 3 {
		if err := h.kick(); err != nil {
			t.Fatal(err)
		}
	}
	if h.e.gauges.Load() != nil {
		t.Fatal("the background goroutine read the gauges that no Metrics asked for")
	}
	// A read asks once; gauges younger than gaugesMaxAge ask nothing more.
	_ = h.e.Metrics()
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	g := h.e.gauges.Load()
	if g == nil || g.documents != 1 {
		t.Fatalf("gauges after an ask and a round: %+v, want 1 document", g)
	}
	// (The goroutine serves an ask as soon as it is made, or at the next
	// round: the gauges' pointer says whether they were read again.)
	_ = h.e.Metrics()
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	if h.e.gauges.Load() != g {
		t.Error("Metrics asked for gauges read just now")
	}
	// Gauges gaugesMaxAge old are asked for again.
	old := *g
	old.at = time.Now().Add(-gaugesMaxAge)
	h.e.gauges.Store(&old)
	_ = h.e.Metrics()
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	if h.e.gauges.Load() == &old {
		t.Error("Metrics did not ask for gauges gaugesMaxAge old")
	}
}

func TestMetricsFeedOff(t *testing.T) { // R17, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Feed: ttldb.FeedOptions{Off: true}})
	h.mustPut(engine.Create, "a", `{}`, engine.TTLNever)
	k, _ := key("a")
	if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); err != nil {
		t.Fatal(err)
	}
	// The delete's record is kept a while (offGrace), but there is no feed.
	if m := h.metricsNow(); m.FeedOldest != 0 || m.LastLSN != 2 {
		t.Errorf("Metrics with the feed off = %+v, want FeedOldest 0 (no feed), LastLSN 2", m)
	}
}
