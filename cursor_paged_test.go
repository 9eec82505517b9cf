package ttldb

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCursorPagesOfManyDocumentsJudgeExpiry: a cursor's later pages of
// results made of many documents at once (DISTINCT, GROUP BY, FROM a
// subquery with DISTINCT) count no document that expired since an earlier
// page, as a plain query's pages show none (R4); and with nothing
// expiring, pages of one result each are the results of QueryAll (R13). A
// review found the later pages giving what the first page computed.
func TestCursorPagesOfManyDocumentsJudgeExpiry(t *testing.T) { // R4, R13
	for _, tc := range []struct {
		sql         string
		first, rest []string
	}{
		{`SELECT DISTINCT VALUE c.k FROM c`, []string{`1`}, []string{`2`}},
		{`SELECT VALUE {k: c.k, n: COUNT(1)} FROM c GROUP BY c.k`, []string{`{"k":1,"n":1}`}, []string{`{"k":2,"n":1}`}},
		{`SELECT VALUE x FROM (SELECT DISTINCT VALUE c.k FROM c) x`, []string{`1`}, []string{`2`}},
	} {
		c, clk := newTestCollection(t, "/pk", TTLNoDefault())
		for _, doc := range []string{
			`{"id":"a","pk":"p","k":1}`,
			`{"id":"b","pk":"p","k":2,"ttl":10}`,
			`{"id":"c","pk":"p","k":2}`,
			`{"id":"d","pk":"p","k":3,"ttl":10}`,
		} {
			mustCreate(t, c, doc)
		}
		var all []json.RawMessage
		for res, err := range c.QueryAll(bg, SQL{Text: tc.sql}) {
			require.NoError(t, err)
			all = append(all, append(json.RawMessage(nil), res...))
		}
		cur, err := c.OpenQuery(bg, SQL{Text: tc.sql})
		require.NoError(t, err)
		var paged []json.RawMessage
		for {
			page, err := cur.Next(bg, 1)
			require.NoError(t, err, tc.sql)
			if len(page) == 0 {
				break
			}
			paged = append(paged, page...)
		}
		require.Equal(t, all, paged, "%s: pages of one against QueryAll", tc.sql)
		require.NoError(t, cur.Close())

		cur, err = c.OpenQuery(bg, SQL{Text: tc.sql})
		require.NoError(t, err)
		page, err := cur.Next(bg, 1)
		require.NoError(t, err)
		require.Equal(t, tc.first, texts(page), tc.sql)
		clk.Advance(10 * time.Second) // b and d expire
		page, err = cur.Next(bg, 100)
		require.NoError(t, err)
		require.Equal(t, tc.rest, texts(page), "%s: the page after b and d expired", tc.sql)
		page, err = cur.Next(bg, 100)
		require.NoError(t, err)
		require.Empty(t, page)
		require.NoError(t, cur.Close())
		require.NoError(t, c.Close())
	}
}

// texts returns the results as strings.
func texts(rs []json.RawMessage) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// TestCursorPageInsideAJoinProduct: a cursor's page that ends inside a
// document's JOIN product leaves the document's other rows out of the
// later pages once it expired (R4).
func TestCursorPageInsideAJoinProduct(t *testing.T) { // R4, R13
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, `{"id":"a","pk":"p","tags":[1,2,3],"ttl":10}`)
	mustCreate(t, c, `{"id":"b","pk":"p","tags":[4]}`)
	cur, err := c.OpenQuery(bg, SQL{Text: `SELECT VALUE t FROM c JOIN t IN c.tags`})
	require.NoError(t, err)
	defer cur.Close()
	page, err := cur.Next(bg, 1)
	require.NoError(t, err)
	require.Equal(t, []string{`1`}, texts(page))
	clk.Advance(10 * time.Second) // a expires
	page, err = cur.Next(bg, 100)
	require.NoError(t, err)
	require.Equal(t, []string{`4`}, texts(page), "the rows of a, expired since the first page")
}
