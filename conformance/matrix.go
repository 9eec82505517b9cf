package conformance

// Matrix tests of time to live: rule R3 (the effective TTL of every
// combination of DefaultTTL and document ttl) seen through every operation
// (R4), R6 (a write restarts the countdown and changes the ttl), R7
// (changing DefaultTTL on a live collection), R8 (TTL needs indexing) and
// R2 (the ttl is stored as written).
//
// Moved from the root package's ttl_matrix_test.go, which keeps the check of
// R3 as a function (it needs the package's internals). All time comes from
// the suite's clock (mxTest): each test's starts at 2000-01-01 00:00:00 UTC,
// an exact second, so a document written at once has _ts equal to that
// second, and mxSleepUntil moves it without waiting. Where the root package
// ran each test also with the background sweeper, whose timing is the
// engine's, the suite runs it also "Swept": Sweep after every move of the
// clock and every change of DefaultTTL, a sweeper that is never behind,
// which must not change any result (R4, R5). Helpers and types of this
// file start with "mx".

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// The cells of R3.

// mxNever stands for "never expires" in the expectation tables.
const mxNever int64 = 0

// mxFar is "far later": ten years, in seconds.
const mxFar = int64(10 * 365 * 24 * 60 * 60)

// mxSetting is a DefaultTTL state of R1, with a name for subtest names.
type mxSetting struct {
	name string
	def  ttldb.DefaultTTL
}

var (
	mxOff   = mxSetting{"off", ttldb.TTLOff()}
	mxNoDef = mxSetting{"-1", ttldb.TTLNoDefault()}
	mxDefN  = mxSetting{"n=100", ttldb.TTLSeconds(100)}
	mxDefM  = mxSetting{"m=40", ttldb.TTLSeconds(40)} // a second n, for R7
)

// mxTTL is a document's ttl member as written: its raw JSON, or "" when the
// document has no ttl.
type mxTTL struct{ name, raw string }

var (
	mxAbsent = mxTTL{"absent", ""}
	mxNull   = mxTTL{"null", "null"}
	mxMinus1 = mxTTL{"-1", "-1"}
	mxOwn30  = mxTTL{"m=30", "30"}   // own ttl below n
	mxOwn250 = mxTTL{"m=250", "250"} // own ttl above n
	mxOwn70  = mxTTL{"own=70", "70"} // own ttl between the two defaults of R7
)

// mxR3Table is the table of R3 in SPEC.md, for DefaultTTL n = 100: the
// effective TTL in seconds of each document ttl (rows) under each DefaultTTL
// (columns), or mxNever. The m = 250 row checks that an own ttl overrides a
// smaller default as well as a larger one.
var mxR3Table = []struct {
	ttl            mxTTL
	off, noDef, is int64
}{
	{mxAbsent, mxNever, mxNever, 100},
	{mxNull, mxNever, mxNever, 100},
	{mxMinus1, mxNever, mxNever, mxNever},
	{mxOwn30, mxNever, 30, 30},
	{mxOwn250, mxNever, 250, 250},
}

// mxCell is one cell of R3: a DefaultTTL, a document ttl and the expected
// effective TTL.
type mxCell struct {
	set  mxSetting
	ttl  mxTTL
	want int64
}

func (c mxCell) String() string { return "DefaultTTL=" + c.set.name + ",ttl=" + c.ttl.name }

func mxR3Cells() []mxCell {
	var cells []mxCell
	for _, row := range mxR3Table {
		cells = append(cells,
			mxCell{mxOff, row.ttl, row.off},
			mxCell{mxNoDef, row.ttl, row.noDef},
			mxCell{mxDefN, row.ttl, row.is})
	}
	return cells
}

// mxLifetime is the test's own reading of R3, for any DefaultTTL: seconds
// after _ts, or mxNever. TestEffectiveTTLMatrix checks it against mxR3Table.
func mxLifetime(s mxSetting, ttl mxTTL) int64 {
	n, on := s.def.Seconds()
	switch {
	case !on, ttl.raw == "-1":
		return mxNever
	case ttl.raw == "" || ttl.raw == "null":
		if n == -1 {
			return mxNever
		}
		return n
	}
	own, err := strconv.ParseInt(ttl.raw, 10, 64)
	if err != nil {
		panic("mxLifetime: ttl " + ttl.raw)
	}
	return own
}

// mxExpired reports whether a document that lives life seconds (or mxNever)
// is expired age seconds after its _ts (R4: at _ts + t <= now).
func mxExpired(life, age int64) bool { return life != mxNever && age >= life }

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

// ---------------------------------------------------------------------------
// R3: the effective TTL as a function.

// ---------------------------------------------------------------------------
// R3 and R4: every cell, through every operation.

// mxID is the document under test; mxW (in c1, after it) and mxX (in c2)
// are witnesses with ttl -1 that never expire, so that listings have to
// skip the document rather than stop at it.
const (
	mxID = "d"
	mxW  = "w"
	mxX  = "x"
)

// mxFixture is a collection holding the document under test and the two
// witnesses.
type mxFixture struct {
	c       *ttldb.Collection
	written ttldb.Document // the document under test as first written
	body    []byte         // its JSON, for the writes that probe it again
	sweeper bool
}

// mxSetUp builds the fixture for cell at the start of the bubble.
func mxSetUp(t *testing.T, cell mxCell, sweeper bool) mxFixture {
	t.Helper()
	c := mxNewCollection(t, cell.set.def, sweeper)
	body := mxDoc(mxID, "c1", cell.ttl)
	written, err := c.Create(bg, body)
	require.NoError(t, err)
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	require.Equal(t, start, written.TS(), "a write at the start of the bubble has _ts = its start second")
	mxCreate(t, c, mxW, "c1", mxMinus1)
	mxCreate(t, c, mxX, "c2", mxMinus1)
	return mxFixture{c: c, written: written, body: body, sweeper: sweeper}
}

// mxWantIDs is what a listing returns: the document under test when alive,
// and the witnesses (only the one of c1 for a query of partition c1).
func mxWantIDs(alive, onlyC1 bool) []string {
	ids := []string{}
	if alive {
		ids = append(ids, mxID)
	}
	ids = append(ids, mxW)
	if !onlyC1 {
		ids = append(ids, mxX)
	}
	return ids
}

// mxProbe checks one operation against the document under test, which is
// alive or gone.
type mxProbe struct {
	name  string
	check func(t *testing.T, f mxFixture, alive bool)
}

// mxRequireGone checks that Get does not find the document under test.
func mxRequireGone(t *testing.T, f mxFixture) {
	t.Helper()
	_, err := f.c.Get(bg, mxC1, mxID)
	require.ErrorIs(t, err, ttldb.ErrNotFound)
}

// mxRequireStamped checks that got is a new write of the document under
// test, made now (R6: new _ts and _etag), and that Get returns it.
func mxRequireStamped(t *testing.T, f mxFixture, got ttldb.Document) {
	t.Helper()
	require.Equal(t, mxNow(t), got.TS(), "_ts of the new write")
	require.NotEqual(t, f.written.ETag(), got.ETag(), "_etag of the new write")
	cur, err := f.c.Get(bg, mxC1, mxID)
	require.NoError(t, err)
	require.Equal(t, got.ETag(), cur.ETag(), "Get returns the new write")
	require.Equal(t, got.TS(), cur.TS())
}

// mxRequireStored checks that the collection stores exactly the three
// documents, none of them expired.
func mxRequireStored(t *testing.T, f mxFixture) {
	t.Helper()
	st := mxStats(t, f.c)
	require.Equal(t, 3, st.Live, "Stats.Live")
	require.Equal(t, 0, st.Expired, "Stats.Expired")
}

// mxRewrite is a probe of a write that needs a live document: alive, it
// succeeds and restarts the countdown; gone, it fails with ErrNotFound and
// stores nothing (R4).
func mxRewrite(name string, write func(f mxFixture) (ttldb.Document, error)) mxProbe {
	return mxProbe{name, func(t *testing.T, f mxFixture, alive bool) {
		got, err := write(f)
		if !alive {
			require.ErrorIs(t, err, ttldb.ErrNotFound)
			mxRequireGone(t, f)
			return
		}
		require.NoError(t, err)
		mxRequireStamped(t, f, got)
	}}
}

// mxRemove is a probe of a delete: alive, it deletes; gone, ErrNotFound
// (R4).
func mxRemove(name string, del func(f mxFixture) error) mxProbe {
	return mxProbe{name, func(t *testing.T, f mxFixture, alive bool) {
		err := del(f)
		if !alive {
			require.ErrorIs(t, err, ttldb.ErrNotFound)
			return
		}
		require.NoError(t, err)
		mxRequireGone(t, f)
		require.Equal(t, mxWantIDs(false, false), mxListIDs(t, f.c, ttldb.Query{}))
	}}
}

// mxListing is a probe of a read that lists ids.
func mxListing(name string, onlyC1 bool, list func(t *testing.T, c *ttldb.Collection) []string) mxProbe {
	return mxProbe{name, func(t *testing.T, f mxFixture, alive bool) {
		require.Equal(t, mxWantIDs(alive, onlyC1), list(t, f.c))
	}}
}

// mxCounting is a probe of Count.
func mxCounting(name string, onlyC1 bool, q func() ttldb.Query) mxProbe {
	return mxProbe{name, func(t *testing.T, f mxFixture, alive bool) {
		require.Equal(t, len(mxWantIDs(alive, onlyC1)), mxCount(t, f.c, q()))
	}}
}

func mxProbes() []mxProbe {
	ifMatch := func(f mxFixture) ttldb.WriteOption { return ttldb.IfMatch(f.written.ETag()) }
	return []mxProbe{
		{"Get", func(t *testing.T, f mxFixture, alive bool) {
			got, err := f.c.Get(bg, mxC1, mxID)
			if !alive {
				require.ErrorIs(t, err, ttldb.ErrNotFound)
				return
			}
			require.NoError(t, err)
			require.Equal(t, f.written.ETag(), got.ETag())
			require.Equal(t, f.written.TS(), got.TS())
		}},
		mxRewrite("Replace", func(f mxFixture) (ttldb.Document, error) { return f.c.Replace(bg, f.body) }),
		mxRewrite("Replace/IfMatch", func(f mxFixture) (ttldb.Document, error) { return f.c.Replace(bg, f.body, ifMatch(f)) }),
		mxRewrite("Upsert/IfMatch", func(f mxFixture) (ttldb.Document, error) { return f.c.Upsert(bg, f.body, ifMatch(f)) }),
		mxRewrite("Touch", func(f mxFixture) (ttldb.Document, error) { return f.c.Touch(bg, mxC1, mxID) }),
		mxRemove("Delete", func(f mxFixture) error { return f.c.Delete(bg, mxC1, mxID) }),
		mxRemove("Delete/IfMatch", func(f mxFixture) error { return f.c.Delete(bg, mxC1, mxID, ifMatch(f)) }),
		{"Create", func(t *testing.T, f mxFixture, alive bool) {
			got, err := f.c.Create(bg, f.body)
			if alive {
				require.ErrorIs(t, err, ttldb.ErrConflict)
				cur, err := f.c.Get(bg, mxC1, mxID)
				require.NoError(t, err)
				require.Equal(t, f.written.ETag(), cur.ETag(), "a refused Create changes nothing")
				return
			}
			require.NoError(t, err, "Create over an expired document succeeds (R4)")
			mxRequireStamped(t, f, got)
			mxRequireStored(t, f)
		}},
		{"Upsert", func(t *testing.T, f mxFixture, alive bool) {
			// Alive, Upsert replaces; gone, it creates (R4). Either way the
			// returned document is a new write that Get sees.
			got, err := f.c.Upsert(bg, f.body)
			require.NoError(t, err)
			mxRequireStamped(t, f, got)
			mxRequireStored(t, f)
		}},
		mxListing("List", false, func(t *testing.T, c *ttldb.Collection) []string { return mxListIDs(t, c, ttldb.Query{}) }),
		mxListing("List/Partition", true, func(t *testing.T, c *ttldb.Collection) []string {
			return mxListIDs(t, c, ttldb.Query{Partition: mxPartition(mxC1)})
		}),
		mxListing("List/Limit=1", false, func(t *testing.T, c *ttldb.Collection) []string { return mxListIDs(t, c, ttldb.Query{Limit: 1}) }),
		mxListing("All", false, func(t *testing.T, c *ttldb.Collection) []string { return mxAllIDs(t, c, ttldb.Query{}) }),
		mxListing("All/Partition", true, func(t *testing.T, c *ttldb.Collection) []string {
			return mxAllIDs(t, c, ttldb.Query{Partition: mxPartition(mxC1)})
		}),
		mxCounting("Count", false, func() ttldb.Query { return ttldb.Query{} }),
		mxCounting("Count/Partition", true, func() ttldb.Query { return ttldb.Query{Partition: mxPartition(mxC1)} }),
		mxCounting("Count/Filter", false, func() ttldb.Query { return ttldb.Query{Filter: func(ttldb.Document) bool { return true }} }),
		{"Stats", func(t *testing.T, f mxFixture, alive bool) {
			st := mxStats(t, f.c)
			require.Equal(t, len(mxWantIDs(alive, false)), st.Live, "Stats.Live")
			switch {
			case alive:
				require.Equal(t, 0, st.Expired, "Stats.Expired")
				require.Equal(t, uint64(0), st.Swept, "Stats.Swept")
			case f.sweeper: // R5: deleted by the sweep that followed the clock
				require.Equal(t, 0, st.Expired, "Stats.Expired")
				require.Equal(t, uint64(1), st.Swept, "Stats.Swept")
			default: // ManualSweep: hidden but still stored until Sweep
				require.Equal(t, 1, st.Expired, "Stats.Expired")
				require.Equal(t, uint64(0), st.Swept, "Stats.Swept")
				n, err := f.c.Sweep(bg)
				require.NoError(t, err)
				require.Equal(t, 1, n, "Sweep deletes the expired document")
				mxRequireGone(t, f)
			}
		}},
	}
}

// mxCheckpoint is an instant, in seconds after _ts, at which the document
// under test must be alive or gone.
type mxCheckpoint struct {
	at    int64
	alive bool
}

func (p mxCheckpoint) String() string {
	state := "gone"
	if p.alive {
		state = "alive"
	}
	if p.at == mxFar {
		return "_ts+10y=" + state
	}
	return fmt.Sprintf("_ts+%d=%s", p.at, state)
}

// checkpoints returns, for an expiring cell, the last second alive
// (_ts + t - 1), the first second gone (_ts + t) and ten years later; for a
// cell that never expires, the instants other cells expire at and ten years
// later.
func (c mxCell) checkpoints() []mxCheckpoint {
	if c.want == mxNever {
		return []mxCheckpoint{{100, true}, {250, true}, {mxFar, true}}
	}
	return []mxCheckpoint{{c.want - 1, true}, {c.want, false}, {mxFar, false}}
}

// R3 R4
//
// Each probe of each cell at each checkpoint opens a collection of its own:
// thousands, which on an engine whose Open costs a few milliseconds (a
// directory, a server) take a minute. The quick form (not Long) runs one in
// eight of them in each sweep mode, a different eighth in each, every probe
// and every cell among them.
func mxR3MatrixEveryOperation(t *testing.T, eng Harness) {
	for m, mode := range mxSweepModes {
		n := 0
		t.Run(mode.name, func(t *testing.T) {
			for _, cell := range mxR3Cells() {
				t.Run(cell.String(), func(t *testing.T) {
					for _, cp := range cell.checkpoints() {
						t.Run(cp.String(), func(t *testing.T) {
							for _, p := range mxProbes() {
								if n++; !Long() && n%8 != 4*m {
									continue
								}
								t.Run(p.name, func(t *testing.T) {
									mxTest(t, eng, func(t *testing.T) {
										f := mxSetUp(t, cell, mode.sweeper)
										mxSleepUntil(t, f.written.TS()+cp.at)
										p.check(t, f, cp.alive)
									})
								})
							}
						})
					}
				})
			}
		})
	}
}

// R4: _ts is the floor of the write time, and expiry is in whole seconds.
// A document written 0.9 s into a second expires t seconds after the start
// of that second, that is 0.9 s earlier than t seconds after the write.
func mxR4MatrixWholeSeconds(t *testing.T, eng Harness) {
	mxTest(t, eng, func(t *testing.T) {
		c := mxNewCollection(t, ttldb.TTLSeconds(100), false)
		mxAdvance(t, 900*time.Millisecond)
		d := mxCreate(t, c, mxID, "c1", mxAbsent)
		start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		require.Equal(t, start.Unix(), d.TS(), "_ts is the floor of the write time")

		mxAdvance(t, start.Add(99*time.Second+999*time.Millisecond).Sub(mxEnvOf(t).clk.Now()))
		mxRequireVisible(t, c, []string{mxID}, []string{mxID}, "at _ts+99.999s")
		mxAdvance(t, time.Millisecond)
		mxRequireVisible(t, c, []string{mxID}, nil, "at _ts+100s, 99.1s after the write")
	})
}

// ---------------------------------------------------------------------------
// R7: changing DefaultTTL on a live collection.

// mxR7Settings are the four DefaultTTL states R7 moves between: off, -1, n
// and m; mxR7Docs the document ttls each batch of documents has.
var (
	mxR7Settings = []mxSetting{mxOff, mxNoDef, mxDefN, mxDefM}
	mxR7Docs     = []mxTTL{mxAbsent, mxNull, mxMinus1, mxOwn70}
)

// mxChange sets DefaultTTL to the setting at seconds after the start.
type mxChange struct {
	at int64
	to mxSetting
}

// mxScenario is a collection created with start, whose DefaultTTL then
// changes as changes say (in time order). A batch of documents (one of each
// of mxR7Docs) is written at the start, and another just after the first
// change.
type mxScenario struct {
	start   mxSetting
	changes []mxChange
}

func (s mxScenario) String() string {
	name := s.start.name
	for _, ch := range s.changes {
		name += fmt.Sprintf("->%s@%d", ch.to.name, ch.at)
	}
	return name
}

// visible is the model of R3, R4 and R7: whether a document with ttl,
// written w seconds after the start, is visible now seconds after the start
// once the first applied changes have been made. Under each setting it
// expires as R3 says; and if it was expired at the instant a change was
// made, it stays gone whatever comes after (R7).
func (s mxScenario) visible(w int64, ttl mxTTL, now int64, applied int) bool {
	cur := s.start
	for _, ch := range s.changes[:applied] {
		if ch.at > w && mxExpired(mxLifetime(cur, ttl), ch.at-w) {
			return false // R7: expired when the setting changed
		}
		cur = ch.to
	}
	return !mxExpired(mxLifetime(cur, ttl), now-w)
}

// instants returns the seconds after the start at which run checks
// visibility: around each change and around each instant a document could
// expire at, and ten years later.
func (s mxScenario) instants() []int64 {
	out := []int64{0, mxFar}
	writes := []int64{0}
	for _, ch := range s.changes {
		out = append(out, ch.at-1, ch.at)
	}
	if len(s.changes) > 0 {
		writes = append(writes, s.changes[0].at)
	}
	for _, w := range writes {
		for _, life := range []int64{40, 70, 100} {
			out = append(out, w+life-1, w+life)
		}
	}
	slices.Sort(out)
	return slices.Compact(slices.DeleteFunc(out, func(at int64) bool { return at < 0 }))
}

// mxDocAt is a document of a scenario: its ttl and when it was written.
type mxDocAt struct {
	id  string
	ttl mxTTL
	w   int64
}

// run plays the scenario in a bubble and checks, at every instant, before
// and after each change, that exactly the documents the model says are
// visible through every read.
func (s mxScenario) run(t *testing.T, eng Harness, sweeper bool) {
	mxTest(t, eng, func(t *testing.T) {
		c := mxNewCollection(t, s.start.def, sweeper)
		start := mxNow(t)
		var docs []mxDocAt
		writeBatch := func(w int64) {
			for _, ttl := range mxR7Docs {
				id := fmt.Sprintf("%s@%d", ttl.name, w)
				d := mxCreate(t, c, id, "c1", ttl)
				require.Equal(t, start+w, d.TS())
				docs = append(docs, mxDocAt{id, ttl, w})
			}
		}
		check := func(applied int, when string) {
			t.Helper()
			now := mxNow(t) - start
			var all, want []string
			for _, d := range docs {
				all = append(all, d.id)
				if s.visible(d.w, d.ttl, now, applied) {
					want = append(want, d.id)
				}
			}
			msg := fmt.Sprintf("%s at +%ds %s", s, now, when)
			mxRequireVisible(t, c, all, want, msg)
			if _, on := c.DefaultTTL().Seconds(); sweeper && on {
				// The sweep after the change has deleted what expired,
				// including after a change of setting (R5).
				require.Zero(t, mxStats(t, c).Expired, "%s: Stats.Expired", msg)
			}
		}

		writeBatch(0)
		applied := 0
		for _, at := range s.instants() {
			mxSleepUntil(t, start+at)
			check(applied, "")
			for applied < len(s.changes) && s.changes[applied].at == at {
				to := s.changes[applied].to
				require.NoError(t, c.SetDefaultTTL(bg, to.def))
				mxSwept(t)
				require.Equal(t, to.def, c.DefaultTTL())
				applied++
				check(applied, "just after DefaultTTL became "+to.name)
				if applied == 1 {
					writeBatch(at)
					check(applied, "after the second batch")
				}
			}
		}
	})
}

// mxChangeTimes are the instants a change is made at: before anything
// expires, exactly when a document expires, and between expiries.
var mxChangeTimes = []int64{20, 40, 50, 70, 80, 100, 130}

// R7: every ordered pair of settings, changed at each of mxChangeTimes.
func mxR7MatrixPairs(t *testing.T, eng Harness) {
	for _, mode := range mxSweepModes {
		t.Run(mode.name, func(t *testing.T) {
			for _, from := range mxR7Settings {
				for _, to := range mxR7Settings {
					for _, at := range mxChangeTimes {
						s := mxScenario{start: from, changes: []mxChange{{at, to}}}
						t.Run(s.String(), func(t *testing.T) { s.run(t, eng, mode.sweeper) })
					}
				}
			}
		})
	}
}

// mxPermutations returns every order of settings.
func mxPermutations(settings []mxSetting) [][]mxSetting {
	if len(settings) <= 1 {
		return [][]mxSetting{slices.Clone(settings)}
	}
	var out [][]mxSetting
	for i, first := range settings {
		rest := slices.Concat(settings[:i], settings[i+1:])
		for _, p := range mxPermutations(rest) {
			out = append(out, append([]mxSetting{first}, p...))
		}
	}
	return out
}

// R7: longer sequences: the four settings in every order, and back to the
// first (off -> -1 -> n -> m -> off and the 23 others), on two time grids.
func mxR7MatrixSequences(t *testing.T, eng Harness) {
	grids := [][]int64{{20, 50, 80, 130}, {40, 70, 100, 170}}
	for _, mode := range mxSweepModes {
		t.Run(mode.name, func(t *testing.T) {
			for _, order := range mxPermutations(mxR7Settings) {
				for _, grid := range grids {
					s := mxScenario{start: order[0]}
					for i, to := range append(order[1:], order[0]) {
						s.changes = append(s.changes, mxChange{grid[i], to})
					}
					t.Run(s.String(), func(t *testing.T) { s.run(t, eng, mode.sweeper) })
				}
			}
		})
	}
}

// R7: named examples of "a document that had already expired when the
// setting changed stays gone", checked through every operation, including
// the writes: Replace, Touch, Delete and a conditional Upsert do not find
// it, and Create succeeds as over a free key.
func mxR7MatrixExpiredStaysGone(t *testing.T, eng Harness) {
	own10, own20 := mxTTL{"own=10", "10"}, mxTTL{"own=20", "20"}
	cases := []struct {
		name  string
		start ttldb.DefaultTTL
		ttl   mxTTL
		at    int64              // seconds after the write when the settings change
		then  []ttldb.DefaultTTL // the settings, in order, all made at at
		alive bool               // the document is alive after the changes, forever
	}{
		{"n=10, expired at 10, off at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"n=10, expired at 10, off then 1000 at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLOff(), ttldb.TTLSeconds(1000)}, false},
		{"n=10, expired at 10, 1000 at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLSeconds(1000)}, false},
		{"n=10, expired at 10, -1 at 15", ttldb.TTLSeconds(10), mxAbsent, 15, []ttldb.DefaultTTL{ttldb.TTLNoDefault()}, false},
		{"n=10, ttl null, expired at 10, off at 15", ttldb.TTLSeconds(10), mxNull, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"n=10, expired at exactly 10, off at 10", ttldb.TTLSeconds(10), mxAbsent, 10, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"n=10, off at 9, one second before expiry", ttldb.TTLSeconds(10), mxAbsent, 9, []ttldb.DefaultTTL{ttldb.TTLOff()}, true},
		{"n=10, -1 at 9", ttldb.TTLSeconds(10), mxAbsent, 9, []ttldb.DefaultTTL{ttldb.TTLNoDefault()}, true},
		{"-1, own 10 expired, off at 15", ttldb.TTLNoDefault(), own10, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
		{"-1, own 10 expired, off then -1 then 1000 at 15", ttldb.TTLNoDefault(), own10, 15, []ttldb.DefaultTTL{ttldb.TTLOff(), ttldb.TTLNoDefault(), ttldb.TTLSeconds(1000)}, false},
		{"-1, own 20 alive, off at 15", ttldb.TTLNoDefault(), own20, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, true},
		{"n=1000, own 10 expired, off at 15", ttldb.TTLSeconds(1000), own10, 15, []ttldb.DefaultTTL{ttldb.TTLOff()}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mxTest(t, eng, func(t *testing.T) {
				c := mxNewCollection(t, tc.start, false)
				body := mxDoc(mxID, "c1", tc.ttl)
				written, err := c.Create(bg, body)
				require.NoError(t, err)
				var want []string
				if tc.alive {
					want = []string{mxID}
				}
				mxSleepUntil(t, written.TS()+tc.at)
				for _, def := range tc.then {
					require.NoError(t, c.SetDefaultTTL(bg, def))
					mxRequireVisible(t, c, []string{mxID}, want, "after DefaultTTL became "+def.String())
				}
				mxSleepUntil(t, written.TS()+mxFar)
				mxRequireVisible(t, c, []string{mxID}, want, "ten years later")
				if tc.alive {
					return
				}
				_, err = c.Replace(bg, body)
				require.ErrorIs(t, err, ttldb.ErrNotFound, "Replace")
				_, err = c.Touch(bg, mxC1, mxID)
				require.ErrorIs(t, err, ttldb.ErrNotFound, "Touch")
				_, err = c.Upsert(bg, body, ttldb.IfMatch(written.ETag()))
				require.ErrorIs(t, err, ttldb.ErrNotFound, "Upsert with IfMatch")
				require.ErrorIs(t, c.Delete(bg, mxC1, mxID), ttldb.ErrNotFound, "Delete")
				got, err := c.Create(bg, body)
				require.NoError(t, err, "Create over the expired document")
				require.Equal(t, mxNow(t), got.TS())
				mxRequireVisible(t, c, []string{mxID}, []string{mxID}, "after Create")
			})
		})
	}
}

// R8: TTL needs indexing. SetDefaultTTL(-1 or n) on a collection with
// IndexingNone fails with ErrInvalidOption and changes nothing, and so does
// SetIndexingMode(IndexingNone) on a collection with TTL.
func mxR8MatrixIndexingNone(t *testing.T, eng Harness) {
	mxTest(t, eng, func(t *testing.T) {
		_, err := mxOpen(t, "plain", "/pk", &ttldb.Options{Indexing: ttldb.IndexingNone, DefaultTTL: ttldb.TTLSeconds(10)})
		require.ErrorIs(t, err, ttldb.ErrInvalidOption, "NewCollection with TTL and IndexingNone")

		plain, err := mxOpen(t, "plain", "/pk", &ttldb.Options{Indexing: ttldb.IndexingNone})
		require.NoError(t, err)
		ids := []string{"own10", "absent"}
		mxCreate(t, plain, ids[0], "c1", mxTTL{"own=10", "10"})
		mxCreate(t, plain, ids[1], "c1", mxAbsent)
		for _, def := range []ttldb.DefaultTTL{ttldb.TTLNoDefault(), ttldb.TTLSeconds(5), ttldb.TTLSeconds(100)} {
			require.ErrorIs(t, plain.SetDefaultTTL(bg, def), ttldb.ErrInvalidOption, "SetDefaultTTL(%v) with IndexingNone", def)
			require.Equal(t, ttldb.TTLOff(), plain.DefaultTTL(), "a refused SetDefaultTTL changes nothing")
			require.Equal(t, ttldb.IndexingNone, plain.IndexingMode())
		}
		mxSleepUntil(t, mxNow(t)+20)
		mxRequireVisible(t, plain, ids, ids, "TTL is still off 20s later")
		require.NoError(t, plain.SetDefaultTTL(bg, ttldb.TTLOff()), "off is allowed with IndexingNone")

		withTTL := mxNewCollection(t, ttldb.TTLSeconds(10), false)
		d := mxCreate(t, withTTL, mxID, "c1", mxAbsent)
		require.ErrorIs(t, withTTL.SetIndexingMode(bg, ttldb.IndexingNone), ttldb.ErrInvalidOption)
		require.Equal(t, ttldb.IndexingConsistent, withTTL.IndexingMode())
		require.Equal(t, ttldb.TTLSeconds(10), withTTL.DefaultTTL())
		mxSleepUntil(t, d.TS()+9)
		mxRequireVisible(t, withTTL, []string{mxID}, []string{mxID}, "_ts+9")
		mxSleepUntil(t, d.TS()+10)
		mxRequireVisible(t, withTTL, []string{mxID}, nil, "_ts+10")
	})
}

// ---------------------------------------------------------------------------
// R6: a write restarts the countdown and sets the ttl.

// mxWriteAt is when the R6 tests rewrite the document: before any of the
// original ttls run out.
const mxWriteAt = 20

// mxRequireLifetime checks that the document id, written at ts, lives life
// seconds (or never): alive at ts + life - 1, gone at ts + life; or alive
// ten years later.
func mxRequireLifetime(t *testing.T, c *ttldb.Collection, id string, ts, life int64) {
	t.Helper()
	if life == mxNever {
		mxSleepUntil(t, ts+mxFar)
		mxRequireVisible(t, c, []string{id}, []string{id}, "ten years after the write")
		return
	}
	mxSleepUntil(t, ts+life-1)
	mxRequireVisible(t, c, []string{id}, []string{id}, fmt.Sprintf("_ts+%d", life-1))
	mxSleepUntil(t, ts+life)
	mxRequireVisible(t, c, []string{id}, nil, fmt.Sprintf("_ts+%d", life))
}

// R6: adding, changing and removing a document's ttl, setting it to -1 or
// null, by Replace and by Upsert: the write restarts the countdown from its
// _ts, and the new ttl (or the default it now inherits) applies.
func mxR6MatrixDocumentTTLChanges(t *testing.T, eng Harness) {
	cases := []struct {
		name          string
		def           mxSetting
		before, after mxTTL
		life          int64 // effective TTL after the write, from its _ts
	}{
		{"ttl added", mxDefN, mxAbsent, mxOwn30, 30},
		{"ttl added, above the default", mxDefN, mxAbsent, mxOwn250, 250},
		{"ttl rewritten unchanged, countdown restarts", mxDefN, mxOwn30, mxOwn30, 30},
		{"ttl shortened", mxDefN, mxOwn250, mxOwn30, 30},
		{"ttl lengthened", mxDefN, mxOwn30, mxOwn250, 250},
		{"ttl removed, inherits n", mxDefN, mxOwn30, mxAbsent, 100},
		{"ttl set to null, inherits n", mxDefN, mxOwn30, mxNull, 100},
		{"ttl set to -1", mxDefN, mxOwn30, mxMinus1, mxNever},
		{"ttl -1 removed, inherits n", mxDefN, mxMinus1, mxAbsent, 100},
		{"ttl -1 replaced by m", mxDefN, mxMinus1, mxOwn30, 30},
		{"no ttl rewritten, countdown restarts", mxDefN, mxAbsent, mxAbsent, 100},
		{"ttl removed under -1, never expires", mxNoDef, mxOwn30, mxAbsent, mxNever},
		{"ttl set to null under -1, never expires", mxNoDef, mxOwn30, mxNull, mxNever},
		{"ttl added under -1", mxNoDef, mxAbsent, mxOwn30, 30},
		{"ttl added under off, ignored", mxOff, mxAbsent, mxOwn30, mxNever},
	}
	writes := []struct {
		name  string
		write func(c *ttldb.Collection, body []byte, old ttldb.Document) (ttldb.Document, error)
	}{
		{"Replace", func(c *ttldb.Collection, body []byte, _ ttldb.Document) (ttldb.Document, error) {
			return c.Replace(bg, body)
		}},
		{"Upsert", func(c *ttldb.Collection, body []byte, _ ttldb.Document) (ttldb.Document, error) {
			return c.Upsert(bg, body)
		}},
		{"Replace/IfMatch", func(c *ttldb.Collection, body []byte, old ttldb.Document) (ttldb.Document, error) {
			return c.Replace(bg, body, ttldb.IfMatch(old.ETag()))
		}},
	}
	for _, tc := range cases {
		for _, w := range writes {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				mxTest(t, eng, func(t *testing.T) {
					c := mxNewCollection(t, tc.def.def, false)
					old := mxCreate(t, c, mxID, "c1", tc.before)
					mxSleepUntil(t, old.TS()+mxWriteAt)
					got, err := w.write(c, mxDoc(mxID, "c1", tc.after), old)
					require.NoError(t, err)
					require.Equal(t, old.TS()+mxWriteAt, got.TS(), "the write sets _ts anew")
					require.Equal(t, tc.after.raw, mxTTLMember(t, got), "the new ttl is stored as written")
					require.Equal(t, tc.life, mxLifetime(tc.def, tc.after), "table agrees with R3")
					mxRequireLifetime(t, c, mxID, got.TS(), tc.life)
				})
			})
		}
	}
}

// R6: Touch renews _ts and _etag and keeps the ttl as written, so the
// document lives its effective TTL again from the touch, in every cell of
// R3.
func mxR6MatrixTouch(t *testing.T, eng Harness) {
	for _, cell := range mxR3Cells() {
		t.Run(cell.String(), func(t *testing.T) {
			mxTest(t, eng, func(t *testing.T) {
				c := mxNewCollection(t, cell.set.def, false)
				old := mxCreate(t, c, mxID, "c1", cell.ttl)
				mxSleepUntil(t, old.TS()+mxWriteAt)
				got, err := c.Touch(bg, mxC1, mxID)
				require.NoError(t, err)
				require.Equal(t, old.TS()+mxWriteAt, got.TS(), "Touch sets _ts anew")
				require.NotEqual(t, old.ETag(), got.ETag(), "Touch sets _etag anew")
				require.Equal(t, cell.ttl.raw, mxTTLMember(t, got), "Touch keeps the ttl as written")
				wantSecs, wantOK := old.TTL()
				secs, ok := got.TTL()
				require.Equal(t, wantOK, ok)
				require.Equal(t, wantSecs, secs)
				mxRequireLifetime(t, c, mxID, got.TS(), cell.want)
			})
		})
	}
}

// ---------------------------------------------------------------------------
// The sales-order walk-through.

// R3 R6 R7: orders expire 90 days after their last write unless they say
// otherwise; an order with a ttl of 30 days is gone at 30 days, not 90; a
// write extends an order; removing its ttl makes it inherit the 90 days from
// that write; turning TTL off keeps the live orders forever, and the orders
// that had already expired stay gone.
func mxR3R6R7MatrixSalesOrders(t *testing.T, eng Harness) {
	mxTest(t, eng, func(t *testing.T) {
		const day = int64(24 * 60 * 60)
		c, err := mxOpen(t, "orders", "/customerId", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(90 * day)})
		require.NoError(t, err)
		start := mxNow(t)
		order := func(id string, ttl mxTTL) []byte {
			b := fmt.Sprintf(`{"id":%q,"customerId":"c1","total":42.5`, id)
			if ttl.raw != "" {
				b += `,"ttl":` + ttl.raw
			}
			return []byte(b + "}")
		}
		days30 := mxTTL{"30 days", strconv.FormatInt(30*day, 10)}
		write := func(op func(context.Context, any, ...ttldb.WriteOption) (ttldb.Document, error), id string, ttl mxTTL) {
			t.Helper()
			_, err := op(bg, order(id, ttl))
			require.NoError(t, err, "write %s", id)
		}
		create := func(ctx context.Context, doc any, _ ...ttldb.WriteOption) (ttldb.Document, error) {
			return c.Create(ctx, doc)
		}
		at := func(days int64, offset int64) { mxSleepUntil(t, start+days*day+offset) }
		all := []string{"A", "B", "C", "D"}
		visible := func(when string, want ...string) {
			t.Helper()
			mxRequireVisible(t, c, all, want, when)
		}

		write(create, "A", days30)   // own ttl 30 days: gone at day 30
		write(create, "B", days30)   // extended at day 20: gone at day 50
		write(create, "C", days30)   // extended, then ttl removed at day 40
		write(create, "D", mxAbsent) // inherits 90 days: gone at day 90
		visible("day 0", "A", "B", "C", "D")

		at(20, 0)
		write(c.Replace, "B", days30) // R6: the write restarts the 30 days
		write(c.Replace, "C", days30)

		at(30, -1)
		visible("day 30 - 1s", "A", "B", "C", "D")
		at(30, 0)
		visible("day 30: A's own 30 days are over, not 90", "B", "C", "D")

		at(40, 0)
		write(c.Replace, "C", mxAbsent) // R6: no ttl, inherits 90 days from day 40

		at(50, -1)
		visible("day 50 - 1s", "B", "C", "D")
		at(50, 0)
		visible("day 50: B's extension is over; C now inherits", "C", "D")

		at(90, 0)
		visible("day 90: D's inherited 90 days are over", "C")

		at(100, 0)
		require.NoError(t, c.SetDefaultTTL(bg, ttldb.TTLOff())) // R7
		visible("day 100, TTL off: the expired orders stay gone", "C")

		at(130, 0)
		visible("day 130, when C would have expired: TTL is off", "C")
		mxSleepUntil(t, start+mxFar)
		visible("ten years later", "C")

		require.NoError(t, c.SetDefaultTTL(bg, ttldb.TTLSeconds(90*day))) // R7: at once
		visible("TTL back on, C's 90 days from day 40 are long over")
	})
}

// ---------------------------------------------------------------------------
// R2: the ttl is stored exactly as written.

// R2: a ttl is stored and returned as written ("10.0", "1e1"), and a
// document without a ttl never gets the inherited default written into it.
func mxR2MatrixStoredTTL(t *testing.T, eng Harness) {
	cases := []struct {
		raw     string
		seconds int
		ok      bool
	}{
		{"10", 10, true},
		{"10.0", 10, true},
		{"1e1", 10, true},
		{"1E+1", 10, true},
		{"100e-1", 10, true},
		{"-1", -1, true},
		{"null", 0, false},
	}
	for _, tc := range cases {
		t.Run("ttl="+tc.raw, func(t *testing.T) {
			mxTest(t, eng, func(t *testing.T) {
				c := mxNewCollection(t, ttldb.TTLNoDefault(), false)
				written := mxCreate(t, c, mxID, "c1", mxTTL{tc.raw, tc.raw})
				got, err := c.Get(bg, mxC1, mxID)
				require.NoError(t, err)
				listed, err := c.List(bg, ttldb.Query{})
				require.NoError(t, err)
				require.Len(t, listed.Documents, 1)
				for name, d := range map[string]ttldb.Document{"Create": written, "Get": got, "List": listed.Documents[0]} {
					require.Contains(t, d.JSON(), `"ttl":`+tc.raw, name)
					require.Equal(t, tc.raw, mxTTLMember(t, d), name)
					secs, ok := d.TTL()
					require.Equal(t, tc.ok, ok, name)
					require.Equal(t, tc.seconds, secs, name)
				}
				if tc.seconds == 10 {
					mxRequireLifetime(t, c, mxID, written.TS(), 10) // R3: m = 10
				}
			})
		})
	}

	t.Run("no ttl", func(t *testing.T) {
		mxTest(t, eng, func(t *testing.T) {
			c := mxNewCollection(t, ttldb.TTLSeconds(100), false)
			written := mxCreate(t, c, mxID, "c1", mxAbsent)
			mxSleepUntil(t, written.TS()+10)
			touched, err := c.Touch(bg, mxC1, mxID)
			require.NoError(t, err)
			mxSleepUntil(t, written.TS()+20)
			replaced, err := c.Replace(bg, mxDoc(mxID, "c1", mxAbsent))
			require.NoError(t, err)
			got, err := c.Get(bg, mxC1, mxID)
			require.NoError(t, err)
			docs := map[string]ttldb.Document{"Create": written, "Touch": touched, "Replace": replaced, "Get": got}
			for d, err := range c.All(bg, ttldb.Query{}) {
				require.NoError(t, err)
				docs["All"] = d
			}
			for name, d := range docs {
				require.NotContains(t, d.JSON(), `"ttl"`, name)
				var m map[string]any
				require.NoError(t, d.Decode(&m))
				require.NotContains(t, m, "ttl", name)
				_, ok := d.TTL()
				require.False(t, ok, "%s: TTL() reports no ttl of its own", name)
			}
		})
	})
}
