package conformance

// The TTL matrix of R3 and R4: every cell of the effective TTL, through
// every operation, before and after the document expires.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

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
