package postgres

import (
	"fmt"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// TestAFirstCommitSurvivesACrashBeforeItsPass: a write whose first
// transaction committed, and whose pass is delayed (a pool waiting for a
// connection, a connection that hangs and is retried) past a crash and a
// restart of the server, is there after them, and its pass gives it its
// own LSN, whatever the pool's synchronous_commit: the first transaction
// commits synchronously (maintainLockSQL). A trial that let it commit
// without its flush lost the write, and the pass, on a server that had
// given its seq to another write since, acknowledged it with that write's
// LSN (failure.go, syncOn; DESIGN.md, "Durability"). And a latest-version
// reader that read while the write waited for its pass meets the document
// after (R11).
func TestAFirstCommitSurvivesACrashBeforeItsPass(t *testing.T) { // R12, R11, R16
	for _, sync := range []string{"on", "off"} {
		t.Run("synchronous_commit="+sync, func(t *testing.T) { firstCommitCrash(t, sync) })
	}
}

func firstCommitCrash(t *testing.T, sync string) {
	c := newCluster(t)
	admin := c.pool("application_name", "admin")
	ctx := t.Context()
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// The WAL writer writes a commit that did not wait for its flush within
	// wal_writer_delay: a long one leaves such a commit unwritten at the
	// crash below.
	exec(`ALTER SYSTEM SET wal_writer_delay = '10s'`)
	exec(`SELECT pg_reload_conf()`)
	h := openOn(t, c.pool("application_name", "A", "synchronous_commit", sync), "sessions", &ttldb.Options{ManualSweep: true})
	h.mustPut(engine.Upsert, "x", `{"v":1}`, 0)
	for i := range 5 {
		h.mustPut(engine.Upsert, fmt.Sprint("o", i), `{}`, 0)
	}
	// Use up the values the sequence's last WAL record covers, so that the
	// write's nextval writes a new one, which a crash could lose with it
	// and give the seq out again.
	seqName := h.e.sql(`{s}.ttldb_seq_{n}`)
	var logCnt int64
	if err := admin.QueryRow(ctx, `SELECT log_cnt FROM `+seqName).Scan(&logCnt); err != nil {
		t.Fatal(err)
	}
	for range logCnt {
		exec(`SELECT nextval('` + seqName + `')`)
	}

	registered := make(chan struct{}, 1)
	reg := func() {
		select {
		case registered <- struct{}{}:
		default:
		}
	}
	release := make(chan struct{})
	hold := func() { <-release }
	h.e.passes.registered.Store(&reg)
	h.e.passes.hold.Store(&hold) // every pass of h waits until release
	type result struct {
		d   *engine.Doc
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := h.put(engine.Upsert, "x", `{"v":2}`, 0)
		done <- result{d, err}
	}()
	select {
	case <-registered: // committed, and waiting for its pass
	case r := <-done:
		t.Fatalf("the Upsert of x v2 returned before its pass: %v, %v", r.d, r.err)
	}
	page := h.read(engine.FeedRead{Latest: true, From: engine.FromOldest, Limit: 100})

	c.crash()
	c.start()
	h2 := openOn(t, c.pool("application_name", "B"), "sessions", &ttldb.Options{ManualSweep: true})
	y := h2.mustPut(engine.Create, "y", `{}`, 0)
	close(release)
	r := <-done
	if r.err != nil || r.d == nil {
		t.Fatalf("the Upsert of x v2, its pass run after the restart: %v, %v; want it acknowledged", r.d, r.err)
	}
	x, err := h2.get("x")
	if err != nil {
		t.Fatal(err)
	}
	if x.Body() != `{"v":2}` || h2.lsn(x) != h.lsn(r.d) {
		t.Fatalf("the Upsert of x v2 was acknowledged at LSN %d (y's: %d); Get(x) = %s at LSN %d", h.lsn(r.d), h2.lsn(y), x.Body(), h2.lsn(x))
	}
	if h2.lsn(y) == h.lsn(r.d) {
		t.Errorf("x v2 and y share the LSN %d", h2.lsn(y))
	}
	seen := false
	for _, p := range []engine.FeedPage{page, h2.read(engine.FeedRead{Latest: true, From: engine.FromAfter, After: page.End, Limit: 100})} {
		for _, ch := range p.Changes {
			seen = seen || ch.Doc.ID() == "x"
		}
	}
	if !seen {
		t.Errorf("a latest-version reader that read up to End %d while x v2 waited for its pass never meets x (at LSN %d)", page.End, h2.lsn(x))
	}
}
