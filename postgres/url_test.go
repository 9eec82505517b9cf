package postgres

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// schemaURL returns the test server's URL with search_path the test's
// schema, and its scheme scheme.
func (s *server) schemaURL(t *testing.T, scheme string) string {
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatalf("%s: %v", serverEnv, err)
	}
	u.Scheme = scheme
	q := u.Query()
	q.Set("search_path", s.schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// ttldb.Open of a postgres URL makes the collection, and opens it again
// with its stored partition-key path when given only its name (R16).
func TestOpenByURL(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	c, err := ttldb.Open(ctx, s.schemaURL(t, "postgres"), &ttldb.Options{Name: "sessions", PartitionKeyPath: "/tenant", DefaultTTL: ttldb.TTLSeconds(60)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := c.Create(ctx, []byte(`{"id":"a","tenant":"t1"}`)); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	again, err := ttldb.Open(ctx, s.schemaURL(t, "postgresql"), &ttldb.Options{Name: "sessions"})
	if err != nil {
		t.Fatalf("Open again by name alone: %v", err)
	}
	defer again.Close()
	if got := again.PartitionKeyPath(); got != "/tenant" {
		t.Errorf("PartitionKeyPath() = %q, want the stored /tenant", got)
	}
	if got := again.DefaultTTL(); got != ttldb.TTLSeconds(60) {
		t.Errorf("DefaultTTL() = %v, want the stored 60 s", got)
	}
	if _, err := again.Get(ctx, ttldb.StringKey("t1"), "a"); err != nil {
		t.Errorf("Get of the document written before: %v", err)
	}
	// Another path than the stored one is refused, naming both.
	_, err = ttldb.Open(ctx, s.schemaURL(t, "postgres"), &ttldb.Options{Name: "sessions", PartitionKeyPath: "/user"})
	wantRefused(t, err, ttldb.ErrInvalidOption, "/tenant", "/user")
}

// What an open by URL refuses, changing nothing (R16, R10).
func TestOpenByURLRefusals(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	ctx := t.Context()
	u := s.schemaURL(t, "postgres")
	_, err := ttldb.Open(ctx, u, &ttldb.Options{PartitionKeyPath: "/tenant"})
	wantRefused(t, err, ttldb.ErrInvalidOption, "Options.Name")
	_, err = ttldb.Open(ctx, u, nil)
	wantRefused(t, err, ttldb.ErrInvalidOption, "Options.Name")
	_, err = ttldb.Open(ctx, u, &ttldb.Options{Name: "missing"})
	wantRefused(t, err, ttldb.ErrInvalidOption, `"missing"`, "partition-key path", s.schema)
	_, err = ttldb.Open(ctx, u, &ttldb.Options{Name: "bad", PartitionKeyPath: "tenant"}) // no leading slash
	if err == nil {
		t.Errorf("Open with the partition-key path %q: no error", "tenant")
	}
	if n := s.tables(); n != 0 {
		t.Errorf("the refused opens made %d tables, want none", n)
	}

	// A URL pgx cannot parse: the message never shows the password.
	const secret = "s3cr3t-Pw"
	for _, bad := range []string{
		"postgres://user:" + secret + "@localhost:notaport/db",
		"postgres://user:" + secret + "@localhost/db?sslmode=sometimes",
	} {
		_, err := ttldb.Open(ctx, bad, &ttldb.Options{Name: "sessions", PartitionKeyPath: "/tenant"})
		if !errors.Is(err, ttldb.ErrInvalidOption) {
			t.Errorf("Open(%q): %v, want ErrInvalidOption", bad, err)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("Open(%q): the message shows the password: %v", bad, err)
		}
	}
}

// An engine OpenURL made owns its pool: Close closes it, though a snapshot
// was open, and holds no connection after (R16).
func TestOpenURLClosesItsPool(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	e, err := OpenURL(t.Context(), s.schemaURL(t, "postgres"), &ttldb.Options{Name: "sessions", PartitionKeyPath: "/tenant"})
	if err != nil {
		t.Fatalf("OpenURL: %v", err)
	}
	sn, err := e.Snapshot(t.Context(), nil, true)
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := sn.Scan(t.Context(), "", "", false, func(*engine.Doc) bool { return true }); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Scan after Close: %v, want ErrClosed", err)
	}
	sn.Release()
	if n := e.pool.Stat().TotalConns(); n != 0 {
		t.Errorf("after Close, the engine's pool has %d connections, want 0", n)
	}
	if err := e.pool.Ping(t.Context()); err == nil {
		t.Errorf("Ping of the pool after Close: no error, want the pool closed")
	}
}
