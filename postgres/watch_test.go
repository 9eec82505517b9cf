package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ttldb/ttldb/engine"
)

func TestFeedChangedWakesAnotherHandle(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	writer, watcher := open(t, s, "sessions", nil), open(t, s, "sessions", nil) // two pools: two processes
	// Only a NOTIFY wakes it: no poll, and it listens before the writes.
	watcher.e.watch.noPoll.Store(true)
	waitClosed(t, "the listener's start", watcher.e.watch.listening)
	for i := range 3 {
		ch := watcher.e.FeedChanged()
		writer.mustPut(engine.Upsert, "a", fmt.Sprintf(`{"i":%d}`, i), 0)
		waitClosed(t, fmt.Sprint("write ", i), ch)
		// What woke it is readable.
		if p := watcher.read(engine.FeedRead{After: uint64(i), Limit: 10}); len(p.Changes) != 1 || p.End != uint64(i+1) {
			t.Errorf("after wake %d: %d changes, End %d; want 1, %d", i, len(p.Changes), p.End, i+1)
		}
	}
	// Close closes it, and it stays closed.
	ch := watcher.e.FeedChanged()
	if err := watcher.e.Close(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, "Close", ch)
	waitClosed(t, "after Close", watcher.e.FeedChanged())
	select { // nothing outlives Close
	case <-watcher.e.watch.done:
	default:
		t.Error("the listener's goroutine runs after Close returned")
	}
	if err := watcher.e.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := watcher.e.ReadFeed(t.Context(), oldest, nil); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("ReadFeed after Close: %v, want ErrClosed", err)
	}
	waitClosed(t, "the zero Engine", (&Engine{}).FeedChanged())
}

func TestFeedChangedSurvivesALostConnection(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	writer, watcher := open(t, s, "sessions", nil), open(t, s, "sessions", nil)
	watcher.e.watch.noPoll.Store(true)
	waitClosed(t, "the listener's start", watcher.e.watch.listening)
	// The server ends the listener's connection: it connects again, and
	// wakes its watchers for what it may have missed meanwhile.
	ch := watcher.e.FeedChanged()
	if n := s.count(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid = $1`, int64(watcher.e.watch.pid.Load())); n != 1 {
		t.Fatalf("%d listeners ended, want 1", n)
	}
	waitClosed(t, "a lost connection", ch)
	ch = watcher.e.FeedChanged()
	writer.mustPut(engine.Create, "a", `{}`, 0)
	waitClosed(t, "a write after the connection came back", ch)
}

func TestFeedChangedPolls(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	watcher := open(t, s, "sessions", nil)
	waitClosed(t, "the listener's start", watcher.e.watch.listening)
	// A pass that sends no NOTIFY (a lost notification): the poll finds
	// the last LSN grown.
	ch := watcher.e.FeedChanged()
	s.exec(`UPDATE ` + s.ident() + `.ttldb_collections SET lsn = lsn + 1`)
	waitClosed(t, "the poll", ch)
	if got := watcher.e.LastLSN(); got != 1 {
		t.Errorf("LastLSN() = %d after the poll, want 1", got)
	}
}

// waitClosed waits for ch to be closed, failing the test after ten poll
// periods: the failure bound only, never a sleep.
func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*pollPeriod)
	defer cancel()
	select {
	case <-ch:
	case <-ctx.Done():
		t.Fatalf("%s: FeedChanged's channel was not closed within %v", what, 10*pollPeriod)
	}
}
