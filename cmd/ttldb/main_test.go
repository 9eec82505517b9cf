package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// The tests build the binary once and run it, as an operator would: its
// stdout, stderr and exit code are what they check.

var build struct {
	once sync.Once
	path string
	err  error
	dir  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
	os.Exit(code)
}

// binary returns the path of the built ttldb, building it at the first
// call; or that of $TTLDB_CLI_BINARY, built beforehand (to run the tests
// as a user without the Go toolchain's caches, or against another build).
func binary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("TTLDB_CLI_BINARY"); p != "" {
		return p
	}
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "ttldb-cli-test")
		if build.err != nil {
			return
		}
		build.path = filepath.Join(build.dir, "ttldb")
		out, err := exec.Command("go", "build", "-o", build.path, ".").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// result is what a run of the binary gave.
type result struct {
	stdout, stderr string
	code           int
}

// ttl runs the binary with args and stdin (none if empty).
func ttl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Stdin = bytes.NewBufferString(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running ttldb %q: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// clock is a test's clock, which it moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// t0 is where the tests' clocks start: in the past, so that a _ts the
// binary stamps with the real clock is later.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// collection makes a durable collection in a new directory, with the
// test's clock, and writes docs (JSON texts); it returns the directory
// and the open collection, which the test closes before it runs the
// binary.
func collection(t *testing.T, clk *clock, def ttldb.DefaultTTL, docs ...string) (string, *ttldb.Collection) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "coll")
	c, err := ttldb.Open(context.Background(), "file:"+dir, &ttldb.Options{
		Name: "sessions", PartitionKeyPath: "/tenant", DefaultTTL: def,
		Now: clk.Now, ManualSweep: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, d := range docs {
		if _, err := c.UpsertJSON(context.Background(), []byte(d)); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
	return dir, c
}

// mustClose closes c.
func mustClose(t *testing.T, c *ttldb.Collection) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// want checks a result's exit code, and that its stdout and stderr hold
// the given texts.
func (r result) want(t *testing.T, code int, inStdout, inStderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range inStdout {
		if !bytes.Contains([]byte(r.stdout), []byte(s)) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range inStderr {
		if !bytes.Contains([]byte(r.stderr), []byte(s)) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
