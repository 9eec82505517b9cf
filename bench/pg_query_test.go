package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- a query on a secondary index, against the in-process engine ----

// pgQueries are BenchmarkPGQuery's queries, each returning 10 documents of
// 10,000, across partitions: name, text, and its parameters for a draw r
// in [0, 1000).
var pgQueries = []struct {
	name, text string
	params     func(r int) map[string]any
}{
	{"eq", "SELECT * FROM c WHERE c.grp = @g", func(r int) map[string]any { return map[string]any{"g": grpOf(r)} }},
	{"range", "SELECT * FROM c WHERE c.n >= @lo AND c.n < @hi", func(r int) map[string]any {
		return map[string]any{"lo": r * 10, "hi": r*10 + 10}
	}},
	{"order", "SELECT TOP 10 * FROM c WHERE c.n >= @lo ORDER BY c.n", func(r int) map[string]any {
		return map[string]any{"lo": r * 10}
	}},
}

// grpOf is the value of /grp of the documents i with i % 1000 == r.
func grpOf(r int) string { return fmt.Sprintf("v-%04d", r) }

// BenchmarkPGQuery measures, per store (mem, dir with SyncAlways, pg; see
// BenchmarkPG), on 10,000 documents (BenchmarkPG's, with members grp, one
// of 1,000 strings, 10 documents each spread over partitions, and n, the
// document's number), with secondary indexes on /grp and /n, then with
// them dropped (noindex/...):
//
//   - eq: SELECT * FROM c WHERE c.grp = @g, across partitions: 10
//     documents;
//   - range: WHERE c.n >= @lo AND c.n < @hi: 10 documents;
//   - order: SELECT TOP 10 * ... WHERE c.n >= @lo ORDER BY c.n.
//
// Each reports ops/s, the queries (prepared, random parameters) over the
// wall time, and checks it got 10 documents.
func BenchmarkPGQuery(b *testing.B) {
	for _, store := range pgMeasureStores {
		b.Run(store, func(b *testing.B) {
			dropCached()
			c, _, analyze := openMeasured(b, store, ttldb.Options{
				Name: "query", PartitionKeyPath: "/pk", DefaultTTL: ttldb.TTLNoDefault(), ManualSweep: true,
				Indexes: []string{"/grp", "/n"},
			})
			defer func() {
				if err := c.Close(); err != nil {
					b.Errorf("Close: %v", err)
				}
			}()
			docs := newGroupDocs()
			fillBatches(b, c, 0, pgItems, pgPart, func(i int) ttldb.PartitionKey { return pgPartitions()[i/pgPart] },
				func(dst []byte, i int) []byte { return appendQueryDoc(docs, dst, i) })
			analyze()
			runQueries(b, c, "")
			for _, p := range c.Indexes() {
				if err := c.DropIndex(bg, p); err != nil {
					b.Fatalf("DropIndex %s: %v", p, err)
				}
			}
			analyze()
			runQueries(b, c, "noindex/")
		})
	}
}

// appendQueryDoc appends BenchmarkPG's document of item i with the members
// grp and n of BenchmarkPGQuery.
func appendQueryDoc(d *groupDocs, dst []byte, i int) []byte {
	dst = appendPGDoc(d, dst, i)
	dst = dst[:len(dst)-1] // the closing brace
	dst = fmt.Appendf(dst, `,"grp":%q,"n":%d}`, grpOf(i%1000), i)
	return dst
}

// runQueries runs each of pgQueries as a sub-benchmark named prefix and
// its name, checking the plan's index against the collection's.
func runQueries(b *testing.B, c *ttldb.Collection, prefix string) {
	for _, q := range pgQueries {
		b.Run(prefix+q.name, func(b *testing.B) {
			p, err := ttldb.Prepare(q.text)
			if err != nil {
				b.Fatal(err)
			}
			plan, err := c.Explain(bg, ttldb.SQL{Prepared: p, Params: q.params(0)})
			if err != nil {
				b.Fatalf("Explain: %v", err)
			}
			if (plan.Index != "") != (prefix == "") {
				b.Fatalf("%s: the plan reads index %q, with the collection's indexes %v", q.text, plan.Index, c.Indexes())
			}
			r := newRNG(5)
			b.ReportAllocs()
			t0 := time.Now()
			for b.Loop() {
				page, err := c.Query(bg, ttldb.SQL{Prepared: p, Params: q.params(r.intn(1000))})
				if err != nil || len(page.Results) != 10 {
					b.Fatalf("%s: %d results, %v; want 10", q.text, len(page.Results), err)
				}
			}
			opsPerSecond(b, t0)
		})
	}
}
