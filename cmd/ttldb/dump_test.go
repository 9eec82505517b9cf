package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ttldb/ttldb"
)

// R17 (and R4, R6): dump writes every live document a line with _ts and
// _etag; load writes them into a new directory, restamping _ts (the load
// is a write), with a progress line and a rate when asked; the documents
// come back the same but for their system properties. 100,000 documents,
// 2,000 with -short.
func TestDumpLoad(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 2_000
	}
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff())
	ctx := context.Background()
	for i := range n {
		doc := fmt.Sprintf(`{"id":"d%06d","tenant":"p%d","n":%d,"ttl":60,"s":"document \"%d\""}`, i, i%97, i, i)
		if _, err := c.UpsertJSON(ctx, []byte(doc)); err != nil {
			t.Fatal(err)
		}
	}
	mustClose(t, c)

	dump := ttl(t, "", "dump", dir)
	dump.want(t, 0, nil, nil)
	if dump.stderr != "" {
		t.Errorf("dump wrote to stderr without a terminal or --progress: %q", dump.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(dump.stdout, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("dump wrote %d lines, want %d", len(lines), n)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["_ts"] != float64(t0.Unix()) || first["_etag"] == nil {
		t.Fatalf("dump's first line lacks its system properties: %s", lines[0])
	}

	into := filepath.Join(t.TempDir(), "into")
	load := ttl(t, dump.stdout, "load", "--progress", "--collection", "copy", "--partition-key", "/tenant", into)
	load.want(t, 0, nil, []string{fmt.Sprintf("loaded %d documents\n", n), "documents/s"})
	// R12: the load ends with a snapshot, which the next open reads rather
	// than a log of every document.
	if snap, log := sizes(t, into, "snap-*"), sizes(t, into, "log-*"); snap <= log {
		t.Errorf("after the load, snapshots of %d bytes and logs of %d: not compacted", snap, log)
	}

	again := ttl(t, "", "dump", into)
	again.want(t, 0, nil, nil)
	back := strings.Split(strings.TrimSuffix(again.stdout, "\n"), "\n")
	if len(back) != n {
		t.Fatalf("the loaded collection dumps %d lines, want %d", len(back), n)
	}
	// A document's JSON ends with its system properties: the text before
	// them is the document as written.
	for i := range lines {
		a, aTS := splitSystem(t, lines[i])
		b, bTS := splitSystem(t, back[i])
		if a != b {
			t.Fatalf("line %d: %s after the load, %s before", i+1, back[i], lines[i])
		}
		if bTS <= aTS {
			t.Fatalf("line %d: _ts %d after the load, %d before: not restamped", i+1, bTS, aTS)
		}
	}
}

// splitSystem returns a dumped line's document before its system
// properties, and its _ts.
func splitSystem(t *testing.T, line string) (string, int64) {
	t.Helper()
	i := strings.LastIndex(line, `,"_ts":`)
	var ts int64
	if i < 0 || !strings.Contains(line[i:], `"_etag":"`) {
		t.Fatalf("no _ts and _etag at the end of %s", line)
	}
	if _, err := fmt.Sscanf(line[i:], `,"_ts":%d`, &ts); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return line[:i], ts
}

// R17: load takes Cosmos DB's export lines and drops the system properties
// ttldb does not have; a bad line stops it, named by its number, with
// those before it stored; --create refuses a document that exists.
func TestLoadLines(t *testing.T) {
	into := filepath.Join(t.TempDir(), "into")
	in := `{"id":"x","tenant":"t","_rid":"AbC=","_self":"dbs/AbC=/colls/AbC=/docs/AbC=/","_etag":"\"00000000-0000\"","_attachments":"attachments/","_ts":1700000000}

{"id":"y","tenant":"t"}
{"id":"z","tenant":"t",
{"id":"w","tenant":"t"}
`
	r := ttl(t, in, "load", "--collection", "c", "--partition-key", "/tenant", into)
	r.want(t, 1, nil, []string{"stdin line 4", "(2 documents loaded before it)"})
	if strings.Contains(r.stderr, "documents/s") {
		t.Errorf("progress without a terminal or --progress: %s", r.stderr)
	}
	g := ttl(t, "", "get", into, "t", "x", "y")
	g.want(t, 0, []string{`{"id":"x","tenant":"t","_ts":`, `{"id":"y","tenant":"t","_ts":`}, nil)
	if strings.Contains(g.stdout, "_rid") || strings.Contains(g.stdout, "1700000000") {
		t.Errorf("Cosmos DB's system properties were kept: %s", g.stdout)
	}
	ttl(t, "", "get", into, "t", "w").want(t, 1, nil, []string{`ID "w": not found`})
	ttl(t, `{"id":"y","tenant":"t"}`, "load", "--create", into).want(t, 1, nil, []string{"stdin line 1", "conflict"})
	ttl(t, `[1]`, "load", into).want(t, 1, nil, []string{"stdin line 1", "invalid document"})
	// A line with Cosmos DB's _rid (every export's) cut short after a
	// member, or followed by another object, is refused, not stored in part.
	ttl(t, `{"_rid":"x","id":"t1","tenant":"t","a":1,"b":2`, "load", into).want(t, 1, nil, []string{"stdin line 1", "closing }"})
	ttl(t, `{"_rid":"x","id":"t2","tenant":"t","a":1}{"id":"t3","tenant":"t"}`, "load", into).want(t, 1, nil, []string{"stdin line 1", "more than one JSON value"})
	ttl(t, "", "get", into, "t", "t1", "t2", "t3").want(t, 1, nil, []string{`ID "t1": not found`, `ID "t2": not found`, `ID "t3": not found`})
}

// R17, R16: an interrupt (SIGINT, Ctrl-C) stops a load cleanly: the
// documents before it are stored, the collection is closed (its directory
// opens again at once) and the exit code is 1.
func TestLoadInterrupt(t *testing.T) {
	into := filepath.Join(t.TempDir(), "into")
	cmd := exec.Command(binary(t), "load", "--progress", "--collection", "c", "--partition-key", "/tenant", into)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i := range 2048 {
		fmt.Fprintf(&in, `{"id":"d%d","tenant":"t"}`+"\n", i)
	}
	if _, err := io.WriteString(stdin, in.String()); err != nil {
		t.Fatal(err)
	}
	// The first progress line comes at the 1024th document: the load is
	// under way, and then waits for more input, which never comes.
	br := bufio.NewReader(stderr)
	if _, err := br.ReadString('/'); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	err = cmd.Wait()
	stdin.Close()
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1; stderr: %s", err, rest)
	}
	if !strings.Contains(string(rest), "interrupted") {
		t.Errorf("stderr lacks \"interrupted\": %s", rest)
	}
	s := ttl(t, "", "stats", into)
	s.want(t, 0, nil, nil)
	var live int
	for line := range strings.Lines(s.stdout) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "live" {
			fmt.Sscan(f[1], &live)
		}
	}
	if live < 1024 || live > 2048 {
		t.Errorf("%d documents stored, want 1024 to 2048:\n%s", live, s.stdout)
	}
}

// sizes returns the total size of dir's files that match pattern.
func sizes(t *testing.T, dir, pattern string) int64 {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range m {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += st.Size()
	}
	return n
}
