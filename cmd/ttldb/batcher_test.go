package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
)

// R10, R17: load finds a document's partition key, to batch it with its
// neighbours, as the engine does: at the path's segments, none when it is
// absent, and not at all (ok false) when the document is not an object or
// the value cannot be a key, which the engine then refuses.
func TestPartitionKeyOfLine(t *testing.T) {
	for _, c := range []struct {
		path, doc string
		want      ttldb.PartitionKey
		ok        bool
	}{
		{"/t", `{"id":"a","t":"x"}`, ttldb.StringKey("x"), true},
		{"/t", `{"t":7,"id":"a"}`, ttldb.NumberKey(7), true},
		{"/t", `{"id":"a","t":null}`, ttldb.NullKey(), true},
		{"/t", `{"id":"a","t":true}`, ttldb.BoolKey(true), true},
		{"/t", `{"id":"a"}`, ttldb.NoPartitionKey(), true},
		{"/a/b", `{"id":"a","x":{"b":1},"a":{"c":[1,{}],"b":"deep"}}`, ttldb.StringKey("deep"), true},
		{"/a/b", `{"id":"a","a":{"c":2}}`, ttldb.NoPartitionKey(), true},
		{"/a/b", `{"id":"a","a":3}`, ttldb.NoPartitionKey(), true},
		{"/t", `{"id":"a","t":{"x":1}}`, ttldb.PartitionKey{}, false},
		{"/t", `{"id":"a","t":[1]}`, ttldb.PartitionKey{}, false},
		{"/t", `[1]`, ttldb.PartitionKey{}, false},
		{"/t", `{"id":"a","t":`, ttldb.PartitionKey{}, false},
	} {
		got, ok := partitionKey([]byte(c.doc), strings.Split(c.path[1:], "/"))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("partitionKey(%s, %s) = %v, %v; want %v, %v", c.doc, c.path, got, ok, c.want, c.ok)
		}
	}
}

// R17, R14: load's batches give what writing each line alone gives: the
// documents of interleaved and nested partition keys all stored, a
// repeated key's last line kept, and a line the engine refuses stopping
// the load there, with the lines before it stored and the batch it was in
// written up to it.
func TestLoadBatches(t *testing.T) {
	into := filepath.Join(t.TempDir(), "into")
	var in strings.Builder
	for i := range 450 {
		pk := fmt.Sprint(i / 150) // runs of 150: batches of 100 and 50
		if i%7 == 0 {
			pk = `"s"` // and a string key interleaved
		}
		fmt.Fprintf(&in, `{"id":"d%d","o":{"k":%s},"v":%d}`+"\n", i, pk, i)
	}
	fmt.Fprintf(&in, `{"id":"d1","o":{"k":0},"v":"again"}`+"\n")
	ttl(t, in.String(), "load", "--collection", "c", "--partition-key", "/o/k", into).want(t, 0, nil, []string{"loaded 451 documents"})
	ttl(t, "", "query", into, "SELECT VALUE COUNT(1) FROM c").want(t, 0, []string{"450\n"}, nil)
	ttl(t, "", "query", into, `SELECT VALUE c.v FROM c WHERE c.id = "d1"`).want(t, 0, []string{`"again"`}, nil)
	ttl(t, "", "get", "--pk-json", into, `"s"`, "d7").want(t, 0, []string{`"v":7`}, nil)

	bad := `{"id":"e1","o":{"k":1}}
{"id":"e2","o":{"k":1}}
{"id":"e3","o":{"k":1},"ttl":0}
{"id":"e4","o":{"k":1}}
`
	ttl(t, bad, "load", into).want(t, 1, nil, []string{"stdin line 3", "ttl", "(2 documents loaded before it)"})
	ttl(t, "", "get", "--pk-json", into, "1", "e1", "e2").want(t, 0, nil, nil)
	ttl(t, "", "get", "--pk-json", into, "1", "e4").want(t, 1, nil, nil)
}

// R10, R17: on any input, load's quick reading of a partition key does not
// panic, and when it is sure of a valid document's key, it is the key
// encoding/json finds.
func FuzzPartitionKeyOfLine(f *testing.F) {
	for _, s := range []string{`{"id":"a","t":"x"}`, `{"t":7}`, `{"a":{"b":null}}`, `{"a":[1,{"b":2}],"b":"q"}`, `{"t":"\u0041"}`, `{"\u0074":1}`, `{"t":-1.5e3}`, `{"t":}`, `{"t"`, `{`, ``, `{"a":{}}`} {
		f.Add(s, "/t")
		f.Add(s, "/a/b")
	}
	f.Fuzz(func(t *testing.T, doc, path string) {
		if !strings.HasPrefix(path, "/") {
			return
		}
		segs := strings.Split(path[1:], "/")
		pk, ok, sure := quickKey([]byte(doc), segs)
		partitionKey([]byte(doc), segs)
		if !sure || !json.Valid([]byte(doc)) {
			return
		}
		want, wok := decodeKey([]byte(doc), segs)
		if ok != wok || (ok && pk != want) {
			t.Fatalf("quickKey(%s, %s) = %v, %v; encoding/json finds %v, %v", doc, path, pk, ok, want, wok)
		}
	})
}
