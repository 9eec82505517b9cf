package conformance

// R11's change feed under bad input and many readers: refused retentions,
// queries and continuations, the feed turned off, and chains of
// continuations read while the documents change. Moved from the root
// package's feed_test.go; the root keeps the refusals it can only make
// with internals (a forged token for a future LSN, a partition key no
// constructor makes, a zero Collection).

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// R11, R10: bad retentions are refused when the collection is opened;
// bad queries and continuations are refused with the sentinel that says
// why, by ReadFeed and WatchFeed, and change nothing; a collection whose
// feed is off still gives LSNs, and refuses to read it; after Close, the
// feed's calls are ErrClosed.
func checkFeedBadInput(t *testing.T, h Harness) {
	const year = 365 * 24 * time.Hour
	for _, o := range []ttldb.FeedOptions{
		{MaxRecords: -1}, {MaxBytes: -1}, {MaxAge: -time.Second},
		{MaxRecords: 1<<40 + 1}, {MaxBytes: 1<<50 + 1}, {MaxAge: 100*year + time.Second},
		{MaxAge: 1500 * time.Millisecond}, {Off: true, MaxRecords: 5},
		{MaxBytes: 1}, {MaxBytes: ttldb.MinFeedBytes - 1},
	} {
		clk := newClock(ruleEpoch)
		_, err := h.Open(t, "bad", "/pk", &ttldb.Options{Now: clk.Now, ManualSweep: true, Feed: o})
		require.ErrorIs(t, err, ttldb.ErrInvalidOption, "%+v", o)
		require.ErrorContains(t, err, "FeedOptions")
	}

	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	other, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	for i := range 5 {
		ruleCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
		ruleCreate(t, other, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	p := ttldb.StringKey("p")
	page, err := c.ReadFeed(bg, ttldb.FeedQuery{Limit: 2})
	require.NoError(t, err)
	avad, err := c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 2})
	require.NoError(t, err)
	foreign, err := other.ReadFeed(bg, ttldb.FeedQuery{Limit: 2})
	require.NoError(t, err)
	list, err := c.List(bg, ttldb.Query{Limit: 2})
	require.NoError(t, err)
	forged := []byte(page.Continuation)
	forged[len(forged)/2] ^= 1

	before := ruleState(t, c)
	for _, tc := range []struct {
		q    ttldb.FeedQuery
		want error
		text string
	}{
		{ttldb.FeedQuery{Continuation: string(forged)}, ttldb.ErrInvalidContinuation, ""},
		{ttldb.FeedQuery{Continuation: page.Continuation[:10]}, ttldb.ErrInvalidContinuation, "not issued by this version"},
		{ttldb.FeedQuery{Continuation: foreign.Continuation}, ttldb.ErrInvalidContinuation, "another collection"},
		{ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: page.Continuation}, ttldb.ErrInvalidContinuation, "for the change feed in mode LatestVersion, not in mode AllVersionsAndDeletes"},
		{ttldb.FeedQuery{Continuation: avad.Continuation}, ttldb.ErrInvalidContinuation, "for the change feed in mode AllVersionsAndDeletes, not in mode LatestVersion"},
		{ttldb.FeedQuery{Partition: &p, Continuation: page.Continuation}, ttldb.ErrInvalidContinuation, "for a read of the change feed of all partitions, not of one"},
		{ttldb.FeedQuery{Continuation: list.Continuation}, ttldb.ErrInvalidContinuation, "for a listing (List, All), not the change feed in mode LatestVersion"},
		{ttldb.FeedQuery{AfterLSN: 6}, ttldb.ErrInvalidOption, "AfterLSN 6 is beyond"},
		{ttldb.FeedQuery{AfterLSN: 1, Continuation: page.Continuation}, ttldb.ErrInvalidOption, "give one place"},
		{ttldb.FeedQuery{FromNow: true, AfterLSN: 1}, ttldb.ErrInvalidOption, "FromNow and"},
		{ttldb.FeedQuery{FromNow: true, Continuation: page.Continuation}, ttldb.ErrInvalidOption, "FromNow and"},
		{ttldb.FeedQuery{Limit: -1}, ttldb.ErrInvalidOption, "feed limit -1"},
		{ttldb.FeedQuery{Limit: ttldb.MaxFeedLimit + 1}, ttldb.ErrInvalidOption, "feed limit"},
		{ttldb.FeedQuery{Mode: 7}, ttldb.ErrInvalidOption, "feed mode 7"},
	} {
		_, err := c.ReadFeed(bg, tc.q)
		require.ErrorIs(t, err, tc.want, "%+v", tc.q)
		require.ErrorContains(t, err, tc.text, "%+v", tc.q)
		for _, err := range c.WatchFeed(t.Context(), tc.q) {
			require.ErrorIs(t, err, tc.want, "WatchFeed %+v", tc.q)
		}
	}
	_, err = c.List(bg, ttldb.Query{Continuation: page.Continuation})
	require.ErrorIs(t, err, ttldb.ErrInvalidContinuation, "a feed token is no listing's")
	require.Equal(t, before, ruleState(t, c))

	off, _ := ruleOpen(t, h, "/pk", ttldb.Options{Feed: ttldb.FeedOptions{Off: true}})
	d, err := off.Create(bg, []byte(`{"id":"a","pk":"p"}`))
	require.NoError(t, err)
	require.Equal(t, uint64(1), d.LSN(), "LSNs and etags without the feed")
	_, err = off.ReadFeed(bg, ttldb.FeedQuery{})
	require.ErrorIs(t, err, ttldb.ErrInvalidOption)
	require.ErrorContains(t, err, "ReadFeed: the change feed is off")
	_, err = off.ReadFeed(bg, ttldb.FeedQuery{Continuation: "garbage"})
	require.ErrorIs(t, err, ttldb.ErrInvalidOption, "the feed being off comes before what is wrong with the query")
	require.ErrorContains(t, err, "feed is off")
	for _, err := range off.WatchFeed(bg, ttldb.FeedQuery{}) {
		require.ErrorIs(t, err, ttldb.ErrInvalidOption)
		require.ErrorContains(t, err, "WatchFeed: the change feed is off")
		break
	}
	_, err = off.FeedStats(bg)
	require.ErrorIs(t, err, ttldb.ErrInvalidOption)

	require.NoError(t, c.Close())
	_, err = c.ReadFeed(bg, ttldb.FeedQuery{})
	require.ErrorIs(t, err, ttldb.ErrClosed)
	_, err = c.FeedStats(bg)
	require.ErrorIs(t, err, ttldb.ErrClosed)
}

// R11: many readers (512, more than the in-process engine remembers page
// ends for), each with its own page size, read the latest-version feed
// while documents are written, touched and deleted between their pages.
// Along each reader's chain of continuations LSNs only increase, and every
// change is the document's live version when read; once a reader has read
// to the end, it has seen every live document written since it started,
// at its latest version.
func checkFeedLatestVersionChains(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	rng := rand.New(rand.NewPCG(7, 7))
	keys, steps := 800, 2000
	if Long() {
		keys, steps = 3000, 8000
	}
	key := func() (string, string) {
		k := rng.IntN(keys)
		return fmt.Sprint("p", k%5), fmt.Sprint("d", k)
	}
	for i := range keys {
		ruleCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d"}`, i, i%5))
	}
	type reader struct {
		q     ttldb.FeedQuery
		start uint64
		last  uint64
		seen  map[string]uint64 // id: the newest LSN read
	}
	readers := make([]*reader, 512)
	for i := range readers {
		after := uint64(rng.IntN(int(c.LastLSN()) + 1))
		readers[i] = &reader{q: ttldb.FeedQuery{AfterLSN: after, Limit: 1 + rng.IntN(40)}, start: after, last: after, seen: map[string]uint64{}}
	}
	read := func(r *reader) bool {
		page, err := c.ReadFeed(bg, r.q)
		require.NoError(t, err)
		for _, ch := range page.Changes { // plain ifs: this loop runs many times
			if ch.LSN <= r.last {
				t.Fatalf("LSN %d after %d along a chain", ch.LSN, r.last)
			}
			if d, err := c.Get(bg, ch.PartitionKey, ch.ID); err != nil || d.LSN() != ch.LSN {
				t.Fatalf("%s read at LSN %d, and Get gives LSN %d (%v)", ch.ID, ch.LSN, d.LSN(), err)
			}
			r.last, r.seen[ch.ID] = ch.LSN, ch.LSN
		}
		require.GreaterOrEqual(t, page.LSN, r.last)
		r.q = ttldb.FeedQuery{Continuation: page.Continuation, Limit: r.q.Limit}
		return page.More
	}
	for range steps {
		switch n := rng.IntN(10); {
		case n < 3:
			pk, id := key()
			_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":%q,"pk":%q,"n":%d}`, id, pk, n))
			require.NoError(t, err)
		case n < 4:
			pk, id := key()
			_, _ = c.Touch(bg, ttldb.StringKey(pk), id)
		case n < 5:
			pk, id := key()
			_ = c.Delete(bg, ttldb.StringKey(pk), id)
		default:
			read(readers[rng.IntN(len(readers))])
		}
	}
	live := map[string]uint64{}
	for d, err := range c.All(bg, ttldb.Query{}) {
		require.NoError(t, err)
		live[d.ID()] = d.LSN()
	}
	for _, r := range readers {
		for read(r) {
		}
		for id, lsn := range live {
			if lsn > r.start && r.seen[id] != lsn {
				t.Fatalf("a reader from LSN %d has seen %s at LSN %d, not at its latest, %d", r.start, id, r.seen[id], lsn)
			}
		}
	}
}
