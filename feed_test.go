package ttldb

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// readAllFeed reads q's feed page by page until no more is left, and
// returns the changes and the last continuation.
func readAllFeed(t *testing.T, c *Collection, q FeedQuery) ([]Change, string) {
	t.Helper()
	var all []Change
	for {
		page, err := c.ReadFeed(bg, q)
		require.NoError(t, err)
		require.NotEmpty(t, page.Continuation, "a page always says where to resume")
		all = append(all, page.Changes...)
		q.Continuation, q.AfterLSN, q.FromNow, q.FromOldest = page.Continuation, 0, false, false
		if !page.More {
			return all, page.Continuation
		}
	}
}

// summary is a change in a line: op, id, partition key, TTL-expired.
func summary(chs []Change) []string {
	var s []string
	for _, ch := range chs {
		line := fmt.Sprintf("%v %s %v", ch.Op, ch.ID, ch.PartitionKey)
		if ch.TimeToLiveExpired {
			line += " ttl-expired"
		}
		s = append(s, line)
	}
	return s
}

// TestFeedCosmosScenario: Cosmos DB's own: under DefaultTTL -1, a document
// with ttl 5 is created; the all-versions feed shows a create, and, once
// the background sweeper has run after 5 s, a delete with
// timeToLiveExpired. Create, upsert and delete give three records, the
// delete not TTL-expired.
func TestFeedCosmosScenario(t *testing.T) { // R11
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("scenario", "/pk", &Options{DefaultTTL: TTLNoDefault()})
		require.NoError(t, err)
		defer c.Close()
		all := FeedQuery{Mode: AllVersionsAndDeletes}
		d, err := c.Create(bg, []byte(`{"id":"1","pk":"1","ttl":5}`))
		require.NoError(t, err)
		chs, _ := readAllFeed(t, c, all)
		require.Equal(t, []string{`create 1 "1"`}, summary(chs))
		require.False(t, chs[0].TimeToLiveExpired)
		require.Equal(t, d.JSON(), chs[0].Document.JSON(), "the document as written")
		require.Equal(t, d.LSN(), chs[0].LSN)

		time.Sleep(5 * time.Second)
		synctest.Wait() // the sweeper has woken at the document's expiry and deleted it
		chs, _ = readAllFeed(t, c, all)
		require.Equal(t, []string{`create 1 "1"`, `delete 1 "1" ttl-expired`}, summary(chs))
		del := chs[1]
		require.Equal(t, "1", del.ID)
		require.Equal(t, StringKey("1"), del.PartitionKey)
		require.Equal(t, d.TS()+5, del.TS, "the delete's _ts is the second of the sweep")
		require.Zero(t, del.Document, "a delete carries no document")

		_, cont := readAllFeed(t, c, all)
		_, err = c.Create(bg, []byte(`{"id":"2","pk":"1"}`))
		require.NoError(t, err)
		_, err = c.Upsert(bg, []byte(`{"id":"2","pk":"1","v":1}`))
		require.NoError(t, err)
		require.NoError(t, c.Delete(bg, StringKey("1"), "2"))
		chs, _ = readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, Continuation: cont})
		require.Equal(t, []string{`create 2 "1"`, `replace 2 "1"`, `delete 2 "1"`}, summary(chs))
	})
}

// TestFeedOperations: every kind of write is recorded as what it did, in
// LSN order, with its _ts; the LSN of a written document is its
// Document.LSN, and its etag is tied to it.
func TestFeedOperations(t *testing.T) { // R11, R4, R6
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	_, err := c.Upsert(bg, []byte(`{"id":"b","pk":"p"}`)) // creates
	require.NoError(t, err)
	_, err = c.Upsert(bg, []byte(`{"id":"b","pk":"p","v":2}`)) // replaces
	require.NoError(t, err)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p","v":2}`))
	require.NoError(t, err)
	clk.Advance(time.Second)
	_, err = c.Touch(bg, StringKey("p"), "a")
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, StringKey("p"), "b"))
	clk.Advance(10 * time.Second) // a expires
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"p","v":3}`))
	require.NoError(t, err, "R4: a create over an expired document succeeds")
	_, err = c.Replace(bg, []byte(`{"id":"zz","pk":"p"}`))
	require.ErrorIs(t, err, ErrNotFound, "a refused write records nothing")

	chs, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes})
	require.Equal(t, []string{
		`create a "p"`, `create b "p"`, `replace b "p"`, `replace a "p"`, `replace a "p"`, `delete b "p"`,
		`delete a "p" ttl-expired`, // the expired version goes, as if swept, before the create
		`create a "p"`,
	}, summary(chs))
	for i, ch := range chs {
		require.Equal(t, uint64(i+1), ch.LSN, "LSNs are 1, 2, ... without a gap")
		if ch.Op != OpDelete {
			require.Equal(t, ch.LSN, ch.Document.LSN())
			require.Equal(t, fmt.Sprintf("%016x", c.etagBase+ch.LSN), ch.Document.ETag(), "the etag is the collection's base plus the LSN")
			require.Equal(t, ch.TS, ch.Document.TS())
		}
	}
	require.Equal(t, uint64(3), chs[5].Previous.LSN(), "a delete's previous version: b's replace")
	require.Equal(t, `{"id":"b","pk":"p","v":2}`, chs[5].Previous.Body())
	require.Zero(t, chs[2].Previous, "a replace has no previous")
	require.Equal(t, int64(1_000_000), chs[3].TS)
	require.Equal(t, int64(1_000_001), chs[4].TS, "the touch's _ts")
	require.Equal(t, int64(1_000_011), chs[6].TS, "the expiry delete's _ts is the write's")
	require.Equal(t, uint64(8), c.LastLSN())
	require.Equal(t, uint64(0), Document{}.LSN())
	checkInvariants(t, c)
}

// TestFeedLatestVersion: each live document once, at its latest version, in
// the order of its last write; from a continuation, only what was written
// since; never a deleted or expired document; one partition, or from now.
func TestFeedLatestVersion(t *testing.T) { // R11, R4
	c, clk := newTestCollection(t, "/pk", TTLSeconds(100))
	for i := range 10 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d"}`, i, i%2))
	}
	_, err := c.Upsert(bg, []byte(`{"id":"d3","pk":"p1","v":2}`))
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, StringKey("p0"), "d4"))
	_, err = c.Create(bg, []byte(`{"id":"short","pk":"p0","ttl":1}`))
	require.NoError(t, err)
	ids := func(chs []Change) string {
		var s []string
		for _, ch := range chs {
			require.Equal(t, OpLatest, ch.Op)
			s = append(s, ch.ID)
		}
		return strings.Join(s, " ")
	}
	chs, cont := readAllFeed(t, c, FeedQuery{Limit: 3})
	require.Equal(t, "d0 d1 d2 d5 d6 d7 d8 d9 d3 short", ids(chs))
	require.Equal(t, `{"id":"d3","pk":"p1","v":2}`, chs[8].Document.Body(), "the latest version")
	p0 := StringKey("p0")
	chs, _ = readAllFeed(t, c, FeedQuery{Partition: &p0, Limit: 2})
	require.Equal(t, "d0 d2 d6 d8 short", ids(chs))

	clk.Advance(time.Second) // short expires
	chs, _ = readAllFeed(t, c, FeedQuery{})
	require.Equal(t, "d0 d1 d2 d5 d6 d7 d8 d9 d3", ids(chs), "an expired document never appears, swept or not")
	now, err := c.ReadFeed(bg, FeedQuery{FromNow: true})
	require.NoError(t, err)
	require.Empty(t, now.Changes)

	_, err = c.Touch(bg, StringKey("p0"), "d0")
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"new","pk":"p1"}`)
	require.NoError(t, c.Delete(bg, StringKey("p1"), "d1"))
	chs, _ = readAllFeed(t, c, FeedQuery{Continuation: cont})
	require.Equal(t, "d0 new", ids(chs), "from the continuation: what was written since")
	chs, _ = readAllFeed(t, c, FeedQuery{Continuation: now.Continuation})
	require.Equal(t, "d0 new", ids(chs), "from now")
	chs, _ = readAllFeed(t, c, FeedQuery{AfterLSN: chs[0].LSN})
	require.Equal(t, "new", ids(chs), "after an LSN a consumer kept")
	end, err := c.ReadFeed(bg, FeedQuery{Continuation: now.Continuation})
	require.NoError(t, err)
	require.Equal(t, c.LastLSN(), end.LSN, "a page that read to the end holds the last LSN")
	require.Equal(t, now.LSN+3, end.LSN, "the touch, the create and the delete")
	checkInvariants(t, c)
}

// TestFeedLatestVersionFingers: pages resume where they stopped in O(1),
// through the entry they stopped at, while the documents around it are
// written again and deleted; and without it (AfterLSN, or a forgotten
// page end) the read walks from the first document, a bounded number of
// them per page.
func TestFeedLatestVersionFingers(t *testing.T) { // R11
	c, _ := newTestCollection(t, "/pk", TTLOff())
	const n = 3000
	for i := range n {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	page, err := c.ReadFeed(bg, FeedQuery{Limit: 10})
	require.NoError(t, err)
	require.True(t, page.More)
	// Write again the page's last document and the one after it, and
	// delete the one before: the page's end moves back, and nothing is
	// skipped or repeated.
	_, err = c.Upsert(bg, []byte(`{"id":"d9","pk":"p","v":1}`))
	require.NoError(t, err)
	_, err = c.Upsert(bg, []byte(`{"id":"d10","pk":"p","v":1}`))
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, StringKey("p"), "d8"))
	checkInvariants(t, c)
	chs, _ := readAllFeed(t, c, FeedQuery{Continuation: page.Continuation, Limit: 500})
	require.Equal(t, n-11+2, len(chs), "d11..d2999, then d9 and d10 at their new versions")
	require.Equal(t, "d11", chs[0].ID)
	require.Equal(t, "d9", chs[len(chs)-2].ID)
	require.Equal(t, "d10", chs[len(chs)-1].ID)

	// Near the tail, without a finger: found walking back from the tail.
	last := c.LastLSN()
	chs, _ = readAllFeed(t, c, FeedQuery{AfterLSN: last - 5, Limit: 1})
	require.Equal(t, 4, len(chs), "d2998 (LSN 2999), d2999 and the two written again (3001, 3002): the deletion (3003) is not shown")

	// Far from the tail, with no finger: from the first document, at most
	// 4 Limit + 1024 documents a page, so the first pages may come back
	// empty, with More.
	c.feed.latest.fmu.Lock()
	c.feed.latest.fingers = [maxFingers]finger{} // forget every page end (stale marks cost only a look)
	c.feed.latest.fmu.Unlock()
	first, err := c.ReadFeed(bg, FeedQuery{AfterLSN: 1500, Limit: 1})
	require.NoError(t, err)
	require.Empty(t, first.Changes, "the walk from the first document has not reached LSN 1500")
	require.True(t, first.More)
	chs, _ = readAllFeed(t, c, FeedQuery{Continuation: first.Continuation, Limit: 1})
	require.Equal(t, 1500+2, len(chs), "d1500..d2999, then d9 and d10")
	checkInvariants(t, c)
}

// TestFeedLatestVersionIsLinear: reading the whole latest-version feed in
// pages visits each document once, whatever the page size: O(n), each
// page resuming where the last stopped; also while the documents read are
// written again between pages (each then read once more, at the tail).
func TestFeedLatestVersionIsLinear(t *testing.T) { // R11
	c, _ := newTestCollection(t, "/pk", TTLOff())
	const n = 20_000
	for i := range n {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	for _, limit := range []int{1, 10, 1000, MaxFeedLimit} {
		before := c.feed.latest.visited.Load()
		q, read, pages := FeedQuery{Limit: limit}, 0, 0
		for {
			page, err := c.ReadFeed(bg, q)
			require.NoError(t, err)
			read, pages = read+len(page.Changes), pages+1
			if limit == 10 && pages%7 == 0 && len(page.Changes) > 0 {
				_, err := c.Touch(bg, StringKey("p"), page.Changes[0].ID) // read again at the end
				require.NoError(t, err)
			}
			q.Continuation = page.Continuation
			if !page.More {
				break
			}
		}
		visited := c.feed.latest.visited.Load() - before
		require.GreaterOrEqual(t, read, n, "limit %d", limit)
		require.LessOrEqual(t, visited, uint64(read+pages), "limit %d: %d pages visited %d entries for %d documents", limit, pages, visited, read)
	}
}

// TestFeedLatestVersionProgress: a reader far behind the tail makes
// progress with every page, however many other readers leave their page
// ends between two of its reads (more than the list remembers).
func TestFeedLatestVersionProgress(t *testing.T) { // R11
	c, _ := newTestCollection(t, "/pk", TTLOff())
	const n = 20_000
	for i := range n {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	q := FeedQuery{Limit: 100}
	for range n / 2 / 100 {
		page, err := c.ReadFeed(bg, q)
		require.NoError(t, err)
		q.Continuation = page.Continuation
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := n / 2
	for range 30 {
		for range 2 * maxFingers { // other readers, each leaving a page end
			_, err := c.ReadFeed(bg, FeedQuery{AfterLSN: uint64(1 + rng.IntN(n-200)), Limit: 1})
			require.NoError(t, err)
		}
		page, err := c.ReadFeed(bg, q)
		require.NoError(t, err)
		require.NotEmpty(t, page.Changes, "the reader at %d of %d makes progress", seen, n)
		seen += len(page.Changes)
		q.Continuation = page.Continuation
	}
}

// TestFeedRetention: the all-versions feed keeps records within its bounds;
// a read from before them fails with ErrFeedTrimmed, whose TrimmedError
// names the oldest change kept and resumes from it; the latest-version feed
// needs no retention.
func TestFeedRetention(t *testing.T) { // R11
	for _, tc := range []struct {
		name string
		opts FeedOptions
		step time.Duration
		kept int
	}{
		{"records", FeedOptions{MaxRecords: 10}, 0, 10},
		{"bytes", FeedOptions{MaxBytes: MinFeedBytes}, 0, 10},
		{"age", FeedOptions{MaxAge: 10 * time.Second}, time.Second, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(1_000_000, 0)}
			c, err := NewCollection("retention", "/pk", &Options{Now: clk.Now, ManualSweep: true, Feed: tc.opts})
			require.NoError(t, err)
			defer c.Close()
			// Each record is a tenth of MinFeedBytes: 24 bytes, the header,
			// the key (4 + 3 bytes) and the body (30 bytes and the pad).
			pad := strings.Repeat("x", MinFeedBytes/10-24-engine.HeaderSize-7-30)
			for i := range 30 {
				_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"d%02d","pk":"p","pad":%q}`, i%10, pad))
				require.NoError(t, err)
				clk.Advance(tc.step)
			}
			st, err := c.FeedStats(bg)
			require.NoError(t, err)
			require.Equal(t, FeedStats{LastLSN: 30, Oldest: 21, Records: 10, Bytes: c.feed.log.bytes}, st)
			_, err = c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes})
			require.ErrorIs(t, err, ErrFeedTrimmed, "from the beginning: changes 1 to 20 are gone, and the reader is told")
			_, err = c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: 5})
			require.ErrorIs(t, err, ErrFeedTrimmed)
			var te *TrimmedError
			require.True(t, errors.As(err, &te))
			require.Equal(t, uint64(5), te.After)
			require.Equal(t, uint64(21), te.Oldest)
			require.ErrorContains(t, err, "oldest change kept is LSN 21")
			chs, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, Continuation: te.Continuation})
			require.Equal(t, tc.kept, len(chs), "the error's continuation resumes at the oldest change kept")
			require.Equal(t, uint64(30-tc.kept+1), chs[0].LSN)
			_, err = c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: 20})
			require.NoError(t, err, "after the last change dropped: nothing is missed")
			latest, _ := readAllFeed(t, c, FeedQuery{})
			require.Equal(t, 10, len(latest), "the latest-version feed reaches back to the first write")
			c.mu.RLock()
			checkFeedInvariants(t, c)
			c.mu.RUnlock()
		})
	}
}

// TestFeedBytesBoundHolds: the size bound holds after every change, also
// when large records follow many small ones.
func TestFeedBytesBoundHolds(t *testing.T) { // R11
	c, err := NewCollection("bound", "/pk", &Options{ManualSweep: true, Feed: FeedOptions{MaxBytes: MinFeedBytes}})
	require.NoError(t, err)
	defer c.Close()
	for i := range 60_000 {
		_, err := c.UpsertJSON(bg, fmt.Appendf(nil, `{"id":"s%d","pk":"p"}`, i%1000))
		require.NoError(t, err)
	}
	big := strings.Repeat("x", MaxDocumentSize-100)
	for i := range 5 {
		_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"big%d","pk":"p","pad":%q}`, i, big))
		require.NoError(t, err)
		underRLock(&c.mu, func() {
			require.LessOrEqual(t, c.feed.log.bytes, int64(MinFeedBytes), "after large record %d", i)
			checkFeedInvariants(t, c)
		})
	}
}

// TestFeedBadInput: bad retentions are refused at construction; bad
// queries and continuations are refused with the sentinel that says why,
// and change nothing.
func TestFeedBadInput(t *testing.T) { // R11, R10
	for _, o := range []FeedOptions{
		{MaxRecords: -1}, {MaxBytes: -1}, {MaxAge: -time.Second},
		{MaxRecords: maxFeedRecords + 1}, {MaxBytes: maxFeedBytes + 1}, {MaxAge: maxFeedAge + time.Second},
		{MaxAge: 1500 * time.Millisecond}, {Off: true, MaxRecords: 5},
		{MaxBytes: 1}, {MaxBytes: MinFeedBytes - 1},
	} {
		_, err := NewCollection("bad", "/pk", &Options{Feed: o})
		require.ErrorIs(t, err, ErrInvalidOption, "%+v", o)
		require.ErrorContains(t, err, "FeedOptions")
	}

	c, _ := newTestCollection(t, "/pk", TTLOff())
	other, _ := newTestCollection(t, "/pk", TTLOff())
	for i := range 5 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
		mustCreate(t, other, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	p := StringKey("p")
	page, err := c.ReadFeed(bg, FeedQuery{Limit: 2})
	require.NoError(t, err)
	avad, err := c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, Limit: 2})
	require.NoError(t, err)
	foreign, err := other.ReadFeed(bg, FeedQuery{Limit: 2})
	require.NoError(t, err)
	list, err := c.List(bg, Query{Limit: 2})
	require.NoError(t, err)
	forged := []byte(page.Continuation)
	forged[len(forged)/2] ^= 1
	future := encodeFeedToken(scopeOf(c, readFeed+byte(LatestVersion), false, ""), 99)

	before := state(t, c)
	for _, tc := range []struct {
		q    FeedQuery
		want error
		text string
	}{
		{FeedQuery{Continuation: string(forged)}, ErrInvalidContinuation, ""},
		{FeedQuery{Continuation: page.Continuation[:10]}, ErrInvalidContinuation, "not issued by this version"},
		{FeedQuery{Continuation: foreign.Continuation}, ErrInvalidContinuation, "another collection"},
		{FeedQuery{Mode: AllVersionsAndDeletes, Continuation: page.Continuation}, ErrInvalidContinuation, "for the change feed in mode LatestVersion, not in mode AllVersionsAndDeletes"},
		{FeedQuery{Continuation: avad.Continuation}, ErrInvalidContinuation, "for the change feed in mode AllVersionsAndDeletes, not in mode LatestVersion"},
		{FeedQuery{Partition: &p, Continuation: page.Continuation}, ErrInvalidContinuation, "for a read of the change feed of all partitions, not of one"},
		{FeedQuery{Continuation: list.Continuation}, ErrInvalidContinuation, "for a listing (List, All), not the change feed in mode LatestVersion"},
		{FeedQuery{Continuation: future}, ErrInvalidContinuation, "beyond the collection's last change, LSN 5"},
		{FeedQuery{AfterLSN: 6}, ErrInvalidOption, "AfterLSN 6 is beyond"},
		{FeedQuery{AfterLSN: 1, Continuation: page.Continuation}, ErrInvalidOption, "give one place"},
		{FeedQuery{FromNow: true, AfterLSN: 1}, ErrInvalidOption, "FromNow and"},
		{FeedQuery{FromNow: true, Continuation: page.Continuation}, ErrInvalidOption, "FromNow and"},
		{FeedQuery{Limit: -1}, ErrInvalidOption, "feed limit -1"},
		{FeedQuery{Limit: MaxFeedLimit + 1}, ErrInvalidOption, "feed limit"},
		{FeedQuery{Mode: 7}, ErrInvalidOption, "feed mode 7"},
		{FeedQuery{Partition: &PartitionKey{kind: pkString, s: "\xff"}}, ErrInvalidPartitionKey, ""},
	} {
		_, err := c.ReadFeed(bg, tc.q)
		require.ErrorIs(t, err, tc.want, "%+v", tc.q)
		require.ErrorContains(t, err, tc.text, "%+v", tc.q)
		for _, err := range c.WatchFeed(t.Context(), tc.q) {
			require.ErrorIs(t, err, tc.want, "WatchFeed %+v", tc.q)
		}
	}
	_, err = c.List(bg, Query{Continuation: page.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation, "a feed token is no listing's")
	require.Equal(t, before, state(t, c))

	off, err := NewCollection("off", "/pk", &Options{Feed: FeedOptions{Off: true}})
	require.NoError(t, err)
	defer off.Close()
	d, err := off.Create(bg, []byte(`{"id":"a","pk":"p"}`))
	require.NoError(t, err)
	require.Equal(t, uint64(1), d.LSN(), "LSNs and etags without the feed")
	_, err = off.ReadFeed(bg, FeedQuery{})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, "feed is off")
	_, err = off.FeedStats(bg)
	require.ErrorIs(t, err, ErrInvalidOption)

	require.NoError(t, c.Close())
	_, err = c.ReadFeed(bg, FeedQuery{})
	require.ErrorIs(t, err, ErrClosed)
	_, err = c.FeedStats(bg)
	require.ErrorIs(t, err, ErrClosed)
	_, err = (&Collection{}).ReadFeed(bg, FeedQuery{})
	require.ErrorIs(t, err, ErrClosed)
}

// TestFeedLatestVersionChains: many readers, more than the page ends the
// list remembers, each with its own page size, read the latest-version feed
// while documents are written, touched and deleted between their pages.
// Along each reader's chain of continuations LSNs only increase, and every
// change is the document's live version when read; once a reader has read
// to the end, it has seen every live document written since it started,
// at its latest version.
func TestFeedLatestVersionChains(t *testing.T) { // R11
	c, _ := newTestCollection(t, "/pk", TTLOff())
	rng := rand.New(rand.NewPCG(7, 7))
	keys, steps := 3000, 8000
	if raceDetector() || !LongTests() {
		keys, steps = 800, 2000
	}
	key := func() (PartitionKey, string) {
		k := rng.IntN(keys)
		return StringKey(fmt.Sprint("p", k%5)), fmt.Sprint("d", k)
	}
	for i := range keys {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d"}`, i, i%5))
	}
	type reader struct {
		q     FeedQuery
		start uint64
		last  uint64
		seen  map[string]uint64 // id: the newest LSN read
	}
	readers := make([]*reader, 2*maxFingers)
	for i := range readers {
		after := uint64(rng.IntN(int(c.LastLSN()) + 1))
		readers[i] = &reader{q: FeedQuery{AfterLSN: after, Limit: 1 + rng.IntN(40)}, start: after, last: after, seen: map[string]uint64{}}
	}
	read := func(r *reader) bool {
		page, err := c.ReadFeed(bg, r.q)
		require.NoError(t, err)
		for _, ch := range page.Changes { // plain ifs: this loop runs a million times
			if ch.LSN <= r.last {
				t.Fatalf("LSN %d after %d along a chain", ch.LSN, r.last)
			}
			if d, err := c.Get(bg, ch.PartitionKey, ch.ID); err != nil || d.LSN() != ch.LSN {
				t.Fatalf("%s read at LSN %d, and Get gives LSN %d (%v)", ch.ID, ch.LSN, d.LSN(), err)
			}
			r.last, r.seen[ch.ID] = ch.LSN, ch.LSN
		}
		require.GreaterOrEqual(t, page.LSN, r.last)
		r.q = FeedQuery{Continuation: page.Continuation, Limit: r.q.Limit}
		return page.More
	}
	for range steps {
		switch n := rng.IntN(10); {
		case n < 3:
			pk, id := key()
			_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":%q,"pk":%q,"n":%d}`, id, pk.s, n))
			require.NoError(t, err)
		case n < 4:
			pk, id := key()
			_, _ = c.Touch(bg, pk, id)
		case n < 5:
			pk, id := key()
			_ = c.Delete(bg, pk, id)
		default:
			read(readers[rng.IntN(len(readers))])
		}
	}
	live := map[string]uint64{}
	for d, err := range c.All(bg, Query{}) {
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
	checkInvariants(t, c)
}
