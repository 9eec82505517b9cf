package postgres

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// The engine's failures (DESIGN.md, "Failures"): connections the server
// ends under the handle, between calls and in the middle of them. The
// server restarts and crashes are in crash_test.go, the timeouts in
// timeout_test.go.

// openApp is open on a pool whose connections carry the application_name
// app, so that the test finds them on the server (terminate), and the
// run-time parameters params (pairs of a name and a value).
func openApp(t *testing.T, s *server, app, name string, opts *ttldb.Options, params ...string) *handle {
	t.Helper()
	var o ttldb.Options
	if opts != nil {
		o = *opts
	}
	h := &handle{t: t, clock: &testClock{}}
	h.clock.set(t0)
	if o.Now == nil {
		o.Now = h.clock.Now
	}
	e, err := Open(t.Context(), s.pool(append([]string{"application_name", app}, params...)...), name, "/tenant", &o)
	if err != nil {
		t.Fatalf("Open(%q): %v", name, err)
	}
	t.Cleanup(func() { _ = e.Close() })
	h.e = e
	return h
}

// terminate ends every server process of the connections named app, as
// a restart or a failover ends them, and returns how many it ended.
func (s *server) terminate(app string) int64 {
	s.t.Helper()
	return s.count(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app)
}

// wantClear checks that err, the failure of what, names the collection:
// a message a person can act on, never a bare driver's error.
func wantClear(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), `collection "`) {
		t.Errorf("%s: %v; want an error naming the collection", what, err)
	}
}

// everyCall runs each kind of call of h once, with the key id, each after
// before (when not nil), and returns the first error, naming the call.
func everyCall(h *handle, id string, before func()) error {
	ctx := h.t.Context()
	k, _ := key(id)
	calls := []struct {
		name string
		f    func() error
	}{
		{"Upsert", func() error { _, err := h.put(engine.Upsert, id, `{"n":1}`, 0); return err }},
		{"Get", func() error { _, err := h.e.Get(ctx, k); return err }},
		{"Batch", func() error {
			_, err := h.batch(put(engine.Upsert, id, `{"n":2}`, 0), put(engine.Upsert, id+"b", `{}`, 0))
			return err
		}},
		{"Patch", func() error {
			_, err := h.write(id, engine.Write{Op: engine.Modify, Change: func(old *engine.Doc, _ int64) (*engine.Doc, error) {
				return doc(id, `{"n":3}`, 0), nil
			}})
			return err
		}},
		{"ReadFeed", func() error {
			_, err := h.e.ReadFeed(ctx, engine.FeedRead{From: engine.FromOldest, Limit: 10}, nil)
			return err
		}},
		{"FeedStats", func() error { _, err := h.e.FeedStats(ctx); return err }},
		{"Stats", func() error { _, err := h.e.Stats(ctx); return err }},
		{"Sweep", func() error { _, err := h.e.Sweep(ctx); return err }},
		{"Snapshot", func() error {
			s, err := h.e.Snapshot(ctx, nil, true)
			if err != nil {
				return err
			}
			defer s.Release()
			return s.Scan(ctx, "", "", false, func(*engine.Doc) bool { return true })
		}},
		{"SetDefaultTTL", func() error { return h.e.SetDefaultTTL(ctx, engine.DefaultTTL{On: true, Seconds: 1000}) }},
		{"Delete", func() error { _, err := h.write(id+"b", engine.Write{Op: engine.Delete}); return err }},
	}
	for _, c := range calls {
		if before != nil {
			before()
		}
		if err := c.f(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
	}
	return nil
}

func TestLostConnectionsBetweenCalls(t *testing.T) { // R16, R11
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "between", "sessions", &ttldb.Options{ManualSweep: true})
	// Before each call, the server ends every connection of the handle's
	// pool, the listener's too: each call succeeds, on a new connection,
	// without a reopen.
	for i := range 3 {
		if err := everyCall(h, fmt.Sprint("a", i), nil); err != nil {
			t.Fatalf("round %d, before any connection was ended: %v", i, err)
		}
		if n := s.terminate("between"); n < 1 {
			t.Fatalf("round %d: %d connections ended, want 1 at least", i, n)
		}
	}
	s.wantFeedNumbered()
	for i := range 3 {
		h.live(fmt.Sprint("a", i), `{"n":3}`)
	}
}

func TestLostConnectionBeforeEachCall(t *testing.T) { // R16, R11
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "each", "sessions", &ttldb.Options{ManualSweep: true})
	h.mustPut(engine.Create, "a", `{}`, 0)
	// The pool holds several connections, and the server ends them all
	// before every call.
	for i := range 3 {
		if err := everyCall(h, "a", func() { s.terminate("each") }); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
	s.wantFeedNumbered()
}

func TestLostConnectionBetweenCommitAndPass(t *testing.T) { // R11, R16
	t.Parallel()
	s := newServer(t)
	writer := openApp(t, s, "dies", "sessions", &ttldb.Options{ManualSweep: true})
	reader := open(t, s, "sessions", nil)
	a := writer.mustPut(engine.Create, "a", `{"v":1}`, 0)
	// The writer commits and its process dies before the pass.
	writer.e.skipPass.Store(true)
	if _, err := writer.put(engine.Replace, "a", `{"v":2}`, 0); !errors.Is(err, errSkipped) {
		t.Fatalf("the write that skips its pass: %v", err)
	}
	writer.e.skipPass.Store(false)
	s.terminate("dies")
	// Committed, so it is there: the reader's Get numbers it, after a.
	d := reader.live("a", `{"v":2}`)
	if reader.lsn(d) != writer.lsn(a)+1 {
		t.Errorf("the committed write's LSN is %d, want %d", reader.lsn(d), writer.lsn(a)+1)
	}
	// And the writer's handle goes on.
	writer.mustPut(engine.Replace, "a", `{"v":3}`, 0)
	s.wantFeedNumbered()
	reader.wantChanges("the feed", reader.readAll(engine.FeedRead{From: engine.FromOldest, Limit: 10}),
		`1 create a {"v":1}`, `2 replace a {"v":2}`, `3 replace a {"v":3}`)
}

func TestLostConnectionUnderACursor(t *testing.T) { // R13, R16
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "cursor", "sessions", &ttldb.Options{ManualSweep: true})
	docs := make([]engine.Step, 100)
	for j := range 5 {
		for i := range docs {
			docs[i] = put(engine.Create, fmt.Sprintf("d%03d", j*100+i), `{}`, 0)
		}
		if _, err := h.batch(docs...); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := h.e.Snapshot(t.Context(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	// The server ends the snapshot's connection after its first page: the
	// scan stops with an error, not a panic, and later reads of the
	// snapshot fail alike.
	n := 0
	err = snap.Scan(t.Context(), "", "", false, func(*engine.Doc) bool {
		if n++; n == 1 {
			s.terminate("cursor")
		}
		return true
	})
	if n != pageSize || err == nil {
		t.Errorf("a scan whose connection was ended after its first page read %d documents, %v; want %d and an error", n, err, pageSize)
	}
	wantClear(t, "the scan", err)
	if err := snap.Scan(t.Context(), "", "", false, func(*engine.Doc) bool { return true }); err == nil {
		t.Error("a second scan of the snapshot whose connection is gone: no error")
	}
	snap.Release()
	snap.Release()
	// A new snapshot reads them all.
	if err := everyCall(h, "a", nil); err != nil {
		t.Fatal(err)
	}
	snap, err = h.e.Snapshot(t.Context(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Release()
	n = 0
	err = snap.Scan(t.Context(), "", "", false, func(d *engine.Doc) bool {
		if strings.HasPrefix(d.ID(), "d") {
			n++
		}
		return true
	})
	if err != nil || n != 500 {
		t.Errorf("a new snapshot's scan: %d documents, %v; want 500", n, err)
	}
}

func TestLostConnectionUnderASweepBatch(t *testing.T) { // R5, R11, R16
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "sweeper", "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100), ManualSweep: true, SweepBatch: 5})
	h.fill("x", 12)
	h.clock.set(t0 + 200)
	// The batch has deleted its rows and waits for its commit when the
	// server ends its connection: nothing was deleted, and Sweep says
	// it cannot tell.
	held, release := h.hold()
	var n int
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err = h.e.Sweep(t.Context())
	}()
	<-held
	s.terminate("sweeper")
	release()
	<-done
	if n != 0 || err == nil || !strings.Contains(err.Error(), "may have committed or not") {
		t.Errorf("the sweep whose batch lost its connection before its commit = %d, %v; want 0 and an error saying its outcome is unknown", n, err)
	}
	if st := h.stats(); st.Expired != 12 {
		t.Errorf("after the lost batch, %d documents expired and present, want 12", st.Expired)
	}
	// The next sweep deletes each of them, once.
	if got := h.sweep(); got != 12 {
		t.Errorf("the next sweep deleted %d, want 12", got)
	}
	if records, keys := s.expiredRecords(); records != 12 || keys != 12 {
		t.Errorf("%d expired records of %d keys, want 12 of 12", records, keys)
	}
	s.wantFeedNumbered()
}

func TestBackgroundRoundAfterALostConnection(t *testing.T) { // R5, R16
	t.Parallel()
	s := newServer(t)
	var clock testClock
	clock.set(t0)
	h := openApp(t, s, "background", "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100), Now: clock.Now})
	h.clock = &clock
	h.fill("x", 4)
	clock.set(t0 + 200)
	s.terminate("background")
	reply := make(chan error)
	h.e.bg.kick <- reply
	if err := <-reply; err != nil {
		t.Fatalf("the background's round after its connections were ended: %v", err)
	}
	if st := h.stats(); st.Expired != 0 || st.Swept != 4 {
		t.Errorf("after the round: %+v; want 4 swept, none expired", st)
	}
}

func TestWritersWhileConnectionsAreLost(t *testing.T) { // R11, R12, R16
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "writers", "sessions", &ttldb.Options{ManualSweep: true})
	const writers, writes = 4, 60
	type ack struct {
		lsn  uint64
		body string
	}
	var mu sync.Mutex
	var acked []ack
	var failed []error
	progress := make(chan struct{}, writers*writes)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				id := fmt.Sprint("w", w)
				body := fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)
				var d *engine.Doc
				var err error
				if i%5 == 4 {
					var ds []*engine.Doc
					ds, err = h.batch(put(engine.Upsert, id, body, 0))
					if err == nil {
						d = ds[0]
					}
				} else {
					d, err = h.put(engine.Upsert, id, body, 0)
				}
				mu.Lock()
				if err == nil {
					acked = append(acked, ack{h.lsn(d), body})
				} else {
					failed = append(failed, err)
				}
				mu.Unlock()
				progress <- struct{}{}
			}
		}()
	}
	// Every tenth call, the server ends all the pool's connections.
	for i := range writers * writes {
		<-progress
		if i%10 == 0 {
			s.terminate("writers")
		}
	}
	wg.Wait()
	// Each write succeeds: one whose connection was lost before its
	// COMMIT starts again, and one whose COMMIT's answer was lost asks the
	// server what became of it (failure.go).
	for _, err := range failed {
		t.Errorf("a write failed: %v", err)
	}
	// Every acknowledged write is in the feed at its LSN, with its body;
	// the feed has no gap and no LSN twice.
	if _, err := h.e.Sweep(t.Context()); err != nil { // numbers what waits
		t.Fatal(err)
	}
	s.wantFeedNumbered()
	feed := make(map[uint64]string)
	for _, c := range h.readAll(engine.FeedRead{From: engine.FromOldest, Limit: 100}) {
		if _, dup := feed[c.LSN]; dup {
			t.Errorf("LSN %d twice in the feed", c.LSN)
		}
		feed[c.LSN] = c.Doc.Body()
	}
	for _, a := range acked {
		if feed[a.lsn] != a.body {
			t.Errorf("the acknowledged write %s at LSN %d: the feed holds %q there", a.body, a.lsn, feed[a.lsn])
		}
	}
	if len(feed) != len(acked) {
		t.Errorf("%d changes in the feed, %d writes acknowledged", len(feed), len(acked))
	}
}

func TestFeedChangedAfterTheListenerIsEnded(t *testing.T) { // R11, R16
	t.Parallel()
	s := newServer(t)
	writer := open(t, s, "sessions", nil)
	watcher := openApp(t, s, "listener", "sessions", nil)
	watcher.e.watch.noPoll.Store(true) // only a NOTIFY, or the reconnect, wakes it
	waitClosed(t, "the listener's start", watcher.e.watch.listening)
	var end uint64
	for i := range 3 {
		// The server ends the listener's connection, and a write commits
		// while it may not listen: the watcher is woken, and reads it.
		ch := watcher.e.FeedChanged()
		pid := watcher.e.watch.pid.Load()
		s.terminate("listener")
		writer.mustPut(engine.Upsert, "a", fmt.Sprintf(`{"i":%d}`, i), 0)
		waitClosed(t, fmt.Sprint("round ", i), ch)
		// Whatever woke it (the reconnect, or the write's NOTIFY), the
		// write is readable: it returned before.
		p := watcher.read(engine.FeedRead{After: end, Limit: 10})
		if len(p.Changes) != 1 || p.End != end+1 {
			t.Fatalf("round %d: %d changes to %d, want 1 to %d", i, len(p.Changes), p.End, end+1)
		}
		end = p.End
		// It listens again, on a new connection, and a NOTIFY wakes it.
		for watcher.e.watch.pid.Load() == pid {
			ch = watcher.e.FeedChanged()
			if watcher.e.watch.pid.Load() != pid {
				break
			}
			waitClosed(t, "the listener's reconnect", ch)
		}
		ch = watcher.e.FeedChanged()
		writer.mustPut(engine.Upsert, "b", fmt.Sprintf(`{"i":%d}`, i), 0)
		waitClosed(t, fmt.Sprint("round ", i, ", a write once it listens again"), ch)
		end = watcher.read(engine.FeedRead{After: end, Limit: 10}).End
	}
}
