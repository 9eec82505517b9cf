package ttldb

import (
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/ttldb/ttldb/internal/jsonscan"
)

// These micro-benchmarks measure the library's own paths on a small
// collection; bench/ measures ttldb against its peers at 1,000,000 items.

// benchDoc is a document of about 200 bytes, like bench/'s.
func benchDoc(i int) []byte {
	return fmt.Appendf(nil, `{"id":"key:%010d","pk":"p%d","ttl":3600,"user":"someone@example.com","kind":"session","roles":["reader","writer"],"note":"%0100d"}`, i, i%100, i)
}

// sessionDoc is bench/'s document: many short members, as a session or a
// token record has, rather than benchDoc's one long string.
const sessionDoc = jsonscan.SessionDoc

// BenchmarkParseDocument measures the scan and validation of a write's
// document (internal/jsonscan, intake.go): benchDoc (long) and
// sessionDoc (short members), partitioned by /pk and by /id, and two
// variants of sessionDoc: with a character beyond ASCII, and with white
// space, which the fast path leaves to the full scanner.
func BenchmarkParseDocument(b *testing.B) {
	for _, bc := range []struct {
		name string
		src  []byte
		path []string
	}{
		{"long", benchDoc(42), []string{"pk"}},
		{"session", []byte(sessionDoc), []string{"id"}},
		// Text beyond ASCII near the end, which the fast path takes (it gave
		// up there once, and the full scanner read the text again), and white
		// space, which it leaves at the first byte.
		{"session_late_nonascii", []byte(strings.Replace(sessionDoc, `"b/1"`, `"b/é"`, 1)), []string{"id"}},
		{"session_spaced", []byte(strings.ReplaceAll(sessionDoc, `,"`, `, "`)), []string{"id"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 512)
			var kb keyBuffer
			b.SetBytes(int64(len(bc.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := parseDocument(buf, kb[:0], bc.src, bc.path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchCollection(b *testing.B, n int) (*Collection, [][]byte) {
	b.Helper()
	return benchCollectionWith(b, n, FeedOptions{})
}

// benchCollectionWith returns a collection of n documents of benchDoc,
// with the change feed set by feed, and the documents.
func benchCollectionWith(b *testing.B, n int, feed FeedOptions) (*Collection, [][]byte) {
	b.Helper()
	// The background sweeper, as in production; nothing is due.
	c, err := NewCollection("bench", "/pk", &Options{DefaultTTL: TTLNoDefault(), Feed: feed})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	docs := make([][]byte, n)
	for i := range docs {
		docs[i] = benchDoc(i)
		if _, err := c.Create(bg, docs[i]); err != nil {
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
		if _, err := c.Upsert(bg, docs[i%len(docs)]); err != nil {
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
		d, err := c.Get(bg, pks[i%len(docs)], ids[i%len(docs)])
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
		if _, err := c.Sweep(bg); err != nil {
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
			if _, err := sessions.Get(bg, pk, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get+Document.Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := c.Get(bg, pk, id)
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

// BenchmarkOverwrite measures an overwrite of an existing key, which stores
// the new document in the key's entry in place, with no listing open and
// with one open, when the old document is kept for it.
func BenchmarkOverwrite(b *testing.B) {
	for _, open := range []bool{false, true} {
		b.Run(fmt.Sprint("listing-open=", open), func(b *testing.B) {
			c, docs := benchCollection(b, 100_000)
			if open {
				next, stop := iter.Pull2(c.All(bg, Query{}))
				defer stop()
				next() // the snapshot is taken, and stays open
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := c.UpsertJSON(bg, docs[i%len(docs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkGetBesideWriter times point reads of 1,000 documents, a set that
// stays in the caches, alone ("quiet") and while another goroutine deletes
// and creates other documents without pause ("writer"), as a writer or the
// sweeper does on another core. A read takes no lock and loads no cache line
// that a write changes (cacheLinePad), so with two cores or more the two
// should cost about the same; a field that a write changes on a line that
// a read loads makes every read wait for that line to come back.
func BenchmarkGetBesideWriter(b *testing.B) {
	const hot = 1000
	c, docs := benchCollection(b, 100_000)
	pks, ids := make([]PartitionKey, len(docs)), make([]string, len(docs))
	for i := range docs {
		pks[i], ids[i] = StringKey(fmt.Sprint("p", i%100)), fmt.Sprintf("key:%010d", i)
	}
	read := func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := c.Get(bg, pks[i%hot], ids[i%hot]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	b.Run("quiet", read)
	b.Run("writer", func(b *testing.B) {
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				j := hot + i%(len(docs)-hot)
				if err := c.Delete(bg, pks[j], ids[j]); err != nil {
					panic(err)
				}
				if _, err := c.Create(bg, docs[j]); err != nil {
					panic(err)
				}
			}
		}()
		defer func() { close(stop); <-done }()
		read(b)
	})
}
