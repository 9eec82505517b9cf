package ttldb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// queryDocs are the documents of the query tests: kinds of every sort at
// the same paths, missing members, nulls, nesting and arrays.
var queryDocs = []string{
	`{"id":"ord-1","pk":"eu","status":"open","total":10,"region":"eu","user":{"name":"Ann"},"tags":["a","b"],"email":"a@x"}`,
	`{"id":"ord-2","pk":"eu","status":"open","total":10.0,"region":"us","user":{"name":"Bob"},"tags":["b"]}`,
	`{"id":"ord-3","pk":"us","status":"closed","total":25.5,"region":"us","user":{"name":"Cid"},"email":null}`,
	`{"id":"ord-4","pk":"us","status":"open","total":"12","region":"ap","tags":[]}`,
	`{"id":"inv-1","pk":"eu","status":"open","total":3,"region":"eu","odd key":1}`,
	`{"id":"inv-2","pk":"ap","status":null,"total":-7,"region":"eu","user":{"name":"Éva"},"flag":true}`,
	`{"id":"inv-3","pk":"ap","total":100,"flag":false}`,
	`{"id":"x","pk":"ap","status":true,"total":null,"user":"plain"}`,
}

// newQueryCollection returns a collection of queryDocs, with indexes on
// paths, if any.
func newQueryCollection(t testing.TB, paths ...string) (*Collection, *fakeClock) {
	t.Helper()
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range queryDocs {
		mustCreate(t, c, d)
	}
	for _, p := range paths {
		require.NoError(t, c.CreateIndex(context.Background(), p))
	}
	return c, clk
}

// resultIDs returns the ids of results that are documents, or the results
// themselves.
func resultIDs(t *testing.T, results []json.RawMessage) []string {
	t.Helper()
	out := []string{}
	for _, r := range results {
		var v struct {
			ID *string `json:"id"`
		}
		if json.Unmarshal(r, &v) == nil && v.ID != nil && strings.Contains(string(r), `"_etag"`) {
			out = append(out, *v.ID)
		} else {
			out = append(out, string(r))
		}
	}
	return out
}

// R13: a table of queries with their results, the same with or without
// indexes on the paths they filter and sort on, and whichever index a
// query reads.
func TestQueryTable(t *testing.T) {
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
		c, _ := newQueryCollection(t, idx...)
		for _, tc := range cases {
			page, err := c.Query(bg, SQL{Text: tc.sql, Params: tc.params})
			require.NoError(t, err, tc.sql)
			require.Equal(t, tc.want, resultIDs(t, page.Results), "%s (indexes %v, plan %+v)", tc.sql, idx, page.Plan)
			require.Empty(t, page.Continuation)
			if idx == nil {
				require.Empty(t, page.Plan.Index, tc.sql)
			}
		}
	}
}

// R13: the plan says which index a query read; an equality beats a
// range, the index on the ORDER BY path gives its order.
func TestQueryPlan(t *testing.T) {
	c, _ := newQueryCollection(t, "/status", "/total")
	for _, tc := range []struct {
		sql     string
		index   string
		ordered bool
	}{
		{`SELECT * FROM c`, "", false},
		{`SELECT * FROM c WHERE c.region = "eu"`, "", false},
		{`SELECT * FROM c WHERE c.status = "open"`, "/status", false},
		{`SELECT * FROM c WHERE c.total > 3 AND c.status = "open"`, "/status", false},
		{`SELECT * FROM c WHERE c.total > 3`, "/total", false},
		{`SELECT * FROM c ORDER BY c.total`, "/total", true},
		{`SELECT * FROM c WHERE c.total > 3 ORDER BY c.total DESC`, "/total", true},
		{`SELECT * FROM c WHERE c.status = "open" ORDER BY c.total`, "/status", false},
		{`SELECT * FROM c WHERE c.status = "open" OR c.total = 3`, "", false},
	} {
		plan, err := c.Explain(bg, SQL{Text: tc.sql})
		require.NoError(t, err)
		require.Equal(t, tc.index, plan.Index, tc.sql)
		require.Equal(t, tc.ordered, plan.Ordered, tc.sql)
		page, err := c.Query(bg, SQL{Text: tc.sql})
		require.NoError(t, err)
		require.Equal(t, plan.Index, page.Plan.Index)
		require.GreaterOrEqual(t, page.Plan.Examined, page.Plan.Matched)
		require.Equal(t, len(page.Results), page.Plan.Matched, tc.sql)
	}
	// An equality reads only its value's documents.
	page, err := c.Query(bg, SQL{Text: `SELECT * FROM c WHERE c.status = "closed"`})
	require.NoError(t, err)
	require.Equal(t, 1, page.Plan.Examined)
}

// R13: pages of any size, each from its own call, give the results of the
// whole query once each, in order, for every kind of plan; a token is
// taken only for its own query, parameters and partition.
func TestQueryPages(t *testing.T) {
	c, _ := newQueryCollection(t, "/total", "/status")
	eu := StringKey("eu")
	for _, q := range []SQL{
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
			require.Equal(t, resultIDs(t, whole.Results), resultIDs(t, got), "%s in pages of %d", q.Text, size)
		}
		require.Equal(t, len(whole.Results), len(streamed))
	}
	first, err := c.Query(bg, SQL{Text: `SELECT * FROM c WHERE c.total > @n`, Params: map[string]any{"n": 0}, MaxItems: 1})
	require.NoError(t, err)
	require.NotEmpty(t, first.Continuation)
	for _, other := range []SQL{
		{Text: `SELECT * FROM c WHERE c.total > @n`, Params: map[string]any{"n": 1}},
		{Text: `SELECT * FROM c WHERE c.total >  @n`, Params: map[string]any{"n": 0}},
		{Text: `SELECT * FROM c WHERE c.total > @n`, Params: map[string]any{"n": 0}, Partition: &eu},
		{Text: `SELECT * FROM c`},
	} {
		other.Continuation = first.Continuation
		_, err := c.Query(bg, other)
		require.ErrorIs(t, err, ErrInvalidContinuation, other.Text)
	}
	_, err = c.List(bg, Query{Continuation: first.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation)
	_, err = c.Query(bg, SQL{Text: `SELECT * FROM c`, Continuation: "garbage"})
	require.ErrorIs(t, err, ErrInvalidContinuation)
}

// R4, R13: a document expires from every query at _ts + ttl, through an
// index or not, in its results, counts and ORDER BY, before the sweeper
// deletes it; once swept, the index holds nothing of it.
func TestQueryExpiryThroughIndexes(t *testing.T) {
	for _, idx := range [][]string{nil, {"/status", "/n"}} {
		c, clk := newTestCollection(t, "/pk", TTLNoDefault())
		for _, idx := range idx {
			require.NoError(t, c.CreateIndex(context.Background(), idx))
		}
		mustCreate(t, c, `{"id":"short","status":"a","n":1,"ttl":10}`)
		mustCreate(t, c, `{"id":"long","status":"a","n":2,"ttl":100}`)
		mustCreate(t, c, `{"id":"never","status":"a","n":3}`)
		ids := func(sql string) []string {
			page, err := c.Query(bg, SQL{Text: sql})
			require.NoError(t, err)
			return resultIDs(t, page.Results)
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
		underRLock(&c.mu, func() {
			for _, x := range c.sec.list {
				require.Equal(t, 2, x.tree.Len(), "the swept document left index %s", x.ptr)
			}
		})
	}
}

// R13: a malformed query is refused with its position and what was
// expected; unsupported parts of Cosmos SQL are refused as such; bad
// parameters and options name the fault. Nothing changes.
func TestQueryErrors(t *testing.T) {
	c, _ := newQueryCollection(t, "/status")
	before := state(t, c)
	var qe *QueryError
	_, err := c.Query(bg, SQL{Text: `SELECT * FROM c WHERE`})
	require.ErrorIs(t, err, ErrInvalidQuery)
	require.ErrorAs(t, err, &qe)
	require.Equal(t, 21, qe.Offset)
	require.Contains(t, err.Error(), "column 22")
	for _, sql := range []string{
		`SELECT * FROM c JOIN t IN c.tags`,
		`SELECT c.status, COUNT(1) FROM c GROUP BY c.status`,
		`SELECT * FROM c WHERE udf.f(c.x)`,
	} {
		_, err := c.Query(bg, SQL{Text: sql})
		require.ErrorAs(t, err, &qe, sql)
		require.True(t, qe.Unsupported, sql)
		require.Contains(t, err.Error(), "not supported", sql)
	}
	_, err = Prepare(`SELEC * FROM c`)
	require.ErrorIs(t, err, ErrInvalidQuery)
	for _, q := range []SQL{
		{},
		{Text: `SELECT * FROM c WHERE c.x = @x`},
		{Text: `SELECT * FROM c`, Params: map[string]any{"typo": 1}},
		{Text: `SELECT * FROM c WHERE c.x = @x`, Params: map[string]any{"x": func() {}}},
		{Text: `SELECT * FROM c WHERE c.x = @x`, Params: map[string]any{"x": 1, "@x": 2}},
		{Text: `SELECT TOP @n * FROM c`, Params: map[string]any{"n": -1}},
		{Prepared: &Prepared{}},
	} {
		_, err := c.Query(bg, q)
		require.ErrorIs(t, err, ErrInvalidQuery, "%+v", q)
	}
	_, err = c.Query(bg, SQL{Text: `SELECT * FROM c`, MaxItems: -1})
	require.ErrorIs(t, err, ErrInvalidOption)
	bad := PartitionKey{kind: 99}
	_, err = c.Query(bg, SQL{Text: `SELECT * FROM c`, Partition: &bad})
	require.ErrorIs(t, err, ErrInvalidPartitionKey)
	for _, p := range []string{"", "status", "/a//b", "/a~2"} {
		require.ErrorIs(t, c.CreateIndex(context.Background(), p), ErrInvalidOption, p)
	}
	require.ErrorIs(t, c.CreateIndex(context.Background(), "/status"), ErrInvalidOption, "twice")
	require.ErrorIs(t, c.DropIndex(bg, "/nope"), ErrNotFound)
	require.ErrorIs(t, c.SetIndexingMode(bg, IndexingNone), ErrInvalidOption, "indexes need indexing")
	require.Equal(t, before, state(t, c))
	_, err = NewCollection("t", "/pk", &Options{Indexes: []string{"/a", "/a"}})
	require.ErrorIs(t, err, ErrInvalidOption)
	_, err = NewCollection("t", "/pk", &Options{Indexes: []string{"/a"}, Indexing: IndexingNone})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.NoError(t, c.Close())
	_, err = c.Query(bg, SQL{Text: `SELECT * FROM c`})
	require.ErrorIs(t, err, ErrClosed)
	require.ErrorIs(t, c.CreateIndex(context.Background(), "/x"), ErrClosed)
	require.ErrorIs(t, c.DropIndex(bg, "/status"), ErrClosed)
}

// R13: a prepared query runs many times with other parameters, and
// through the typed wrapper.
func TestPreparedAndTyped(t *testing.T) {
	c, _ := newQueryCollection(t, "/status")
	p, err := Prepare(`SELECT c.id, c.total FROM c WHERE c.status = @s ORDER BY c.id`)
	require.NoError(t, err)
	require.Equal(t, []string{"s"}, p.Params())
	type row struct {
		ID    string `json:"id"`
		Total any    `json:"total"`
	}
	tc, err := NewTyped[row](c)
	require.NoError(t, err)
	for s, want := range map[string][]string{"open": {"inv-1", "ord-1", "ord-2", "ord-4"}, "closed": {"ord-3"}, "none": {}} {
		rows, tok, err := tc.Query(bg, SQL{Prepared: p, Params: map[string]any{"s": s}})
		require.NoError(t, err)
		require.Empty(t, tok)
		got := []string{}
		for _, r := range rows {
			got = append(got, r.ID)
		}
		require.Equal(t, want, got, s)
	}
	n := 0
	for r, err := range tc.QueryAll(bg, SQL{Prepared: p, Params: map[string]any{"s": "open"}}) {
		require.NoError(t, err)
		require.NotEmpty(t, r.ID)
		n++
	}
	require.Equal(t, 4, n)
	ts, err := NewTyped[map[string]int](c)
	require.NoError(t, err)
	_, _, err = ts.Query(bg, SQL{Text: `SELECT c.id FROM c`})
	require.ErrorIs(t, err, ErrInvalidDocument)
}

// R13: an index built on a live collection sees every write made while it
// was built; writers go on meanwhile; a dropped index is no longer read.
func TestCreateIndexWhileWriting(t *testing.T) {
	c, err := NewCollection("live", "/pk", &Options{DefaultTTL: TTLNoDefault(), ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	const n = 3000
	for i := range n {
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": "p", "v": i % 7})
		require.NoError(t, err)
	}
	done := make(chan error)
	go func() {
		for i := range n {
			var err error
			switch i % 3 {
			case 0:
				_, err = c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": "p", "v": 100 + i%5})
			case 1:
				err = c.Delete(bg, StringKey("p"), fmt.Sprint(i))
			default:
				_, err = c.Upsert(bg, map[string]any{"id": fmt.Sprint(n + i), "pk": "p", "v": i % 7})
			}
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	require.NoError(t, c.CreateIndex(context.Background(), "/v"))
	require.NoError(t, <-done)
	require.Equal(t, []string{"/v"}, c.Indexes())
	checkIndexAgrees(t, c)
	query := func(v int) QueryPage {
		page, err := c.Query(bg, SQL{Text: `SELECT VALUE c.id FROM c WHERE c.v = @v ORDER BY c.id`, Params: map[string]any{"v": v}})
		require.NoError(t, err)
		return page
	}
	var withIndex [][]json.RawMessage
	for v := range 110 {
		page := query(v)
		require.Equal(t, "/v", page.Plan.Index)
		withIndex = append(withIndex, page.Results)
	}
	require.NoError(t, c.DropIndex(bg, "/v"))
	require.Empty(t, c.Indexes())
	for v := range 110 {
		page := query(v)
		require.Empty(t, page.Plan.Index)
		require.Equal(t, withIndex[v], page.Results, "v = %d", v)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // R16: a call that takes a context stops when it is done
	require.ErrorIs(t, c.CreateIndex(ctx, "/v"), context.Canceled)
	require.Empty(t, c.Indexes())
}

// checkIndexAgrees checks that every index of c holds exactly one item per
// document of the primary index, with the document's value.
func checkIndexAgrees(t *testing.T, c *Collection) {
	t.Helper()
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, x := range c.sec.list {
		want := map[string]*entry{}
		for _, e := range sortedEntries(c) {
			want[string(x.appendItemKey(nil, e.doc()))] = e
		}
		got := map[string]*entry{}
		x.tree.Ascend(func(it secItem) bool { got[it.k] = it.e; return true })
		require.Equal(t, len(want), len(got), "index %s", x.ptr)
		for k, e := range want {
			require.Same(t, e, got[k], "index %s, item %q", x.ptr, k)
		}
	}
}

// R12, R13: a durable collection keeps its indexes, made and dropped, in
// its log and its snapshots, and adds those of Options.Indexes.
func TestIndexesSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	open := func(idx ...string) *Collection {
		c, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true, Indexes: idx})
		require.NoError(t, err)
		return c
	}
	c := open("/a")
	require.NoError(t, c.CreateIndex(context.Background(), "/b"))
	require.NoError(t, c.CreateIndex(context.Background(), "/c"))
	require.NoError(t, c.DropIndex(bg, "/b"))
	_, err := c.Upsert(bg, map[string]any{"id": "1", "pk": "p", "a": 1, "c": "x"})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	c = open()
	require.Equal(t, []string{"/a", "/c"}, c.Indexes())
	checkIndexAgrees(t, c)
	page, err := c.Query(bg, SQL{Text: `SELECT VALUE c.id FROM c WHERE c.c = "x"`})
	require.NoError(t, err)
	require.Equal(t, "/c", page.Plan.Index)
	require.Equal(t, []string{`"1"`}, resultIDs(t, page.Results))
	require.NoError(t, c.Compact(context.Background()))
	require.NoError(t, c.Close())
	c = open("/d")
	require.Equal(t, []string{"/a", "/c", "/d"}, c.Indexes())
	checkIndexAgrees(t, c)
	require.NoError(t, c.Close())
	c = open()
	require.Equal(t, []string{"/a", "/c", "/d"}, c.Indexes())
	require.NoError(t, c.Close())
}

// R13: a cursor's pages are the results of one snapshot, whatever is
// written or deleted between them (TestCursorDropsWhatExpires has what
// expires); Close is idempotent, and a closed collection ends the cursor
// with ErrClosed.
func TestCursorReadsOneSnapshot(t *testing.T) {
	for _, idx := range [][]string{nil, {"/total"}} {
		c, clk := newQueryCollection(t, idx...)
		q := SQL{Text: `SELECT c.id, c.total FROM c WHERE IS_DEFINED(c.total) ORDER BY c.total DESC`}
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
				require.NoError(t, c.Delete(bg, StringKey("ap"), "inv-3"))
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
		require.ErrorIs(t, err, ErrClosed)
		_, err = cur.Next(bg, 0)
		require.ErrorIs(t, err, ErrInvalidOption)

		cur, err = c.OpenQuery(bg, SQL{Text: `SELECT * FROM c`})
		require.NoError(t, err)
		_, err = cur.Next(bg, 1)
		require.NoError(t, err)
		require.NoError(t, c.Close())
		_, err = cur.Next(bg, 100)
		require.ErrorIs(t, err, ErrClosed)
		require.NoError(t, cur.Close())
	}
}

// R13: an index build holds no lock while it reads the documents: a write
// made from inside the build (which would deadlock if it did) goes
// through, and the build's catch-up gives the index every change made
// meanwhile: creates, replaces that move a document, deletes, and a
// document deleted and created again.
func TestIndexBuildCatchesUp(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	const n = 5 * buildEvery
	for i := range n {
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": "p", "v": i % 10})
		require.NoError(t, err)
	}
	calls := 0
	buildHook = func(read int) {
		calls++
		for _, id := range []int{read - 1, read + 1, n - read} { // behind, ahead of the build, and far
			_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(id), "pk": "p", "v": 100 + calls})
			require.NoError(t, err)
		}
		require.NoError(t, c.Delete(bg, StringKey("p"), fmt.Sprint(read-2)))
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint("new-", read), "pk": "p", "v": 7})
		require.NoError(t, err)
		if calls == 2 { // deleted, then created again: a new entry for an old key
			require.NoError(t, c.Delete(bg, StringKey("p"), "3"))
			_, err := c.Upsert(bg, map[string]any{"id": "3", "pk": "p", "v": 3})
			require.NoError(t, err)
		}
	}
	t.Cleanup(func() { buildHook = nil })
	require.NoError(t, c.CreateIndex(context.Background(), "/v"))
	require.Equal(t, 5, calls)
	checkIndexAgrees(t, c)
}

// R4, R13: a cursor judges expiry at each page: a document of its snapshot
// that expires while the cursor is open appears in no later page, whether
// the plan scans, reads an index or sorts every row at the first page. It
// is still there at its last live second.
func TestCursorDropsWhatExpires(t *testing.T) {
	for _, tc := range []struct {
		text string
		idx  []string
	}{
		{`SELECT VALUE c.id FROM c`, nil},
		{`SELECT VALUE c.id FROM c WHERE c.v >= 0`, []string{"/v"}},
		{`SELECT VALUE c.id FROM c ORDER BY c.v DESC`, nil},
		{`SELECT VALUE c.id FROM c ORDER BY c.v DESC`, []string{"/v"}},
	} {
		c, clk := newTestCollection(t, "/pk", TTLNoDefault())
		for _, p := range tc.idx {
			require.NoError(t, c.CreateIndex(context.Background(), p))
		}
		// Five documents; d1 and d3 expire 10 seconds after they are written.
		for i := range 5 {
			ttl := -1
			if i%2 == 1 {
				ttl = 10
			}
			mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p","v":%d,"ttl":%d}`, i, 4-i, ttl))
		}
		cur, err := c.OpenQuery(bg, SQL{Text: tc.text})
		require.NoError(t, err)
		first, err := cur.Next(bg, 1)
		require.NoError(t, err)
		require.Equal(t, []string{`"d0"`}, resultIDs(t, first), tc.text)
		clk.Advance(9 * time.Second) // _ts + t - 1: d1 is live
		second, err := cur.Next(bg, 1)
		require.NoError(t, err)
		require.Equal(t, []string{`"d1"`}, resultIDs(t, second), tc.text)
		clk.Advance(time.Second) // _ts + t: d3 has expired
		rest, err := cur.Next(bg, 10)
		require.NoError(t, err)
		require.Equal(t, []string{`"d2"`, `"d4"`}, resultIDs(t, rest), "%s: d3 expired while the cursor was open", tc.text)
		require.NoError(t, cur.Close())
	}
}
