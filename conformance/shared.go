package conformance

// R16's sharing: what an engine that several processes share (a server
// engine) must show through two handles on one collection. They run only
// with Harness.Second; the in-process engine has none and skips them.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// sharedPair opens a collection and a second handle on it, on a clock the
// test moves, or skips without Harness.Second.
func sharedPair(t *testing.T, eng Harness, opts ttldb.Options) (a, b *ttldb.Collection, clk *clock) {
	t.Helper()
	if eng.Second == nil {
		t.Skip("the engine has no Harness.Second: one process uses a collection at a time (R16's sharing does not apply)")
	}
	clk = newClock(time.Unix(1_700_000_000, 0))
	opts.Now, opts.ManualSweep = clk.Now, true
	a, err := eng.Open(t, "shared", "/pk", &opts)
	require.NoError(t, err)
	b, err = eng.Second(t, a)
	require.NoError(t, err)
	return a, b, clk
}

// R16: a write through one handle is seen by the next read through the
// other, both ways.
func checkSharedReadYourWrites(t *testing.T, eng Harness) {
	a, b, _ := sharedPair(t, eng, ttldb.Options{})
	pk := ttldb.StringKey("p")
	for i := range 20 {
		w, r := a, b
		if i%2 == 1 {
			w, r = b, a
		}
		d, err := w.Upsert(bg, []byte(fmt.Sprintf(`{"id":"x","pk":"p","n":%d}`, i)))
		require.NoError(t, err)
		got, err := r.Get(bg, pk, "x")
		require.NoError(t, err, "write %d", i)
		require.Equal(t, d.ETag(), got.ETag(), "write %d: the other handle reads the version just written", i)
	}
}

// R16, R11: every change made through either handle appears once in the
// all-versions feed read through each, in LSN order, the same on both.
func checkSharedFeedOnce(t *testing.T, eng Harness) {
	a, b, _ := sharedPair(t, eng, ttldb.Options{})
	for i := range 30 {
		w := []*ttldb.Collection{a, b}[i%2]
		_, err := w.Upsert(bg, []byte(fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i%7)))
		require.NoError(t, err)
	}
	read := func(c *ttldb.Collection) []uint64 {
		var lsns []uint64
		q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes}
		for {
			p, err := c.ReadFeed(bg, q)
			require.NoError(t, err)
			for _, ch := range p.Changes {
				lsns = append(lsns, ch.LSN)
			}
			if !p.More && len(p.Changes) == 0 {
				return lsns
			}
			q = ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: p.Continuation}
		}
	}
	la, lb := read(a), read(b)
	require.Len(t, la, 30, "each change once")
	for i := 1; i < len(la); i++ {
		require.Less(t, la[i-1], la[i], "LSN order")
	}
	require.Equal(t, la, lb, "both handles read the same feed")
}

// R16, R5, R11: an expired document is deleted once, whichever handles
// sweep, and its TTL delete appears once in the feed.
func checkSharedSweepOnce(t *testing.T, eng Harness) {
	a, b, clk := sharedPair(t, eng, ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	for i := range 12 {
		_, err := a.Create(bg, []byte(fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i)))
		require.NoError(t, err)
	}
	clk.Advance(11 * time.Second)
	n1, err := a.Sweep(bg)
	require.NoError(t, err)
	n2, err := b.Sweep(bg)
	require.NoError(t, err)
	n3, err := a.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 12, n1+n2+n3, "each expired document swept once")
	deletes := 0
	q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes}
	for {
		p, err := b.ReadFeed(bg, q)
		require.NoError(t, err)
		for _, ch := range p.Changes {
			if ch.Op == ttldb.OpDelete {
				require.True(t, ch.TimeToLiveExpired)
				deletes++
			}
		}
		if !p.More && len(p.Changes) == 0 {
			break
		}
		q = ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: p.Continuation}
	}
	require.Equal(t, 12, deletes, "each TTL delete once in the feed")
}
