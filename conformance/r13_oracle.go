package conformance

// R13's oracle: random queries, run with and without indexes, in pages and
// whole, through random writes, deletes, expiry and sweeps. Moved from the
// root package's query_oracle_test.go; the root keeps the check that each
// in-process index holds one item per document (checkIndexAgrees), which
// reads its internals.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// oraclePaths are the paths the random documents and queries use, and the
// indexes the oracle check makes on them.
var oraclePaths = []string{"/s", "/n", "/u/name", "/f", "/t"}

// oracleValue returns a JSON value of a random kind, from a small set so
// that equalities hit.
func oracleValue(r *rand.Rand) any {
	switch r.IntN(9) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2, 3:
		return r.IntN(7) - 3
	case 4:
		return float64(r.IntN(7)-3) + []float64{0, 0.5}[r.IntN(2)]
	case 5:
		return []string{"a", "ab", "b", "", "é", "a\x00"}[r.IntN(6)]
	case 6:
		return []any{r.IntN(3), "a"}[:r.IntN(3)]
	case 7:
		return map[string]any{"k": r.IntN(2)}
	}
	return fmt.Sprint(r.IntN(4))
}

// oracleDoc returns a document with random values, or none, at the
// oracle's paths, and sometimes a ttl.
func oracleDoc(r *rand.Rand, id int) map[string]any {
	d := map[string]any{"id": fmt.Sprint(id), "pk": []string{"p", "q"}[r.IntN(2)]}
	for _, name := range []string{"s", "n", "f", "t"} {
		if r.IntN(5) > 0 {
			d[name] = oracleValue(r)
		}
	}
	switch r.IntN(3) {
	case 0:
		d["u"] = map[string]any{"name": oracleValue(r)}
	case 1:
		d["u"] = oracleValue(r)
	}
	if r.IntN(4) == 0 {
		d["ttl"] = 1 + r.IntN(20)
	}
	return d
}

// oracleQuery returns a random query over the oracle's paths, with its
// parameters.
func oracleQuery(r *rand.Rand) ttldb.SQL {
	params := map[string]any{}
	param := func() string {
		name := fmt.Sprintf("p%d", len(params))
		params[name] = oracleValue(r)
		return "@" + name
	}
	paths := []string{"c.s", "c.n", "c.u.name", "c.f", "c.t"}
	path := func() string { return paths[r.IntN(len(paths))] }
	var term func(depth int) string
	term = func(depth int) string {
		p := path()
		switch r.IntN(12) {
		case 0:
			return fmt.Sprintf("%s IN (%s, %s)", p, param(), param())
		case 1:
			return fmt.Sprintf("%s BETWEEN %s AND %s", p, param(), param())
		case 2:
			return fmt.Sprintf("STARTSWITH(%s, %s)", p, param())
		case 3:
			return fmt.Sprintf("IS_DEFINED(%s)", p)
		case 4:
			return fmt.Sprintf("IS_NULL(%s)", p)
		case 5:
			if depth < 2 {
				return fmt.Sprintf("NOT (%s)", term(depth+1))
			}
		case 6:
			if depth < 2 {
				return fmt.Sprintf("(%s OR %s)", term(depth+1), term(depth+1))
			}
		case 7:
			return fmt.Sprintf("ARRAY_CONTAINS(c.t, %s)", param())
		}
		return fmt.Sprintf("%s %s %s", p, []string{"=", "!=", "<", "<=", ">", ">="}[r.IntN(6)], param())
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	top := r.IntN(6) == 0
	if top {
		fmt.Fprintf(&b, "TOP %d ", r.IntN(5))
	}
	count := false
	switch r.IntN(5) {
	case 0:
		b.WriteString("c.id, c.n")
	case 1:
		b.WriteString("VALUE c.id")
	case 2:
		if !top {
			b.WriteString("VALUE COUNT(1)")
			count = true
			break
		}
		fallthrough
	default:
		b.WriteString("*")
	}
	b.WriteString(" FROM c")
	if n := r.IntN(4); n > 0 {
		b.WriteString(" WHERE ")
		for i := range n {
			if i > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(term(0))
		}
	}
	if !count && r.IntN(2) == 0 {
		fmt.Fprintf(&b, " ORDER BY %s %s", path(), []string{"ASC", "DESC", ""}[r.IntN(3)])
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, ", %s", path())
		}
	}
	if !top && r.IntN(4) == 0 {
		fmt.Fprintf(&b, " OFFSET %d LIMIT %d", r.IntN(4), r.IntN(8))
	}
	q := ttldb.SQL{Text: b.String(), Params: params}
	if r.IntN(4) == 0 {
		pk := ttldb.StringKey([]string{"p", "q"}[r.IntN(2)])
		q.Partition = &pk
	}
	return q
}

// R13: a query gives the same results with or without an index, whichever
// index it reads, through writes, deletes, expiry and sweeps that keep the
// indexes up to date; in pages of any size as in one. The run without
// indexes is the oracle. When the engine names the indexes its plans read
// (QueryPage.Plan), every index made must have been read by some query, or
// the check would not see it wrong.
func checkQueryIndexOracle(t *testing.T, h Harness) {
	rounds, queries := 6, 150
	if Long() {
		rounds, queries = 12, 300
	}
	r := rand.New(rand.NewPCG(13, 13))
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLNoDefault())
	next := 0
	mutate := func(n int) {
		for range n {
			switch r.IntN(6) {
			case 0:
				_ = c.Delete(bg, ttldb.StringKey([]string{"p", "q"}[r.IntN(2)]), fmt.Sprint(r.IntN(next+1)))
			case 1:
				clk.Advance(time.Duration(r.IntN(4)) * time.Second)
			case 2:
				if r.IntN(4) == 0 {
					_, err := c.Sweep(bg)
					require.NoError(t, err)
				}
			default:
				id := next
				if r.IntN(2) == 0 && next > 0 {
					id = r.IntN(next)
				} else {
					next++
				}
				_, err := c.Upsert(bg, oracleDoc(r, id))
				require.NoError(t, err)
			}
		}
	}
	run := func(q ttldb.SQL) ([]string, ttldb.QueryPlan) {
		page, err := c.Query(bg, q)
		require.NoError(t, err, "%s %v", q.Text, q.Params)
		out := make([]string, len(page.Results))
		for i, res := range page.Results {
			out[i] = string(res)
		}
		return out, page.Plan
	}
	used := map[string]int{}
	mutate(300)
	for round := range rounds {
		qs := make([]ttldb.SQL, queries)
		oracle := make([][]string, queries)
		for i := range qs {
			qs[i] = oracleQuery(r)
			oracle[i], _ = run(qs[i])
		}
		idx := oraclePaths
		if round%2 == 1 {
			idx = oraclePaths[round%len(oraclePaths) : round%len(oraclePaths)+1]
		}
		for _, p := range idx {
			require.NoError(t, c.CreateIndex(bg, p))
		}
		for i, q := range qs {
			got, plan := run(q)
			used[plan.Index]++
			if plan.Ordered {
				used["ordered"]++
			}
			require.Equal(t, oracle[i], got, "round %d: %s %v, plan %+v", round, q.Text, q.Params, plan)
			size := 1 + r.IntN(4)
			paged := []string{}
			pq := q
			pq.MaxItems = size
			for pages := 0; ; pages++ {
				require.Less(t, pages, 1000)
				page, err := c.Query(bg, pq)
				require.NoError(t, err)
				for _, res := range page.Results {
					paged = append(paged, string(res))
				}
				if page.Continuation == "" {
					break
				}
				pq.Continuation = page.Continuation
			}
			want := oracle[i]
			if want == nil {
				want = []string{}
			}
			require.Equal(t, want, paged, "round %d: %s %v in pages of %d", round, q.Text, q.Params, size)
		}
		mutate(200) // with the indexes kept up to date
		for i := range qs {
			oracle[i], _ = run(qs[i])
		}
		for _, p := range c.Indexes() {
			require.NoError(t, c.DropIndex(bg, p))
		}
		for i, q := range qs {
			got, _ := run(q)
			require.Equal(t, oracle[i], got, "round %d, after writes: %s %v", round, q.Text, q.Params)
		}
	}
	t.Logf("plans: %v", used)
	if len(used) == 1 && used[""] > 0 {
		t.Logf("the engine names no index in its plans: which indexes the queries read is not checked")
		return
	}
	for _, p := range oraclePaths {
		require.NotZero(t, used[p], "no query read the index on %s: the oracle check would not see it wrong", p)
	}
	require.NotZero(t, used["ordered"])
}
