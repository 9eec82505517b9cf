package ttldb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// minMaxDocs are documents whose /v holds a value of every kind, for MIN
// and MAX: the array makes both undefined; the rest order null < false <
// true < numbers < strings.
var minMaxDocs = []string{
	`{"id":"a","pk":"p","v":5,"w":1}`,
	`{"id":"b","pk":"p","v":3,"w":2}`,
	`{"id":"c","pk":"q","v":"a","w":1}`,
	`{"id":"d","pk":"q","v":null,"w":2}`,
	`{"id":"e","pk":"p","v":[1],"w":3}`,
	`{"id":"f","pk":"q","w":1}`,
	`{"id":"g","pk":"p","v":-0,"w":3}`,
	`{"id":"h","pk":"q","v":0,"w":3}`,
	`{"id":"i","pk":"q","v":true,"w":2}`,
}

// R13: MIN and MAX of an indexed path read the index from an end and stop
// (the plan names it, a few documents examined), and give what a read of
// every document gives: undefined when a kept row holds an array or an
// object, null before booleans before numbers before strings, expired
// documents left out (R4), the WHERE clause applied; not in one partition
// (its documents are read), nor over a WHERE clause that another index
// serves (that one is read).
func TestMinMaxByIndex(t *testing.T) { // R13, R4
	scan, _ := edgeCollection(t, minMaxDocs)
	idx, _ := edgeCollection(t, minMaxDocs, "/v", "/w")
	p, q := StringKey("p"), StringKey("q")
	for _, tc := range []struct {
		text     string
		part     *PartitionKey
		want     string
		index    string
		examined int // at most
	}{
		{`SELECT VALUE MIN(c.v) FROM c`, nil, ``, "/v", 9},  // the array: undefined, no result
		{`SELECT MAX(c.v) AS m FROM c`, nil, `{}`, "/v", 1}, // the array, met first
		{`SELECT VALUE MIN(c.v) FROM c WHERE c.id != "e"`, nil, `null`, "/v", 9},
		{`SELECT VALUE MAX(c.v) FROM c WHERE c.id != "e"`, nil, `"a"`, "/v", 2},
		{`SELECT VALUE MIN(c.v) FROM c WHERE c.v > 0`, nil, `3`, "/v", 2}, // the WHERE's range on the same index
		{`SELECT VALUE MAX(c.w) FROM c WHERE c.v = 3`, nil, `2`, "/v", 1}, // an exact equality on another index
		{`SELECT VALUE MAX(c.v) FROM c WHERE c.v = 3`, nil, `3`, "/v", 1}, // and on the same path: its range read
		{`SELECT VALUE MAX(c.v) FROM c WHERE c.v < 4`, nil, `3`, "/v", 1},
		{`SELECT VALUE MIN(c.v) FROM c WHERE IS_NUMBER(c.v)`, nil, `-0`, "/v", 9}, // -0 and 0 one number: the least text, whatever the order
		{`SELECT VALUE MIN(c.v) + 1 FROM c WHERE c.w = 1`, nil, `6`, "/w", 3},     // an equality on another index
		{`SELECT VALUE MIN(c.v) FROM c`, &q, `null`, "", 5},                       // one partition: its documents, not the index's ends
		{`SELECT VALUE MAX(c.v) FROM c`, &q, `"a"`, "", 5},
		{`SELECT VALUE MIN(c.v) FROM c WHERE c.id = "f"`, nil, ``, "/v", 18},                                // only undefined: both ends read whole
		{`SELECT {lo: MIN(c.v)} FROM c WHERE c.w >= 2 AND c.id != "e"`, nil, `{"$1":{"lo":null}}`, "/w", 6}, // a range on another index: read
		{`SELECT VALUE MAX(c.v) FROM c WHERE c.w = 3`, &p, ``, "/w", 3},                                     // an equality on another index: the array
	} {
		t.Run(tc.text, func(t *testing.T) {
			want := queryPlan(t, scan, tc.text, tc.part)
			require.Equal(t, "["+tc.want+"]", "["+strings.Join(want.results, ",")+"]", "a scan's result")
			got := queryPlan(t, idx, tc.text, tc.part)
			require.Equal(t, want.results, got.results, "by index %s", got.plan.Index)
			require.Equal(t, tc.index, got.plan.Index)
			require.LessOrEqual(t, got.plan.Examined, tc.examined, "documents examined")
		})
	}
	// MIN reads all it must when the value it looks for comes last.
	r := queryPlan(t, idx, `SELECT VALUE MIN(c.v) FROM c WHERE c.id = "c"`, nil)
	require.Equal(t, []string{`"a"`}, r.results)

	// Equal numbers written otherwise: the least text, by index as by a
	// scan, whatever the keys' order.
	ties := []string{`{"id":"1","pk":"p","v":0}`, `{"id":"2","pk":"p","v":-0}`, `{"id":"3","pk":"p","v":1.0}`, `{"id":"4","pk":"p","v":1}`,
		`{"id":"5","pk":"q","w":"a\u003cb"}`, `{"id":"6","pk":"q","w":"a<b"}`, `{"id":"7","pk":"q","w":"a<b"}`, `{"id":"8","pk":"q","w":"a\u003cb"}`}
	tscan, _ := edgeCollection(t, ties)
	tidx, _ := edgeCollection(t, ties, "/v", "/w")
	for text, want := range map[string]string{`SELECT VALUE MIN(c.v) FROM c`: "-0", `SELECT VALUE MAX(c.v) FROM c`: "1",
		`SELECT VALUE MIN(c.w) FROM c`: `"a<b"`, `SELECT VALUE MAX(c.w) FROM c`: `"a<b"`} { // "<" sorts before "\"
		require.Equal(t, []string{want}, queryPlan(t, tscan, text, nil).results, text)
		require.Equal(t, []string{want}, queryPlan(t, tidx, text, nil).results, text)
	}

	// R4: an expired document is no row, whatever end it sits at.
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	for i, v := range []string{"-100", "1", "2", "100"} {
		ttl := -1
		if v == "-100" || v == "100" {
			ttl = 10
		}
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","v":%s,"ttl":%d}`, i, v, ttl))
	}
	require.NoError(t, c.CreateIndex(context.Background(), "/v"))
	require.Equal(t, []string{"-100"}, queryPlan(t, c, `SELECT VALUE MIN(c.v) FROM c`, nil).results)
	clk.Advance(10 * time.Second)
	require.Equal(t, []string{"1"}, queryPlan(t, c, `SELECT VALUE MIN(c.v) FROM c`, nil).results)
	require.Equal(t, []string{"2"}, queryPlan(t, c, `SELECT VALUE MAX(c.v) FROM c`, nil).results)
}

// R13: on random documents and random WHERE clauses, MIN and MAX by index
// give what a scan gives.
func TestMinMaxByIndexRandom(t *testing.T) { // R13
	r := rand.New(rand.NewPCG(3, 5))
	values := []string{"null", "true", "false", "0", "-0", "1", "2.5", "-3", `"a"`, `"b"`, `""`, "[]", "{}", `[1]`}
	for round := range 40 {
		docs := randomValueDocs(r, 12, "v", func() string {
			if r.IntN(3) > 0 { // scalars mostly: arrays and objects make the answer undefined
				return values[r.IntN(len(values)-3)]
			}
			return values[r.IntN(len(values))]
		})
		scan, _ := edgeCollection(t, docs)
		idx, _ := edgeCollection(t, docs, "/v")
		for range 10 {
			text := "SELECT VALUE " + []string{"MIN", "MAX"}[r.IntN(2)] + "(c.v) FROM c"
			switch r.IntN(4) {
			case 0:
				text += fmt.Sprintf(" WHERE c.w = %d", r.IntN(3))
			case 1:
				text += " WHERE c.v " + []string{"<", "<=", ">", ">="}[r.IntN(4)] + " " + values[r.IntN(len(values)-3)]
			}
			var part *PartitionKey
			if r.IntN(3) == 0 {
				k := StringKey(string('p' + rune(r.IntN(2))))
				part = &k
			}
			want, got := queryPlan(t, scan, text, part), queryPlan(t, idx, text, part)
			require.Equal(t, want.results, got.results, "round %d: %s (partition %v) over %v", round, text, part, docs)
			if part == nil { // one partition: its documents are read
				require.Equal(t, "/v", got.plan.Index, text)
			}
		}
	}
}

// randomValueDocs returns 1 to most documents, with ids "00", "01" and on,
// each in partition "p" or "q", with a number w from 0 to 2 and, four in
// five, a field named field whose JSON text value returns.
func randomValueDocs(r *rand.Rand, most int, field string, value func() string) []string {
	var docs []string
	for i := range 1 + r.IntN(most) {
		v := ""
		if r.IntN(5) > 0 {
			v = `,"` + field + `":` + value()
		}
		docs = append(docs, fmt.Sprintf(`{"id":"%02d","pk":"%c","w":%d%s}`, i, 'p'+rune(r.IntN(2)), r.IntN(3), v))
	}
	return docs
}

// planned is a query's results, as JSON texts, and its plan.
type planned struct {
	results []string
	plan    QueryPlan
}

// queryPlan runs text on c in one page, in the partition part (nil: all).
func queryPlan(t *testing.T, c *Collection, text string, part *PartitionKey) planned {
	t.Helper()
	page, err := c.Query(bg, SQL{Text: text, Partition: part})
	require.NoError(t, err, text)
	require.Empty(t, page.Continuation, text)
	return planned{rawStrings(page.Results), page.Plan}
}
