package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: one budget of MaxJoinRows rows a document, shared by Match, Each
// and every subquery under them at any depth; past it Row.Err says so and
// the value is not taken for the answer.
func TestRowBudgetShared(t *testing.T) {
	defer func(n int) { joinRowsLimit = n }(joinRowsLimit)
	joinRowsLimit = 50
	doc := `{"arr":[0,1,2,3,4,5,6]}` // 7 + 49 rows for two joins
	nested := `SELECT VALUE 1 FROM c WHERE EXISTS(SELECT VALUE 1 FROM a IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr WHERE x = -1))`
	r := Row{Body: doc, budget: new(budget)}
	require.False(t, bind(t, nested, nil).Match(r))
	require.ErrorContains(t, r.Err(), "MaxJoinRows", "7 outer rows, 7 each inside: 56")

	r = Row{Body: doc, budget: new(budget)}
	res, ok := bind(t, `SELECT VALUE EXISTS(SELECT VALUE 1 FROM x IN c.arr JOIN y IN c.arr WHERE x = 6 AND y = 6) FROM c`, nil).AppendResult(nil, r)
	require.Error(t, r.Err(), "%s %v", res, ok)

	b := bind(t, `SELECT VALUE a FROM c JOIN a IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr WHERE x = -1) OR a >= 0`, nil)
	n := 0
	err := b.Each(Row{Body: doc, budget: new(budget)}, func(Row) bool { n++; return true })
	require.ErrorContains(t, err, "MaxJoinRows", "%d rows given", n)

	joinRowsLimit = 56
	r = Row{Body: doc, budget: new(budget)}
	require.True(t, bind(t, `SELECT VALUE 1 FROM c WHERE EXISTS(SELECT VALUE 1 FROM a IN c.arr WHERE EXISTS(SELECT VALUE 1 FROM x IN c.arr WHERE x = 6 AND a = 6))`, nil).Match(r))
	require.NoError(t, r.Err())
}
