package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/ttldb/ttldb/engine"
)

// A statement that times out on the server (statement_timeout,
// lock_timeout: run-time parameters of the pool's connections) fails its
// call with the server's error; nothing it did is kept, and the handle
// works once the lock it waited for is let go (DESIGN.md, "Failures").

// locker is a connection of the test's own, outside the engine, that holds
// locks the engine's calls wait for.
func (s *server) locker() *pgx.Conn {
	s.t.Helper()
	c, err := pgx.Connect(s.t.Context(), s.url)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = c.Close(s.t.Context()) })
	return c
}

// wantSQLState checks that err is the server's error code, in a message
// that names the collection, and is not taken for a lost connection.
func wantSQLState(t *testing.T, what string, err error, code string) {
	t.Helper()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != code {
		t.Errorf("%s: %v; want the server's error %s", what, err, code)
		return
	}
	wantClear(t, what, err)
	if strings.Contains(err.Error(), "connection to the server failed") {
		t.Errorf("%s: %v: taken for a lost connection", what, err)
	}
}

// timesOut checks that the writes of the document "a", which the test's
// own transaction has locked, fail with the server's error code, that
// they change nothing, and that reads do not wait.
func timesOut(t *testing.T, s *server, h *handle, code string) {
	t.Helper()
	before := s.state()
	_, err := h.put(engine.Upsert, "a", `{"v":2}`, 0)
	wantSQLState(t, "an Upsert of a locked document", err, code)
	_, err = h.batch(put(engine.Upsert, "b", `{}`, 0), put(engine.Replace, "a", `{"v":2}`, 0))
	wantSQLState(t, "a batch with a locked document", err, code)
	_, err = h.write("a", engine.Write{Op: engine.Delete})
	wantSQLState(t, "a Delete of a locked document", err, code)
	if after := s.state(); after != before {
		t.Errorf("writes that timed out changed the collection:\nbefore %s\nafter  %s", before, after)
	}
	h.live("a", `{"v":1}`) // readers never wait for a row lock
}

func TestLockTimeout(t *testing.T) { // R16, R11
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "lock", "sessions", nil, "lock_timeout", "50ms")
	h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	k, _ := key("a")
	l := s.locker()
	tx, err := l.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), `SELECT 1 FROM `+s.ident()+`.ttldb_docs_1 WHERE h = sha256($1) FOR UPDATE`, k); err != nil {
		t.Fatal(err)
	}
	timesOut(t, s, h, "55P03")
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.mustPut(engine.Upsert, "a", `{"v":2}`, 0)

	// The sequencer's lock held: a write commits, and its pass times out.
	// It says so; the next pass, once the lock is let go, numbers it.
	if _, err := l.Exec(t.Context(), strings.Replace(seqLockSQL, "pg_advisory_xact_lock", "pg_advisory_lock", 1), h.e.schema, h.e.no); err != nil {
		t.Fatal(err)
	}
	_, err = h.put(engine.Upsert, "a", `{"v":3}`, 0)
	wantSQLState(t, "an Upsert whose pass waits for the sequencer", err, "55P03")
	if err == nil || !strings.Contains(err.Error(), "Upsert committed, but") {
		t.Errorf("an Upsert whose pass timed out: %v; want an error saying it committed", err)
	}
	if _, err := l.Exec(t.Context(), `SELECT pg_advisory_unlock_all()`); err != nil {
		t.Fatal(err)
	}
	h.live("a", `{"v":3}`)
	s.wantFeedNumbered()
	h.wantChanges("the feed", h.readAll(engine.FeedRead{From: engine.FromOldest, Limit: 10}),
		`1 create a {"v":1}`, `2 replace a {"v":2}`, `3 replace a {"v":3}`)
}

func TestStatementTimeout(t *testing.T) { // R16, R11
	t.Parallel()
	s := newServer(t)
	h := openApp(t, s, "statement", "sessions", nil, "statement_timeout", "50ms")
	h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	k, _ := key("a")
	tx, err := s.locker().Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(t.Context(), `SELECT 1 FROM `+s.ident()+`.ttldb_docs_1 WHERE h = sha256($1) FOR UPDATE`, k); err != nil {
		t.Fatal(err)
	}
	timesOut(t, s, h, "57014")
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.mustPut(engine.Upsert, "a", `{"v":2}`, 0)
	s.wantFeedNumbered()
	h.wantChanges("the feed", h.readAll(engine.FeedRead{From: engine.FromOldest, Limit: 10}),
		`1 create a {"v":1}`, `2 replace a {"v":2}`)
}
