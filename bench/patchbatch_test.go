package bench

import (
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- patch and transactional batch (R14): ttldb only ----
//
// A store of its own, of a tenth of -items (100,000 documents by default),
// partitioned by /pk: the documents of items i to i+99 (i a multiple of
// 100) share a partition key, so that a batch can write a whole partition.
// In the fast group, after the workloads of the full store (this file's
// name sorts after foreground_test.go): its build drops that store.

// batchOps is the size of a batch, and of a partition of the store.
const batchOps = 100

// batchItems is the size of the store of BenchmarkBatch and BenchmarkPatch:
// a tenth of -items, in whole partitions.
func batchItems() int { return max(items()/10, batchOps) / batchOps * batchOps }

// groupDocs builds the documents of the store: about 200 bytes, each with
// its id ("key:0000000042"), its partition key ("g-0000000000", item / 100),
// a ttl of an hour, a "count" for PatchIncrement and a "status" for
// PatchSet.
type groupDocs struct {
	tmpl       []byte
	idAt, pkAt int // the ten digits of the id and of the partition key
}

func newGroupDocs() *groupDocs {
	d := &groupDocs{}
	d.tmpl = append(d.tmpl, `{"id":"key:`...)
	d.idAt = len(d.tmpl)
	d.tmpl = append(d.tmpl, `0000000000","pk":"g-`...)
	d.pkAt = len(d.tmpl)
	d.tmpl = append(d.tmpl, `0000000000","ttl":3600,"count":0,"type":"session","user":"u-4711",`+
		`"status":"active","roles":["reader","writer"],"createdAt":"2026-11-21T22:24:00Z","device":{"os":"linux","app":"b/1"}}`...)
	return d
}

// Append appends the document of item i to dst.
func (d *groupDocs) Append(dst []byte, i int) []byte {
	n := len(dst)
	dst = append(dst, d.tmpl...)
	putDigits(dst[n+d.idAt:n+d.idAt+10], i)
	putDigits(dst[n+d.pkAt:n+d.pkAt+10], i/batchOps)
	return dst
}

// putDigits writes i into b as len(b) zero-padded digits.
func putDigits(b []byte, i int) {
	for j := len(b) - 1; j >= 0; j-- {
		b[j] = byte('0' + i%10)
		i /= 10
	}
}

// groupKeys returns the partition keys of the store's groups, a caller's
// own: group g holds items 100g to 100g+99.
func groupKeys() []ttldb.PartitionKey {
	keys := make([]ttldb.PartitionKey, batchItems()/batchOps)
	for g := range keys {
		var b [12]byte
		keys[g] = ttldb.StringKey(string(appendKey(b[:0], "g-", g)))
	}
	return keys
}

// batchStore returns the store of the workloads, built once per process.
func batchStore(b *testing.B) *ttldb.Collection {
	n := batchItems()
	s := cached(b, "batch/ttldb", func() Store {
		c, err := ttldb.NewCollection("bench", "/pk", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
		if err != nil {
			b.Fatal(err)
		}
		s := &ttldbStore{c: c}
		docs := newGroupDocs()
		Fill(s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
			return "", docs.Append(buf, i), longTTL
		})
		return s
	})
	return s.(*ttldbStore).c
}

// BenchmarkBatch writes the 100 documents of a random partition of the
// store, the documents as they are (upserts that replace them): as one
// transactional batch of 100 upserts (ttldb/batch: NewBatch, 100
// Batch.Upsert and ExecuteBatch), and as 100 calls of UpsertJSON
// (ttldb/singles). An operation is the 100 writes; ns/doc is its time per
// document.
func BenchmarkBatch(b *testing.B) {
	b.Run("ttldb", func(b *testing.B) {
		c := batchStore(b)
		keys := groupKeys()
		groups := len(keys)
		docs := newGroupDocs()
		buf := make([]byte, 0, 256)
		b.Run("batch", func(b *testing.B) {
			r := newRNG(5)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				g := r.intn(groups)
				batch := ttldb.NewBatch(keys[g])
				for i := g * batchOps; i < (g+1)*batchOps; i++ {
					buf = docs.Append(buf[:0], i)
					batch.Upsert(buf)
				}
				out, err := c.ExecuteBatch(bg, batch)
				if err != nil || len(out) != batchOps {
					b.Fatalf("ExecuteBatch: %d documents, %v", len(out), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchOps), "ns/doc")
		})
		b.Run("singles", func(b *testing.B) {
			r := newRNG(5)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				g := r.intn(groups)
				for i := g * batchOps; i < (g+1)*batchOps; i++ {
					buf = docs.Append(buf[:0], i)
					if _, err := c.UpsertJSON(bg, buf); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchOps), "ns/doc")
		})
	})
}

// BenchmarkPatch changes a random document of the store: a Patch of one
// member (ttldb/set: PatchSet of /status, to "idle" and back; ttldb/incr:
// PatchIncrement of /count by 1), against a ReplaceJSON of the whole
// document of about 200 bytes (ttldb/replace).
func BenchmarkPatch(b *testing.B) {
	b.Run("ttldb", func(b *testing.B) {
		c := batchStore(b)
		n := batchItems()
		ids, keys := Keys(n), groupKeys()
		set := [2][]ttldb.PatchOp{{ttldb.PatchSet("/status", "idle")}, {ttldb.PatchSet("/status", "active")}}
		incr := []ttldb.PatchOp{ttldb.PatchIncrement("/count", 1)}
		patch := func(b *testing.B, ops func(k int) []ttldb.PatchOp) {
			r := newRNG(6)
			b.ReportAllocs()
			b.ResetTimer()
			for k := range b.N {
				i := r.intn(n)
				if _, err := c.Patch(bg, keys[i/batchOps], ids[i], ops(k)); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run("set", func(b *testing.B) { patch(b, func(k int) []ttldb.PatchOp { return set[k&1] }) })
		b.Run("incr", func(b *testing.B) { patch(b, func(int) []ttldb.PatchOp { return incr }) })
		b.Run("replace", func(b *testing.B) {
			docs := newGroupDocs()
			if len(docs.tmpl) < 190 || len(docs.tmpl) > 230 {
				b.Fatalf("the document is %d bytes, want about 200", len(docs.tmpl))
			}
			buf := make([]byte, 0, 256)
			r := newRNG(6)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				buf = docs.Append(buf[:0], r.intn(n))
				if _, err := c.ReplaceJSON(bg, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}
