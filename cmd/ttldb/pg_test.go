package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgEnv gives the tests a PostgreSQL server (../../.ci/pg sets it).
const pgEnv = "TTLDB_TEST_PG"

// pgURL returns a postgres:// URL whose search_path is a new schema,
// dropped when the test ends, or skips t when pgEnv is unset.
func pgURL(t *testing.T) string {
	t.Helper()
	base := os.Getenv(pgEnv)
	if base == "" {
		t.Skipf("%s is unset: no PostgreSQL server; run ../../.ci/pg go test ./... (from cmd/ttldb/) to start a throwaway one", pgEnv)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema := "ttldb_cli_" + hex.EncodeToString(b[:])
	ctx := t.Context()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to %s: %v", pgEnv, err)
	}
	ident := pgx.Identifier{schema}.Sanitize()
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+ident); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(ctx, "DROP SCHEMA "+ident+" CASCADE"); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
		_ = admin.Close(ctx)
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// R17, R16: a postgres:// URL needs --collection, which the message says,
// before any connection is tried.
// A URL's password never appears in a message.
func TestPostgresNeedsCollection(t *testing.T) {
	r := ttl(t, "", "stats", "postgres://nobody:hunter2@127.0.0.1:1/none")
	r.want(t, 1, nil, []string{"postgres://nobody:xxxxx@127.0.0.1:1/none", "Options.Name"})
	if strings.Contains(r.stderr, "hunter2") {
		t.Errorf("the password is in the message: %s", r.stderr)
	}
	// Nor when the URL does not parse: a bad escape, a bad port, a space.
	for _, u := range []string{"postgres://u:s3c%zzret@127.0.0.1:1/db", "postgres://u:s3cret@127.0.0.1:x/db", "postgresql://u:s3c ret@127.0.0.1:1/db"} {
		r := ttl(t, "", "stats", "--collection", "c", u)
		if r.code == 0 || strings.Contains(r.stderr, "s3c") {
			t.Errorf("stats %s: exit %d, stderr %q: want a failure that hides the password", u, r.code, r.stderr)
		}
		r = ttl(t, "", "verify", u)
		if strings.Contains(r.stderr, "s3c") {
			t.Errorf("verify %s: the password is in the message: %q", u, r.stderr)
		}
	}
}

// R17, R16: every command works on a PostgreSQL collection, named by its
// URL and --collection: put makes it, load, get, query, dump, stats (no
// files), delete.
func TestPostgres(t *testing.T) {
	u := pgURL(t)
	ttl(t, "", "put", "--collection", "s", "--partition-key", "/tenant", "--default-ttl", "3600", u, `{"id":"a","tenant":"t","ttl":-1}`).
		want(t, 0, []string{`"id":"a"`, `"_ts":`}, nil)
	var in strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&in, `{"id":"d%d","tenant":"p%d","n":%d}`+"\n", i, i%7, i)
	}
	ttl(t, in.String(), "load", "--collection", "s", u).want(t, 0, nil, []string{"loaded 1000 documents"})
	ttl(t, "", "get", "--collection", "s", u, "t", "a").want(t, 0, []string{`"ttl":-1`}, nil)
	ttl(t, "", "query", "--collection", "s", u, "SELECT VALUE COUNT(1) FROM c WHERE c.n >= 500").want(t, 0, []string{"500\n"}, nil)
	d := ttl(t, "", "dump", "--collection", "s", u)
	d.want(t, 0, nil, nil)
	if n := strings.Count(d.stdout, "\n"); n != 1001 {
		t.Errorf("dump: %d lines, want 1001", n)
	}
	s := ttl(t, "", "stats", "--collection", "s", u)
	s.want(t, 0, []string{"partition key", "/tenant", "3600 s", "within the next hour", "1000"}, nil)
	if strings.Contains(s.stdout, "files") {
		t.Errorf("stats lists files for a server's collection:\n%s", s.stdout)
	}
	ttl(t, "", "delete", "--collection", "s", u, "t", "a").want(t, 0, nil, nil)
	ttl(t, "", "get", "--collection", "s", u, "t", "a").want(t, 1, nil, []string{`ID "a": not found`})
}
