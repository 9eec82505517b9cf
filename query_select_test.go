package ttldb

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: a query without FROM reads no document and gives at most one
// result, whatever the collection holds, through Query and QueryAll, with
// TOP, OFFSET and LIMIT applied to that one result; COUNT counts its one
// row, 0 when WHERE is not true.
func TestQueryWithoutFrom(t *testing.T) {
	c, _ := newQueryCollection(t)
	pk := StringKey("c1")
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`SELECT VALUE 1`, []string{`1`}},
		{`SELECT "Adventure", "Works"`, []string{`{"$1":"Adventure","$2":"Works"}`}},
		{`SELECT VALUE {a: 1 + 1, b: [1, "x" || "y"], c: undefined}`, []string{`{"a":2,"b":[1,"xy"]}`}},
		{`SELECT VALUE 1 WHERE 1 = 2`, nil},
		{`SELECT VALUE undefined`, nil},
		{`SELECT TOP 0 VALUE 1`, nil},
		{`SELECT VALUE 1 OFFSET 1 LIMIT 1`, nil},
		{`SELECT VALUE 1 OFFSET 0 LIMIT 5`, []string{`1`}},
		{`SELECT VALUE COUNT(1)`, []string{`1`}},
		{`SELECT COUNT(1) AS n WHERE false`, []string{`{"n":0}`}},
	} {
		for _, part := range []*PartitionKey{nil, &pk} {
			page, err := c.Query(bg, SQL{Text: tc.text, MaxItems: 1, Partition: part})
			require.NoError(t, err, tc.text)
			require.Empty(t, page.Continuation, tc.text)
			require.Zero(t, page.Plan.Examined, tc.text)
			require.Equal(t, tc.want, rawStrings(page.Results), tc.text)
		}
		var all []json.RawMessage
		for res, err := range c.QueryAll(bg, SQL{Text: tc.text}) {
			require.NoError(t, err, tc.text)
			all = append(all, append(json.RawMessage(nil), res...))
		}
		require.Equal(t, tc.want, rawStrings(all), tc.text)
	}
	_, err := c.Query(bg, SQL{Text: `SELECT *`})
	require.ErrorIs(t, err, ErrInvalidQuery)
	_, err = c.Query(bg, SQL{Text: `SELECT VALUE c.id`})
	require.ErrorIs(t, err, ErrInvalidQuery)
}

// rawStrings returns the results as strings; nil for none.
func rawStrings(rs []json.RawMessage) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r))
	}
	return out
}

// R13: SUM, AVG, MIN and MAX through Query, with or without an index on the
// WHERE clause's path and in one partition: one result or none, the same
// either way.
func TestQueryAggregates(t *testing.T) {
	plain, _ := newQueryCollection(t)
	indexed, _ := newQueryCollection(t, "/status", "/total")
	eu := StringKey("eu")
	for _, tc := range []struct {
		text string
		part *PartitionKey
		want []string
	}{
		{`SELECT VALUE SUM(c.total) FROM c WHERE c.status = "open" AND IS_NUMBER(c.total)`, nil, []string{`23`}},
		{`SELECT VALUE SUM(c.total) FROM c WHERE c.status = "open"`, nil, nil}, // "12" is no number
		{`SELECT AVG(c.total) AS a FROM c WHERE c.total > 0`, nil, []string{`{"a":29.7}`}},
		{`SELECT VALUE MIN(c.total) FROM c`, nil, []string{`null`}},
		{`SELECT VALUE MAX(c.total) FROM c`, nil, []string{`"12"`}},
		{`SELECT MAX(c.total) FROM c WHERE c.total < 20`, &eu, []string{`{"$1":10}`}},
		{`SELECT VALUE MIN(c.user) FROM c`, nil, nil},
		{`SELECT VALUE AVG(c.total) FROM c WHERE c.status = "none"`, nil, nil},
		{`SELECT VALUE SUM(c.total) FROM c WHERE c.status = "none"`, nil, []string{`0`}},
	} {
		for _, c := range []*Collection{plain, indexed} {
			page, err := c.Query(bg, SQL{Text: tc.text, Partition: tc.part})
			require.NoError(t, err, tc.text)
			require.Empty(t, page.Continuation, tc.text)
			require.Equal(t, tc.want, rawStrings(page.Results), tc.text)
		}
	}
}

// R13: FROM a path gives each document's value there, whether an index
// serves the WHERE clause or the ORDER BY or none does, and in pages.
func TestQueryFromPath(t *testing.T) {
	plain, _ := newQueryCollection(t)
	indexed, _ := newQueryCollection(t, "/user/name")
	for _, tc := range []struct {
		text  string
		index string
		want  []string
	}{
		{`SELECT * FROM c.user u WHERE u.name = "Ann"`, "/user/name", []string{`{"name":"Ann"}`}},
		{`SELECT VALUE u.name FROM c.user u ORDER BY u.name DESC`, "/user/name", []string{`"Éva"`, `"Cid"`, `"Bob"`, `"Ann"`}},
		{`SELECT * FROM c.tags[0] AS t`, "", []string{`"a"`, `"b"`}},
		{`SELECT VALUE COUNT(1) FROM c.user`, "", []string{`5`}},
	} {
		for _, c := range []*Collection{plain, indexed} {
			var got []json.RawMessage
			tok := ""
			for pages := 0; ; pages++ {
				require.Less(t, pages, 10, "%s: pages without end", tc.text)
				page, err := c.Query(bg, SQL{Text: tc.text, MaxItems: 1, Continuation: tok})
				require.NoError(t, err, tc.text)
				got = append(got, page.Results...)
				if tok = page.Continuation; tok == "" {
					break
				}
			}
			require.ElementsMatch(t, tc.want, rawStrings(got), tc.text)
			if c == indexed {
				plan, err := c.Explain(bg, SQL{Text: tc.text})
				require.NoError(t, err)
				require.Equal(t, tc.index, plan.Index, tc.text)
			}
		}
	}
	page, err := plain.Query(bg, SQL{Text: `SELECT VALUE u.name FROM c.user u ORDER BY u.name DESC`})
	require.NoError(t, err)
	require.Equal(t, []string{`"Éva"`, `"Cid"`, `"Bob"`, `"Ann"`}, rawStrings(page.Results))
}

// R13: GROUP BY through Query: one result a group, in pages whose tokens
// resume after the last group given, with OFFSET and LIMIT counting
// groups, the same with an index serving the WHERE clause or not.
func TestQueryGroupBy(t *testing.T) {
	plain, _ := newQueryCollection(t)
	indexed, _ := newQueryCollection(t, "/status", "/region")
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`SELECT c.region, COUNT(1) AS n FROM c GROUP BY c.region`,
			[]string{`{"n":2}`, `{"region":"ap","n":1}`, `{"region":"eu","n":3}`, `{"region":"us","n":2}`}},
		{`SELECT c.region, SUM(c.total) AS t FROM c WHERE c.status = "open" AND IS_NUMBER(c.total) GROUP BY c.region`,
			[]string{`{"region":"eu","t":13}`, `{"region":"us","t":10}`}},
		{`SELECT VALUE COUNT(1) FROM c GROUP BY c.status OFFSET 1 LIMIT 2`, []string{`1`, `1`}},
		{`SELECT TOP 1 c.status FROM c GROUP BY c.status`, []string{`{}`}},
		// a range of an index (not one value): a page after the first read no row, its
		// token's group key taken for a row's sort key (FuzzQuery found it)
		{`SELECT VALUE c.id FROM c WHERE c.region > "a" GROUP BY c.id`,
			[]string{`"inv-1"`, `"inv-2"`, `"ord-1"`, `"ord-2"`, `"ord-3"`, `"ord-4"`}},
	} {
		for _, c := range []*Collection{plain, indexed} {
			for _, max := range []int{0, 1} {
				var got []json.RawMessage
				tok := ""
				for pages := 0; ; pages++ {
					require.Less(t, pages, 10, "%s: pages without end", tc.text)
					page, err := c.Query(bg, SQL{Text: tc.text, MaxItems: max, Continuation: tok})
					require.NoError(t, err, tc.text)
					got = append(got, page.Results...)
					if tok = page.Continuation; tok == "" {
						break
					}
				}
				require.Equal(t, tc.want, rawStrings(got), "%s, pages of %d", tc.text, max)
			}
		}
	}
}

// R13: SELECT DISTINCT with GROUP BY keeps, of the groups whose results
// are equal (as = compares them), the first in the groups' order, and
// OFFSET, LIMIT and TOP count the distinct results; page by page (each
// page recomputes the earlier groups' results, so that none shows twice)
// and through cursors, with an index or without. The service's plan takes
// the two together (the .NET SDK's PipelineFactory stacks a Distinct and a
// GroupBy stage when the query has both); its results are unobserved, and
// this is SQL's reading: DISTINCT applies to the grouped results.
func TestQueryDistinctGroupBy(t *testing.T) {
	plain, _ := newQueryCollection(t)
	indexed, _ := newQueryCollection(t, "/status", "/region")
	for _, tc := range []struct {
		text string
		want string
	}{
		{`SELECT VALUE COUNT(1) FROM c GROUP BY c.region`, `2 1 3 2`},
		{`SELECT DISTINCT VALUE COUNT(1) FROM c GROUP BY c.region`, `2 1 3`},
		{`SELECT DISTINCT TOP 2 VALUE COUNT(1) FROM c GROUP BY c.region`, `2 1`},
		{`SELECT DISTINCT VALUE COUNT(1) FROM c GROUP BY c.region OFFSET 1 LIMIT 5`, `1 3`},
		{`SELECT DISTINCT COUNT(1) AS n FROM c GROUP BY c.region`, `{"n":2} {"n":1} {"n":3}`},
		{`SELECT DISTINCT VALUE c.region FROM c GROUP BY c.region`, `"ap" "eu" "us"`},
		{`SELECT DISTINCT VALUE COUNT(1) > 1 FROM c GROUP BY c.region, c.status`, `false true`},
	} {
		for _, c := range []*Collection{plain, indexed} {
			for _, n := range []int{1, 2} {
				require.Equal(t, tc.want, joinString(joinPages(t, c, tc.text, n)), tc.text)
			}
		}
	}
}
