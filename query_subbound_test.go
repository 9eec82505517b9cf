package ttldb

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// intsDoc returns a document {"id":id,"pk":"p","arr":[0,...,n-1]}.
func intsDoc(id string, n int) string {
	nums := make([]string, n)
	for i := range nums {
		nums[i] = strconv.Itoa(i)
	}
	return `{"id":"` + id + `","pk":"p","arr":[` + strings.Join(nums, ",") + `]}`
}

// R13: the rows a subquery iterates, at any depth and for every outer row,
// count against its document's MaxJoinRows with the rows of its product:
// beyond them the query is refused with ErrInvalidQuery naming the
// document and the limit, where it ran on (n⁴ rows, minutes) or gave
// undefined, so that EXISTS of a row past the bound said false. Whether
// the subquery is in the WHERE clause, the projection, a JOIN's row
// filter or source (JOIN (SELECT ...), whose results each make a row
// too, and FROM (SELECT ...)), or under an aggregate, GROUP BY, DISTINCT or ORDER BY.
func TestSubqueryRowBound(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, intsDoc("big", 400)) // 160,400 rows for two joins over arr
	for _, text := range []string{
		`SELECT VALUE COUNT(1) FROM c WHERE EXISTS(SELECT VALUE 1 FROM a IN c.arr JOIN b IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = -1))`,
		`SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = 399 AND y = 399)`,
		`SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = 399 AND y = 399) ORDER BY c.id`,
		`SELECT c.id, EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = 399 AND y = 399) AS found FROM c`,
		`SELECT DISTINCT VALUE (SELECT VALUE COUNT(1) FROM x IN c.arr JOIN y IN c.arr) FROM c`,
		`SELECT VALUE a FROM c JOIN a IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = a AND y = 399)`,
		`SELECT VALUE SUM((SELECT VALUE COUNT(1) FROM x IN c.arr JOIN y IN c.arr)) FROM c`,
		`SELECT c.pk, COUNT(1) AS n FROM c WHERE (SELECT VALUE COUNT(1) FROM x IN c.arr JOIN y IN c.arr) > 0 GROUP BY c.pk`,
		// 400 rows of a, each with 400 of the subquery's: neither alone is beyond.
		`SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr WHERE x = -1)`,
		// JOIN (SELECT ...): the subquery's rows, for each row before it, and the product's.
		`SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr JOIN (SELECT VALUE x FROM x IN c.arr WHERE x = -1)`,
		`SELECT VALUE COUNT(1) FROM c JOIN (SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = -1)`,
		`SELECT VALUE COUNT(1) FROM c JOIN m IN (SELECT VALUE c.arr FROM x IN c.arr)`,
		`SELECT VALUE COUNT(1) FROM (SELECT VALUE 1 FROM c JOIN x IN c.arr JOIN y IN c.arr) z`,
	} {
		page, err := c.Query(bg, SQL{Text: text})
		require.ErrorIs(t, err, ErrInvalidQuery, "%s: %v", text, page.Results)
		require.ErrorContains(t, err, `document "big"`, text)
		require.ErrorContains(t, err, "MaxJoinRows", text)
	}
}

// R13: the results one ARRAY(SELECT ...) gathers are bounded by
// MaxSubqueryBytes, the largest document: beyond it the query is refused
// with ErrInvalidQuery, where 90,000 copies of a 1 KB array took the
// memory of hundreds of megabytes.
func TestSubqueryResultBound(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, intsDoc("wide", 300)) // 90,300 rows for two joins: within MaxJoinRows
	_, err := c.Query(bg, SQL{Text: `SELECT VALUE ARRAY_LENGTH(ARRAY(SELECT VALUE c.arr FROM a IN c.arr JOIN b IN c.arr)) FROM c`})
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.ErrorContains(t, err, `document "wide"`)
	require.ErrorContains(t, err, "MaxSubqueryBytes")
	require.Equal(t, []string{"90000"}, joinAll(t, c, `SELECT VALUE ARRAY_LENGTH(ARRAY(SELECT VALUE 1 FROM a IN c.arr JOIN b IN c.arr)) FROM c`))
}

// R13: within the bound, nested subqueries answer, and the budget is each
// document's: two documents of 60,000 rows each are within it.
func TestSubqueryWithinRowBound(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, intsDoc("small", 10))
	require.Equal(t, []string{"1"}, joinAll(t, c, `SELECT VALUE COUNT(1) FROM c WHERE EXISTS(SELECT VALUE 1 FROM a IN c.arr JOIN b IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = a AND y = 9))`))
	require.Equal(t, []string{"10"}, joinAll(t, c, `SELECT VALUE ARRAY_LENGTH(ARRAY(SELECT VALUE a FROM a IN c.arr JOIN b IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr WHERE x = a + b AND x = 9)))`+" FROM c"))
	require.NoError(t, c.Delete(bg, StringKey("p"), "small"))
	mustCreate(t, c, intsDoc("one", 245)) // 245 + 245² = 60,270 rows
	mustCreate(t, c, intsDoc("two", 245))
	require.Equal(t, []string{`"one"`, `"two"`}, joinAll(t, c, `SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = 244 AND y = 244)`))
	require.Equal(t, []string{"120050"}, joinAll(t, c, `SELECT VALUE SUM((SELECT VALUE COUNT(1) FROM x IN c.arr JOIN y IN c.arr)) FROM c`))
}
