package bench

import (
	"runtime"
	"testing"

	"github.com/ttldb/ttldb"
)

// ---- LIKE beside STARTSWITH and CONTAINS (R13, issue 30) ----
//
// BenchmarkQueryLike counts, on BenchmarkQuery's store, the documents a
// prefix selects, written with STARTSWITH and with LIKE, side by side:
// on the indexed /status (the LIKE pattern's literal prefix is served by
// the index as STARTSWITH's is: each query examines about 100 documents),
// and on the unindexed /user (a scan of every document); and a pattern
// with no prefix, LIKE "%-08%" beside CONTAINS, also a scan. Each pair
// must count the same documents.

// likeQueries are the pairs of queries: a name, and the two texts.
var likeQueries = []struct{ name, like, other string }{
	{"prefix-indexed",
		`SELECT VALUE COUNT(1) FROM c WHERE c.status LIKE "s-000314%"`,
		`SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.status, "s-000314")`},
	{"prefix-scan",
		`SELECT VALUE COUNT(1) FROM c WHERE c.user LIKE "u-08%"`,
		`SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.user, "u-08")`},
	{"infix-scan",
		`SELECT VALUE COUNT(1) FROM c WHERE c.user LIKE "%-08%"`,
		`SELECT VALUE COUNT(1) FROM c WHERE CONTAINS(c.user, "-08")`},
}

func BenchmarkQueryLike(b *testing.B) {
	n := queryItems(b)
	d := newQueryDocs(n)
	c := queryStore(b, d)
	runtime.GC()
	for _, lq := range likeQueries {
		var counts [2]int
		var ran [2]bool
		for i, text := range []string{lq.like, lq.other} {
			q, err := ttldb.Prepare(text)
			if err != nil {
				b.Fatal(err)
			}
			name := "like"
			if i == 1 {
				name = "other"
			}
			b.Run(lq.name+"/"+name, func(b *testing.B) {
				ran[i] = true
				examined := 0
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					m, plan, err := ttldbCount(c, q, nil)
					if err != nil {
						b.Fatal(err)
					}
					counts[i], examined = m, examined+plan.Examined
				}
				b.StopTimer()
				b.ReportMetric(float64(examined)/float64(b.N), "examined/op")
			})
		}
		if ran[0] && ran[1] && counts[0] != counts[1] {
			b.Fatalf("%s: LIKE counted %d, the other %d", lq.name, counts[0], counts[1])
		}
	}
}
