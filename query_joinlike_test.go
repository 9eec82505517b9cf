package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// joinLikeDocs are documents with arrays of objects whose strings LIKE
// patterns tell apart.
var joinLikeDocs = []string{
	`{"id":"coat","pk":"a","team":"red","inventory":[{"loc":"Redmond, WA","q":50},{"loc":"Seattle, WA","q":30},{"loc":"Washington, DC","q":25}]}`,
	`{"id":"hat","pk":"a","team":"red","inventory":[{"loc":"Tacoma, WA","q":5},{"loc":"Portland, OR","q":7}]}`,
	`{"id":"boot","pk":"b","team":"blue","inventory":[{"loc":"Boise, ID","q":1},{"loc":"Spokane, WA","q":2}]}`,
	`{"id":"none","pk":"b","team":"blue"}`,
}

// R13: the features of main (LIKE, aggregates inside expressions) and of
// h-join (JOIN, DISTINCT, subqueries) together: LIKE on a JOIN's alias
// filters rows (not documents), with ESCAPE and NOT; COUNT(1) * 2 and an
// object of aggregates over a JOIN's rows, with and without GROUP BY;
// DISTINCT with an aggregate changes nothing (its result is one, as SPEC
// R13 says) and is refused with GROUP BY; a subquery holds LIKE and
// several aggregates side by side. Each answered whole, with an index on
// the document's path, and page by page.
func TestQueryJoinLikeAggregates(t *testing.T) {
	plain, _ := newTestCollection(t, "/pk", TTLNoDefault())
	indexed, _ := newTestCollection(t, "/pk", TTLNoDefault())
	require.NoError(t, indexed.CreateIndex(bg, "/team"))
	for _, d := range joinLikeDocs {
		mustCreate(t, plain, d)
		mustCreate(t, indexed, d)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		// LIKE on the joined alias: the rows of WA, not every row of a document with one.
		{`SELECT c.id, i.loc FROM c JOIN i IN c.inventory WHERE i.loc LIKE "%, WA" AND c.team = "red"`, []string{
			`{"id":"coat","loc":"Redmond, WA"}`, `{"id":"coat","loc":"Seattle, WA"}`, `{"id":"hat","loc":"Tacoma, WA"}`}},
		{`SELECT VALUE i.loc FROM c JOIN i IN c.inventory WHERE i.loc NOT LIKE "%WA" AND c.id LIKE "_o%"`, []string{
			`"Washington, DC"`, `"Boise, ID"`}},
		{`SELECT VALUE i.q FROM i IN c.inventory WHERE i.loc LIKE "W%!, D_" ESCAPE "!"`, []string{`25`}},
		// Aggregates inside expressions over a JOIN's rows.
		{`SELECT VALUE COUNT(1) * 2 FROM c JOIN i IN c.inventory WHERE i.loc LIKE "%WA"`, []string{`8`}},
		{`SELECT c.team, COUNT(1) * 2 AS twice, SUM(i.q) AS q FROM c JOIN i IN c.inventory GROUP BY c.team`, []string{
			`{"team":"blue","twice":4,"q":3}`, `{"team":"red","twice":10,"q":117}`}},
		{`SELECT VALUE {team: c.team, n: COUNT(1) * 2} FROM c JOIN i IN c.inventory WHERE i.loc LIKE "%WA" GROUP BY c.team`, []string{
			`{"team":"blue","n":2}`, `{"team":"red","n":6}`}},
		{`SELECT VALUE {n: COUNT(1), m: MAX(i.q) - MIN(i.q)} FROM c JOIN i IN c.inventory WHERE c.team = "red"`, []string{`{"n":5,"m":45}`}},
		// DISTINCT with aggregates: one result, unchanged.
		{`SELECT DISTINCT VALUE COUNT(1) * 2 FROM c JOIN i IN c.inventory`, []string{`14`}},
		// A subquery with LIKE and aggregates side by side.
		{`SELECT c.id, (SELECT COUNT(1) AS n, SUM(i.q) AS s FROM i IN c.inventory WHERE i.loc LIKE "%WA") AS wa FROM c WHERE c.team = "red"`, []string{
			`{"id":"coat","wa":{"n":2,"s":80}}`, `{"id":"hat","wa":{"n":1,"s":5}}`}},
		{`SELECT VALUE c.id FROM c WHERE (SELECT VALUE COUNT(1) * 10 FROM i IN c.inventory WHERE i.loc LIKE "%WA") > 10`, []string{`"coat"`}},
	} {
		for _, c := range []*Collection{plain, indexed} {
			got := joinAll(t, c, tc.text)
			require.Len(t, got, len(tc.want), tc.text)
			for i := range got {
				require.JSONEq(t, tc.want[i], got[i], tc.text)
			}
			require.Equal(t, got, joinPages(t, c, tc.text, 1), tc.text)
		}
	}
}
