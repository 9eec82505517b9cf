package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

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
