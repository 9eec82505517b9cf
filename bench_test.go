package ttldb

import (
	"encoding/json"
	"fmt"
	"testing"
)

// These micro-benchmarks measure the library's own paths on a small
// collection; bench/ measures ttldb against its peers at 1,000,000 items.

// benchDoc is a document of about 200 bytes, like bench/'s.
func benchDoc(i int) []byte {
	return fmt.Appendf(nil, `{"id":"key:%010d","pk":"p%d","ttl":3600,"user":"someone@example.com","kind":"session","roles":["reader","writer"],"note":"%0100d"}`, i, i%100, i)
}

func BenchmarkParseDocument(b *testing.B) {
	src := benchDoc(42)
	buf := make([]byte, 0, 512)
	var kb keyBuffer
	path := []string{"pk"}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parseDocument(buf, kb[:0], src, path); err != nil {
			b.Fatal(err)
		}
	}
}

func benchCollection(b *testing.B, n int) (*Collection, [][]byte) {
	b.Helper()
	// The background sweeper, as in production; nothing is due.
	c, err := NewCollection("bench", "/pk", &Options{DefaultTTL: TTLNoDefault()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	docs := make([][]byte, n)
	for i := range docs {
		docs[i] = benchDoc(i)
		if _, err := c.Create(docs[i]); err != nil {
			b.Fatal(err)
		}
	}
	return c, docs
}

func BenchmarkUpsert(b *testing.B) {
	c, docs := benchCollection(b, 100_000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := c.Upsert(docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkGet(b *testing.B) {
	c, docs := benchCollection(b, 100_000)
	pks, ids := make([]PartitionKey, len(docs)), make([]string, len(docs))
	for i := range docs {
		pks[i], ids[i] = StringKey(fmt.Sprint("p", i%100)), fmt.Sprintf("key:%010d", i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		d, err := c.Get(pks[i%len(docs)], ids[i%len(docs)])
		if err != nil || len(d.Body()) == 0 {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkSweepNothingDue(b *testing.B) {
	c, _ := benchCollection(b, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Sweep(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchSession is benchDoc's document as a Go struct.
type benchSession struct {
	ID    string   `json:"id"`
	PK    string   `json:"pk"`
	TTL   *int     `json:"ttl,omitempty"`
	User  string   `json:"user"`
	Kind  string   `json:"kind"`
	Roles []string `json:"roles"`
	Note  string   `json:"note"`
}

// BenchmarkDecode compares, on one 200-byte document: encoding/json's
// Unmarshal of the body alone (the floor), the typed Get (Get plus that
// decode), and Get plus Document.Decode (which adds _ts and _etag first).
func BenchmarkDecode(b *testing.B) {
	c, docs := benchCollection(b, 1000)
	const i = 42
	pk, id := StringKey(fmt.Sprint("p", i%100)), fmt.Sprintf("key:%010d", i)
	b.Run("json.Unmarshal", func(b *testing.B) {
		body := docs[i]
		b.ReportAllocs()
		for b.Loop() {
			var s benchSession
			if err := json.Unmarshal(body, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Typed.Get", func(b *testing.B) {
		sessions, err := NewTyped[benchSession](c)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sessions.Get(pk, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get+Document.Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := c.Get(pk, id)
			var s benchSession
			if err == nil {
				err = d.Decode(&s)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
