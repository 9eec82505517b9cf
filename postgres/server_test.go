package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// serverEnv names the environment variable that gives the tests a server:
// a PostgreSQL URL whose user may create schemas. ../.ci/pg starts a
// throwaway server and sets it.
const serverEnv = "TTLDB_TEST_PG"

// server is one test's own place on the test server: a PostgreSQL schema
// of a random name, dropped when the test ends, so that tests run in
// parallel without seeing each other's tables.
type server struct {
	t      *testing.T
	url    string
	schema string
	admin  *pgx.Conn // outside the schema: for the test's own SQL
}

// newServer gives t a new, empty schema on the test server, or skips t,
// saying so, when serverEnv is unset.
func newServer(t *testing.T) *server {
	t.Helper()
	url := os.Getenv(serverEnv)
	if url == "" {
		t.Skipf("%s is unset: no PostgreSQL server to test against; run ../.ci/pg go test ./... (from postgres/) to start a throwaway one", serverEnv)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	s := &server{t: t, url: url, schema: "ttldb_test_" + hex.EncodeToString(b[:])}
	ctx := t.Context()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connecting to %s: %v", serverEnv, err)
	}
	s.admin = admin
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, `DROP SCHEMA `+s.ident()+` CASCADE`); err != nil {
			t.Errorf("dropping the test's schema %s: %v", s.schema, err)
		}
		_ = admin.Close(ctx)
	})
	s.exec(`CREATE SCHEMA ` + s.ident())
	return s
}

// ident returns the schema's name quoted.
func (s *server) ident() string { return pgx.Identifier{s.schema}.Sanitize() }

// pool returns a new pool whose connections' search_path is the test's
// schema, as another process's would be, with the run-time parameters
// params (pairs of a name and a value); it is closed when the test ends.
func (s *server) pool(params ...string) *pgxpool.Pool {
	s.t.Helper()
	cfg, err := pgxpool.ParseConfig(s.url)
	if err != nil {
		s.t.Fatalf("%s: %v", serverEnv, err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = s.schema
	for i := 0; i+1 < len(params); i += 2 {
		cfg.ConnConfig.RuntimeParams[params[i]] = params[i+1]
	}
	// Each open cursor holds a connection until it ends (doc.go), and the
	// conformance model keeps up to three open while it queries with a
	// filter that calls Get, and the background goroutine takes one: 8
	// leaves room for all of them (with 4, such a step waited forever on
	// the pool, the Get's context being Background).
	cfg.MaxConns = 8
	p, err := pgxpool.NewWithConfig(s.t.Context(), cfg)
	if err != nil {
		s.t.Fatalf("making a pool: %v", err)
	}
	s.t.Cleanup(p.Close)
	return p
}

// exec runs sql in the test's schema, failing the test on an error.
func (s *server) exec(sql string, args ...any) {
	s.t.Helper()
	if _, err := s.admin.Exec(s.t.Context(), sql, args...); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
}

// count returns the number sql counts, failing the test on an error.
func (s *server) count(sql string, args ...any) int64 {
	s.t.Helper()
	var n int64
	if err := s.admin.QueryRow(s.t.Context(), sql, args...).Scan(&n); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// tables returns the number of ttldb's tables in the test's schema.
func (s *server) tables() int64 {
	return s.count(`SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'ttldb\_%'`, s.schema)
}
