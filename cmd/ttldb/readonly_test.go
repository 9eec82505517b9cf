package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
)

// hashes returns the names of dir's entries, each with the SHA-256 of
// its bytes (a directory's: "dir").
func hashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		if e.IsDir() {
			m[e.Name()] = "dir"
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		m[e.Name()] = hex.EncodeToString(h[:])
	}
	return m
}

// sameFiles fails t when dir's files are not those of before, byte for
// byte.
func sameFiles(t *testing.T, what, dir string, before map[string]string) {
	t.Helper()
	after := hashes(t, dir)
	for name, h := range before {
		if after[name] != h {
			t.Errorf("%s changed %s (sha256 %.12s, was %.12s)", what, name, after[name], h)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s made %s", what, name)
		}
	}
}

// readers are the commands that only read, with the arguments after DIR.
var readers = [][]string{
	{"stats"},
	{"stats", "--format", "json"},
	{"get", "t", "a"},
	{"query", "SELECT VALUE c.id FROM c"},
	{"dump"},
	{"backup", "-"},
	{"verify"},
}

// runReader runs a reading command on dir.
func runReader(t *testing.T, dir string, args []string) result {
	t.Helper()
	return ttl(t, "", append([]string{args[0], dir}, args[1:]...)...)
}

// R17, R12, R4: the commands that only read open a directory read-only
// even when no other process has it open: they write nothing to it (not
// the clock an open records, nor the cut of a torn tail), so its files
// are byte for byte what they were. A torn tail is reported on stderr and
// left out, as an open would cut it; a read-write open then cuts it.
func TestReadersWriteNothing(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLSeconds(3600), `{"id":"a","tenant":"t","ttl":-1}`, `{"id":"b","tenant":"t","ttl":5}`)
	mustClose(t, c)
	before := hashes(t, dir)
	for _, args := range readers {
		runReader(t, dir, args).want(t, 0, nil, nil)
		sameFiles(t, strings.Join(args, " "), dir, before)
	}

	// A torn tail: a write a crash interrupted.
	log := filepath.Join(dir, "log-0000000000000000")
	lb, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, append(lb, 1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	before = hashes(t, dir)
	for _, args := range readers {
		r := runReader(t, dir, args)
		r.want(t, 0, nil, nil)
		if args[0] == "verify" {
			r.want(t, 0, []string{"torn tail: " + log}, nil)
		} else {
			r.want(t, 0, nil, []string{"warning: torn tail: " + log, "leaves out"})
		}
		sameFiles(t, strings.Join(args, " ")+" of a torn tail", dir, before)
	}
	ttl(t, "", "get", dir, "t", "a").want(t, 0, []string{`"id":"a"`}, nil)
	ttl(t, "", "put", dir, `{"id":"c","tenant":"t"}`).want(t, 0, nil, nil)
	if after, _ := os.ReadFile(log); len(after) < len(lb) || string(after[:len(lb)]) != string(lb) || len(after) == len(lb)+3 {
		t.Errorf("a read-write open did not cut the torn tail: %d bytes, were %d and 3 torn", len(after), len(lb))
	}
}

// R17, R12: a directory the user cannot write (mode 0500, its files
// 0400: a copy kept read-only, another user's files) is read by the
// commands that only read, which open it read-only and write nothing;
// verify, which locks it, and a command that writes are refused, naming
// the directory and why.
func TestReadersOfADirectoryTheyCannotWrite(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("skipped as root, whom a directory's mode does not stop: run it as another user (the binary built beforehand, in $TTLDB_CLI_BINARY)")
	}
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff(), `{"id":"a","tenant":"t"}`)
	mustClose(t, c)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.Chmod(filepath.Join(dir, e.Name()), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) }) // for TempDir's removal
	before := hashes(t, dir)
	for _, args := range readers[:len(readers)-1] {
		runReader(t, dir, args).want(t, 0, nil, nil)
		sameFiles(t, strings.Join(args, " "), dir, before)
	}
	ttl(t, "", "get", dir, "t", "a").want(t, 0, []string{`"id":"a"`}, nil)
	// verify locks the directory, and says why it cannot.
	ttl(t, "", "verify", dir).want(t, 1, nil, []string{dir, "permission denied", "as the directory's owner"})
	ttl(t, "", "put", dir, `{"id":"b","tenant":"t"}`).want(t, 1, nil, []string{dir, "permission denied"})
	sameFiles(t, "verify and put", dir, before)
}
