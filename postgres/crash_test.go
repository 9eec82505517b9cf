package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// callBound bounds each call of the crash test: a call made while the
// server is down must fail by it, never hang (a failure's bound, not a
// wait: a refused connection fails at once).
const callBound = 10 * time.Second

// acked is a write the engine acknowledged: its document's id and LSN.
type acked struct {
	id  string
	lsn uint64
}

// crashWriters are goroutines that Create documents of their own on one
// handle until stopped, recording what is acknowledged; after a failure,
// each waits for the test to say the server is up again.
type crashWriters struct {
	h    *handle
	mu   sync.Mutex
	acks []acked
	errs []error
	up   chan struct{} // closed when the server is up; replaced while down
	more chan struct{} // a write acknowledged
	stop chan struct{}
	wg   sync.WaitGroup
}

func startWriters(h *handle, n int) *crashWriters {
	w := &crashWriters{h: h, up: make(chan struct{}), more: make(chan struct{}, 1024), stop: make(chan struct{})}
	close(w.up)
	for g := range n {
		w.wg.Add(1)
		go w.write(g)
	}
	return w
}

func (w *crashWriters) write(g int) {
	defer w.wg.Done()
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			return
		default:
		}
		id := fmt.Sprintf("w%d-%d", g, i)
		ctx, cancel := context.WithTimeout(w.h.t.Context(), callBound)
		k, _ := key(id)
		var d *engine.Doc
		var err error
		if i%4 == 3 { // a batch now and then
			var ds []*engine.Doc
			if ds, err = w.h.e.Batch(ctx, []engine.Step{put(engine.Create, id, `{}`, 0)}); err == nil {
				d = ds[0]
			}
		} else {
			d, err = w.h.e.Write(ctx, k, engine.Write{Op: engine.Create, Doc: doc(id, `{}`, 0)})
		}
		cancel()
		w.mu.Lock()
		up := w.up
		if err == nil {
			w.acks = append(w.acks, acked{id, w.h.lsn(d)})
		} else {
			w.errs = append(w.errs, err)
		}
		w.mu.Unlock()
		if err == nil {
			select {
			case w.more <- struct{}{}:
			default:
			}
			continue
		}
		select { // the server is down: wait until the test says it is up
		case <-up:
		case <-w.stop:
			return
		}
	}
}

// await waits until n more writes are acknowledged.
func (w *crashWriters) await(n int) {
	for range n {
		select {
		case <-w.more:
		case <-time.After(60 * time.Second): // a failure's bound
			w.h.t.Fatalf("no write acknowledged in 60 s")
		}
	}
}

// down marks the server down; the writers that fail wait for upAgain.
func (w *crashWriters) down() {
	w.mu.Lock()
	w.up = make(chan struct{})
	w.mu.Unlock()
}

func (w *crashWriters) upAgain() {
	w.mu.Lock()
	close(w.up)
	w.mu.Unlock()
}

// failsWhileDown checks that each kind of call of h fails, clearly and
// within its context's bound, while the server is down.
func failsWhileDown(t *testing.T, h *handle) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), callBound)
	defer cancel()
	k, _ := key("down")
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s while the server is down: no error", what)
		} else if !strings.Contains(err.Error(), "connection to the server failed") && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s while the server is down: %v; want an error saying the connection failed", what, err)
		}
	}
	_, err := h.e.Get(ctx, k)
	check("Get", err)
	_, err = h.e.Write(ctx, k, engine.Write{Op: engine.Upsert, Doc: doc("down", `{}`, 0)})
	check("Upsert", err)
	_, err = h.e.Batch(ctx, []engine.Step{put(engine.Upsert, "down", `{}`, 0)})
	check("Batch", err)
	_, err = h.e.ReadFeed(ctx, engine.FeedRead{From: engine.FromOldest, Limit: 10}, nil)
	check("ReadFeed", err)
	_, err = h.e.Snapshot(ctx, nil, true)
	check("Snapshot", err)
	_, err = h.e.Sweep(ctx)
	check("Sweep", err)
	_, err = h.e.Stats(ctx)
	check("Stats", err)
	check("SetDefaultTTL", h.e.SetDefaultTTL(ctx, engine.DefaultTTL{On: true, Seconds: -1}))
	if ctx.Err() != nil {
		t.Errorf("the calls made while the server was down took the whole bound (%v): one waited for it", callBound)
	}
}

func TestServerRestartAndCrash(t *testing.T) { // R12, R11, R16
	t.Parallel()
	// Whatever the connections' synchronous_commit: the pass's commit is
	// synchronous (failure.go, syncOnSQL).
	for _, sync := range []string{"on", "off"} {
		t.Run("synchronous_commit="+sync, func(t *testing.T) { restartAndCrash(t, sync) })
	}
}

// restartAndCrash is TestServerRestartAndCrash with the pool's
// connections' synchronous_commit sync.
func restartAndCrash(t *testing.T, sync string) {
	c := newCluster(t)
	pool := c.pool("application_name", "crash", "synchronous_commit", sync)
	clock := &testClock{}
	clock.set(t0)
	// The background goroutine runs (its rounds fail while the server is
	// down, and resume), and so does the feed's listener.
	e, err := Open(t.Context(), pool, "sessions", "/tenant", &ttldb.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	h := &handle{t: t, e: e, clock: clock}
	w := startWriters(h, 3)
	w.await(30)

	w.down()
	c.restart() // clean: the server ends every connection
	w.upAgain()
	w.await(30)

	w.down()
	c.crash()
	failsWhileDown(t, h)
	// A handle closed while the server is down: Close returns (its
	// stored now is given up after storeNowTimeout).
	other, err := Open(t.Context(), c.pool(), "sessions", "", nil)
	if err == nil {
		t.Error("Open while the server is down: no error")
		_ = other.Close()
	}
	c.start() // recovery from the WAL
	w.upAgain()
	w.await(30)
	w.wantAcked()

	// The watchers are woken again, and the background goroutine sweeps.
	ch := e.FeedChanged()
	h.mustPut(engine.Upsert, "after", `{}`, 0)
	waitClosed(t, "a write after the crash", ch)
	reply := make(chan error)
	e.bg.kick <- reply
	if err := <-reply; err != nil {
		t.Errorf("the background's round after the crash: %v", err)
	}
}

func TestFrozenServer(t *testing.T) { // R16, R15
	t.Parallel()
	c := newCluster(t)
	clock := &testClock{}
	clock.set(t0)
	e, err := Open(t.Context(), c.pool("application_name", "frozen"), "sessions", "/tenant", &ttldb.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	h := &handle{t: t, e: e, clock: clock}
	h.mustPut(engine.Create, "a", `{}`, 0)

	// A server that answers nothing: each call ends with its context.
	c.freeze()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	k, _ := key("a")
	if _, err := e.Get(ctx, k); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Get from a frozen server: %v; want its context's deadline", err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := e.Write(ctx, k, engine.Write{Op: engine.Upsert, Doc: doc("a", `{"v":2}`, 0)}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Upsert to a frozen server: %v; want its context's deadline", err)
	}
	c.thaw()
	h.live("a", `{}`) // the Upsert did not reach the server, or did not commit
	h.mustPut(engine.Upsert, "a", `{"v":3}`, 0)

	// Close while the server answers nothing returns: the background's
	// round, the listener and the stored now are each bounded.
	c.freeze()
	closed := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(closed)
		_ = e.Close()
	}()
	select {
	case <-closed:
		t.Logf("Close with a frozen server took %v", time.Since(start))
	case <-time.After(60 * time.Second): // a failure's bound
		t.Fatal("Close with a frozen server did not return in 60 s")
	}
	c.thaw()
}

// wantAcked stops the writers and checks, through their handle, that every
// acknowledged write is there, at its LSN, that the feed has no gap and no
// LSN twice, and that each failure names the collection.
func (w *crashWriters) wantAcked() {
	t, h, e := w.h.t, w.h, w.h.e
	t.Helper()
	close(w.stop)
	w.wg.Wait()

	ctx := t.Context()
	feed := make(map[uint64]string)
	for _, ch := range h.readAll(engine.FeedRead{From: engine.FromOldest, Limit: 500}) {
		if _, dup := feed[ch.LSN]; dup {
			t.Errorf("LSN %d twice in the feed", ch.LSN)
		}
		feed[ch.LSN] = ch.Doc.ID()
	}
	st, err := e.FeedStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Oldest != 1 || uint64(len(feed)) != st.LastLSN {
		t.Errorf("the feed holds %d changes, from %d to %d: a gap", len(feed), st.Oldest, st.LastLSN)
	}
	for _, a := range w.acks {
		k, _ := key(a.id)
		d, err := e.Get(ctx, k)
		if err != nil || h.lsn(d) != a.lsn {
			t.Errorf("the acknowledged Create of %s at LSN %d: Get = %v, %v", a.id, a.lsn, d, err)
		}
		if feed[a.lsn] != a.id {
			t.Errorf("the acknowledged Create of %s at LSN %d: the feed holds %q there", a.id, a.lsn, feed[a.lsn])
		}
	}
	for _, err := range w.errs {
		if !strings.Contains(err.Error(), `collection "sessions"`) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a write failed without saying why: %v", err)
		}
	}
	t.Logf("%d writes acknowledged, %d failed; %d changes in the feed", len(w.acks), len(w.errs), len(feed))

}
