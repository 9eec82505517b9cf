package bench

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- JOIN, DISTINCT, subqueries and GROUP BY (R13, issue 30) ----
//
// A store of -joinitems documents (100,000 by default; issue 30's figures
// take 1,000,000), each with three tags of 50 names and a weight, beside
// the fields of the unindexed filter of BenchmarkQuery:
//
//	{"id":"key:0000000042","pk":"g-0000000000","user":"u-0815","qty":17,
//	 "tags":[{"name":"t-07","w":3},{"name":"t-42","w":1},{"name":"t-13","w":9}]}
//
// Each query reads every document (no index serves it); the figures are
// meant as ratios to the first, the unindexed filter, within a store, and
// as ratios of one store's to another's. The stores: ttldb (in memory),
// buntdb (the same documents; it has no query language, so each query is
// an Ascend over every item with gjson, buntdb's own JSON reader, and the
// query's logic in Go: join_bunt_test.go), and PostgreSQL (a plain table
// of jsonb on the server of TTLDB_BENCH_PG, the queries in its SQL;
// skipped without the variable: join_pg_test.go).

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
	dst = appendPadded(dst, joinUser(i), 4)
	dst = append(dst, `","qty":`...)
	dst = strconv.AppendInt(dst, int64(joinQty(i)), 10)
	dst = append(dst, `,"tags":[`...)
	for k := range 3 {
		if k > 0 {
			dst = append(dst, ',')
		}
		name, w := joinTag(i, k)
		dst = append(dst, `{"name":"t-`...)
		dst = appendPadded(dst, name, 2)
		dst = append(dst, `","w":`...)
		dst = strconv.AppendInt(dst, int64(w), 10)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

func joinUser(i int) int { return int(mix(uint64(i)*4+2) % userValues) }
func joinQty(i int) int  { return int(mix(uint64(i)*4+3) % qtyValues) }

// joinTag returns the name (its number) and weight of tag k of document i.
func joinTag(i, k int) (name, w int) {
	h := mix(uint64(i)*8 + uint64(k) + 100)
	return int(h % joinTags), int(h >> 8 % joinWeights)
}

// The parameters of the queries: the user and qty of the filter, the tag
// and weight of the JOIN's and the subquery's.
const joinUserP, joinQtyP, joinTagP, joinWP = 815, 50, 7, 5

// joinParams are the queries' parameters by name.
var joinParams = map[string]any{"user": userText(joinUserP), "qty": joinQtyP, "tag": fmt.Sprintf("t-%02d", joinTagP), "w": joinWP}

// joinQuery is one query of BenchmarkQueryJoin: its text in Cosmos SQL
// (ttldb's), in PostgreSQL's SQL over a table docs(id, body jsonb), with
// parameters $1, $2... in the order of use, and what it gives. Every store
// reports a query's result as one number (result): the COUNT for a count,
// else the number of results (values, groups).
type joinQuery struct {
	name, text, pg string
	count          bool     // ttldb's result is a COUNT, else results to count
	use            []string // its parameters, in joinParams
	result         func(w *joinWant) int
}

var joinQueries = []joinQuery{
	{"filter", `SELECT VALUE COUNT(1) FROM c WHERE c.user = @user AND c.qty > @qty`,
		`SELECT count(*) FROM docs WHERE body->>'user' = $1 AND (body->>'qty')::int > $2`,
		true, []string{"user", "qty"}, func(w *joinWant) int { return w.filtered }},
	{"join", `SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags WHERE t.name = @tag AND t.w > @w`,
		`SELECT count(*) FROM docs, jsonb_array_elements(body->'tags') t WHERE t->>'name' = $1 AND (t->>'w')::int > $2`,
		true, []string{"tag", "w"}, func(w *joinWant) int { return w.tagged }},
	{"join-distinct", `SELECT DISTINCT VALUE t.name FROM c JOIN t IN c.tags WHERE t.w > @w`,
		`SELECT DISTINCT t->>'name' FROM docs, jsonb_array_elements(body->'tags') t WHERE (t->>'w')::int > $1`,
		false, []string{"w"}, func(w *joinWant) int { return w.names }},
	{"distinct", `SELECT DISTINCT VALUE c.user FROM c WHERE c.qty > @qty`,
		`SELECT DISTINCT body->>'user' FROM docs WHERE (body->>'qty')::int > $1`,
		false, []string{"qty"}, func(w *joinWant) int { return w.users }},
	{"exists", `SELECT VALUE COUNT(1) FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.name = @tag AND t.w > @w)`,
		`SELECT count(*) FROM docs WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(docs.body->'tags') t WHERE t->>'name' = $1 AND (t->>'w')::int > $2)`,
		true, []string{"tag", "w"}, func(w *joinWant) int { return w.having }},
	{"group", `SELECT c.user, COUNT(1) AS n, SUM(c.qty) AS qty FROM c GROUP BY c.user`,
		`SELECT body->>'user', count(*), sum((body->>'qty')::int) FROM docs GROUP BY body->>'user'`,
		false, nil, func(w *joinWant) int { return len(w.groups) }},
}

// joinGroup is a row of the GROUP BY query: a user's documents and the
// sum of their qty.
type joinGroup struct {
	User string `json:"user"`
	N    int64  `json:"n"`
	Qty  int64  `json:"qty"`
}

// joinWant is what the queries must give on n documents, computed in Go
// from the generator.
type joinWant struct {
	filtered, tagged, names, users, having int
	groups                                 map[string]joinGroup
}

func newJoinWant(n int) *joinWant {
	w := &joinWant{groups: map[string]joinGroup{}}
	var users [userValues]bool
	names := map[int]bool{}
	for i := range n {
		u, q := joinUser(i), joinQty(i)
		if u == joinUserP && q > joinQtyP {
			w.filtered++
		}
		if q > joinQtyP {
			users[u] = true
		}
		g := w.groups[userText(u)]
		g.User, g.N, g.Qty = userText(u), g.N+1, g.Qty+int64(q)
		w.groups[g.User] = g
		has := false
		for k := range 3 {
			name, tw := joinTag(i, k)
			if tw > joinWP {
				names[name] = true
				if name == joinTagP {
					w.tagged++
					has = true
				}
			}
		}
		if has {
			w.having++
		}
	}
	w.names = len(names)
	for _, ok := range users {
		if ok {
			w.users++
		}
	}
	return w
}

// joinStore is one store of BenchmarkQueryJoin, filled: run gives a
// query's result, groups the GROUP BY query's rows (for the check before
// the timing), close releases it.
type joinStore struct {
	run    func(q *joinQuery) (int, error)
	groups func() (map[string]joinGroup, error)
	close  func()
}

// BenchmarkQueryJoin runs, per store (ttldb, buntdb, postgres; see above),
// on the join store, side by side: the unindexed filter of BenchmarkQuery
// (a COUNT); a COUNT over a JOIN with a filter on the tags; DISTINCT over
// a JOIN with a filter; DISTINCT of a document's path with a filter; a
// COUNT of the documents an EXISTS subquery over the tags keeps; a GROUP
// BY of the 1,000 users with COUNT and SUM. Each store is filled, and each
// query's result checked against the generator's, before its timings; one
// store's heap is in the process at a time.
func BenchmarkQueryJoin(b *testing.B) {
	n := *joinItems
	want := newJoinWant(n)
	for _, s := range []struct {
		name string
		open func(b *testing.B, n int) *joinStore
	}{{"ttldb", openJoinTTLDB}, {"buntdb", openJoinBunt}, {"postgres", openJoinPG}} {
		b.Run(s.name, func(b *testing.B) {
			dropCached()
			start := time.Now()
			st := s.open(b, n)
			defer st.close()
			b.Logf("filled %s with %d documents in %v", s.name, n, time.Since(start).Round(time.Millisecond))
			got, err := st.groups()
			if err != nil {
				b.Fatal(err)
			}
			if !maps.Equal(got, want.groups) {
				b.Fatalf("%s: GROUP BY gave %d groups, not those of the generator (%d)", s.name, len(got), len(want.groups))
			}
			for _, q := range joinQueries {
				if got, err := st.run(&q); err != nil || got != q.result(want) {
					b.Fatalf("%s %s: %d, %v; want %d", s.name, q.name, got, err, q.result(want))
				}
				b.Run(q.name, func(b *testing.B) {
					b.ReportAllocs()
					for range b.N {
						m, err := st.run(&q)
						if err != nil {
							b.Fatal(err)
						}
						sink.Add(int64(m))
					}
				})
			}
		})
	}
}

// openJoinTTLDB fills a ttldb collection in memory with the n documents.
func openJoinTTLDB(b *testing.B, n int) *joinStore {
	c, err := ttldb.NewCollection("join", "/pk", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
	if err != nil {
		b.Fatal(err)
	}
	Fill(&ttldbStore{c: c}, n, func(i int, buf []byte) (string, []byte, time.Duration) {
		return "", joinDoc(buf, i), longTTL
	})
	prepared := map[string]*ttldb.Prepared{}
	params := map[string]map[string]any{}
	for _, q := range joinQueries {
		if prepared[q.name], err = ttldb.Prepare(q.text); err != nil {
			b.Fatal(err)
		}
		params[q.name] = map[string]any{}
		for _, k := range q.use {
			params[q.name][k] = joinParams[k]
		}
	}
	query := func(name string) (ttldb.QueryPage, error) {
		return c.Query(bg, ttldb.SQL{Prepared: prepared[name], Params: params[name]})
	}
	return &joinStore{
		run: func(q *joinQuery) (int, error) {
			page, err := query(q.name)
			if err != nil || !q.count {
				return len(page.Results), err
			}
			return strconv.Atoi(string(page.Results[0]))
		},
		groups: func() (map[string]joinGroup, error) {
			page, err := query("group")
			if err != nil {
				return nil, err
			}
			m := map[string]joinGroup{}
			for _, raw := range page.Results {
				var g joinGroup
				if err := json.Unmarshal(raw, &g); err != nil {
					return nil, err
				}
				m[g.User] = g
			}
			return m, nil
		},
		close: func() { c.Close() },
	}
}
