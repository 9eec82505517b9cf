package ttldb

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// allWith returns every result of text with params, read through QueryAll.
func allWith(t *testing.T, c *Collection, text string, params map[string]any) []string {
	t.Helper()
	var out []string
	for res, err := range c.QueryAll(bg, SQL{Text: text, Params: params}) {
		require.NoError(t, err, text)
		out = append(out, string(res))
	}
	return out
}

// R13: forms of issue 30 the service takes, through the collection: an
// aggregate with ORDER BY (one result of every row, the order changing
// nothing), a property or an index computed by a parameter or an
// expression (c[@p]), and -- comments; each gives the same results with an
// index on the paths it reads as without, expired documents left out (R4).
func TestQueryFormsOfTheService(t *testing.T) { // R13, R4
	docs := []string{
		`{"id":"a","pk":"p","g":"x","n":1,"tags":["r","s"]}`, `{"id":"b","pk":"q","g":"y","n":2,"tags":["s"]}`,
		`{"id":"c","pk":"p","g":"x","n":3}`, `{"id":"d","pk":"q","n":4,"tags":[]}`, `{"id":"e","pk":"p","g":1}`,
		`{"id":"r","pk":"p","g":"x","n":16,"ttl":10}`,
	}
	scan, sclk := edgeCollection(t, docs)
	idx, iclk := edgeCollection(t, docs, "/g", "/n")
	for _, tc := range []struct {
		text   string
		params map[string]any
		want   []string // before "r" expires
	}{
		{`SELECT VALUE COUNT(1) FROM c ORDER BY c.n`, nil, []string{`6`}},
		{`SELECT TOP 1 VALUE COUNT(c) FROM c ORDER BY c._ts`, nil, []string{`6`}}, // Microsoft's Java SDK benchmark
		{`SELECT {n: COUNT(1), s: SUM(c.n), lo: MIN(c.g), hi: MAX(c.g)} AS a FROM c WHERE c.g = "x" ORDER BY c.n DESC, c.id`, nil, []string{`{"a":{"n":3,"s":20,"lo":"x","hi":"x"}}`}},
		{`SELECT VALUE AVG(c.n) FROM c WHERE c.n > 1 ORDER BY c.g DESC OFFSET 0 LIMIT 1`, nil, []string{`6.25`}},
		{`SELECT VALUE c.id FROM c WHERE c[@p] = "x"`, map[string]any{"p": "g"}, []string{`"a"`, `"c"`, `"r"`}},
		{`SELECT VALUE c.id FROM c WHERE c[@p] = "x" AND c.n > 2`, map[string]any{"p": "g"}, []string{`"c"`, `"r"`}},
		{`SELECT VALUE c.id FROM c WHERE c.g = "x" AND c.tags[@i] = "s"`, map[string]any{"i": 1}, []string{`"a"`}},
		{`SELECT VALUE c.tags[ARRAY_LENGTH(c.tags) - 1] FROM c WHERE c.g > "" ORDER BY c.n`, nil, []string{`"s"`, `"s"`}},
		{`SELECT c[@p] AS v, COUNT(1) AS n FROM c GROUP BY c[@p]`, map[string]any{"p": "g"}, []string{`{"n":1}`, `{"v":1,"n":1}`, `{"v":"x","n":3}`, `{"v":"y","n":1}`}},
		{"-- ids\nSELECT VALUE c.id -- each\nFROM c WHERE c.n >= 3 --AND c.n < 4\nORDER BY c.n --", nil, []string{`"c"`, `"d"`, `"r"`}},
	} {
		require.Equal(t, tc.want, allWith(t, scan, tc.text, tc.params), tc.text)
		require.Equal(t, tc.want, allWith(t, idx, tc.text, tc.params), "%s, with indexes", tc.text)
	}
	sclk.Advance(10 * time.Second) // "r" expires (R4)
	iclk.Advance(10 * time.Second)
	require.Equal(t, []string{`5`}, allWith(t, idx, `SELECT VALUE COUNT(1) FROM c ORDER BY c.n`, nil))
	require.Equal(t, []string{`"a"`, `"c"`}, allWith(t, idx, `SELECT VALUE c.id FROM c WHERE c[@p] = "x"`, map[string]any{"p": "g"}))
	require.Equal(t, allWith(t, scan, `SELECT VALUE c.id FROM c WHERE c[@p] >= 1`, map[string]any{"p": "n"}),
		allWith(t, idx, `SELECT VALUE c.id FROM c WHERE c[@p] >= 1`, map[string]any{"p": "n"}))
	// Refused, saying why: ORDER BY with GROUP BY, as the service refuses it.
	_, err := idx.Query(bg, SQL{Text: `SELECT c.g FROM c GROUP BY c.g ORDER BY c.g`})
	require.True(t, errors.Is(err, ErrInvalidQuery), "%v", err)
	require.ErrorContains(t, err, `You can't use GROUP BY with an ORDER BY clause`)
}
