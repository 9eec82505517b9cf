package ttldb

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// R13: GROUP BY an indexed path reads the index in its order (the plan
// names it) and gives what the table of groups gives, in the same order,
// whole and in pages of any size (tokens resume after the last group,
// also among the groups of arrays and objects, which the index does not
// order among themselves), through a cursor too; with a WHERE clause, a
// partition, OFFSET and LIMIT, expired documents left out (R4); not for
// SELECT DISTINCT, nor in one partition, nor over a WHERE clause that
// another index serves.
func TestGroupByIndex(t *testing.T) { // R13, R4
	docs := []string{
		`{"id":"a","pk":"p","g":"x","n":1}`, `{"id":"b","pk":"q","g":"y","n":2}`, `{"id":"c","pk":"p","g":"x","n":3}`,
		`{"id":"d","pk":"q","g":1,"n":4}`, `{"id":"e","pk":"p","g":1.0,"n":5}`, `{"id":"f","pk":"q","n":6}`,
		`{"id":"g","pk":"p","g":[1,2],"n":7}`, `{"id":"h","pk":"q","g":[1],"n":8}`, `{"id":"i","pk":"p","g":[1,2],"n":9}`,
		`{"id":"j","pk":"q","g":{"a":1},"n":10}`, `{"id":"k","pk":"p","g":{},"n":11}`, `{"id":"l","pk":"q","g":null,"n":12}`,
		`{"id":"m","pk":"p","g":true,"n":13}`, `{"id":"n","pk":"q","g":-0,"n":14}`, `{"id":"o","pk":"p","g":0,"n":15}`,
		`{"id":"r","pk":"p","g":"x","n":16,"ttl":10}`,
	}
	scan, sclk := edgeCollection(t, docs, "/n")
	idx, iclk := edgeCollection(t, docs, "/g", "/n")
	for _, text := range []string{
		`SELECT c.g, COUNT(1) AS n, SUM(c.n) AS s FROM c GROUP BY c.g`,
		`SELECT c.g AS k, MAX(c.n) AS m FROM c WHERE c.g > 0 GROUP BY c.g`,
		`SELECT c.g, COUNT(1) AS n FROM c WHERE c.g = "x" GROUP BY c.g`, // an exact equality on the path: every row checked still
		`SELECT c.g, COUNT(1) AS n FROM c WHERE c.g = 1 GROUP BY c.g`,
		`SELECT VALUE c.g FROM c GROUP BY c.g`,
		`SELECT VALUE COUNT(1) FROM c GROUP BY c.g`,
		`SELECT c.g AS k, MAX(c.n) AS m FROM c WHERE c.id > "c" GROUP BY c.g`,
		`SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g OFFSET 2 LIMIT 4`,
		`SELECT TOP 3 c.g FROM c GROUP BY c.g`,
		`SELECT c.g, COUNT(1) AS n FROM c WHERE IS_ARRAY(c.g) OR IS_OBJECT(c.g) GROUP BY c.g`,
	} {
		for _, tick := range []time.Duration{0, 10 * time.Second} { // then "r" expired
			sclk.Advance(tick)
			iclk.Advance(tick)
			want := joinAll(t, scan, text)
			require.NotEmpty(t, want, text)
			require.Equal(t, want, joinAll(t, idx, text), "%s, by the index", text)
			for _, n := range []int{1, 2, 3} {
				require.Equal(t, want, joinPages(t, idx, text, n), "%s, by the index in pages of %d", text, n)
			}
			plan, err := idx.Explain(bg, SQL{Text: text})
			require.NoError(t, err)
			require.Equal(t, "/g", plan.Index, text)
		}
	}
	// A page reads its groups, not the collection.
	page, err := idx.Query(bg, SQL{Text: `SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g`, MaxItems: 1})
	require.NoError(t, err)
	require.Equal(t, []string{`{"n":1}`}, rawStrings(page.Results)) // the group of undefined, first
	require.LessOrEqual(t, page.Plan.Examined, 2, "the first page: the undefined group's row, and null's, which ends it")
	// In a partition.
	p := StringKey("p")
	text := `SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g`
	a, err := scan.Query(bg, SQL{Text: text, Partition: &p})
	require.NoError(t, err)
	b, err := idx.Query(bg, SQL{Text: text, Partition: &p})
	require.NoError(t, err)
	require.Equal(t, rawStrings(a.Results), rawStrings(b.Results))
	// Not for DISTINCT; not over a WHERE clause another index serves; not
	// in one partition.
	for text, want := range map[string]string{
		`SELECT DISTINCT VALUE COUNT(1) FROM c GROUP BY c.g`:          "",
		`SELECT c.g, COUNT(1) AS n FROM c WHERE c.n = 3 GROUP BY c.g`: "/n",
		`SELECT c.g, COUNT(1) AS n FROM c WHERE c.n > 3 GROUP BY c.g`: "/n",
	} {
		plan, err := idx.Explain(bg, SQL{Text: text})
		require.NoError(t, err)
		require.Equal(t, want, plan.Index, text)
		require.Equal(t, joinAll(t, scan, text), joinAll(t, idx, text), text)
	}
	plan, err := idx.Explain(bg, SQL{Text: text, Partition: &p})
	require.NoError(t, err)
	require.Equal(t, "", plan.Index, "in a partition")
}

// R13: on random documents, GROUP BY by index gives what the table gives,
// whole and in pages.
// groupWheres are WHERE clauses on the grouped path /g of
// TestGroupByIndexRandom's documents: ranges of one kind, of several,
// points, none at all, and what the index cannot narrow.
var groupWheres = []string{
	`c.g >= 1`, `c.g < 1`, `c.g > 0 AND c.g <= 2.5`, `c.g IN ("a", 1, true)`, `c.g = "b"`, `c.g = 7`,
	`c.g != 1`, `c.g >= "a"`, `IS_NUMBER(c.g)`, `c.g = 1 AND c.w > 0`, `c.g > 0 OR c.w = 1`, `c.g = [1]`,
	`IS_DEFINED(c.g)`, `IS_DEFINED(c.g) AND c.g != 1`,
}

func TestGroupByIndexRandom(t *testing.T) { // R13
	r := rand.New(rand.NewPCG(7, 11))
	values := []string{"null", "true", "false", "0", "-0", "1", "1.0", "2.5", `"a"`, `"b"`, `""`, "[]", "{}", `[1]`, `{"a":1}`}
	for round := range 30 {
		docs := randomValueDocs(r, 15, "g", func() string { return values[r.IntN(len(values))] })
		scan, _ := edgeCollection(t, docs)
		idx, _ := edgeCollection(t, docs, "/g")
		for range 5 {
			text := "SELECT c.g, COUNT(1) AS n, MIN(c.w) AS w FROM c"
			switch r.IntN(3) {
			case 0:
				text += fmt.Sprintf(" WHERE c.w != %d", r.IntN(3))
			case 1: // on the grouped path: the index read within its ranges
				text += " WHERE " + groupWheres[r.IntN(len(groupWheres))]
			}
			text += " GROUP BY c.g"
			want := joinAll(t, scan, text)
			require.Equal(t, want, joinPages(t, idx, text, 1+r.IntN(3)), "round %d: %s over %v", round, text, docs)
		}
	}
}

// TestGroupByIndexReadsItsRanges checks that GROUP BY fed by the index on
// its path reads only the ranges the WHERE clause allows on that path,
// each page from where the groups resume (R13): its results are the
// scan's, page after page, and the documents it examines are those the
// ranges hold, plus at most a group and a document a page (a page reads
// the group after its last, to know whether more follow, and the first
// document of the one after that, which ends it; and a page that resumes
// among arrays or objects reads all of them again, their groups being made
// of them all). A read of the whole index, or of each range from its start
// at every page, examines more.
func TestGroupByIndexReadsItsRanges(t *testing.T) { // R13
	values := []string{"null", "true", "false", "0", "1", "1.0", "2", "2.5", "-3", "1e300", `"a"`, `"b"`, `"ab"`, `""`,
		"[]", "[1]", "{}", `{"a":1}`}
	var docs []string
	for i := range 4 * len(values) {
		v := `,"g":` + values[i%len(values)]
		if i%9 == 4 {
			v = "" // undefined: no range holds it
		}
		docs = append(docs, fmt.Sprintf(`{"id":"%03d","pk":"p%d","w":%d%s}`, i, i%2, i%3, v))
	}
	scan, _ := edgeCollection(t, docs)
	idx, _ := edgeCollection(t, docs, "/g")
	// Clauses on /g alone whose ranges hold exactly the documents they keep:
	// what the read examines is what it counts.
	for _, where := range []string{
		`c.g = "b"`, `c.g = 7`, `c.g IN ("a", 1, true)`, `c.g >= 1`, `c.g < 1`, `c.g > 0 AND c.g <= 2.5`,
		`c.g BETWEEN "a" AND "b"`, `STARTSWITH(c.g, "a")`, `c.g != 1`, `IS_DEFINED(c.g)`, `c.g = null`, `c.g = false`,
	} {
		text := "SELECT c.g, COUNT(1) AS n FROM c WHERE " + where + " GROUP BY c.g"
		want := joinAll(t, scan, text)
		kept, most, containers := 0, 0, 0
		for _, res := range want {
			var g struct {
				G any
				N int
			}
			require.NoError(t, json.Unmarshal([]byte(res), &g))
			kept, most = kept+g.N, max(most, g.N)
			switch g.G.(type) {
			case []any, map[string]any:
				containers += g.N
			}
		}
		for _, n := range []int{0, 1, 2, 3} {
			var got []string
			examined, pages, tok := 0, 0, ""
			for {
				page, err := idx.Query(bg, SQL{Text: text, MaxItems: n, Continuation: tok})
				require.NoError(t, err, text)
				require.Equal(t, "/g", page.Plan.Index, text)
				got = append(got, rawStrings(page.Results)...)
				examined, pages = examined+page.Plan.Examined, pages+1
				if tok = page.Continuation; tok == "" {
					break
				}
				require.Less(t, pages, 100, text)
			}
			require.Equal(t, want, got, "pages of %d: %s", n, text)
			if examined < kept || examined > kept+pages*(most+1+containers) {
				t.Errorf("%s, pages of %d: %d pages examined %d documents; the ranges hold %d, the largest group %d", text, n, pages, examined, kept, most)
			}
		}
	}
}
