package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: the examples of the Learn page "Subqueries in Azure Cosmos DB for
// NoSQL" (learn.microsoft.com/azure/cosmos-db/nosql/query/subquery,
// 2024-08-22 version in MicrosoftDocs/azure-databases-docs) that need a
// subquery as a JOIN's source, and the two with several aggregates side by
// side and with LIKE: the page's queries, with its documents and results
// where it gives them (the products and shipments it gives none for are
// ours, and the results then computed by hand). The UDF getTotalWithTax of
// "Evaluate once and reference many times" is written as its body,
// p.price * 1.25 (ttldb has no UDFs). The page's result for "several
// aggregates" ({"locationCount": 2, "totalQuantity": 75}) fits none of its
// documents (the Snow coat it shows has three locations, 105 in all): the
// test holds 3 and 105.
func TestJoinSubqueryLearnExamples(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range []string{
		`{"id":"coat","pk":"p","name":"Snow coat","price":20,"inventory":[{"location":"Redmond, WA","quantity":50},{"location":"Seattle, WA","quantity":30},{"location":"Washington, DC","quantity":25}]}`,
		`{"id":"mtb","pk":"p","name":"Radimer mountain bike","price":30,"tags":[{"name":"road"},{"name":"bike"},{"name":"competitive"}]}`,
		// ours: tags, quantities and stock to filter before the product
		`{"id":"boot","pk":"p","name":"Hiking boot","price":10,"tags":[{"name":"winter"},{"name":"fall"},{"name":"summer"}],"onHandQuantities":[{"quantity":5},{"quantity":12},{"quantity":0}],"warehouseStock":[{"backstock":false},{"backstock":true},{"backstock":false}]}`,
		`{"id":"hat","pk":"p","name":"Sun hat","price":17.8,"tags":[{"name":"summer"}],"onHandQuantities":[{"quantity":1}],"warehouseStock":[{"backstock":false}]}`,
		`{"id":"s1","pk":"s","weight":{"quantity":2500,"units":"mg"}}`,
		`{"id":"s2","pk":"s","weight":{"quantity":3,"units":"kg"}}`,
		`{"id":"s3","pk":"s","weight":{"quantity":7,"units":"lb"}}`,
	} {
		mustCreate(t, c, d)
	}
	p, s := StringKey("p"), StringKey("s")
	units := `[
        {unit: 'ng', name: 'nanogram', multiplier: 0.000000001, baseUnit: 'gram'},
        {unit: 'µg', name: 'microgram', multiplier: 0.000001, baseUnit: 'gram'},
        {unit: 'mg', name: 'milligram', multiplier: 0.001, baseUnit: 'gram'},
        {unit: 'g', name: 'gram', multiplier: 1, baseUnit: 'gram'},
        {unit: 'kg', name: 'kilogram', multiplier: 1000, baseUnit: 'gram'},
        {unit: 'Mg', name: 'megagram', multiplier: 1000000, baseUnit: 'gram'},
        {unit: 'Gg', name: 'gigagram', multiplier: 1000000000, baseUnit: 'gram'}
    ]`
	for _, tc := range []struct {
		text string
		part *PartitionKey
		want []string
	}{
		// Optimize self-join expressions: both forms count 2 x 2 x 2 rows of the boot.
		{`SELECT VALUE COUNT(1) FROM products p JOIN t in p.tags JOIN q in p.onHandQuantities JOIN s in p.warehouseStock
			WHERE t.name IN ("winter", "fall") AND (q.quantity BETWEEN 0 AND 10) AND NOT s.backstock`, &p, []string{`8`}},
		{`SELECT VALUE COUNT(1) FROM products p
			JOIN (SELECT VALUE t FROM t IN p.tags WHERE t.name IN ("winter", "fall"))
			JOIN (SELECT VALUE q FROM q IN p.onHandQuantities WHERE q.quantity BETWEEN 0 AND 10)
			JOIN (SELECT VALUE s FROM s IN p.warehouseStock WHERE NOT s.backstock)`, &p, []string{`8`}},
		// Evaluate once and reference many times.
		{`SELECT VALUE {subtotal: p.price, total: p.price * 1.25} FROM products p WHERE p.price * 1.25 < 22.25`, &p,
			[]string{`{"subtotal":10,"total":12.5}`}}, // the hat's total is 22.25, not less
		{`SELECT VALUE {subtotal: p.price, total: totalPrice} FROM products p JOIN (SELECT VALUE p.price * 1.25) totalPrice WHERE totalPrice < 22.25`, &p,
			[]string{`{"subtotal":10,"total":12.5}`}},
		// Mimic join with external reference data.
		{`SELECT s.id, (s.weight.quantity * m.multiplier) AS calculatedWeight, m.unit AS unitOfWeight FROM shipments s
			JOIN m IN (SELECT VALUE ` + units + `) WHERE s.weight.units = m.unit`, &s,
			[]string{`{"id":"s1","calculatedWeight":2.5,"unitOfWeight":"mg"}`, `{"id":"s2","calculatedWeight":3000,"unitOfWeight":"kg"}`}},
		// Aggregate scalar subqueries: several aggregates, and the JOIN form.
		{`SELECT p.name, (SELECT COUNT(1) AS locationCount, SUM(i.quantity) AS totalQuantity FROM i IN p.inventory) AS inventoryData FROM products p WHERE p.id = "coat"`, &p,
			[]string{`{"name":"Snow coat","inventoryData":{"locationCount":3,"totalQuantity":105}}`}},
		{`SELECT p.name, inventoryData.inventoryAverage FROM products p
			JOIN (SELECT COUNT(1) AS inventoryCount, AVG(i.quantity) as inventoryAverage FROM i IN p.inventory WHERE i.quantity > 10) AS inventoryData
			WHERE inventoryData.inventoryCount >= 1`, &p, []string{`{"name":"Snow coat","inventoryAverage":35}`}},
		// ARRAY after FROM, with NOT LIKE.
		{`SELECT p.name, n.t.name AS nonBikeTagName FROM products p
			JOIN n IN (SELECT VALUE ARRAY(SELECT t FROM t in p.tags WHERE t.name NOT LIKE "%bike%")) WHERE p.id = "mtb"`, &p,
			[]string{`{"name":"Radimer mountain bike","nonBikeTagName":"road"}`, `{"name":"Radimer mountain bike","nonBikeTagName":"competitive"}`}},
	} {
		requireResults(t, c, SQL{Text: tc.text, Partition: tc.part}, tc.want)
	}
}

// R13: JOIN (SELECT ...) of our own: a row for each result (alias or
// none), x IN (SELECT ...) a row for each element of each result that is
// an array, a subquery reading a JOIN's alias before it, an aggregate row,
// several anonymous sources, DISTINCT, TOP and GROUP BY over the rows;
// page by page (tokens resume inside a document's product) and through
// cursors, with an index or without. A subquery that reads an alias
// declared after it, FROM x IN (SELECT ...), and FROM (SELECT DISTINCT
// ...) (which needs every document at once) are refused.
func TestJoinSubquery(t *testing.T) {
	for _, c := range []*Collection{newJoinCollection(t), newJoinCollection(t, "/n", "/pk")} {
		for _, tc := range []struct{ text, want string }{
			{`SELECT c.id, x FROM c JOIN (SELECT VALUE t.name FROM t IN c.tags) x`,
				`{"id":"a","x":"x"} {"id":"a","x":"y"} {"id":"b","x":"y"} {"id":"b","x":"z"} {"id":"e","x":"x"}`},
			{`SELECT c.id, x FROM c JOIN (SELECT VALUE t.name FROM t IN c.tags) AS x WHERE c.n > 1 AND x != "z"`, `{"id":"b","x":"y"} {"id":"e","x":"x"}`},
			{`SELECT VALUE COUNT(1) FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t.name = "x") JOIN (SELECT VALUE m FROM m IN c.nums)`, `4`},
			{`SELECT VALUE [c.id, m] FROM c JOIN m IN (SELECT VALUE [1, 2]) WHERE c.n <= 2`, `["a",1] ["a",2] ["b",1] ["b",2]`},
			{`SELECT VALUE [c.id, m] FROM c JOIN m IN (SELECT VALUE IIF(t.name = "y", t.name, t.v) FROM t IN c.tags)`, `["a",1] ["a",2] ["e",4] ["e",5] ["e",6]`},
			{`SELECT c.id, d.n FROM c JOIN (SELECT COUNT(1) AS n FROM t IN c.tags) AS d WHERE d.n > 0`, `{"id":"a","n":2} {"id":"b","n":2} {"id":"e","n":1}`},
			{`SELECT c.id, v FROM c JOIN t IN c.tags JOIN (SELECT VALUE v FROM v IN t.v WHERE v > 1) v`,
				`{"id":"a","v":2} {"id":"a","v":3} {"id":"e","v":4} {"id":"e","v":5} {"id":"e","v":6}`},
			{`SELECT DISTINCT VALUE m FROM c JOIN (SELECT VALUE m FROM m IN c.nums) m`, `1 2 3`},
			{`SELECT TOP 3 VALUE m FROM c JOIN (SELECT DISTINCT VALUE m FROM m IN c.nums) m`, `1 2 3`},
			{`SELECT c.pk, COUNT(1) AS n FROM c JOIN (SELECT VALUE m FROM m IN c.nums) m GROUP BY c.pk`, `{"pk":"p1","n":3} {"pk":"p2","n":3}`},
			{`SELECT VALUE ARRAY(SELECT VALUE y FROM t IN c.tags JOIN (SELECT VALUE v * 10 FROM v IN t.v) y) FROM c WHERE c.n = 1`, `[10,20,30]`},
		} {
			for _, n := range []int{1, 2} {
				require.Equal(t, tc.want, joinString(joinPages(t, c, tc.text, n)), tc.text)
			}
		}
	}
	c := newJoinCollection(t)
	for _, tc := range []struct{ text, msg string }{
		{`SELECT c.id FROM c JOIN (SELECT VALUE v FROM v IN t.v) JOIN t IN c.tags`, "identifier t is not defined in the JOIN's subquery"},
		{`SELECT c.id FROM c JOIN (SELECT VALUE (SELECT VALUE t.name)) JOIN t IN c.tags`, "identifier t is not defined in the JOIN's subquery"},
		{`SELECT VALUE x FROM (SELECT VALUE 1) x`, "a subquery in FROM that reads no container"},
		{`SELECT VALUE c.id FROM (SELECT VALUE c.id FROM c) x`, "identifier c is not defined: the FROM clause names x"},
		{`SELECT VALUE x FROM x IN (SELECT VALUE [1])`, "FROM x IN (SELECT ...) (a subquery in FROM"},
		{`SELECT VALUE x FROM c JOIN (SELECT VALUE y FROM y) x`, "a subquery that reads a container (y) is not supported"},
	} {
		_, err := c.Query(bg, SQL{Text: tc.text})
		require.ErrorIs(t, err, ErrInvalidQuery, tc.text)
		require.ErrorContains(t, err, tc.msg, tc.text)
	}
}

// R13: FROM (SELECT ... FROM c ...) [[AS] x]: the outer query's rows are
// the inner query's results (the Learn page "Subqueries": multi-value
// subqueries stand in FROM), each document's in turn: projections,
// filters and JOINs inside, WHERE, JOIN, aggregates, GROUP BY and
// DISTINCT outside, SELECT * of the results; the outer query names no
// alias of the inner one but x. Page by page and through cursors, with an
// index or without.
func TestFromSubquery(t *testing.T) {
	for _, c := range []*Collection{newJoinCollection(t), newJoinCollection(t, "/n", "/pk")} {
		for _, tc := range []struct{ text, want string }{
			{`SELECT VALUE x FROM (SELECT VALUE c.id FROM c) x`, `"a" "b" "c" "d" "e"`},
			{`SELECT * FROM (SELECT c.id, c.n FROM c WHERE c.n > 2) x`, `{"id":"c","n":3} {"id":"d","n":4} {"id":"e","n":5}`},
			{`SELECT VALUE COUNT(1) FROM (SELECT VALUE t FROM c JOIN t IN c.tags) x WHERE x.name = "y"`, `2`},
			{`SELECT VALUE COUNT(1) FROM (SELECT VALUE 1 FROM root r WHERE r.pk = "p2")`, `3`},
			{`SELECT x.id, t FROM (SELECT c.id, c.nums FROM c) AS x JOIN t IN x.nums WHERE t > 1`, `{"id":"a","t":2} {"id":"a","t":2} {"id":"c","t":3} {"id":"e","t":2}`},
			{`SELECT x.pk, SUM(x.n) AS s FROM (SELECT c.pk, c.n FROM c) x GROUP BY x.pk`, `{"pk":"p1","s":3} {"pk":"p2","s":12}`},
			{`SELECT DISTINCT VALUE x.pk FROM (SELECT c.pk FROM c) x`, `"p1" "p2"`},
			{`SELECT VALUE x FROM (SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.name = "x")) x`, `"a" "e"`},
		} {
			for _, n := range []int{1, 2} {
				require.Equal(t, tc.want, joinString(joinPages(t, c, tc.text, n)), tc.text)
			}
		}
	}
}
