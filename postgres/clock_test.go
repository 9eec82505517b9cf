package postgres

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// testClock is a clock the test moves; safe for concurrent use.
type testClock struct{ s atomic.Int64 }

func (c *testClock) Now() time.Time { return time.Unix(c.s.Load(), 500_000_000) }

func (c *testClock) set(s int64) { c.s.Store(s) }

// check fails the test unless f returns want.
func check(t *testing.T, what string, f func() (int64, error), want int64) {
	t.Helper()
	got, err := f()
	if err != nil || got != want {
		t.Errorf("%s = %d, %v; want %d", what, got, err, want)
	}
}

func TestNowNeverGoesBackward(t *testing.T) { // R4
	t.Parallel()
	s := newServer(t)
	const t0 = 2_000_000_000
	var clock testClock
	clock.set(t0)
	e := mustOpen(t, s, "sessions", "/tenant", &ttldb.Options{Now: clock.Now})
	now := func() (int64, error) { return e.now(t.Context()) }
	tick := func() (int64, error) { return e.tick(t.Context()) }

	check(t, "now at open", now, t0) // the open stored the mark
	clock.set(t0 + 10)
	check(t, "now, the clock moved on", now, t0+10)
	check(t, "tick", tick, t0+10)
	clock.set(t0 - 100)
	check(t, "now, the clock stepped back", now, t0+10)
	check(t, "tick, the clock stepped back", tick, t0+10)
	clock.set(t0 + 5)
	check(t, "now, the clock still behind the mark", now, t0+10)
	clock.set(t0 + 11)
	check(t, "now, the clock past the mark", now, t0+11)

	// Another handle shares the mark: its now is never below what the
	// first stored, though its clock is behind.
	var behind testClock
	behind.set(t0)
	other := mustOpen(t, s, "sessions", "/tenant", &ttldb.Options{Now: behind.Now})
	check(t, "now of a handle whose clock is behind", func() (int64, error) { return other.now(t.Context()) }, t0+10)

	// now alone does not store: the mark is still t0+10.
	if n := s.count(`SELECT now_hwm FROM ` + s.ident() + `.ttldb_collections`); n != t0+10 {
		t.Errorf("now_hwm = %d, want %d", n, t0+10)
	}
}

// A handle's reads raise its now without storing it; its Close stores it,
// so that a reopen never judges by an earlier now, though the clock stepped
// back in between (R4). (The conformance model found a reopen going back.)
func TestCloseStoresTheNowOfReads(t *testing.T) { // R4
	t.Parallel()
	s := newServer(t)
	const t0 = 2_000_000_000
	var clock testClock
	clock.set(t0)
	opts := &ttldb.Options{Now: clock.Now, ManualSweep: true}
	e := mustOpen(t, s, "sessions", "/tenant", opts)
	clock.set(t0 + 50)
	if _, err := e.Get(t.Context(), []byte("x")); err == nil {
		t.Fatalf("Get of a missing key: no error")
	}
	clock.set(t0 - 100)
	mark := `SELECT now_hwm FROM ` + s.ident() + `.ttldb_collections`
	if n := s.count(mark); n != t0 {
		t.Errorf("now_hwm after a read = %d, want %d: a read does not store", n, t0)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := s.count(mark); n != t0+50 {
		t.Errorf("now_hwm after Close = %d, want %d, the now of the read", n, t0+50)
	}
	again := mustOpen(t, s, "sessions", "/tenant", opts)
	check(t, "now of the reopened handle, its clock behind", func() (int64, error) { return again.now(t.Context()) }, t0+50)

	// A later Close with an older now leaves the mark.
	if err := again.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := s.count(mark); n != t0+50 {
		t.Errorf("now_hwm after a second Close = %d, want %d", n, t0+50)
	}
}

func TestNowIsTheServersClock(t *testing.T) { // R4
	t.Parallel()
	s := newServer(t)
	e := mustOpen(t, s, "sessions", "/tenant", nil)
	server := s.count(`SELECT floor(extract(epoch FROM now()))::bigint`)
	got, err := e.tick(t.Context())
	if err != nil || got < server || got > server+60 {
		t.Errorf("tick = %d, %v; the server's clock read %d just before", got, err, server)
	}

	// A mark ahead of the server's clock (a clock that stepped back since
	// it was stored) holds.
	ahead := server + 3600
	s.exec(`UPDATE `+s.ident()+`.ttldb_collections SET now_hwm = $1`, ahead)
	check(t, "now under a mark an hour ahead", func() (int64, error) { return e.now(t.Context()) }, ahead)
	check(t, "tick under a mark an hour ahead", func() (int64, error) { return e.tick(t.Context()) }, ahead)
}

func TestClockBounds(t *testing.T) { // R4
	t.Parallel()
	e := &Engine{clock: func() time.Time { return time.Unix(1<<62+5, 0) }}
	e.lastNow.Store(-maxClock) // as Open leaves it
	if got := *e.clockParam(); got != maxClock {
		t.Errorf("clockParam() far ahead = %d, want %d", got, int64(maxClock))
	}
	if got := e.lastNow.Load(); got != maxClock {
		t.Errorf("lastNow after clockParam() = %d, want %d: the statement judges by it or later", got, int64(maxClock))
	}
	e.lastNow.Store(-maxClock) // forget it: the next readings are behind it
	e.clock = func() time.Time { return time.Unix(-1<<62-5, 0) }
	if got := *e.clockParam(); got != -maxClock {
		t.Errorf("clockParam() far behind = %d, want %d", got, int64(-maxClock))
	}
	e.lastNow.Store(-maxClock)
	e.clock = func() time.Time { return time.Unix(-3, 900_000_000) }
	if got := *e.clockParam(); got != -3 {
		t.Errorf("clockParam() at -2.1 s = %d, want -3 (floored, as the server's)", got)
	}
	e.seen(0, 100) // a now the handle was given: a clock behind it does not take it back (R4)
	if got := *e.clockParam(); got != 100 {
		t.Errorf("clockParam() at -3 s after a now of 100 = %d, want 100", got)
	}
	e.clock = nil
	if p := e.clockParam(); p != nil {
		t.Errorf("clockParam() without a clock = %d, want nil (the server's clock)", *p)
	}
}
