package ttldb

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A query's GetCurrentDateTime and kin read the collection's clock
// (Options.Now), once per query: every row of a query, and every page of a
// cursor, sees one instant; a later query sees the clock moved (R13).
func TestQueryCurrentDateTimeReadsTheClock(t *testing.T) { // R13
	c, clk := newTestCollection(t, "/pk", TTLOff())
	clk.t = time.Date(2026, 2, 28, 23, 59, 59, 999_999_900, time.UTC)
	for _, id := range []string{"a", "b", "c"} {
		mustCreate(t, c, `{"id":"`+id+`","pk":"p"}`)
	}
	q := SQL{Text: `SELECT VALUE GetCurrentDateTime() FROM c`}
	page, err := c.Query(bg, q)
	require.NoError(t, err)
	require.Equal(t, []json.RawMessage{
		json.RawMessage(`"2026-02-28T23:59:59.9999999Z"`),
		json.RawMessage(`"2026-02-28T23:59:59.9999999Z"`),
		json.RawMessage(`"2026-02-28T23:59:59.9999999Z"`),
	}, page.Results)

	cur, err := c.OpenQuery(bg, SQL{Text: `SELECT VALUE GetCurrentTimestamp() FROM c`})
	require.NoError(t, err)
	defer cur.Close()
	first, err := cur.Next(bg, 1)
	require.NoError(t, err)
	clk.Advance(time.Hour) // the cursor keeps the instant it was opened at
	rest, err := cur.Next(bg, 2)
	require.NoError(t, err)
	require.Equal(t, []json.RawMessage{json.RawMessage(`1772323199999`)}, first)
	require.Equal(t, []json.RawMessage{json.RawMessage(`1772323199999`), json.RawMessage(`1772323199999`)}, rest)

	page, err = c.Query(bg, SQL{Text: `SELECT VALUE DateTimeDiff("hh", "2026-02-28T23:59:59", GetCurrentDateTime()) FROM c`, MaxItems: 1})
	require.NoError(t, err)
	require.Equal(t, []json.RawMessage{json.RawMessage(`1`)}, page.Results)
}
