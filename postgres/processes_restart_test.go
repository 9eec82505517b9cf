package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// The server restarted under several real OS processes that share one
// collection (issue 29: "a server restart mid-load"): the children of
// TestSharingProcess with the role "restart" (restartChild), on a cluster
// of the test's own (cluster_test.go), which the parent restarts while
// they write.

// restartChild writes documents of its own until told to stop, and
// watches the feed from its start, resuming it after a failure: what a
// service's process does across a restart of its server. It reads its
// orders from stdin, a line each: "up" (the server is up again: a writer
// or watcher that failed goes on; it prints phase 1), "stop" (the writer
// stops; phase 2), "drain L" (it waits until its watcher has read LSN L,
// prints what it read, and ends). The writer Creates r<N>-<i> in
// partition p<N>, every fourth write a batch of two Creates
// (r<N>-<i>a and r<N>-<i>b); it prints each write acknowledged (ack: ID,
// LSN) and each failed (werr: ID, Err), and after a failure waits for up.
func restartChild(ctx context.Context, cfg procConfig, out *procOut) error {
	clock := &procClock{}
	clock.s.Store(procT0)
	c, err := openChild(ctx, cfg, clock)
	if err != nil {
		return err
	}
	defer c.Close()
	up, stop := make(chan struct{}), make(chan struct{})
	w := watchAcross(ctx, c, up)
	defer w.stop()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		restartWriter(ctx, c, cfg.N, up, stop, out)
	}()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "up":
			close(up)
			out.print(procLine{Ev: "phase", N: 1})
		case line == "stop":
			close(stop)
			<-wrote
			out.print(procLine{Ev: "phase", N: 2})
		case strings.HasPrefix(line, "drain "):
			var lsn uint64
			if _, err := fmt.Sscan(strings.TrimPrefix(line, "drain "), &lsn); err != nil {
				return fmt.Errorf("order %q: %v", line, err)
			}
			last, n, gap, fails, err := w.waitFor(ctx, lsn)
			if err != nil {
				return err
			}
			out.print(procLine{Ev: "drained", LSN: last, N: n, Err: gap, Op: fmt.Sprint(fails)})
			return nil
		default:
			return fmt.Errorf("unknown order %q", line)
		}
		out.flush()
	}
	return fmt.Errorf("stdin ended before the order to drain: %v", sc.Err())
}

// restartWriter is restartChild's writer: it writes until stop closes.
func restartWriter(ctx context.Context, c *ttldb.Collection, n int, up, stop <-chan struct{}, out *procOut) {
	pk := fmt.Sprintf("p%d", n)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		id := fmt.Sprintf("r%d-%d", n, i)
		wctx, cancel := context.WithTimeout(ctx, callBound)
		var ids []string
		var docs []ttldb.Document
		var err error
		if i%4 == 3 {
			ids = []string{id + "a", id + "b"}
			b := ttldb.NewBatch(ttldb.StringKey(pk))
			for _, id := range ids {
				b.Create(map[string]any{"id": id, "pk": pk})
			}
			docs, err = c.ExecuteBatch(wctx, b)
		} else {
			ids = []string{id}
			var d ttldb.Document
			if d, err = c.Create(wctx, map[string]any{"id": id, "pk": pk}); err == nil {
				docs = []ttldb.Document{d}
			}
		}
		cancel()
		for j, id := range ids {
			if err != nil {
				out.print(procLine{Ev: "werr", ID: id, Err: err.Error()})
			} else {
				out.print(procLine{Ev: "ack", ID: id, LSN: docs[j].LSN()})
			}
		}
		out.flush()
		if err != nil {
			select { // the server is down: wait until the parent says it is up
			case <-up:
			case <-stop:
				return
			}
		}
	}
}

// acrossWatcher reads the all-versions feed from its start, and after a
// failure waits for up and resumes after the last change it read
// (AfterLSN), as a consumer that keeps its checkpoint does. It notes the
// first gap (a change whose LSN is not the last's plus one).
type acrossWatcher struct {
	mu     sync.Mutex
	last   uint64
	n      int    // changes read
	gap    string // the first gap, "" for none
	fails  int    // WatchFeeds that ended with an error
	moved  chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

func watchAcross(ctx context.Context, c *ttldb.Collection, up <-chan struct{}) *acrossWatcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &acrossWatcher{moved: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			w.mu.Lock()
			after := w.last
			w.mu.Unlock()
			for ch, err := range c.WatchFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: after, Limit: 1000}) {
				if err != nil {
					w.mu.Lock()
					w.fails++
					w.mu.Unlock()
					select {
					case <-up:
					case <-ctx.Done():
					}
					break
				}
				w.mu.Lock()
				if ch.LSN != w.last+1 && w.gap == "" {
					w.gap = fmt.Sprintf("the change after LSN %d has LSN %d", w.last, ch.LSN)
				}
				w.last = ch.LSN
				w.n++
				w.mu.Unlock()
				select {
				case w.moved <- struct{}{}:
				default:
				}
			}
		}
	}()
	return w
}

// waitFor waits until the watcher has read LSN lsn, and returns what it
// read.
func (w *acrossWatcher) waitFor(ctx context.Context, lsn uint64) (last uint64, n int, gap string, fails int, err error) {
	for {
		w.mu.Lock()
		last, n, gap, fails = w.last, w.n, w.gap, w.fails
		w.mu.Unlock()
		if last >= lsn {
			return last, n, gap, fails, nil
		}
		select {
		case <-w.moved:
		case <-ctx.Done():
			return last, n, gap, fails, fmt.Errorf("the watcher read up to LSN %d of %d (%d WatchFeeds failed): %w", last, lsn, fails, ctx.Err())
		}
	}
}

func (w *acrossWatcher) stop() { w.cancel(); <-w.done }

// restartChildren is how many processes TestProcessesServerRestart runs.
const restartChildren = 3

// Processes share a collection, each writing (Creates and batches) and
// watching the feed; the server is restarted (pg_ctl stop -m fast, start)
// under them. A write fails only with an error that names the collection
// and says what became of it: the connection failed (not committed), it
// committed (numbered by a later pass), or it may have committed or not.
// Afterwards every acknowledged write is there at its LSN and in the feed
// at it, the feed is gap-free, each process's watcher read it all from
// its start without a gap, resuming after its failure, and each process
// writes again.
func TestProcessesServerRestart(t *testing.T) { // R16, R11, R12
	t.Parallel()
	cl := newCluster(t)
	u := fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres", cl.owner, cl.port)
	opts := func() *ttldb.Options {
		return &ttldb.Options{Name: "shared", PartitionKeyPath: "/pk", DefaultTTL: ttldb.TTLNoDefault(), ManualSweep: true,
			Now: func() time.Time { return time.Unix(procT0, 0) }}
	}
	c, err := ttldb.Open(t.Context(), u, opts())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	var kids []*child
	for n := range restartChildren {
		kids = append(kids, startChild(t, procConfig{Role: "restart", URL: u, N: n}))
	}
	acks := func(ch *child, k int) {
		for range k {
			ch.next(t, "ack")
		}
	}
	for _, ch := range kids {
		acks(ch, 10)
	}
	cl.restart() // its clients' connections end; it refuses new ones until it is up
	for _, ch := range kids {
		ch.send(t, "up")
		ch.next(t, "phase")
		acks(ch, 10) // each process writes again
	}
	for _, ch := range kids {
		ch.send(t, "stop")
		ch.next(t, "phase")
	}
	c, err = ttldb.Open(t.Context(), u, opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	after, err := c.Upsert(t.Context(), map[string]any{"id": "after", "pk": "parent"})
	if err != nil {
		t.Fatal(err)
	}
	ackd := map[string]uint64{} // the writes acknowledged, their LSNs
	failed := map[string]string{}
	for n, ch := range kids {
		ch.send(t, fmt.Sprint("drain ", after.LSN()))
		l := ch.next(t, "drained")
		ch.finish(t, false)
		// R11: each process's watcher read every change from the first,
		// once, in order, across the restart.
		if l.Err != "" || l.N != int(l.LSN) || l.LSN < after.LSN() {
			t.Errorf("process %d's watcher read %d changes, up to LSN %d (the parent's write: %d), %s WatchFeeds failing: gap: %q",
				n, l.N, l.LSN, after.LSN(), l.Op, l.Err)
		}
		for _, l := range ch.all {
			switch l.Ev {
			case "ack":
				ackd[l.ID] = l.LSN
			case "werr":
				failed[l.ID] = l.Err
			}
		}
	}
	checkRestarted(t, c, after.LSN(), ackd, failed)
}

// checkRestarted checks the collection c after TestProcessesServerRestart:
// the feed, gap-free up to last, holds each acknowledged write at its
// LSN, and so do the documents; each failed write's error names the
// collection and says what became of it, which the collection confirms.
func checkRestarted(t *testing.T, c *ttldb.Collection, last uint64, ackd map[string]uint64, failed map[string]string) {
	t.Helper()
	feed := map[uint64]string{}
	at := map[string]uint64{}
	var lsn uint64
	for q := (ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1000}); lsn < last; {
		page, err := c.ReadFeed(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range page.Changes {
			if lsn++; ch.LSN != lsn { // R11
				t.Fatalf("the feed's change after LSN %d has LSN %d: a gap, or out of order", lsn-1, ch.LSN)
			}
			feed[ch.LSN], at[ch.ID] = ch.ID, ch.LSN
		}
		if len(page.Changes) == 0 && !page.More {
			t.Fatalf("the feed ends at LSN %d, before the parent's write at %d", lsn, last)
		}
		q = ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1000, Continuation: page.Continuation}
	}
	get := func(id string) (ttldb.Document, error) {
		var n int
		if _, err := fmt.Sscanf(id, "r%d-", &n); err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		return c.Get(t.Context(), ttldb.StringKey(fmt.Sprintf("p%d", n)), id)
	}
	for id, lsn := range ackd { // R12, R16: nothing acknowledged is lost
		d, err := get(id)
		if err != nil || d.LSN() != lsn || feed[lsn] != id {
			t.Errorf("%s acknowledged at LSN %d: Get = LSN %d, %v; the feed holds %q there", id, lsn, d.LSN(), err, feed[lsn])
		}
	}
	var committed, notCommitted, unknown int
	for id, msg := range failed { // R16: a clear error, true to what happened
		_, err := get(id)
		if err != nil && !errors.Is(err, ttldb.ErrNotFound) {
			t.Fatal(err)
		}
		there := err == nil
		if there != (at[id] != 0) {
			t.Errorf("%s failed: Get finds it: %v, the feed holds it: %v", id, there, at[id] != 0)
		}
		switch {
		case !strings.Contains(msg, `collection "shared"`):
			t.Errorf("%s failed with an error that does not name the collection: %s", id, msg)
		case strings.Contains(msg, "may have committed or not"):
			unknown++
		case strings.Contains(msg, " committed, but its LSN"):
			committed++
			if !there {
				t.Errorf("%s failed saying it committed, and is not there: %s", id, msg)
			}
		case strings.Contains(msg, "the connection to the server failed"):
			notCommitted++
			if there {
				t.Errorf("%s failed saying the connection failed, and is there, at LSN %d: %s", id, at[id], msg)
			}
		default:
			t.Errorf("%s failed without saying whether it committed: %s", id, msg)
		}
	}
	t.Logf("%d writes acknowledged; failed: %d not committed, %d committed, %d unknown; %d changes in the feed",
		len(ackd), notCommitted, committed, unknown, len(feed))
}
