package ttldb

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// joinAll returns every result of text, read through QueryAll.
func joinAll(t *testing.T, c *Collection, text string) []string {
	t.Helper()
	var out []string
	for res, err := range c.QueryAll(bg, SQL{Text: text}) {
		require.NoError(t, err, text)
		out = append(out, string(res))
	}
	return out
}

// joinPages returns every result of text, read page after page of n
// results with continuation tokens, and through a cursor n at a time; it
// checks that both give what QueryAll gives.
func joinPages(t *testing.T, c *Collection, text string, n int) []string {
	t.Helper()
	want := joinAll(t, c, text)
	var got []string
	tok := ""
	for i := 0; ; i++ {
		require.Less(t, i, 1000, text)
		page, err := c.Query(bg, SQL{Text: text, MaxItems: n, Continuation: tok})
		require.NoError(t, err, text)
		got = append(got, rawStrings(page.Results)...)
		if tok = page.Continuation; tok == "" {
			break
		}
	}
	require.Equal(t, want, got, "pages of %d: %s", n, text)
	cur, err := c.OpenQuery(bg, SQL{Text: text})
	require.NoError(t, err)
	defer cur.Close()
	got = nil
	for {
		res, err := cur.Next(bg, n)
		require.NoError(t, err, text)
		if len(res) == 0 {
			break
		}
		got = append(got, rawStrings(res)...)
	}
	require.Equal(t, want, got, "cursor pages of %d: %s", n, text)
	return want
}

// R13: the examples of the Learn page "Self-joins in Azure Cosmos DB for
// NoSQL" (learn.microsoft.com/azure/cosmos-db/nosql/query/join; the
// documents, queries and results are the page's, as of its 2024-08-22
// version in MicrosoftDocs/azure-databases-docs), each query answered as
// documented, whole and a result a page.
func TestJoinLearnExamples(t *testing.T) {
	single, _ := newTestCollection(t, "/categoryId", TTLNoDefault())
	mustCreate(t, single, `{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","categoryId":"bbbbbbbb-1111-2222-3333-cccccccccccc","name":"Teapo Surfboard (6'10\") Grape","sku":"teapo-surfboard-72109","tags":[{"id":"cccccccc-2222-3333-4444-dddddddddddd","slug":"tail-shape-swallow","name":"Tail Shape: Swallow"},{"id":"dddddddd-3333-4444-5555-eeeeeeeeeeee","slug":"length-inches-82","name":"Length: 82 inches"},{"id":"eeeeeeee-4444-5555-6666-ffffffffffff","slug":"color-group-purple","name":"Color Group: Purple"}]}`)
	multi, _ := newTestCollection(t, "/categoryId", TTLNoDefault())
	mustCreate(t, multi, `{"id":"ffffffff-5555-6666-7777-aaaaaaaaaaaa","categoryId":"cccccccc-8888-9999-0000-dddddddddddd","categoryName":"Sleeping Bags","name":"Maresse Sleeping Bag (6') Ming","sku":"maresse-sleeping-bag-65503","tags":[{"id":"b1b1b1b1-cccc-dddd-eeee-f2f2f2f2f2f2","slug":"bag-shape-mummy","name":"Bag Shape: Mummy"},{"id":"bbbbbbbb-7777-8888-9999-cccccccccccc","slug":"bag-insulation-down-fill","name":"Bag Insulation: Down Fill"}]}`)
	mustCreate(t, multi, `{"id":"c2c2c2c2-dddd-eeee-ffff-a3a3a3a3a3a3","categoryId":"cccccccc-8888-9999-0000-dddddddddddd","categoryName":"Sleeping Bags","name":"Vareno Sleeping Bag (6') Turmeric","sku":"vareno-sleeping-bag-65508","tags":[{"id":"dddddddd-9999-0000-1111-eeeeeeeeeeee","slug":"bag-insulation-synthetic-fill","name":"Bag Insulation: Synthetic Fill"},{"id":"a0a0a0a0-bbbb-cccc-dddd-e1e1e1e1e1e1","slug":"color-group-yellow","name":"Color Group: Yellow"},{"id":"b1b1b1b1-cccc-dddd-eeee-f2f2f2f2f2f2","slug":"bag-shape-mummy","name":"Bag Shape: Mummy"}]}`)
	for _, tc := range []struct {
		c    *Collection
		text string
		want string // the documented result, a JSON array
	}{
		{single, `SELECT p.id, p.sku, t.slug FROM products p JOIN t IN p.tags`, `[
			{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","sku":"teapo-surfboard-72109","slug":"tail-shape-swallow"},
			{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","sku":"teapo-surfboard-72109","slug":"length-inches-82"},
			{"id":"aaaaaaaa-0000-1111-2222-bbbbbbbbbbbb","sku":"teapo-surfboard-72109","slug":"color-group-purple"}]`},
		{single, `SELECT p.sku, t.name AS tag FROM products p JOIN t IN p.tags`, `[
			{"sku":"teapo-surfboard-72109","tag":"Tail Shape: Swallow"},
			{"sku":"teapo-surfboard-72109","tag":"Length: 82 inches"},
			{"sku":"teapo-surfboard-72109","tag":"Color Group: Purple"}]`},
		{single, `SELECT p.sku, t.name AS tag FROM products p JOIN t IN p.tags WHERE STARTSWITH(t.slug, "color-group-")`, `[
			{"sku":"teapo-surfboard-72109","tag":"Color Group: Purple"}]`},
		{multi, `SELECT p.sku, t.name AS tag FROM products p JOIN t IN p.tags WHERE p.categoryName = "Sleeping Bags"`, `[
			{"sku":"maresse-sleeping-bag-65503","tag":"Bag Shape: Mummy"},
			{"sku":"maresse-sleeping-bag-65503","tag":"Bag Insulation: Down Fill"},
			{"sku":"vareno-sleeping-bag-65508","tag":"Bag Insulation: Synthetic Fill"},
			{"sku":"vareno-sleeping-bag-65508","tag":"Color Group: Yellow"},
			{"sku":"vareno-sleeping-bag-65508","tag":"Bag Shape: Mummy"}]`},
		{multi, `SELECT p.sku, t.name AS tag FROM products p JOIN t IN p.tags WHERE p.categoryName = "Sleeping Bags" AND t.slug = "bag-shape-mummy"`, `[
			{"sku":"maresse-sleeping-bag-65503","tag":"Bag Shape: Mummy"},
			{"sku":"vareno-sleeping-bag-65508","tag":"Bag Shape: Mummy"}]`},
		{multi, `SELECT p.sku, t.name AS tag FROM products p JOIN t IN p.tags WHERE p.categoryName = "Sleeping Bags" AND t.slug = "bag-insulation-synthetic-fill"`, `[
			{"sku":"vareno-sleeping-bag-65508","tag":"Bag Insulation: Synthetic Fill"}]`},
	} {
		var want []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tc.want), &want))
		got := joinPages(t, tc.c, tc.text, 1)
		require.Len(t, got, len(want), tc.text)
		// Without ORDER BY the order of the documents is the store's (ours
		// is by key, the page's another), that of each one's rows the
		// product's: compare document by document.
		for _, sku := range []string{"teapo-surfboard-72109", "maresse-sleeping-bag-65503", "vareno-sleeping-bag-65508"} {
			var w, g []string
			for i := range want {
				if strings.Contains(string(want[i]), sku) {
					w = append(w, compactJSON(t, string(want[i])))
				}
				if strings.Contains(got[i], sku) {
					g = append(g, compactJSON(t, got[i]))
				}
			}
			require.Equal(t, w, g, tc.text)
		}
	}
	// The page says * is valid only with one input set, and JOIN makes two.
	_, err := single.Query(bg, SQL{Text: `SELECT * FROM products p JOIN t IN p.tags`})
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.ErrorContains(t, err, "SELECT * needs a FROM clause of one alias")
}

// compactJSON returns s with its members sorted and no spaces.
func compactJSON(t *testing.T, s string) string {
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// joinDocs are documents for the JOIN tests of our own: arrays of objects,
// of scalars, nested arrays, a member that is no array, and none.
var joinDocs = []string{
	`{"id":"a","pk":"p1","n":1,"tags":[{"name":"x","v":[1,2]},{"name":"y","v":[3]}],"nums":[1,2,2]}`,
	`{"id":"b","pk":"p1","n":2,"tags":[{"name":"y","v":[]},{"name":"z"}],"nums":[]}`,
	`{"id":"c","pk":"p2","n":3,"tags":"not an array","nums":[3,1]}`,
	`{"id":"d","pk":"p2","n":4}`,
	`{"id":"e","pk":"p2","n":5,"tags":[{"name":"x","v":[4,5,6]}],"nums":[2]}`,
}

func newJoinCollection(t *testing.T, indexes ...string) *Collection {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range joinDocs {
		mustCreate(t, c, d)
	}
	for _, p := range indexes {
		require.NoError(t, c.CreateIndex(bg, p))
	}
	return c
}

// R13: JOIN and FROM x IN: the cross product of each document with its
// arrays' elements, in the order of the documents and then of the
// elements; a value that is no array, or none, gives no row; JOIN of a
// value without IN gives one row if it is defined; several JOINs, a JOIN
// on a joined alias's array, aggregates and GROUP BY over the rows; the
// same results with an index on the document's path, and page by page
// (MaxItems 1, 2 and 3: tokens that resume inside a document's product)
// and through cursors.
func TestJoinProduct(t *testing.T) {
	plain := newJoinCollection(t)
	indexed := newJoinCollection(t, "/n", "/pk")
	for _, tc := range []struct {
		text string
		want string
	}{
		{`SELECT VALUE t.name FROM c JOIN t IN c.tags`, `"x" "y" "y" "z" "x"`},
		{`SELECT c.id, t.name FROM c JOIN t IN c.tags WHERE t.name = "x"`, `{"id":"a","name":"x"} {"id":"e","name":"x"}`},
		{`SELECT VALUE [c.id, t.name, v] FROM c JOIN t IN c.tags JOIN v IN t.v`, `["a","x",1] ["a","x",2] ["a","y",3] ["e","x",4] ["e","x",5] ["e","x",6]`},
		{`SELECT VALUE [t.name, m] FROM c JOIN t IN c.tags JOIN m IN c.nums WHERE c.id = "a"`, `["x",1] ["x",2] ["x",2] ["y",1] ["y",2] ["y",2]`},
		{`SELECT VALUE x FROM x IN c.nums`, `1 2 2 3 1 2`},
		{`SELECT VALUE [u.name, v] FROM c.tags[0] u JOIN v IN u.v WHERE v != 5`, `["x",1] ["x",2] ["x",4] ["x",6]`},
		{`SELECT * FROM x IN c.nums`, `1 2 2 3 1 2`},
		{`SELECT * FROM t IN c.tags WHERE t.name = "y"`, `{"name":"y","v":[3]} {"name":"y","v":[]}`},
		{`SELECT VALUE v FROM t IN c.tags JOIN v IN t.v WHERE v > 2`, `3 4 5 6`},
		{`SELECT VALUE c.id FROM c JOIN c.tags AS ts`, `"a" "b" "c" "e"`},
		{`SELECT VALUE c.id FROM c JOIN t IN c.tags WHERE c.n = 5`, `"e"`},
		{`SELECT VALUE c.id FROM c JOIN t IN c.tags WHERE c.n >= 2 AND t.name != "x"`, `"b" "b"`},
		{`SELECT VALUE c.id FROM c JOIN t IN c.tags WHERE c.pk = "p2"`, `"e"`},
		{`SELECT VALUE c.id FROM c JOIN t IN c.tags ORDER BY c.n DESC`, `"e" "b" "b" "a" "a"`},
		{`SELECT VALUE t.name FROM c JOIN t IN c.tags ORDER BY c.n`, `"x" "y" "y" "z" "x"`},
		{`SELECT TOP 3 VALUE t.name FROM c JOIN t IN c.tags`, `"x" "y" "y"`},
		{`SELECT VALUE t.name FROM c JOIN t IN c.tags OFFSET 1 LIMIT 3`, `"y" "y" "z"`},
		{`SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags JOIN v IN t.v`, `6`},
		{`SELECT VALUE SUM(v) FROM c JOIN t IN c.tags JOIN v IN t.v WHERE t.name = "x"`, `18`},
		{`SELECT t.name, COUNT(1) AS n FROM c JOIN t IN c.tags GROUP BY t.name`, `{"name":"x","n":2} {"name":"y","n":2} {"name":"z","n":1}`},
		{`SELECT VALUE t FROM c JOIN t IN c.nums WHERE c.id = "b"`, ``},
		{`SELECT VALUE {id: c.id, t: t} FROM c JOIN t IN c.tags[0].v`, `{"id":"a","t":1} {"id":"a","t":2} {"id":"e","t":4} {"id":"e","t":5} {"id":"e","t":6}`},
	} {
		for _, c := range []*Collection{plain, indexed} {
			want := strings.Fields(tc.want)
			require.Equal(t, want, strings.Fields(strings.Join(joinAll(t, c, tc.text), " ")), tc.text)
			for _, n := range []int{1, 2, 3} {
				joinPages(t, c, tc.text, n)
			}
		}
	}
	plan, err := indexed.Explain(bg, SQL{Text: `SELECT VALUE t.name FROM c JOIN t IN c.tags WHERE c.n = 5 AND t.name = "x"`})
	require.NoError(t, err)
	require.Equal(t, "/n", plan.Index, "an equality on the document's path reads its index")
	plan, err = indexed.Explain(bg, SQL{Text: `SELECT VALUE t.n FROM c JOIN t IN c.tags WHERE t.n = 5`})
	require.NoError(t, err)
	require.Empty(t, plan.Index, "a path of a JOIN's alias is no path of the document's")
}

// R13: a token that resumes inside a document's product resumes at the
// next row of the product, in a new snapshot; when the document changed in
// between, at the same place of its new product.
func TestJoinTokenInsideDocument(t *testing.T) {
	c := newJoinCollection(t)
	text := `SELECT VALUE v FROM c JOIN t IN c.tags JOIN v IN t.v`
	page, err := c.Query(bg, SQL{Text: text, MaxItems: 4})
	require.NoError(t, err)
	require.Equal(t, []string{"1", "2", "3", "4"}, rawStrings(page.Results))
	_, err = c.Upsert(bg, []byte(`{"id":"e","pk":"p2","n":5,"tags":[{"name":"x","v":[40,50,60,70]}]}`))
	require.NoError(t, err)
	page, err = c.Query(bg, SQL{Text: text, MaxItems: 4, Continuation: page.Continuation})
	require.NoError(t, err)
	require.Equal(t, []string{"50", "60", "70"}, rawStrings(page.Results))
	require.Empty(t, page.Continuation)
}

// R13: a product larger than MaxJoinRows for one document is refused with
// ErrInvalidQuery, naming the document and the limit, whether the query
// lists, counts or groups; a smaller one is not.
func TestJoinProductBound(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	arr := "[" + strings.Repeat("0,", 299) + "0]" // 300 elements: 300 + 300² rows for two joins, more for three
	mustCreate(t, c, `{"id":"big","pk":"p","a":`+arr+`}`)
	for _, text := range []string{
		`SELECT VALUE 1 FROM c JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a`,
		`SELECT VALUE COUNT(1) FROM c JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a`,
		`SELECT x, COUNT(1) AS n FROM c JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a GROUP BY x`,
		`SELECT DISTINCT VALUE x FROM c JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a`,
	} {
		_, err := c.Query(bg, SQL{Text: text})
		require.ErrorIs(t, err, ErrInvalidQuery, text)
		require.ErrorContains(t, err, `document "big"`, text)
		require.ErrorContains(t, err, "MaxJoinRows", text)
	}
	require.Equal(t, []string{"90000"}, joinAll(t, c, `SELECT VALUE COUNT(1) FROM c JOIN x IN c.a JOIN y IN c.a`))
}
