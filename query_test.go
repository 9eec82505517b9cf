package ttldb

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/ref"
)

// queryDocs are the documents of the query tests (ref.QueryDocs).
var queryDocs = ref.QueryDocs

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
// themselves (ref.ResultIDs).
func resultIDs(t *testing.T, results []json.RawMessage) []string {
	t.Helper()
	return ref.ResultIDs(results)
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
// document of the primary index, with the document's value: the engine's
// Check.
func checkIndexAgrees(t *testing.T, c *Collection) {
	t.Helper()
	require.NoError(t, c.fast.Check())
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

// R13: an index build holds no lock while it reads the documents: a write
// made from inside the build (which would deadlock if it did) goes
// through, and the build's catch-up gives the index every change made
// meanwhile: creates, replaces that move a document, deletes, and a
// document deleted and created again.
func TestIndexBuildCatchesUp(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	const n = 5 * local.BuildEvery
	for i := range n {
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": "p", "v": i % 10})
		require.NoError(t, err)
	}
	calls := 0
	local.BuildHook = func(read int) {
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
	t.Cleanup(func() { local.BuildHook = nil })
	require.NoError(t, c.CreateIndex(context.Background(), "/v"))
	require.Equal(t, 5, calls)
	checkIndexAgrees(t, c)
}

// R4, R13: a swept document leaves every index; a query with a partition
// key no constructor makes is refused. (What queries show of expiry, and
// their other refusals, are the conformance suite's, R13/Query*.)
func TestQuerySweptLeavesIndexes(t *testing.T) {
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	for _, idx := range []string{"/status", "/n"} {
		require.NoError(t, c.CreateIndex(context.Background(), idx))
	}
	mustCreate(t, c, `{"id":"short","status":"a","n":1,"ttl":10}`)
	mustCreate(t, c, `{"id":"long","status":"a","n":2,"ttl":100}`)
	mustCreate(t, c, `{"id":"never","status":"a","n":3}`)
	clk.Advance(10 * time.Second)
	_, err := c.Sweep(bg)
	require.NoError(t, err)
	checkIndexAgrees(t, c) // the swept document left every index
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, 2, n)
	bad := PartitionKey{kind: 99}
	_, err = c.Query(bg, SQL{Text: `SELECT * FROM c`, Partition: &bad})
	require.ErrorIs(t, err, ErrInvalidPartitionKey)
}
