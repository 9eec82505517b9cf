package postgres

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// recorder is a slog.Handler that keeps the records it is given.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// take returns the records kept since the last take, each as its level,
// message and attributes, one line.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		var b strings.Builder
		b.WriteString(rec.Level.String() + " " + rec.Message)
		rec.Attrs(func(a slog.Attr) bool {
			b.WriteString(" " + a.String())
			return true
		})
		out = append(out, b.String())
	}
	r.recs = nil
	return out
}

// wantLogged checks that got is one record of each of wants, in order,
// each containing every part of its want.
func wantLogged(t *testing.T, when string, got []string, wants ...[]string) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("%s: logged %q, want %d records", when, got, len(wants))
	}
	for i, parts := range wants {
		for _, p := range parts {
			if !strings.Contains(got[i], p) {
				t.Errorf("%s: record %q lacks %q", when, got[i], p)
			}
		}
	}
}

func TestLogsOpenAndSweepersBehind(t *testing.T) { // R17, R5
	t.Parallel()
	s := newServer(t)
	rec := &recorder{}
	h := openBackground(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100), Logger: slog.New(rec)})
	wantLogged(t, "the open that made it", rec.take(), []string{"INFO", "opened on PostgreSQL", "collection=sessions", "collection_was=made", "schema=" + s.schema, "last_lsn=0"})
	w := open(t, s, "sessions", &ttldb.Options{Logger: slog.New(rec)})
	wantLogged(t, "an open that adopted it", rec.take(), []string{"INFO", "collection_was=adopted"})

	// A document of a secret that expires at t0+50; the sweeper sees it
	// 50 s late: behind.
	w.mustPut(engine.Create, "a", `{"secret":"hunter2"}`, 50)
	h.clock.set(t0 + 100)
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	got := rec.take()
	wantLogged(t, "a round 50 s late", got, []string{"WARN", "sweepers are behind", "collection=sessions", "backlog=1", "lag=50s"})
	if h.stats().Swept != 1 {
		t.Fatalf("the round did not sweep: Swept %d", h.stats().Swept)
	}
	// Late again within the minute: the backlog is read (10 s on) but
	// not logged again.
	w.mustPut(engine.Create, "b", `{"secret":"hunter2"}`, 1)
	h.clock.set(t0 + 130)
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	wantLogged(t, "late again 30 s later", rec.take())
	// A minute on: logged again.
	w.mustPut(engine.Create, "c", `{"secret":"hunter2"}`, 1)
	h.clock.set(t0 + 200)
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	wantLogged(t, "late again 100 s later", rec.take(), []string{"WARN", "sweepers are behind", "backlog=1"})
	// Keeping up: nothing.
	w.mustPut(engine.Create, "d", `{"secret":"hunter2"}`, 1)
	h.clock.set(t0 + 290)
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	h.clock.set(t0 + 400)
	w.mustPut(engine.Create, "e", `{"secret":"hunter2"}`, 1)
	h.clock.set(t0 + 402)
	if err := h.kick(); err != nil {
		t.Fatal(err)
	}
	for _, r := range append(got, rec.take()...) {
		if strings.Contains(r, "hunter2") {
			t.Errorf("a record holds a document's content: %q", r)
		}
	}

	// With the DefaultTTL off, no sweep deletes (R5), and documents that
	// expired before stay (R7): no sweeper is behind, however old they are.
	w.mustPut(engine.Create, "f", `{}`, engine.TTLInherit)
	h.clock.set(t0 + 600)
	if err := h.e.SetDefaultTTL(t.Context(), engine.DefaultTTL{}); err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{700, 800, 900} {
		h.clock.set(t0 + at)
		if err := h.kick(); err != nil {
			t.Fatal(err)
		}
	}
	if h.stats().Expired != 1 {
		t.Fatalf("Expired %d, want the inheriting document that expired before the DefaultTTL went off", h.stats().Expired)
	}
	wantLogged(t, "rounds with the DefaultTTL off", rec.take())
}

func TestLogsFailedRounds(t *testing.T) { // R17
	t.Parallel()
	s := newServer(t)
	rec := &recorder{}
	// ManualSweep: its goroutine, which reads the gauges only when asked,
	// never calls logRound beside the test.
	h := open(t, s, "sessions", &ttldb.Options{Logger: slog.New(rec)})
	rec.take()
	ctx := t.Context()
	boom := errors.New("the server refused")
	h.e.logRound(ctx, boom)
	wantLogged(t, "a failed round", rec.take(), []string{"WARN", "background round failed", "collection=sessions", "rounds_failed=1", "the server refused"})
	h.clock.set(t0 + 30)
	h.e.logRound(ctx, boom)
	wantLogged(t, "another within the minute", rec.take())
	h.clock.set(t0 + 61)
	h.e.logRound(ctx, boom)
	wantLogged(t, "another a minute on", rec.take(), []string{"WARN", "rounds_failed=3"})
	h.e.logRound(ctx, nil)
	wantLogged(t, "a round that worked", rec.take(), []string{"INFO", "rounds work again", "rounds_failed=3"})
	h.e.logRound(ctx, nil)
	wantLogged(t, "another that worked", rec.take())
	// A round ended by Close is no failure.
	done, cancel := context.WithCancel(ctx)
	cancel()
	h.e.logRound(done, context.Canceled)
	wantLogged(t, "a round ended by Close", rec.take())
}
