package bench

import (
	"flag"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- JOIN, DISTINCT and subqueries (R13, issue 30): ttldb alone ----
//
// A store of its own of -joinitems documents (100,000 by default), each
// with three tags of 50 names and a weight, beside the fields of the
// unindexed filter of BenchmarkQuery:
//
//	{"id":"key:0000000042","pk":"g-0000000000","user":"u-0815","qty":17,
//	 "tags":[{"name":"t-07","w":3},{"name":"t-42","w":1},{"name":"t-13","w":9}]}
//
// Each query reads every document (no index serves it); the figures are
// meant as ratios to the first, the unindexed filter.

var joinItems = flag.Int("joinitems", 100_000, "documents of BenchmarkQueryJoin's store")

const (
	joinTags    = 50 // tag names t-00 ... t-49
	joinWeights = 10 // weights 0 ... 9
)

// joinDoc appends document i of the join store.
func joinDoc(dst []byte, i int) []byte {
	dst = append(dst, `{"id":"key:`...)
	dst = appendPadded(dst, i, 10)
	dst = append(dst, `","pk":"g-`...)
	dst = appendPadded(dst, i/batchOps, 10)
	dst = append(dst, `","user":"u-`...)
	dst = appendPadded(dst, int(mix(uint64(i)*4+2)%userValues), 4)
	dst = append(dst, `","qty":`...)
	dst = strconv.AppendInt(dst, int64(mix(uint64(i)*4+3)%qtyValues), 10)
	dst = append(dst, `,"tags":[`...)
	for k := range 3 {
		if k > 0 {
			dst = append(dst, ',')
		}
		h := mix(uint64(i)*8 + uint64(k) + 100)
		dst = append(dst, `{"name":"t-`...)
		dst = appendPadded(dst, int(h%joinTags), 2)
		dst = append(dst, `","w":`...)
		dst = strconv.AppendInt(dst, int64(h>>8%joinWeights), 10)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// BenchmarkQueryJoin runs, on the join store, side by side: the unindexed
// filter of BenchmarkQuery (a COUNT); a COUNT over a JOIN with a filter on
// the tags; DISTINCT over a JOIN with a filter; DISTINCT of a document's
// path with a filter; a COUNT of the documents an EXISTS subquery over the
// tags keeps. Each query's result is checked against a count in
// Go before the timing.
func BenchmarkQueryJoin(b *testing.B) {
	n := *joinItems
	c, err := ttldb.NewCollection("join", "/pk", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	Fill(&ttldbStore{c: c}, n, func(i int, buf []byte) (string, []byte, time.Duration) {
		return "", joinDoc(buf, i), longTTL
	})
	// What the queries must give, counted in Go from the generator.
	var users [userValues]bool
	tagged, names, having := 0, map[string]bool{}, 0
	filtered := 0
	const user, qty, tag, w = 815, 50, 7, 5
	for i := range n {
		u, q := int(mix(uint64(i)*4+2)%userValues), int(mix(uint64(i)*4+3)%qtyValues)
		if u == user && q > qty {
			filtered++
		}
		if q > qty {
			users[u] = true
		}
		has := false
		for k := range 3 {
			h := mix(uint64(i)*8 + uint64(k) + 100)
			if int(h>>8%joinWeights) > w {
				names[fmt.Sprint(h%joinTags)] = true
				if int(h%joinTags) == tag {
					tagged++
					has = true
				}
			}
		}
		if has {
			having++
		}
	}
	distinctUsers := 0
	for _, ok := range users {
		if ok {
			distinctUsers++
		}
	}
	params := map[string]any{"user": userText(user), "qty": qty, "tag": fmt.Sprintf("t-%02d", tag), "w": w}
	for _, q := range []struct {
		name, text string
		count      bool // the result is a COUNT, else results to count
		want       int
		use        []string
	}{
		{"filter", `SELECT VALUE COUNT(1) FROM c WHERE c.user = @user AND c.qty > @qty`, true, filtered, []string{"user", "qty"}},
		{"join", `SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags WHERE t.name = @tag AND t.w > @w`, true, tagged, []string{"tag", "w"}},
		{"join-distinct", `SELECT DISTINCT VALUE t.name FROM c JOIN t IN c.tags WHERE t.w > @w`, false, len(names), []string{"w"}},
		{"distinct", `SELECT DISTINCT VALUE c.user FROM c WHERE c.qty > @qty`, false, distinctUsers, []string{"qty"}},
		{"exists", `SELECT VALUE COUNT(1) FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.name = @tag AND t.w > @w)`, true, having, []string{"tag", "w"}},
	} {
		p, err := ttldb.Prepare(q.text)
		if err != nil {
			b.Fatal(err)
		}
		ps := map[string]any{}
		for _, k := range q.use {
			ps[k] = params[k]
		}
		run := func() int {
			page, err := c.Query(bg, ttldb.SQL{Prepared: p, Params: ps})
			if err != nil {
				b.Fatal(err)
			}
			if !q.count {
				return len(page.Results)
			}
			m, err := strconv.Atoi(string(page.Results[0]))
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
		if got := run(); got != q.want {
			b.Fatalf("%s: %d, want %d", q.text, got, q.want)
		}
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				sink.Add(int64(run()))
			}
		})
	}
}
