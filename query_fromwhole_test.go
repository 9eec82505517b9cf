package ttldb

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/query"
)

// R13: FROM (SELECT DISTINCT ...), with TOP or an aggregate inside, reads
// the inner query over every live document of the query's scope at once,
// as the service does (SELECT VALUE COUNT(1) FROM (SELECT DISTINCT ...)
// counts distinct values: the .NET SDK's DCountQueryPipelineStage), the
// same with indexes as without, in a partition or across all, whole and
// in pages of any size, through a cursor too; expired documents left out
// (R4).
func TestFromWholeSubquery(t *testing.T) { // R13, R4
	docs := []string{
		`{"id":"a","pk":"p","g":"x","n":1,"tags":["r","s"]}`, `{"id":"b","pk":"q","g":"y","n":2,"tags":["s"]}`,
		`{"id":"c","pk":"p","g":"x","n":3}`, `{"id":"d","pk":"q","g":1,"n":4,"tags":[]}`, `{"id":"e","pk":"p","g":1.0}`,
		`{"id":"f","pk":"q"}`, `{"id":"r","pk":"p","g":"z","n":16,"ttl":10,"tags":["t"]}`,
	}
	scan, sclk := edgeCollection(t, docs)
	idx, iclk := edgeCollection(t, docs, "/g", "/n")
	p := StringKey("p")
	cases := []struct {
		text        string
		part        *PartitionKey
		want, after []string // before and after "r" expires
	}{
		{`SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.g FROM c) x`, nil, []string{`4`}, []string{`3`}},
		{`SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.g FROM c) x`, &p, []string{`3`}, []string{`2`}},
		{`SELECT VALUE x FROM (SELECT DISTINCT VALUE c.g FROM c WHERE c.n > 1) x`, nil, []string{`"y"`, `"x"`, `1`, `"z"`}, []string{`"y"`, `"x"`, `1`}},
		{`SELECT VALUE x FROM (SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags) x WHERE x != "r"`, nil, []string{`"s"`, `"t"`}, []string{`"s"`}},
		{`SELECT x.g, COUNT(1) AS n FROM (SELECT DISTINCT c.g, c.pk FROM c) x GROUP BY x.g`, nil,
			[]string{`{"n":1}`, `{"g":1.0,"n":2}`, `{"g":"x","n":1}`, `{"g":"y","n":1}`, `{"g":"z","n":1}`}, []string{`{"n":1}`, `{"g":1.0,"n":2}`, `{"g":"x","n":1}`, `{"g":"y","n":1}`}},
		{`SELECT VALUE x.id FROM (SELECT TOP 3 c.id FROM c) x`, nil, []string{`"a"`, `"c"`, `"e"`}, []string{`"a"`, `"c"`, `"e"`}},
		{`SELECT * FROM (SELECT COUNT(1) AS n, SUM(c.n) AS s, MAX(c._ts) > 0 AS ts FROM c WHERE IS_DEFINED(c.n)) x`, nil,
			[]string{`{"n":5,"s":26,"ts":true}`}, []string{`{"n":4,"s":10,"ts":true}`}},
		{`SELECT VALUE x + 1 FROM (SELECT VALUE AVG(c.n) FROM c) x`, &p, []string{`7.666666666666667`}, []string{`3`}},
		{`SELECT DISTINCT VALUE LENGTH(x) FROM (SELECT DISTINCT VALUE c.id FROM c) x`, nil, []string{`1`}, []string{`1`}},
		{`SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.nothing FROM c) x`, nil, []string{`0`}, []string{`0`}},
	}
	for _, pass := range []string{"before", "after"} {
		if pass == "after" {
			sclk.Advance(10 * time.Second) // "r" expires (R4)
			iclk.Advance(10 * time.Second)
		}
		for _, tc := range cases {
			want := tc.want
			if pass == "after" {
				want = tc.after
			}
			for _, c := range []*Collection{scan, idx} {
				var got []string
				for res, err := range c.QueryAll(bg, SQL{Text: tc.text, Partition: tc.part}) {
					require.NoError(t, err, tc.text)
					got = append(got, string(res))
				}
				if strings.Contains(tc.text, "SELECT VALUE x FROM") || strings.Contains(tc.text, "GROUP BY") {
					require.ElementsMatch(t, want, got, "%s, %s r expired", tc.text, pass) // the order DISTINCT's values give
				} else {
					require.Equal(t, want, got, "%s, %s r expired", tc.text, pass)
				}
				if tc.part == nil {
					for _, n := range []int{1, 2, 3} {
						require.Equal(t, got, joinPages(t, c, tc.text, n), "%s in pages of %d", tc.text, n)
					}
				}
			}
		}
	}
}

// R13: such a subquery's rows count against one row's MaxJoinRows, every
// document and every row of its JOINs one: beyond them the query is
// refused with ErrInvalidQuery naming the limit, not the document.
func TestFromWholeSubqueryBound(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, intsDoc("big", 400)) // 160,400 rows for two joins over arr
	_, err := c.Query(bg, SQL{Text: `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE y FROM c JOIN x IN c.arr JOIN y IN c.arr) z`})
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.ErrorContains(t, err, "the documents FROM's subquery reads at once")
	require.ErrorContains(t, err, "MaxJoinRows")
	page, err := c.Query(bg, SQL{Text: `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE y FROM c JOIN y IN c.arr) z`})
	require.NoError(t, err)
	require.Equal(t, []string{`400`}, rawStrings(page.Results))
	// More documents than MaxJoinRows: refused before they are gathered.
	many, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for i := range query.MaxJoinRows + 1 {
		mustCreate(t, many, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
	}
	_, err = many.Query(bg, SQL{Text: `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE c.pk FROM c) z`})
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.ErrorContains(t, err, "more than 100000 (query.MaxJoinRows)")
}

// R13: the documents such a subquery reads at once are bounded by
// query.MaxWholeBytes of JSON: beyond, the query is refused with
// ErrInvalidQuery naming the limit; in a partition below it, it runs.
func TestFromWholeSubqueryBytes(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	big := strings.Repeat("x", 2_000_000)
	for i := range 34 { // 68 MB across the partitions; 2 MB in q
		pk := "p"
		if i == 0 {
			pk = "q"
		}
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":%q,"s":%q}`, i, pk, big))
	}
	text := `SELECT VALUE COUNT(1) FROM (SELECT DISTINCT VALUE LENGTH(c.s) FROM c) x`
	_, err := c.Query(bg, SQL{Text: text})
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.ErrorContains(t, err, "MaxWholeBytes")
	q := StringKey("q")
	page, err := c.Query(bg, SQL{Text: text, Partition: &q})
	require.NoError(t, err)
	require.Equal(t, []string{`1`}, rawStrings(page.Results))
}
