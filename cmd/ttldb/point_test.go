package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
)

// R17 (and R2, R4, R10): put writes one document from its argument or
// stdin and prints it with _ts and _etag; get prints documents by
// partition key and ids; delete deletes; a missing id is named on stderr
// with exit code 1; bad input is refused naming the argument.
func TestGetPutDelete(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	// A new directory needs a name and a partition-key path.
	ttl(t, "", "put", dir, `{"id":"a","tenant":"t"}`).want(t, 1, nil, []string{"needs Options.Name"})
	r := ttl(t, "", "put", "--collection", "s", "--partition-key", "/tenant", "--default-ttl", "600", dir, `{"id":"a","tenant":"t","ttl":60}`)
	r.want(t, 0, []string{`{"id":"a","tenant":"t","ttl":60,"_ts":`, `"_etag":`}, nil)
	ttl(t, `{"id":"b","tenant":"t","n":1}`, "put", dir).want(t, 0, []string{`"n":1`}, nil)
	ttl(t, `{"id":"k","tenant":7}`, "put", dir).want(t, 0, nil, nil)
	ttl(t, "", "put", "--create", dir, `{"id":"b","tenant":"t"}`).want(t, 1, nil, []string{"DOCUMENT", "conflict"})
	ttl(t, "", "put", dir, `{"id":"c","tenant":"t"`).want(t, 1, nil, []string{"DOCUMENT: not JSON text"})
	ttl(t, `{"id":"c","tenant":"t","ttl":0}`, "put", dir).want(t, 1, nil, []string{"stdin", "ttl"})
	ttl(t, "", "put", dir, `{"id":"a/b","tenant":"t"}`).want(t, 1, nil, []string{"DOCUMENT", "invalid id"})

	r = ttl(t, "", "get", dir, "t", "a", "b")
	r.want(t, 0, nil, nil)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("get a b printed %d lines:\n%s", len(lines), r.stdout)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &doc); err != nil || doc["id"] != "b" || doc["_ts"] == nil || doc["_etag"] == nil {
		t.Errorf("get b: %s (%v)", lines[1], err)
	}
	ttl(t, "", "get", "--pk-json", dir, "7", "k").want(t, 0, []string{`"tenant":7`}, nil)
	ttl(t, "", "get", dir, "7", "k").want(t, 1, nil, []string{`ID "k": not found`}) // the string "7"
	ttl(t, "", "get", "--pk-json", dir, "{", "k").want(t, 1, nil, []string{`PK "{": not one JSON value`})
	ttl(t, "", "get", dir, "t", "a", "zz").want(t, 1, []string{`"id":"a"`}, []string{`ID "zz": not found`, "1 of 2 documents not found"})

	ttl(t, "", "delete", dir, "t", "a").want(t, 0, nil, nil)
	ttl(t, "", "delete", dir, "t", "a").want(t, 1, nil, []string{`ID "a": not found`})
	ttl(t, "", "get", dir, "t", "a").want(t, 1, nil, []string{`ID "a": not found`})
	ttl(t, "", "get", dir, "t", "b").want(t, 0, []string{`"id":"b"`}, nil)
	// The settings were the put's: DefaultTTL 600.
	ttl(t, "", "stats", dir).want(t, 0, []string{"600 s"}, nil)
}

// R17: documents without a partition key (the "none" partition) are named
// with --no-pk.
func TestNoPartitionKey(t *testing.T) {
	clk := &clock{now: t0}
	dir, c := collection(t, clk, ttldb.TTLOff(), `{"id":"x"}`)
	mustClose(t, c)
	ttl(t, "", "get", "--no-pk", dir, "x").want(t, 0, []string{`{"id":"x",`}, nil)
	ttl(t, "", "get", dir, "x").want(t, 2, nil, []string{"--no-pk"})
	ttl(t, "", "delete", "--no-pk", dir, "x").want(t, 0, nil, nil)
}

// R17, R10: put's document on stdin may start with a UTF-8 byte order
// mark, which is skipped; stdin longer than a document can be is refused
// without being read whole (ErrTooLarge's message).
func TestPutFromStdinBOMAndSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	ttl(t, "\ufeff"+`{"id":"a","tenant":"t"}`+"\n", "put", "--collection", "s", "--partition-key", "/tenant", dir).want(t, 0, []string{`{"id":"a","tenant":"t","_ts":`}, nil)
	big := `{"id":"b","tenant":"t","s":"` + strings.Repeat("x", maxLine) + `"}`
	ttl(t, big, "put", dir).want(t, 1, nil, []string{"stdin: longer than", "document too large"})
}
