package conformance

// The TTL matrix's helpers: each test's collection on the suite's clock,
// documents written with a ttl of the matrix, and what a listing, a count
// and the statistics show.

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// Helpers.

// mxC1 is the partition the documents live in.
var mxC1 = ttldb.StringKey("c1")

// mxPartition returns a fresh pointer to pk for Query.Partition.
func mxPartition(pk ttldb.PartitionKey) *ttldb.PartitionKey { return &pk }

// mxDoc returns the JSON of a document with the given id, partition key
// (member "pk") and ttl.
func mxDoc(id, pk string, ttl mxTTL) []byte {
	b := fmt.Sprintf(`{"id":%q,"pk":%q,"note":"matrix"`, id, pk)
	if ttl.raw != "" {
		b += `,"ttl":` + ttl.raw
	}
	return []byte(b + "}")
}

// mxEnv is a test's clock and engine; mxEnvs holds them by test, so that
// the helpers need only t.
type mxEnv struct {
	eng   Harness
	clk   *clock
	swept bool                // Sweep after every move of the clock
	colls []*ttldb.Collection // the collections the test opened
}

var mxEnvs sync.Map // *testing.T -> *mxEnv

// mxTest runs f with a clock at 2000-01-01 00:00:00 UTC, on the engine of
// eng. It stands for a synctest bubble: the clock moves only by
// mxSleepUntil and mxAdvance.
func mxTest(t *testing.T, eng Harness, f func(t *testing.T)) {
	env := &mxEnv{eng: eng, clk: newClock(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))}
	mxEnvs.Store(t, env)
	defer mxEnvs.Delete(t)
	f(t)
}

func mxEnvOf(t *testing.T) *mxEnv {
	e, ok := mxEnvs.Load(t)
	if !ok {
		t.Fatal("a matrix helper called outside mxTest")
	}
	return e.(*mxEnv)
}

// mxNewCollection returns a collection with partition-key path /pk and the
// given DefaultTTL, on the test's clock, with ManualSweep; with swept,
// mxSleepUntil and mxSwept call Sweep as a sweeper never behind would.
func mxNewCollection(t *testing.T, def ttldb.DefaultTTL, swept bool) *ttldb.Collection {
	t.Helper()
	c, err := mxOpen(t, "matrix", "/pk", &ttldb.Options{DefaultTTL: def})
	require.NoError(t, err)
	mxEnvOf(t).swept = swept
	return c
}

// mxOpen opens a collection on the test's engine and clock, with
// ManualSweep and the other options of o.
func mxOpen(t *testing.T, name, path string, o *ttldb.Options) (*ttldb.Collection, error) {
	t.Helper()
	env := mxEnvOf(t)
	o.Now, o.ManualSweep = env.clk.Now, true
	c, err := env.eng.Open(t, name, path, o)
	if err == nil {
		env.colls = append(env.colls, c)
	}
	return c, err
}

// mxCreate creates a document and returns it.
func mxCreate(t *testing.T, c *ttldb.Collection, id, pk string, ttl mxTTL) ttldb.Document {
	t.Helper()
	d, err := c.Create(bg, mxDoc(id, pk, ttl))
	require.NoError(t, err, "Create %s", id)
	return d
}

// mxSleepUntil advances the test's clock to the Unix second sec and, when
// swept, deletes what became due.
func mxSleepUntil(t *testing.T, sec int64) {
	t.Helper()
	mxAdvance(t, time.Unix(sec, 0).Sub(mxEnvOf(t).clk.Now()))
}

// mxAdvance moves the test's clock forward by d and, when swept, deletes
// what became due.
func mxAdvance(t *testing.T, d time.Duration) {
	t.Helper()
	require.GreaterOrEqual(t, d, time.Duration(0), "the clock would go back")
	env := mxEnvOf(t)
	env.clk.Advance(d)
	mxSwept(t)
}

// mxSwept calls Sweep on the test's collections when they are swept.
func mxSwept(t *testing.T) {
	t.Helper()
	env := mxEnvOf(t)
	if !env.swept {
		return
	}
	for _, c := range env.colls {
		_, err := c.Sweep(bg)
		require.NoError(t, err)
	}
}

// mxNow is the current Unix second of the test's clock.
func mxNow(t *testing.T) int64 { return mxEnvOf(t).clk.Sec() }

// mxIDs returns the ids of docs in order; never nil.
func mxIDs(docs []ttldb.Document) []string {
	ids := []string{}
	for _, d := range docs {
		ids = append(ids, d.ID())
	}
	return ids
}

// mxListIDs lists q page by page, following continuation tokens, and
// returns the ids.
func mxListIDs(t *testing.T, c *ttldb.Collection, q ttldb.Query) []string {
	t.Helper()
	var docs []ttldb.Document
	for {
		page, err := c.List(bg, q)
		require.NoError(t, err)
		docs = append(docs, page.Documents...)
		if page.Continuation == "" {
			return mxIDs(docs)
		}
		q.Continuation = page.Continuation
	}
}

// mxAllIDs iterates q with All and returns the ids.
func mxAllIDs(t *testing.T, c *ttldb.Collection, q ttldb.Query) []string {
	t.Helper()
	var docs []ttldb.Document
	for d, err := range c.All(bg, q) {
		require.NoError(t, err)
		docs = append(docs, d)
	}
	return mxIDs(docs)
}

// mxCount counts q.
func mxCount(t *testing.T, c *ttldb.Collection, q ttldb.Query) int {
	t.Helper()
	n, err := c.Count(bg, q)
	require.NoError(t, err)
	return n
}

// mxStats returns the collection's Stats.
func mxStats(t *testing.T, c *ttldb.Collection) ttldb.Stats {
	t.Helper()
	st, err := c.Stats(bg)
	require.NoError(t, err)
	return st
}

// mxTTLMember returns the raw JSON of d's ttl member, or "" when it has
// none.
func mxTTLMember(t *testing.T, d ttldb.Document) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(d.JSON()), &m))
	return string(m["ttl"])
}

// mxRequireVisible checks that of the documents all (ids in partition c1),
// exactly those in want are visible, through every read: Get, List, List of
// the partition by pages of 2, All, Count, Count of the partition, Count
// with a filter and Stats (R4).
func mxRequireVisible(t *testing.T, c *ttldb.Collection, all, want []string, when string) {
	t.Helper()
	want = append([]string{}, want...)
	slices.Sort(want)
	for _, id := range all {
		_, err := c.Get(bg, mxC1, id)
		if slices.Contains(want, id) {
			require.NoError(t, err, "%s: Get %s", when, id)
		} else {
			require.ErrorIs(t, err, ttldb.ErrNotFound, "%s: Get %s", when, id)
		}
	}
	inC1 := ttldb.Query{Partition: mxPartition(mxC1)}
	require.Equal(t, want, mxListIDs(t, c, ttldb.Query{}), "%s: List", when)
	require.Equal(t, want, mxListIDs(t, c, ttldb.Query{Partition: mxPartition(mxC1), Limit: 2}), "%s: List of c1 by pages", when)
	require.Equal(t, want, mxAllIDs(t, c, ttldb.Query{}), "%s: All", when)
	require.Equal(t, len(want), mxCount(t, c, ttldb.Query{}), "%s: Count", when)
	require.Equal(t, len(want), mxCount(t, c, inC1), "%s: Count of c1", when)
	require.Equal(t, len(want), mxCount(t, c, ttldb.Query{Filter: func(ttldb.Document) bool { return true }}), "%s: Count with a filter", when)
	require.Equal(t, len(want), mxStats(t, c).Live, "%s: Stats.Live", when)
}

// mxSweepModes runs a test with nothing deleted physically unless the test
// calls Sweep, and Swept, where Sweep follows every move of the clock, which
// must not change any result (R4, R5).
var mxSweepModes = []struct {
	name    string
	sweeper bool
}{{"ManualSweep", false}, {"Swept", true}}
