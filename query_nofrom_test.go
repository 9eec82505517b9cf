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
