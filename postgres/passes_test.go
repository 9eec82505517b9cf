package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// heldPass makes the next pass of h wait, once started, until release is
// closed, and counts the calls that register for a pass: held receives
// when the pass is held, registered once per call.
func heldPass(h *handle) (held, registered <-chan struct{}, release chan struct{}) {
	hc, rc, release := make(chan struct{}, 1), make(chan struct{}, 64), make(chan struct{})
	var once sync.Once
	hold := func() {
		once.Do(func() {
			hc <- struct{}{}
			<-release
		})
	}
	reg := func() { rc <- struct{}{} }
	h.e.passes.hold.Store(&hold)
	h.e.passes.registered.Store(&reg)
	return hc, rc, release
}

// One pass serves every writer of a handle that committed before it
// started: writers that commit while a pass runs wait for the next, which
// gives each its own LSN, without a gap, in the order of their commits
// for writes of one document.
func TestOnePassServesTheWritersWaiting(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	held, registered, release := heldPass(h)
	const writers = 8
	lsns := make([]uint64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			// Writers 0-3 write k0 to k3; 4-7 write k0 to k3 again.
			d, err := h.put(engine.Upsert, fmt.Sprint("k", w%4), fmt.Sprintf(`{"w":%d}`, w), 0)
			if err != nil {
				t.Errorf("writer %d: %v", w, err)
				return
			}
			lsns[w] = h.lsn(d)
		})
	}
	// Every writer committed and waits; the first pass holds the turn.
	<-held
	for range writers {
		<-registered
	}
	close(release)
	wg.Wait()
	if n := h.e.passes.runs.Load(); n != 1 {
		t.Errorf("%d passes served %d writers that waited together, want 1", n, writers)
	}
	sorted := slices.Sorted(slices.Values(lsns))
	for i, l := range sorted {
		if l != uint64(i+1) {
			t.Fatalf("the writers' LSNs, sorted, are %v; want 1 to %d, each once", sorted, writers)
		}
	}
	// Each document's last write has the larger LSN of its two, and Get
	// returns it.
	for k := range 4 {
		d, err := h.get(fmt.Sprint("k", k))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := h.lsn(d), max(lsns[k], lsns[k+4]); got != want {
			t.Errorf("Get(k%d) has LSN %d; its writes had %d and %d", k, got, lsns[k], lsns[k+4])
		}
	}
}

// A call whose context ends while it waits for a pass leaves at once,
// with its context's error, and the pass serves the others as before.
func TestAPassWaiterThatLeavesBreaksNoOther(t *testing.T) { // R11, R16
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	held, registered, release := heldPass(h)
	const writers = 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			if _, err := h.put(engine.Create, fmt.Sprint("k", w), `{}`, 0); err != nil {
				t.Errorf("writer %d: %v", w, err)
			}
		})
	}
	<-held
	for range writers {
		<-registered
	}
	ctx, cancel := context.WithCancel(t.Context())
	left := make(chan error, 1)
	go func() {
		_, err := h.e.sequence(ctx, 0)
		left <- err
	}()
	<-registered
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) { // the pass is still held
		t.Errorf("a waiter whose context was cancelled returned %v, want context.Canceled", err)
	}
	close(release)
	wg.Wait()
	if n := h.e.passes.runs.Load(); n != 1 {
		t.Errorf("%d passes served %d writers that waited together, want 1", n, writers)
	}
	for w := range writers {
		d := h.live(fmt.Sprint("k", w), "{}")
		if l := h.lsn(d); l < 1 || l > writers {
			t.Errorf("k%d has LSN %d, want 1 to %d", w, l, writers)
		}
	}
}

// R11, R16: with the feed off, a pass deletes the records it numbers, so
// a write whose record another pass numbered (another handle's, or one of
// its own handle it did not wait for) finds no LSN for it once its
// document changed: a Delete, which returns no etag, still succeeds (it
// committed; it once returned ErrCorrupt), and is gone for every handle.
func TestFeedOffDeletesWithoutTheirLSN(t *testing.T) {
	s := newServer(t)
	o := &ttldb.Options{Feed: ttldb.FeedOptions{Off: true}}
	hs := []*handle{open(t, s, "c", o), open(t, s, "c", o)}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				k, at := key(fmt.Sprintf("g%d-%d", g, i))
				e := hs[(g+i)%2].e
				if _, err := e.Write(t.Context(), k, engine.Write{Op: engine.Upsert, Doc: engine.NewDoc(k, at, `{}`, 0, 0, 0)}); err != nil {
					errs <- fmt.Errorf("Upsert %q: %w", k, err)
					return
				}
				if _, err := hs[(g+i+1)%2].e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); err != nil {
					errs <- fmt.Errorf("Delete %q: %w", k, err)
					return
				}
				for _, h := range hs {
					if _, err := h.e.Get(t.Context(), k); !errors.Is(err, engine.ErrNotFound) {
						errs <- fmt.Errorf("Get %q after its Delete: %v, want ErrNotFound", k, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// R11, R16: with the feed off, a write whose record another handle's pass
// numbered, and whose document that handle changed since, still finds its
// LSN (its etag) in its record, which the passes keep offGrace seconds: an
// Upsert once committed and then failed with "its etag cannot be given".
func TestFeedOffUpsertFindsItsLSNAfterAnotherPass(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	o := &ttldb.Options{Feed: ttldb.FeedOptions{Off: true}}
	a, b := open(t, s, "c", o), open(t, s, "c", o)
	held, _, release := heldPass(b)
	type result struct {
		d   *engine.Doc
		err error
	}
	got := make(chan result, 1)
	go func() {
		d, err := b.put(engine.Upsert, "k", `{"by":"b"}`, 0)
		got <- result{d, err}
	}()
	<-held // b's Upsert committed; its pass waits to start
	// a's pass numbers both records; then k holds a's version.
	da := a.mustPut(engine.Upsert, "k", `{"by":"a"}`, 0)
	close(release)
	r := <-got
	if r.err != nil {
		t.Fatalf("b's Upsert, whose record a's pass numbered: %v", r.err)
	}
	if lb, la := b.lsn(r.d), a.lsn(da); lb == 0 || lb >= la {
		t.Fatalf("b's Upsert has LSN %d, a's (after it) %d", lb, la)
	}
}

// A pass that numbers nothing still commits a write (of the collection's
// row), so that its COMMIT waits for the flush and the synchronous
// standbys: the LSNs it serves may come from another process's pass, whose
// wait for a standby may have been cut short. A transaction that wrote no
// WAL commits without waiting for either.
func TestAPassThatNumbersNothingWrites(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	if _, err := h.put(engine.Upsert, "k", `{"a":1}`, 0); err != nil {
		t.Fatal(err)
	}
	xmin := func() string {
		t.Helper()
		var x string
		err := s.admin.QueryRow(t.Context(), `SELECT xmin::text FROM `+s.ident()+`.ttldb_collections WHERE no = $1`, h.e.no).Scan(&x)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	before, runs := xmin(), h.e.passes.runs.Load()
	if _, err := h.e.sequence(t.Context(), 0); err != nil { // nothing waits for an LSN
		t.Fatal(err)
	}
	if got := h.e.passes.runs.Load(); got != runs+1 {
		t.Fatalf("passes run: %d, want %d", got, runs+1)
	}
	if after := xmin(); after == before {
		t.Fatalf("the collection's row is the version of xid %s before and after a pass that numbered nothing: its COMMIT wrote no WAL, so it waited for no flush and no standby", before)
	}
}
