package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
)

// R17: backup to a file or stdout and restore from a file or stdin give the
// collection back: the same dump, documents with their _ts and _etag.
func TestBackupRestore(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLNoDefault(), // dump judges expiry by the real clock
		`{"id":"a","tenant":"x","n":1}`,
		`{"id":"b","tenant":"y","ttl":-1}`,
	)
	mustClose(t, c)
	want := ttl(t, "", "dump", dir)
	want.want(t, 0, []string{`"id":"a"`, `"id":"b"`}, nil)

	file := filepath.Join(t.TempDir(), "coll.backup")
	ttl(t, "", "backup", dir, file).want(t, 0, nil, []string{`backed up collection "sessions" (/tenant): 2 documents, LSN 2`})
	into := filepath.Join(t.TempDir(), "restored")
	ttl(t, "", "restore", file, into).want(t, 0, []string{`restored collection "sessions" (/tenant) into ` + into + `: 2 documents of the backup's LSN 2 (its own changes are numbered past a jump)`}, nil)
	if got := ttl(t, "", "dump", into); got.stdout != want.stdout {
		t.Errorf("the restore dumps\n%s\nthe original\n%s", got.stdout, want.stdout)
	}

	toStdout := ttl(t, "", "backup", dir, "-")
	toStdout.want(t, 0, nil, []string{"2 documents"})
	into2 := filepath.Join(t.TempDir(), "restored2")
	ttl(t, toStdout.stdout, "restore", "-", into2).want(t, 0, []string{"2 documents"}, nil)
	if got := ttl(t, "", "dump", into2); got.stdout != want.stdout {
		t.Errorf("the restore from stdin dumps\n%s\nthe original\n%s", got.stdout, want.stdout)
	}

	// An existing file is never replaced; a directory that holds files is
	// never restored into.
	ttl(t, "", "backup", dir, file).want(t, 1, nil, []string{file + " exists"})
	ttl(t, "", "restore", file, into).want(t, 1, nil, []string{"holds"})
	ttl(t, "", "backup", dir).want(t, 2, nil, []string{"missing arguments"})
	ttl(t, "", "restore", file).want(t, 2, nil, []string{"missing arguments"})
}

// R17: a backup cut short, or damaged, is refused by restore, which names
// the offset and leaves the directory without a collection.
func TestRestoreRefusesDamage(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff(), `{"id":"a","tenant":"x"}`)
	mustClose(t, c)
	b := ttl(t, "", "backup", dir, "-")
	b.want(t, 0, nil, nil)
	for _, bad := range []string{b.stdout[:len(b.stdout)-1], b.stdout[:len(b.stdout)/2], b.stdout[:10]} {
		into := filepath.Join(t.TempDir(), "r")
		ttl(t, bad, "restore", "-", into).want(t, 1, nil, []string{"stdin: damaged at offset", "holds no collection"})
		if ents, _ := os.ReadDir(into); len(ents) > 1 {
			t.Errorf("a refused restore left %d files", len(ents))
		}
	}
	flipped := []byte(b.stdout)
	flipped[40] ^= 1
	ttl(t, string(flipped), "restore", "-", filepath.Join(t.TempDir(), "r")).want(t, 1, nil, []string{"damaged at offset"})
}

// R17, R12: verify reads a directory and writes nothing; it reports a torn
// tail, and damage by file and offset; compact shrinks the files and keeps
// the documents.
func TestVerifyAndCompact(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff())
	for i := range 200 {
		if _, err := c.UpsertJSON(t.Context(), []byte(`{"id":"a","tenant":"x","n":`+strings.Repeat("1", i%50+1)+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, c)
	ttl(t, "", "verify", dir).want(t, 0, []string{`collection "sessions" (/tenant)`, "200 changes in the logs, 1 documents, last LSN 200", "log-0000000000000000", "ok"}, nil)

	before := ttl(t, "", "dump", dir).stdout
	ttl(t, "", "compact", dir).want(t, 0, []string{"compacted " + dir}, nil)
	if got := ttl(t, "", "dump", dir).stdout; got != before {
		t.Errorf("compact changed the documents:\n%s\nwere\n%s", got, before)
	}
	// (The log after the snapshot may hold a record of the clock, which
	// compact's open and close record: a change, of no document.)
	ttl(t, "", "verify", dir).want(t, 0, []string{"1 documents in the snapshot", "1 documents, last LSN 200", "ok"}, nil)

	log := filepath.Join(dir, "log-0000000000000001")
	lb, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	torn := append(lb, 1, 2, 3)
	if err := os.WriteFile(log, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	ttl(t, "", "verify", dir).want(t, 0, []string{"torn tail: " + log}, nil)
	if after, _ := os.ReadFile(log); len(after) != len(torn) {
		t.Errorf("verify changed %s: %d bytes, were %d", log, len(after), len(torn))
	}

	snap := filepath.Join(dir, "snap-0000000000000001")
	s, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	s[len(s)-5] ^= 1
	if err := os.WriteFile(snap, s, 0o644); err != nil {
		t.Fatal(err)
	}
	ttl(t, "", "verify", dir).want(t, 1, nil, []string{snap, "offset"})
	ttl(t, "", "verify").want(t, 2, nil, []string{"missing arguments"})
	ttl(t, "", "verify", t.TempDir()).want(t, 1, nil, []string{"holds no collection"})
}
