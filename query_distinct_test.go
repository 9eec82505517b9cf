package ttldb

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: the DISTINCT examples of the Learn page "Keywords in Azure Cosmos
// DB for NoSQL" (learn.microsoft.com/azure/cosmos-db/nosql/query/keywords,
// 2024-08-22 version in MicrosoftDocs/azure-databases-docs). The page gives
// the queries and their results, not the documents: ours are products in
// the two categories it shows, and one without a category, as it says.
// The page's results come in the order ttldb gives DISTINCT's results in
// without ORDER BY (undefined, an empty object, first).
func TestDistinctLearnExamples(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range []string{
		`{"id":"1","pk":"p","name":"Wrench","category":"Tools"}`,
		`{"id":"2","pk":"p","name":"Bag","category":"Accessories"}`,
		`{"id":"3","pk":"p","name":"Hammer","category":"Tools"}`,
		`{"id":"4","pk":"p","name":"Light","category":"Accessories"}`,
		`{"id":"5","pk":"p","name":"Unsorted"}`,
	} {
		mustCreate(t, c, d)
	}
	require.Equal(t, []string{`"Accessories"`, `"Tools"`}, joinPages(t, c, `SELECT DISTINCT VALUE p.category FROM products p`, 1))
	require.Equal(t, []string{`{}`, `{"category":"Accessories"}`, `{"category":"Tools"}`}, joinPages(t, c, `SELECT DISTINCT p.category FROM products p`, 1))
}

// R13: DISTINCT keeps one of the results equal as = compares them (1 and
// 1.0, objects whatever their members' order, arrays element by element;
// null is not undefined, "a" is not "A"), with JOIN, TOP, OFFSET and
// LIMIT applied to the distinct results, ORDER BY's order with the first
// of the equal results in it, and the same results page after page.
func TestDistinct(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range []string{
		`{"id":"a","pk":"p","n":5,"v":1,"o":{"x":1,"y":[1,2]},"tags":["a","b"]}`,
		`{"id":"b","pk":"p","n":4,"v":1.0,"o":{"y":[1,2.0],"x":1},"tags":["b","A"]}`,
		`{"id":"c","pk":"q","n":3,"v":"1","o":{"x":1},"tags":["a"]}`,
		`{"id":"d","pk":"q","n":2,"v":null,"o":[1,2],"tags":[]}`,
		`{"id":"e","pk":"q","n":1,"o":[1,2],"tags":["A","c"]}`,
	} {
		mustCreate(t, c, d)
	}
	pages := func(text string, part *PartitionKey) []string { // a page a result, in a partition
		var out []string
		tok := ""
		for i := 0; i == 0 || tok != ""; i++ {
			require.Less(t, i, 10, text)
			page, err := c.Query(bg, SQL{Text: text, MaxItems: 1, Continuation: tok, Partition: part})
			require.NoError(t, err, text)
			out, tok = append(out, rawStrings(page.Results)...), page.Continuation
		}
		return out
	}
	q := StringKey("q")
	require.Equal(t, []string{`null`, `"1"`}, pages(`SELECT DISTINCT VALUE c.v FROM c`, &q))
	require.Equal(t, []string{`"A"`, `"a"`, `"c"`}, pages(`SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags`, &q))
	for _, tc := range []struct{ text, want string }{
		{`SELECT DISTINCT VALUE c.v FROM c`, `null 1 "1"`},
		{`SELECT DISTINCT c.v FROM c`, `{} {"v":null} {"v":1} {"v":"1"}`},
		{`SELECT DISTINCT VALUE c.o FROM c`, `[1,2] {"x":1} {"x":1,"y":[1,2]}`},
		{`SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags`, `"A" "a" "b" "c"`},
		{`SELECT DISTINCT VALUE t FROM t IN c.tags`, `"A" "a" "b" "c"`},
		{`SELECT DISTINCT VALUE c.v FROM c ORDER BY c.n`, `null "1" 1.0`}, // the first of 1 and 1.0 in that order,
		{`SELECT DISTINCT VALUE c.v FROM c ORDER BY c.n DESC`, `1 "1" null`},
		{`SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags ORDER BY c.n`, `"A" "c" "a" "b"`},
		{`SELECT DISTINCT TOP 2 VALUE t FROM c JOIN t IN c.tags`, `"A" "a"`},
		{`SELECT TOP 2 DISTINCT VALUE t FROM c JOIN t IN c.tags`, `"A" "a"`},
		{`SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags OFFSET 1 LIMIT 2`, `"a" "b"`},
		{`SELECT DISTINCT VALUE c.pk FROM c WHERE c.n > 1`, `"p" "q"`},
		{`SELECT DISTINCT VALUE COUNT(1) FROM c`, `5`},
		{`SELECT DISTINCT VALUE 1`, `1`},
	} {
		want := strings.Fields(tc.want)
		for _, n := range []int{1, 2, 5} {
			require.Equal(t, want, joinPages(t, c, tc.text, n), tc.text)
		}
	}
}

// R13: a token of DISTINCT resumes after the last result given, by its
// value: in a new snapshot, a result before it that a write added since is
// not given, and one after it is; none is given twice.
func TestDistinctTokenAfterWrites(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range []string{`{"id":"a","pk":"p","v":2}`, `{"id":"b","pk":"p","v":4}`, `{"id":"c","pk":"p","v":2}`} {
		mustCreate(t, c, d)
	}
	text := `SELECT DISTINCT VALUE c.v FROM c`
	page, err := c.Query(bg, SQL{Text: text, MaxItems: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"2"}, rawStrings(page.Results))
	mustCreate(t, c, `{"id":"d","pk":"p","v":1}`)
	mustCreate(t, c, `{"id":"e","pk":"p","v":3}`)
	page, err = c.Query(bg, SQL{Text: text, Continuation: page.Continuation})
	require.NoError(t, err)
	require.Equal(t, []string{"3", "4"}, rawStrings(page.Results))
}
