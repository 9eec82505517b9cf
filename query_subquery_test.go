package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: the examples of the Learn page "Subqueries in Azure Cosmos DB for
// NoSQL" (learn.microsoft.com/azure/cosmos-db/nosql/query/subquery,
// 2024-08-22 version in MicrosoftDocs/azure-databases-docs): scalar
// subqueries (simple and aggregate, in SELECT and WHERE), EXISTS and
// ARRAY, correlated with the outer document, each with the page's
// documents (where it gives them; the glove example's two other products'
// names are ours) and its results. The page's examples that need JOIN
// (SELECT ...), with LIKE or with several aggregates beside each other are
// in TestJoinSubqueryLearnExamples.
func TestSubqueryLearnExamples(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range []string{
		`{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","pk":"g","name":"Winter glove"}`,
		`{"id":"bbbbbbbb-1111-2222-3333-cccccccccccc","pk":"g","name":"Summer hat"}`,
		`{"id":"cccccccc-2222-3333-4444-dddddddddddd","pk":"g","name":"Rain boots"}`,
		`{"id":"coat","pk":"c","name":"Snow coat","inventory":[{"location":"Redmond, WA","quantity":50},{"location":"Seattle, WA","quantity":30},{"location":"Washington, DC","quantity":25}]}`,
		`{"id":"bike","pk":"b","name":"Unobtani road bike","accessories":[{"name":"Front/rear tire","type":"tire","quantityOnHand":5},{"name":"9-speed chain","type":"chains","quantityOnHand":25},{"name":"Clip-in pedals","type":"pedals","quantityOnHand":15}]}`,
		`{"id":"mtb","pk":"m","name":"Radimer mountain bike","tags":[{"name":"road"},{"name":"bike"},{"name":"competitive"}]}`,
	} {
		mustCreate(t, c, d)
	}
	g, coat, bike, mtb := StringKey("g"), StringKey("c"), StringKey("b"), StringKey("m")
	for _, tc := range []struct {
		text string
		part *PartitionKey
		want []string
	}{
		{`SELECT (SELECT VALUE 1) AS a, (SELECT VALUE 2) AS b`, nil, []string{`{"a":1,"b":2}`}},
		{`SELECT (SELECT VALUE Concat('ID-', p.id)) AS internalId FROM products p`, &coat, []string{`{"internalId":"ID-coat"}`}},
		{`SELECT p.id, (SELECT p.name WHERE CONTAINS(p.name, "glove")).name FROM products p`, &g, []string{
			`{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","name":"Winter glove"}`,
			`{"id":"bbbbbbbb-1111-2222-3333-cccccccccccc"}`,
			`{"id":"cccccccc-2222-3333-4444-dddddddddddd"}`}},
		{`SELECT p.name, (SELECT VALUE COUNT(1) FROM i IN p.inventory) AS locationCount FROM products p`, &coat, []string{`{"name":"Snow coat","locationCount":3}`}},
		{`SELECT p.name, (SELECT VALUE COUNT(1) FROM i IN p.inventory WHERE ENDSWITH(i.location, "WA")) AS washingtonLocationCount FROM products p`, &coat, []string{`{"name":"Snow coat","washingtonLocationCount":2}`}},
		{`SELECT p.name, (SELECT VALUE AVG(q.quantity) FROM q IN p.inventory WHERE q.quantity > 10) AS averageInventory FROM products p WHERE (SELECT VALUE COUNT(1) FROM i IN p.inventory WHERE i.quantity > 10) >= 1`, nil, []string{`{"name":"Snow coat","averageInventory":35}`}},
		{`SELECT EXISTS (SELECT VALUE undefined)`, nil, []string{`{"$1":false}`}},
		{`SELECT EXISTS (SELECT undefined)`, nil, []string{`{"$1":true}`}},
		{`SELECT p.name, a.name AS accessoryName FROM products p JOIN a IN p.accessories WHERE a.type = "chains" AND a.quantityOnHand >= 10`, nil, []string{`{"name":"Unobtani road bike","accessoryName":"9-speed chain"}`}},
		{`SELECT VALUE p.name FROM products p WHERE EXISTS (SELECT VALUE a FROM a IN p.accessories WHERE a.type = "chains" AND a.quantityOnHand >= 10)`, nil, []string{`"Unobtani road bike"`}},
		{`SELECT p.name, EXISTS (SELECT VALUE a FROM a IN p.accessories WHERE a.type = "chains" AND a.quantityOnHand >= 10) AS chainAccessoryAvailable FROM products p`, &bike, []string{`{"name":"Unobtani road bike","chainAccessoryAvailable":true}`}},
		{`SELECT p.name, ARRAY (SELECT VALUE t.name FROM t in p.tags) AS tagNames FROM products p`, &mtb, []string{`{"name":"Radimer mountain bike","tagNames":["road","bike","competitive"]}`}},
		{`SELECT p.name, ARRAY (SELECT VALUE t.name FROM t in p.tags) AS tagNames, ARRAY (SELECT VALUE t.name FROM t in p.tags WHERE CONTAINS(t.name, "bike")) AS bikeTagNames FROM products p`, &mtb, []string{`{"name":"Radimer mountain bike","tagNames":["road","bike","competitive"],"bikeTagNames":["bike"]}`}},
	} {
		requireResults(t, c, SQL{Text: tc.text, Partition: tc.part}, tc.want)
	}
}

// R13: subqueries of our own: correlated with a JOIN's alias, nested, with
// TOP and DISTINCT, in WHERE beside an index's equality (the same rows
// with the index), EXISTS over an array the document lacks; and what a
// subquery refuses.
func TestSubquery(t *testing.T) {
	for _, c := range []*Collection{newJoinCollection(t), newJoinCollection(t, "/n", "/pk")} {
		for _, tc := range []struct{ text, want string }{
			{`SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.name = "x")`, `"a" "e"`},
			{`SELECT VALUE c.id FROM c WHERE NOT EXISTS(SELECT VALUE t FROM t IN c.tags)`, `"c" "d"`},
			{`SELECT VALUE [c.id, ARRAY(SELECT VALUE v FROM v IN t.v WHERE v > 1)] FROM c JOIN t IN c.tags`, `["a",[2]] ["a",[3]] ["b",[]] ["b",[]] ["e",[4,5,6]]`},
			{`SELECT VALUE (SELECT VALUE SUM(v) FROM t IN c.tags JOIN v IN t.v) FROM c WHERE c.n = 5`, `15`},
			{`SELECT VALUE ARRAY(SELECT TOP 2 DISTINCT VALUE m FROM m IN c.nums) FROM c WHERE c.pk = "p1"`, `[1,2] []`},
			{`SELECT VALUE ARRAY(SELECT DISTINCT VALUE m FROM m IN c.nums) FROM c`, `[1,2] [] [3,1] [] [2]`},
			{`SELECT VALUE ARRAY(SELECT TOP 1 VALUE m FROM m IN c.nums) FROM c`, `[1] [] [3] [] [2]`},
			{`SELECT VALUE ARRAY(SELECT VALUE ARRAY(SELECT VALUE v * 10 FROM v IN t.v) FROM t IN c.tags) FROM c WHERE c.id = "a"`, `[[10,20],[30]]`},
			{`SELECT VALUE (SELECT VALUE m FROM m IN c.nums WHERE m > 1) FROM c`, `2 3 2`},
			{`SELECT VALUE c.id FROM c WHERE c.n = 1 AND (SELECT VALUE COUNT(1) FROM t IN c.tags) = 2`, `"a"`},
			{`SELECT VALUE (SELECT VALUE u.name FROM c.tags[0] u) FROM c`, `"x" "y" "x"`},
		} {
			require.Equal(t, tc.want, joinString(joinPages(t, c, tc.text, 1)), tc.text)
		}
	}
	c := newJoinCollection(t)
	for _, text := range []string{
		`SELECT VALUE (SELECT * FROM t IN c.tags) FROM c`,
		`SELECT VALUE (SELECT VALUE t FROM t IN c.tags ORDER BY t.name) FROM c`,
		`SELECT VALUE (SELECT VALUE t FROM t IN u.tags) FROM c`,
		`SELECT VALUE EXISTS(1) FROM c`,
	} {
		_, err := c.Query(bg, SQL{Text: text})
		require.ErrorIs(t, err, ErrInvalidQuery, text)
	}
}

func joinString(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out
}

// requireResults runs q on c, in one page, and requires its results to be
// want's JSON values, in order.
func requireResults(t *testing.T, c *Collection, q SQL, want []string) {
	t.Helper()
	page, err := c.Query(bg, q)
	require.NoError(t, err, q.Text)
	got := rawStrings(page.Results)
	require.Len(t, got, len(want), q.Text)
	for i := range got {
		require.JSONEq(t, want[i], got[i], q.Text)
	}
}
