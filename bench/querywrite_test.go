package bench

import (
	"runtime"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- a write right after a query (R13, issue 31) ----
//
// BenchmarkQueryWrite measures what a query costs the writes that follow
// it, on BenchmarkQuery's store (indexes on /status and /total), the
// service's pattern of reading and writing in turn:
//
//   - ttldb/write: UpsertJSON overwrites a random document with other
//     values at /status and /total (BenchmarkQueryIndex's writes: each
//     flips the document between its two versions), so that both indexes
//     change, one write an operation;
//   - ttldb/eq+write: the indexed equality of BenchmarkQuery (10 documents,
//     through /status), then the same write: one of each an operation.
//     The writes move documents out of their status (version 1 has
//     another), so a query returns 10 documents or a few fewer.
//
// Both report write-ns/op, the time of the write alone, read around it
// with time.Now, which costs both the same few tens of nanoseconds: a
// snapshot that made each write after a query copy the index nodes on its
// paths showed as eq+write's write-ns above write's. ns/op and B/op are
// the whole operation's. When it ends, the documents are as Append(i, 0)
// makes them again.
func BenchmarkQueryWrite(b *testing.B) {
	b.Run("ttldb", func(b *testing.B) {
		n := queryItems(b)
		d := newQueryDocs(n)
		c := queryStore(b, d)
		q := prepareQueries(b)
		p := newQueryParams(d)
		version := make([]uint8, n)
		b.Cleanup(func() { restoreVersions(b, c, d, version) })
		runtime.GC()
		// loop runs b.N operations: with query set, the equality and then
		// a write, else the write alone.
		loop := func(b *testing.B, query bool) {
			buf := make([]byte, 0, 256)
			r, rq := newRNG(20), newRNG(21)
			var inWrite time.Duration
			rows := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if query {
					page, err := c.Query(bg, ttldb.SQL{Prepared: q.eq, Params: p.eq[rq.intn(len(p.eq))]})
					if err != nil {
						b.Fatal(err)
					}
					rows += len(page.Results)
				}
				i := r.intn(n)
				version[i] ^= 1
				buf = d.Append(buf[:0], i, int(version[i]))
				t0 := time.Now()
				if _, err := c.UpsertJSON(bg, buf); err != nil {
					b.Fatal(err)
				}
				inWrite += time.Since(t0)
			}
			b.StopTimer()
			if query && (rows == 0 || rows > eqRows*b.N) {
				b.Fatalf("%d queries returned %d results, want up to %d each, some", b.N, rows, eqRows)
			}
			b.ReportMetric(float64(inWrite.Nanoseconds())/float64(b.N), "write-ns/op")
		}
		b.Run("write", func(b *testing.B) { loop(b, false) })
		b.Run("eq+write", func(b *testing.B) { loop(b, true) })
	})
}

// restoreVersions writes back version 0 of every document of c that
// version says the benchmark left at version 1, or drops the store.
func restoreVersions(b *testing.B, c *ttldb.Collection, d *queryDocs, version []uint8) {
	var buf []byte
	var err error
	for i, v := range version {
		if v != 0 {
			buf = d.Append(buf[:0], i, 0)
			if _, err = c.UpsertJSON(bg, buf); err != nil {
				break
			}
		}
	}
	if err != nil || b.Failed() {
		b.Logf("dropping the query store: %v", err)
		dropCached()
	}
}
