package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// bound is the longest a test waits for a call that must not block: a
// bound on a failure, never a sleep.
const bound = 20 * time.Second

// hold makes h's next sweep batch stop before its commit, its rows
// deleted and locked: held is closed then, and the batch commits once
// release is called.
func (h *handle) hold() (held <-chan struct{}, release func()) {
	in, out := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f := func() {
		once.Do(func() {
			close(in)
			<-out
		})
	}
	h.e.sweepHold.Store(&f)
	var rel sync.Once
	return in, func() { rel.Do(func() { close(out) }) }
}

// sweep runs Sweep, failing the test on an error.
func (h *handle) sweep() int {
	h.t.Helper()
	n, err := h.e.Sweep(h.t.Context())
	if err != nil {
		h.t.Fatalf("Sweep: %v", err)
	}
	return n
}

// stats returns Stats, failing the test on an error.
func (h *handle) stats() engine.Stats {
	h.t.Helper()
	st, err := h.e.Stats(h.t.Context())
	if err != nil {
		h.t.Fatalf("Stats: %v", err)
	}
	return st
}

// expiredRecords returns the number of the feed's records flagged expired,
// and of the keys they name.
func (s *server) expiredRecords() (records, keys int64) {
	feed := s.ident() + ".ttldb_feed_1"
	return s.count(`SELECT count(*) FROM ` + feed + ` WHERE expired`),
		s.count(`SELECT count(DISTINCT key) FROM ` + feed + ` WHERE expired AND op = 3`)
}

// wantFeedNumbered checks that every feed record has an LSN, without gaps.
func (s *server) wantFeedNumbered() {
	s.t.Helper()
	feed := s.ident() + ".ttldb_feed_1"
	if n := s.count(`SELECT count(*) FROM ` + feed + ` WHERE lsn IS NULL`); n != 0 {
		s.t.Errorf("%d feed records without an LSN", n)
	}
	if n := s.count(`SELECT coalesce(max(lsn) - min(lsn) + 1 - count(*), 0) FROM ` + feed); n != 0 {
		s.t.Errorf("the feed's LSNs have %d gaps", n)
	}
}

// fill writes n documents that expire, named prefix0..., at h's clock:
// the even ones with a ttl of 10 s, the odd ones inheriting.
func (h *handle) fill(prefix string, n int) {
	h.t.Helper()
	for i := range n {
		ttl := int32(10)
		if i%2 == 1 {
			ttl = engine.TTLInherit
		}
		h.mustPut(engine.Create, fmt.Sprint(prefix, i), `{"i":1}`, ttl)
	}
}

func TestSweepDeletesEachExpiredDocumentOnce(t *testing.T) { // R5, R11
	t.Parallel()
	s := newServer(t)
	// Two handles on two pools: two processes sweeping one collection.
	a := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100), SweepBatch: 5})
	b := open(t, s, "sessions", &ttldb.Options{SweepBatch: 5})
	a.fill("x", 40)
	a.mustPut(engine.Create, "never", `{}`, engine.TTLNever)
	a.mustPut(engine.Create, "long", `{}`, 1000)
	a.clock.set(t0 + 200)
	b.clock.set(t0 + 200)

	// a's first batch holds its 5 rows; b sweeps all the others, skipping
	// them, and a deletes its 5 when it commits.
	held, release := a.hold()
	var an int
	var aerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		an, aerr = a.e.Sweep(t.Context())
	}()
	<-held
	ctx, cancel := context.WithTimeout(t.Context(), bound) // b must not wait for a
	defer cancel()
	if n, err := b.e.Sweep(ctx); n != 35 || err != nil {
		release()
		t.Fatalf("b's Sweep while a holds a batch of 5 = %d, %v; want 35", n, err)
	}
	release()
	<-done
	if aerr != nil || an != 5 {
		t.Errorf("a's Sweep = %d, %v; want its batch of 5", an, aerr)
	}
	if r, k := s.expiredRecords(); r != 40 || k != 40 {
		t.Errorf("%d expired records of %d keys, want 40 of 40: one per document", r, k)
	}
	if st, bt := a.stats(), b.stats(); st.Swept != 5 || bt.Swept != 35 || st.Live != 2 || st.Expired != 0 {
		t.Errorf("Stats: a %+v, b %+v; want Swept 5 and 35 by each handle, Live 2, Expired 0", st, bt)
	}

	// Four sweeps at once, two per process, on a backlog of 60.
	a.fill("y", 60)
	a.clock.set(t0 + 400)
	b.clock.set(t0 + 400)
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for i := range 4 {
		h := []*handle{a, b}[i%2]
		wg.Go(func() {
			n, err := h.e.Sweep(t.Context())
			if err != nil {
				t.Errorf("Sweep: %v", err)
			}
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != 60 {
		t.Errorf("four concurrent sweeps deleted %d in all, want 60", total)
	}
	if r, k := s.expiredRecords(); r != 100 || k != 100 {
		t.Errorf("%d expired records of %d keys, want 100 of 100: one per document", r, k)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_docs_1`); n != 2 {
		t.Errorf("%d documents left, want the 2 live ones", n)
	}
	s.wantFeedNumbered()
	a.live("never", `{}`)
	a.live("long", `{}`)
}

func TestWritersProceedWhileASweepBatchIsHeld(t *testing.T) { // R5
	t.Parallel()
	s := newServer(t)
	a := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	b := open(t, s, "sessions", nil)
	a.mustPut(engine.Create, "old", `{"v":1}`, engine.TTLInherit)
	a.mustPut(engine.Create, "live", `{"v":1}`, engine.TTLNever)
	a.clock.set(t0 + 200)
	b.clock.set(t0 + 200)

	held, release := a.hold()
	defer release()
	var an int
	var aerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		an, aerr = a.e.Sweep(t.Context())
	}()
	<-held
	// While the batch holds "old" (and has not committed), another
	// process writes, reads, counts and changes the setting. A call the
	// batch blocked would fail the test at the bound (a write's pass does
	// not heed its ctx, so the bound is a timer's).
	calls := make(chan error, 1)
	go func() { calls <- otherCalls(t.Context(), b.e) }()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case err := <-calls:
		if err != nil {
			t.Fatal(err)
		}
	case <-timer.C:
		release()
		t.Fatalf("calls of another process were blocked for %v by a held sweep batch", bound)
	}
	// A write of the document the batch holds waits for its commit, and
	// then finds it gone: its delete is recorded once, by the sweep.
	wrote := make(chan error, 1)
	go func() {
		_, err := b.put(engine.Upsert, "old", `{"v":2}`, 0)
		wrote <- err
	}()
	release()
	<-done
	if aerr != nil || an != 1 {
		t.Errorf("the held Sweep = %d, %v; want 1", an, aerr)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("an Upsert of the swept document: %v", err)
	}
	if r, _ := s.expiredRecords(); r != 1 {
		t.Errorf("%d expired records, want 1: the sweep's", r)
	}
	b.live("old", `{"v":2}`)
	s.wantFeedNumbered()
}

// otherCalls are the calls that must not wait for a sweep batch: writes
// and reads of live documents, Stats, SetDefaultTTL.
func otherCalls(ctx context.Context, e *Engine) error {
	k, at := key("live")
	if _, err := e.Write(ctx, k, engine.Write{Op: engine.Upsert, Doc: engine.NewDoc(k, at, `{"v":2}`, engine.TTLNever, 0, 0)}); err != nil {
		return fmt.Errorf("an Upsert of a live key while a sweep batch is held: %w", err)
	}
	k, at = key("new")
	if _, err := e.Write(ctx, k, engine.Write{Op: engine.Create, Doc: engine.NewDoc(k, at, `{}`, 0, 0, 0)}); err != nil {
		return fmt.Errorf("a Create while a sweep batch is held: %w", err)
	}
	if d, err := e.Get(ctx, mustKeyBytes("live")); err != nil || d.Body() != `{"v":2}` {
		return fmt.Errorf("get while a sweep batch is held = %v, %w", d, err)
	}
	if st, err := e.Stats(ctx); err != nil || st.Live != 2 || st.Expired != 1 {
		return fmt.Errorf("stats while a sweep batch is held = %+v, %v; want Live 2, Expired 1 (the delete is not committed)", st, err)
	}
	if err := e.SetDefaultTTL(ctx, engine.DefaultTTL{On: true, Seconds: 150}); err != nil {
		return fmt.Errorf("SetDefaultTTL while a sweep batch is held: %w", err)
	}
	return nil
}

// mustKeyBytes returns the key of the document id.
func mustKeyBytes(id string) []byte {
	k, _ := key(id)
	return k
}

func TestSweepRespectsTheCutOffs(t *testing.T) { // R7, R5
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	h.mustPut(engine.Create, "a", `{}`, engine.TTLInherit) // expires at t0+10 under 10
	h.mustPut(engine.Create, "c", `{}`, 5)                 // at t0+5
	h.mustPut(engine.Create, "d", `{}`, 50)                // at t0+50
	h.clock.set(t0 + 15)
	h.mustPut(engine.Create, "b", `{}`, engine.TTLInherit) // at t0+25 under 10
	// Raised to 1000 at t0+20: a and c expired under 10 and stay expired;
	// b, live then, lives on under 1000.
	h.clock.set(t0 + 20)
	h.set(engine.DefaultTTL{On: true, Seconds: 1000})
	h.clock.set(t0 + 30)
	if n := h.sweep(); n != 2 {
		t.Errorf("Sweep after a raise deleted %d, want 2 (a and c)", n)
	}
	h.live("b", `{}`)
	h.live("d", `{}`)
	feed := s.ident() + ".ttldb_feed_1"
	if n := s.count(`SELECT count(*) FROM `+feed+` WHERE expired AND key IN ($1, $2)`, mustKeyBytes("a"), mustKeyBytes("c")); n != 2 {
		t.Errorf("%d expired records of a and c, want 2", n)
	}
	// e expires at t0+35; off at t0+40 keeps it expired, but a sweep
	// deletes nothing while TTL is off (R5); on again, it does.
	h.mustPut(engine.Create, "e", `{}`, 5)
	h.clock.set(t0 + 40)
	h.set(engine.DefaultTTL{})
	h.clock.set(t0 + 100)
	if n := h.sweep(); n != 0 {
		t.Errorf("Sweep with TTL off deleted %d, want 0", n)
	}
	if st := h.stats(); st.Expired != 1 || st.Live != 2 {
		t.Errorf("Stats with TTL off = %+v; want Expired 1 (e), Live 2 (b, d)", st)
	}
	h.gone("e")
	// On again, with no default, at t0+100: e is swept, and d, whose own
	// ttl ran out at t0+50, is expired again (R3); b never expires.
	h.set(engine.DefaultTTL{On: true, Seconds: -1})
	if n := h.sweep(); n != 2 {
		t.Errorf("Sweep under -1 deleted %d, want 2 (d and e)", n)
	}
	h.live("b", `{}`)
	h.gone("d")
	s.wantFeedNumbered()
}

func TestStatsAgreeWithGet(t *testing.T) { // R4, R5
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	other := open(t, s, "sessions", nil)
	dead := open(t, s, "sessions", nil)
	ids := []string{"a", "b", "c", "d", "e", "f"}
	h.mustPut(engine.Create, "a", `{}`, engine.TTLInherit)
	h.mustPut(engine.Create, "b", `{}`, 10)
	h.mustPut(engine.Create, "c", `{}`, engine.TTLNever)
	h.mustPut(engine.Create, "d", `{}`, 1000)
	h.clock.set(t0 + 150)
	h.mustPut(engine.Create, "e", `{}`, engine.TTLInherit)
	dead.e.skipPass.Store(true) // f: committed, not yet numbered, live
	if _, err := dead.put(engine.Create, "f", `{}`, 0); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	h.clock.set(t0 + 200)
	other.clock.set(t0 + 200)
	st := h.stats()
	live := 0
	for _, id := range ids {
		if _, err := h.get(id); err == nil {
			live++
		} else if !errors.Is(err, engine.ErrNotFound) {
			t.Fatal(err)
		}
	}
	if st.Live != live || st.Live != 4 || st.Expired != 2 || st.Swept != 0 || st.LastSweep != 0 {
		t.Errorf("Stats = %+v, Get finds %d live; want Live 4, Expired 2, nothing swept", st, live)
	}
	if n := h.sweep(); n != 2 {
		t.Errorf("Sweep deleted %d, want 2", n)
	}
	st = h.stats()
	if st.Live != 4 || st.Expired != 0 || st.Swept != 2 || st.LastSweep <= 0 {
		t.Errorf("Stats after Sweep = %+v; want Live 4, Expired 0, Swept 2, a LastSweep", st)
	}
	if ot := other.stats(); ot.Live != 4 || ot.Expired != 0 || ot.Swept != 0 {
		t.Errorf("another handle's Stats = %+v; want Live 4, Expired 0, Swept 0 (Swept is each handle's)", ot)
	}
}

func TestSweepStopsWithItsContext(t *testing.T) { // R5, R16
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100), SweepBatch: 3})
	h.fill("x", 10)
	h.clock.set(t0 + 200)
	ctx, cancel := context.WithCancel(t.Context())
	f := func() { cancel() } // ends ctx in the first batch, before its commit
	h.e.sweepHold.Store(&f)
	n, err := h.e.Sweep(ctx)
	if n != 3 || !errors.Is(err, context.Canceled) {
		t.Errorf("Sweep whose ctx ends in its first batch = %d, %v; want that batch of 3 and context.Canceled", n, err)
	}
	h.e.sweepHold.Store(nil)
	if n := h.sweep(); n != 7 {
		t.Errorf("the next Sweep deleted %d, want the 7 left", n)
	}
	if r, k := s.expiredRecords(); r != 10 || k != 10 {
		t.Errorf("%d expired records of %d keys, want 10 of 10", r, k)
	}
	s.wantFeedNumbered()
	//lint:ignore SA1012 a nil context is what is tested
	if _, err := h.e.Sweep(nil); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Sweep(nil) = %v, want ErrInvalidOption", err)
	}
	_ = h.e.Close()
	if _, err := h.e.Sweep(t.Context()); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Sweep after Close = %v, want ErrClosed", err)
	}
	if _, err := h.e.Stats(t.Context()); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Stats after Close = %v, want ErrClosed", err)
	}
}

// openBackground is open with the background goroutine running.
func openBackground(t *testing.T, s *server, name string, opts *ttldb.Options) *handle {
	t.Helper()
	var o ttldb.Options
	if opts != nil {
		o = *opts
	}
	h := &handle{t: t, clock: &testClock{}}
	h.clock.set(t0)
	o.Now = h.clock.Now
	h.e = mustOpen(t, s, name, "/tenant", &o)
	if h.e.bg == nil {
		t.Fatal("Open without ManualSweep started no background goroutine")
	}
	return h
}

// errStopped is what kick returns when the background goroutine has
// returned.
var errStopped = errors.New("the background goroutine has stopped")

// kick runs a round of the background goroutine now, and returns its
// error: the hook that spares the tests a wait for its ticker.
func (h *handle) kick() error {
	reply := make(chan error, 1)
	select {
	case h.e.bg.kick <- reply:
		return <-reply
	case <-h.e.bg.done:
		return errStopped
	}
}

func TestBackgroundNumbersAndSweepsAndStopsAtClose(t *testing.T) { // R5, R11, R15
	t.Parallel()
	s := newServer(t)
	h := openBackground(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	dead := open(t, s, "sessions", nil)
	feed := s.ident() + ".ttldb_feed_1"
	// A writer that died between its commit and its pass, whose version
	// no reader meets: a round numbers it.
	dead.e.skipPass.Store(true)
	if _, err := dead.put(engine.Create, "a", `{}`, engine.TTLNever); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	if n := s.count(`SELECT count(*) FROM ` + feed + ` WHERE lsn IS NULL`); n != 1 {
		t.Fatalf("%d records without an LSN, want the dead writer's 1", n)
	}
	if err := h.kick(); err != nil {
		t.Fatalf("a background round: %v", err)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_docs_1 WHERE lsn IS NULL`); n != 0 {
		t.Errorf("%d documents without an LSN after a background round", n)
	}
	s.wantFeedNumbered()

	// A round sweeps.
	dead.e.skipPass.Store(false)
	dead.mustPut(engine.Create, "old", `{}`, engine.TTLInherit)
	h.clock.set(t0 + 200)
	if err := h.kick(); err != nil {
		t.Fatalf("a background round: %v", err)
	}
	if r, _ := s.expiredRecords(); r != 1 || h.stats().Swept != 1 {
		t.Errorf("after a background round over one expired document: %d expired records, Swept %d; want 1, 1", r, h.stats().Swept)
	}
	s.wantFeedNumbered()

	// Close stops the goroutine and waits for it.
	if err := h.e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.e.bg.done:
	default:
		t.Fatal("the background goroutine runs on after Close returned")
	}
	if err := h.kick(); !errors.Is(err, errStopped) {
		t.Errorf("a round after Close: %v, want none", err)
	}
	if err := h.e.Close(); err != nil { // idempotent
		t.Errorf("a second Close: %v", err)
	}
	// With ManualSweep, the goroutine only reads the gauges (metrics.go):
	// a round sweeps nothing.
	m := open(t, s, "sessions", nil)
	m.mustPut(engine.Create, "old2", `{}`, engine.TTLInherit)
	m.clock.set(t0 + 400)
	if err := m.kick(); err != nil {
		t.Fatalf("a round with ManualSweep: %v", err)
	}
	if r, _ := s.expiredRecords(); r != 1 || m.stats().Swept != 0 || m.stats().Expired != 1 {
		t.Errorf("a round with ManualSweep: %d expired records, Swept %d, Expired %d; want 1, 0, 1 (no sweep)", r, m.stats().Swept, m.stats().Expired)
	}
}
