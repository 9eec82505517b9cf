package ttldb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// oraclePaths are the paths the randomized documents and queries use, and
// the indexes the oracle test makes on them.
var oraclePaths = []string{"/s", "/n", "/u/name", "/f", "/t"}

// randValue returns a JSON value of a random kind, from a small set so that
// equalities hit.
func randValue(r *rand.Rand) any {
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

// randDoc returns a document with random values, or none, at the oracle's
// paths.
func randDoc(r *rand.Rand, id int) map[string]any {
	d := map[string]any{"id": fmt.Sprint(id), "pk": []string{"p", "q"}[r.IntN(2)]}
	for _, name := range []string{"s", "n", "f", "t"} {
		if r.IntN(5) > 0 {
			d[name] = randValue(r)
		}
	}
	switch r.IntN(3) {
	case 0:
		d["u"] = map[string]any{"name": randValue(r)}
	case 1:
		d["u"] = randValue(r)
	}
	if r.IntN(4) == 0 {
		d["ttl"] = 1 + r.IntN(20)
	}
	return d
}

// randQuery returns a random query over the oracle's paths, and its
// parameters.
func randQuery(r *rand.Rand) SQL {
	params := map[string]any{}
	param := func() string {
		name := fmt.Sprintf("p%d", len(params))
		params[name] = randValue(r)
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
	q := SQL{Text: b.String(), Params: params}
	if r.IntN(4) == 0 {
		pk := StringKey([]string{"p", "q"}[r.IntN(2)])
		q.Partition = &pk
	}
	return q
}

// R13: a query gives the same results with or without an index, whichever
// index it reads, through writes, deletes, expiry and sweeps that keep the
// indexes up to date; in pages of any size as in one. The run without
// indexes is the oracle.
func TestQueryIndexOracle(t *testing.T) {
	rounds, queries := 6, 150
	if testing.Short() {
		rounds, queries = 3, 100
	}
	r := rand.New(rand.NewPCG(13, 13))
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	next := 0
	mutate := func(n int) {
		for range n {
			switch r.IntN(6) {
			case 0:
				_ = c.Delete(bg, StringKey([]string{"p", "q"}[r.IntN(2)]), fmt.Sprint(r.IntN(next+1)))
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
				_, err := c.Upsert(bg, randDoc(r, id))
				require.NoError(t, err)
			}
		}
	}
	run := func(q SQL) []string {
		page, err := c.Query(bg, q)
		require.NoError(t, err, "%s %v", q.Text, q.Params)
		out := make([]string, len(page.Results))
		for i, res := range page.Results {
			out[i] = string(res)
		}
		return out
	}
	used := map[string]int{}
	mutate(300)
	for round := range rounds {
		qs := make([]SQL, queries)
		oracle := make([][]string, queries)
		for i := range qs {
			qs[i] = randQuery(r)
			oracle[i] = run(qs[i])
		}
		idx := oraclePaths
		if round%2 == 1 {
			idx = oraclePaths[round%len(oraclePaths) : round%len(oraclePaths)+1]
		}
		for _, p := range idx {
			require.NoError(t, c.CreateIndex(context.Background(), p))
		}
		for i, q := range qs {
			page, err := c.Query(bg, q)
			require.NoError(t, err)
			used[page.Plan.Index]++
			if page.Plan.Ordered {
				used["ordered"]++
			}
			require.Equal(t, oracle[i], run(q), "round %d: %s %v, plan %+v", round, q.Text, q.Params, page.Plan)
			size := 1 + r.IntN(4)
			var paged []string
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
			if oracle[i] == nil {
				oracle[i] = []string{}
			}
			if paged == nil {
				paged = []string{}
			}
			require.Equal(t, oracle[i], paged, "round %d: %s %v in pages of %d", round, q.Text, q.Params, size)
		}
		mutate(200) // with the indexes kept up to date
		checkIndexAgrees(t, c)
		for i := range qs {
			oracle[i] = run(qs[i])
		}
		for _, p := range c.Indexes() {
			require.NoError(t, c.DropIndex(bg, p))
		}
		for i, q := range qs {
			require.Equal(t, oracle[i], run(q), "round %d, after writes: %s %v", round, q.Text, q.Params)
		}
	}
	for _, p := range oraclePaths {
		require.NotZero(t, used[p], "no query read the index on %s: the oracle test would not see it wrong", p)
	}
	require.NotZero(t, used["ordered"])
	t.Logf("plans: %v", used)
}
