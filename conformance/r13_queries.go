package conformance

// R13's queries, case by case: a table of queries with and without
// indexes, pages and their tokens, expiry through every plan, refusals,
// prepared and typed queries, and cursors. Moved from the root package's
// query_test.go; the root keeps the planner's choices (TestQueryPlan),
// index builds under writes and hooks, and the checks that read the
// indexes' internals.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/internal/ref"
)

// r13Docs are the documents of the query checks (ref.QueryDocs).
var r13Docs = ref.QueryDocs

// r13Collection opens a collection of r13Docs, under DefaultTTL -1, with
// indexes on paths, if any.
func r13Collection(t *testing.T, h Harness, paths ...string) (*ttldb.Collection, *clock) {
	t.Helper()
	return r13Edge(t, h, r13Docs, paths...)
}

// r13IDs returns the ids of results that are documents, or the results
// themselves (ref.ResultIDs).
func r13IDs(t *testing.T, results []json.RawMessage) []string {
	t.Helper()
	return ref.ResultIDs(results)
}

// R13: a table of queries with their results, the same with or without
// indexes on the paths they filter and sort on, and whichever index a
// query reads.
func checkQueryTable(t *testing.T, h Harness) {
	cases := []struct {
		sql    string
		params map[string]any
		want   []string
	}{
		{`SELECT * FROM c WHERE c.status = @s AND c.total >= @min ORDER BY c.total DESC OFFSET 0 LIMIT 20`,
			map[string]any{"s": "open", "min": 5}, []string{"ord-2", "ord-1"}}, // 10 = 10.0: ties by key, descending
		{`SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(c.email)`, nil, []string{"2"}},
		{`SELECT c.id, c.user.name FROM c WHERE STARTSWITH(c.id, "ord-") AND c.region IN ("eu", "us")`, nil,
			[]string{`{"id":"ord-1","name":"Ann"}`, `{"id":"ord-2","name":"Bob"}`, `{"id":"ord-3","name":"Cid"}`}},
		{`SELECT TOP 2 * FROM c ORDER BY c.total`, nil, []string{"x", "ord-4"}}, // undefined < null < ... : total null, then... see below
		{`SELECT VALUE c.id FROM c ORDER BY c.total ASC`, nil, []string{`"x"`, `"inv-2"`, `"inv-1"`, `"ord-1"`, `"ord-2"`, `"ord-3"`, `"inv-3"`, `"ord-4"`}},
		{`SELECT VALUE c.id FROM c WHERE c.total BETWEEN 3 AND 10`, nil, []string{`"inv-1"`, `"ord-1"`, `"ord-2"`}},
		{`SELECT VALUE c.id FROM c WHERE c.total > "1"`, nil, []string{`"ord-4"`}}, // strings compare with strings only
		{`SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, "b")`, nil, []string{`"ord-1"`, `"ord-2"`}},
		{`SELECT VALUE c.id FROM c WHERE NOT (c.status = "open")`, nil, []string{`"ord-3"`}}, // null and true are not strings: undefined
		{`SELECT VALUE c.id FROM c WHERE c["odd key"] = 1`, nil, []string{`"inv-1"`}},
		{`SELECT VALUE c.id FROM c WHERE c.status = null`, nil, []string{`"inv-2"`}},
		{`SELECT VALUE c.id FROM c WHERE IS_NULL(c.email)`, nil, []string{`"ord-3"`}},
		{`SELECT VALUE c.id FROM c WHERE c.flag`, nil, []string{`"inv-2"`}},
		{`SELECT VALUE c.user.name FROM c WHERE c.user.name >= "B" ORDER BY c.user.name DESC`, nil, []string{`"Éva"`, `"Cid"`, `"Bob"`}},
		{`SELECT VALUE c.id FROM c WHERE c.total = 10 OFFSET 1 LIMIT 5`, nil, []string{`"ord-2"`}},
		{`SELECT VALUE c.id FROM c WHERE c.status IN (@a, @b) ORDER BY c.id`, map[string]any{"@a": "closed", "b": true}, []string{`"ord-3"`, `"x"`}},
	}
	// The expected order of TOP 2 by total: undefined first (none: every
	// document but x has total; x's is null), so x, then the numbers.
	cases[3].want = []string{"x", "inv-2"}
	for _, idx := range [][]string{nil, {"/status", "/total", "/id", "/region", "/user/name", "/email", "/flag", "/tags", "/odd key"}} {
		c, _ := r13Collection(t, h, idx...)
		for _, tc := range cases {
			page, err := c.Query(bg, ttldb.SQL{Text: tc.sql, Params: tc.params})
			require.NoError(t, err, tc.sql)
			require.Equal(t, tc.want, r13IDs(t, page.Results), "%s (indexes %v, plan %+v)", tc.sql, idx, page.Plan)
			require.Empty(t, page.Continuation)
			if idx == nil {
				require.Empty(t, page.Plan.Index, tc.sql)
			}
		}
	}
}

// R13: pages of any size, each from its own call, give the results of the
// whole query once each, in order, for every kind of plan; a token is
// taken only for its own query, parameters and partition.
func checkQueryPages(t *testing.T, h Harness) {
	c, _ := r13Collection(t, h, "/total", "/status")
	eu := ttldb.StringKey("eu")
	for _, q := range []ttldb.SQL{
		{Text: `SELECT * FROM c`},
		{Text: `SELECT * FROM c`, Partition: &eu},
		{Text: `SELECT * FROM c ORDER BY c.total`},
		{Text: `SELECT * FROM c ORDER BY c.total DESC`},
		{Text: `SELECT * FROM c WHERE c.total >= @min ORDER BY c.total DESC`, Params: map[string]any{"min": 0}},
		{Text: `SELECT * FROM c ORDER BY c.region DESC, c.id`},
		{Text: `SELECT * FROM c WHERE c.status IN ("open", "closed")`},
		{Text: `SELECT VALUE c.id FROM c WHERE c.status = "open" ORDER BY c.id DESC OFFSET 1 LIMIT 2`},
		{Text: `SELECT TOP 5 c.id FROM c ORDER BY c.user.name`},
	} {
		whole, err := c.Query(bg, q)
		require.NoError(t, err)
		var streamed []string
		for res, err := range c.QueryAll(bg, q) {
			require.NoError(t, err)
			streamed = append(streamed, string(res))
		}
		for size := 1; size <= 4; size++ {
			var got []json.RawMessage
			pq := q
			pq.MaxItems = size
			for pages := 0; ; pages++ {
				require.Less(t, pages, 20)
				page, err := c.Query(bg, pq)
				require.NoError(t, err, q.Text)
				require.LessOrEqual(t, len(page.Results), size)
				got = append(got, page.Results...)
				if page.Continuation == "" {
					break
				}
				require.Len(t, page.Results, size, "a page with a token is full")
				pq.Continuation = page.Continuation
			}
			require.Equal(t, r13IDs(t, whole.Results), r13IDs(t, got), "%s in pages of %d", q.Text, size)
		}
		require.Equal(t, len(whole.Results), len(streamed))
	}
	first, err := c.Query(bg, ttldb.SQL{Text: `SELECT * FROM c WHERE c.total > @n`, Params: map[string]any{"n": 0}, MaxItems: 1})
	require.NoError(t, err)
	require.NotEmpty(t, first.Continuation)
	for _, other := range []ttldb.SQL{
		{Text: `SELECT * FROM c WHERE c.total > @n`, Params: map[string]any{"n": 1}},
		{Text: `SELECT * FROM c WHERE c.total >  @n`, Params: map[string]any{"n": 0}},
		{Text: `SELECT * FROM c WHERE c.total > @n`, Params: map[string]any{"n": 0}, Partition: &eu},
		{Text: `SELECT * FROM c`},
	} {
		other.Continuation = first.Continuation
		_, err := c.Query(bg, other)
		require.ErrorIs(t, err, ttldb.ErrInvalidContinuation, other.Text)
	}
	_, err = c.List(bg, ttldb.Query{Continuation: first.Continuation})
	require.ErrorIs(t, err, ttldb.ErrInvalidContinuation)
	_, err = c.Query(bg, ttldb.SQL{Text: `SELECT * FROM c`, Continuation: "garbage"})
	require.ErrorIs(t, err, ttldb.ErrInvalidContinuation)
}

// R4, R13: a document expires from every query at _ts + ttl, through an
// index or not, in its results, counts and ORDER BY, before the sweeper
// deletes it, and after.
func checkQueryExpiryThroughIndexes(t *testing.T, h Harness) {
	for _, idx := range [][]string{nil, {"/status", "/n"}} {
		c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLNoDefault())
		for _, idx := range idx {
			require.NoError(t, c.CreateIndex(bg, idx))
		}
		ruleCreate(t, c, `{"id":"short","status":"a","n":1,"ttl":10}`)
		ruleCreate(t, c, `{"id":"long","status":"a","n":2,"ttl":100}`)
		ruleCreate(t, c, `{"id":"never","status":"a","n":3}`)
		ids := func(sql string) []string {
			page, err := c.Query(bg, ttldb.SQL{Text: sql})
			require.NoError(t, err)
			return r13IDs(t, page.Results)
		}
		queries := []string{
			`SELECT VALUE c.id FROM c WHERE c.status = "a"`,
			`SELECT VALUE c.id FROM c ORDER BY c.n`,
			`SELECT VALUE c.id FROM c WHERE c.n >= 1 ORDER BY c.n DESC`,
		}
		clk.Advance(9 * time.Second) // _ts + t - 1: still there
		require.ElementsMatch(t, []string{`"short"`, `"long"`, `"never"`}, ids(queries[0]))
		require.Equal(t, []string{`"short"`, `"long"`, `"never"`}, ids(queries[1]))
		require.Equal(t, []string{"3"}, ids(`SELECT VALUE COUNT(1) FROM c WHERE c.status = "a"`))
		clk.Advance(time.Second) // _ts + t: gone, not yet swept
		require.ElementsMatch(t, []string{`"long"`, `"never"`}, ids(queries[0]))
		require.Equal(t, []string{`"long"`, `"never"`}, ids(queries[1]))
		require.Equal(t, []string{`"never"`, `"long"`}, ids(queries[2]))
		require.Equal(t, []string{"2"}, ids(`SELECT VALUE COUNT(1) FROM c WHERE c.status = "a"`))
		_, err := c.Sweep(bg)
		require.NoError(t, err)
		require.Equal(t, []string{`"long"`, `"never"`}, ids(queries[1]))
		n, err := c.Count(bg, ttldb.Query{})
		require.NoError(t, err)
		require.Equal(t, 2, n)
	}
}

// R13: a malformed query is refused with its position and what was
// expected; unsupported parts of Cosmos SQL are refused as such; bad
// parameters and options name the fault. Nothing changes.
func checkQueryErrors(t *testing.T, h Harness) {
	c, _ := r13Collection(t, h, "/status")
	before := ruleState(t, c)
	var qe *ttldb.QueryError
	_, err := c.Query(bg, ttldb.SQL{Text: `SELECT * FROM c WHERE`})
	require.ErrorIs(t, err, ttldb.ErrInvalidQuery)
	require.ErrorAs(t, err, &qe)
	require.Equal(t, 21, qe.Offset)
	require.Contains(t, err.Error(), "column 22")
	for _, sql := range []string{
		`SELECT VALUE x FROM (SELECT VALUE 1) x`,
		`SELECT c.status, COUNT(1) FROM c GROUP BY c.status ORDER BY c.status`,
		`SELECT * FROM c WHERE udf.f(c.x)`,
	} {
		_, err := c.Query(bg, ttldb.SQL{Text: sql})
		require.ErrorAs(t, err, &qe, sql)
		require.True(t, qe.Unsupported, sql)
		require.Contains(t, err.Error(), "not supported", sql)
	}
	_, err = ttldb.Prepare(`SELEC * FROM c`)
	require.ErrorIs(t, err, ttldb.ErrInvalidQuery)
	for _, q := range []ttldb.SQL{
		{},
		{Text: `SELECT * FROM c WHERE c.x = @x`},
		{Text: `SELECT * FROM c`, Params: map[string]any{"typo": 1}},
		{Text: `SELECT * FROM c WHERE c.x = @x`, Params: map[string]any{"x": func() {}}},
		{Text: `SELECT * FROM c WHERE c.x = @x`, Params: map[string]any{"x": 1, "@x": 2}},
		{Text: `SELECT TOP @n * FROM c`, Params: map[string]any{"n": -1}},
		{Prepared: &ttldb.Prepared{}},
	} {
		_, err := c.Query(bg, q)
		require.ErrorIs(t, err, ttldb.ErrInvalidQuery, "%+v", q)
	}
	_, err = c.Query(bg, ttldb.SQL{Text: `SELECT * FROM c`, MaxItems: -1})
	require.ErrorIs(t, err, ttldb.ErrInvalidOption)
	long := ttldb.StringKey(strings.Repeat("k", ttldb.MaxPartitionKeyLength+1))
	_, err = c.Query(bg, ttldb.SQL{Text: `SELECT * FROM c`, Partition: &long})
	require.ErrorIs(t, err, ttldb.ErrInvalidPartitionKey)
	for _, p := range []string{"", "status", "/a//b", "/a~2"} {
		require.ErrorIs(t, c.CreateIndex(bg, p), ttldb.ErrInvalidOption, p)
	}
	require.ErrorIs(t, c.CreateIndex(bg, "/status"), ttldb.ErrInvalidOption, "twice")
	require.ErrorIs(t, c.DropIndex(bg, "/nope"), ttldb.ErrNotFound)
	require.ErrorIs(t, c.SetIndexingMode(bg, ttldb.IndexingNone), ttldb.ErrInvalidOption, "indexes need indexing")
	require.Equal(t, before, ruleState(t, c))
	for _, o := range []ttldb.Options{{Indexes: []string{"/a", "/a"}}, {Indexes: []string{"/a"}, Indexing: ttldb.IndexingNone}} {
		clk := newClock(ruleEpoch)
		o.Now, o.ManualSweep = clk.Now, true
		_, err = h.Open(t, "t", "/pk", &o)
		require.ErrorIs(t, err, ttldb.ErrInvalidOption, "%+v", o.Indexes)
	}
	require.NoError(t, c.Close())
	_, err = c.Query(bg, ttldb.SQL{Text: `SELECT * FROM c`})
	require.ErrorIs(t, err, ttldb.ErrClosed)
	require.ErrorIs(t, c.CreateIndex(bg, "/x"), ttldb.ErrClosed)
	require.ErrorIs(t, c.DropIndex(bg, "/status"), ttldb.ErrClosed)
}

// R13: a prepared query runs many times with other parameters, and
// through the typed wrapper.
func checkPreparedAndTyped(t *testing.T, h Harness) {
	c, _ := r13Collection(t, h, "/status")
	p, err := ttldb.Prepare(`SELECT c.id, c.total FROM c WHERE c.status = @s ORDER BY c.id`)
	require.NoError(t, err)
	require.Equal(t, []string{"s"}, p.Params())
	type row struct {
		ID    string `json:"id"`
		Total any    `json:"total"`
	}
	tc, err := ttldb.NewTyped[row](c)
	require.NoError(t, err)
	for s, want := range map[string][]string{"open": {"inv-1", "ord-1", "ord-2", "ord-4"}, "closed": {"ord-3"}, "none": {}} {
		rows, tok, err := tc.Query(bg, ttldb.SQL{Prepared: p, Params: map[string]any{"s": s}})
		require.NoError(t, err)
		require.Empty(t, tok)
		got := []string{}
		for _, r := range rows {
			got = append(got, r.ID)
		}
		require.Equal(t, want, got, s)
	}
	n := 0
	for r, err := range tc.QueryAll(bg, ttldb.SQL{Prepared: p, Params: map[string]any{"s": "open"}}) {
		require.NoError(t, err)
		require.NotEmpty(t, r.ID)
		n++
	}
	require.Equal(t, 4, n)
	ts, err := ttldb.NewTyped[map[string]int](c)
	require.NoError(t, err)
	_, _, err = ts.Query(bg, ttldb.SQL{Text: `SELECT c.id FROM c`})
	require.ErrorIs(t, err, ttldb.ErrInvalidDocument)
}

// R13: a cursor's pages are the results of one snapshot, whatever is
// written or deleted between them (R13/CursorDropsWhatExpires has what
// expires); Close is idempotent, and a closed collection ends the cursor
// with ErrClosed.
func checkCursorReadsOneSnapshot(t *testing.T, h Harness) {
	for _, idx := range [][]string{nil, {"/total"}} {
		c, clk := r13Collection(t, h, idx...)
		q := ttldb.SQL{Text: `SELECT c.id, c.total FROM c WHERE IS_DEFINED(c.total) ORDER BY c.total DESC`}
		want, err := c.Query(bg, q)
		require.NoError(t, err)
		cur, err := c.OpenQuery(bg, q)
		require.NoError(t, err)
		var got []json.RawMessage
		for i := 0; ; i++ {
			page, err := cur.Next(bg, 3)
			require.NoError(t, err)
			got = append(got, page...)
			if len(page) < 3 {
				break
			}
			// Between pages: a replace that moves a document to the front,
			// a delete, a create, and an expiry.
			_, err = c.Upsert(bg, map[string]any{"id": "ord-3", "pk": "us", "total": 1e9})
			require.NoError(t, err)
			if i == 0 {
				require.NoError(t, c.Delete(bg, ttldb.StringKey("ap"), "inv-3"))
			}
			_, err = c.Upsert(bg, map[string]any{"id": fmt.Sprint("new-", i), "pk": "eu", "total": 50, "ttl": 1})
			require.NoError(t, err)
			clk.Advance(time.Second)
		}
		require.Equal(t, want.Results, got)
		empty, err := cur.Next(bg, 1)
		require.NoError(t, err)
		require.Empty(t, empty)
		require.NoError(t, cur.Close())
		require.NoError(t, cur.Close())
		_, err = cur.Next(bg, 1)
		require.ErrorIs(t, err, ttldb.ErrClosed)
		_, err = cur.Next(bg, 0)
		require.ErrorIs(t, err, ttldb.ErrInvalidOption)

		cur, err = c.OpenQuery(bg, ttldb.SQL{Text: `SELECT * FROM c`})
		require.NoError(t, err)
		_, err = cur.Next(bg, 1)
		require.NoError(t, err)
		require.NoError(t, c.Close())
		_, err = cur.Next(bg, 100)
		require.ErrorIs(t, err, ttldb.ErrClosed)
		require.NoError(t, cur.Close())
	}
}

// R4, R13: a cursor judges expiry at each page: a document of its snapshot
// that expires while the cursor is open appears in no later page, whether
// the plan scans, reads an index or sorts every row at the first page. It
// is still there at its last live second.
func checkCursorDropsWhatExpires(t *testing.T, h Harness) {
	for _, tc := range []struct {
		text string
		idx  []string
	}{
		{`SELECT VALUE c.id FROM c`, nil},
		{`SELECT VALUE c.id FROM c WHERE c.v >= 0`, []string{"/v"}},
		{`SELECT VALUE c.id FROM c ORDER BY c.v DESC`, nil},
		{`SELECT VALUE c.id FROM c ORDER BY c.v DESC`, []string{"/v"}},
	} {
		c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLNoDefault())
		for _, p := range tc.idx {
			require.NoError(t, c.CreateIndex(bg, p))
		}
		// Five documents; d1 and d3 expire 10 seconds after they are written.
		for i := range 5 {
			ttl := -1
			if i%2 == 1 {
				ttl = 10
			}
			ruleCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p","v":%d,"ttl":%d}`, i, 4-i, ttl))
		}
		cur, err := c.OpenQuery(bg, ttldb.SQL{Text: tc.text})
		require.NoError(t, err)
		first, err := cur.Next(bg, 1)
		require.NoError(t, err)
		require.Equal(t, []string{`"d0"`}, r13IDs(t, first), tc.text)
		clk.Advance(9 * time.Second) // _ts + t - 1: d1 is live
		second, err := cur.Next(bg, 1)
		require.NoError(t, err)
		require.Equal(t, []string{`"d1"`}, r13IDs(t, second), tc.text)
		clk.Advance(time.Second) // _ts + t: d3 has expired
		rest, err := cur.Next(bg, 10)
		require.NoError(t, err)
		require.Equal(t, []string{`"d2"`, `"d4"`}, r13IDs(t, rest), "%s: d3 expired while the cursor was open", tc.text)
		require.NoError(t, cur.Close())
	}
}
