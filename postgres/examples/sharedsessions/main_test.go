package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMain runs replica api-2 when run() starts this test binary as it.
func TestMain(m *testing.M) {
	if u := os.Getenv(roleEnv); u != "" {
		if err := replica(context.Background(), u, os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The example runs whole against the test server, in a schema of its own:
// a session made by one process is served by the other, which renews it,
// and the other sees its logout in the change feed (R16, R11, R6).
func TestSharedSessions(t *testing.T) { // R16
	base := os.Getenv("TTLDB_TEST_PG")
	if base == "" {
		t.Skip("TTLDB_TEST_PG is unset: no PostgreSQL server; run ../../../.ci/pg go test ./... from postgres/examples/sharedsessions")
	}
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "ttldb_example_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		_ = conn.Close(context.Background())
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()

	var out strings.Builder
	if err := run(ctx, u.String(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"api-2: ready",
		"api-1: ana logs in: session s-42",
		"api-2: served a request of session s-42, made by api-1",
		"api-1: ana logs out",
		"api-2: saw session s-42 end in the change feed",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
}
