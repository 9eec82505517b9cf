package conformance

// R11's change feed, rule by rule: what each write records, the
// latest-version feed, retention by records and by age, and where a read
// may start. Moved from the root package's feed_test.go and
// feed_start_test.go; the root keeps what needs the in-process engine's
// internals (page ends remembered, entries visited, bytes counted, its
// background sweeper, its snapshots).

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// R11, R5: Cosmos DB's own scenario. Under DefaultTTL -1 a document with
// ttl 5 is created; the all-versions feed shows a create and, once a
// sweep has run after 5 s, a delete with timeToLiveExpired, at the sweep's
// second. Create, upsert and delete give three records, the delete not
// TTL-expired.
func checkFeedCosmosScenario(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLNoDefault())
	all := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes}
	d, err := c.Create(bg, []byte(`{"id":"1","pk":"1","ttl":5}`))
	require.NoError(t, err)
	chs, _ := ruleReadFeed(t, c, all)
	require.Equal(t, []string{`create 1 "1"`}, ruleSummary(chs))
	require.False(t, chs[0].TimeToLiveExpired)
	require.Equal(t, d.JSON(), chs[0].Document.JSON(), "the document as written")
	require.Equal(t, d.LSN(), chs[0].LSN)

	clk.Advance(5 * time.Second)
	chs, _ = ruleReadFeed(t, c, all)
	require.Equal(t, []string{`create 1 "1"`}, ruleSummary(chs), "a TTL delete shows when the document is swept, not at its expiry")
	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	chs, _ = ruleReadFeed(t, c, all)
	require.Equal(t, []string{`create 1 "1"`, `delete 1 "1" ttl-expired`}, ruleSummary(chs))
	del := chs[1]
	require.Equal(t, "1", del.ID)
	require.Equal(t, ttldb.StringKey("1"), del.PartitionKey)
	require.Equal(t, d.TS()+5, del.TS, "the delete's _ts is the second of the sweep")
	require.Zero(t, del.Document, "a delete carries no document")

	_, cont := ruleReadFeed(t, c, all)
	_, err = c.Create(bg, []byte(`{"id":"2","pk":"1"}`))
	require.NoError(t, err)
	_, err = c.Upsert(bg, []byte(`{"id":"2","pk":"1","v":1}`))
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, ttldb.StringKey("1"), "2"))
	chs, _ = ruleReadFeed(t, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: cont})
	require.Equal(t, []string{`create 2 "1"`, `replace 2 "1"`, `delete 2 "1"`}, ruleSummary(chs))
}

// R11, R4, R6: every kind of write is recorded as what it did, in LSN
// order, LSNs 1, 2, ... without a gap, with its _ts; the LSN of a written
// document is its Document.LSN, and its etag is the collection's base
// plus the LSN. A write over an expired, unswept document records the
// expiry's delete first.
func checkFeedOperations(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLSeconds(10))
	ruleCreate(t, c, `{"id":"a","pk":"p"}`)
	_, err := c.Upsert(bg, []byte(`{"id":"b","pk":"p"}`)) // creates
	require.NoError(t, err)
	_, err = c.Upsert(bg, []byte(`{"id":"b","pk":"p","v":2}`)) // replaces
	require.NoError(t, err)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p","v":2}`))
	require.NoError(t, err)
	clk.Advance(time.Second)
	_, err = c.Touch(bg, ttldb.StringKey("p"), "a")
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, ttldb.StringKey("p"), "b"))
	clk.Advance(10 * time.Second) // a expires
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"p","v":3}`))
	require.NoError(t, err, "R4: a create over an expired document succeeds")
	_, err = c.Replace(bg, []byte(`{"id":"zz","pk":"p"}`))
	require.ErrorIs(t, err, ttldb.ErrNotFound, "a refused write records nothing")

	chs, _ := ruleReadFeed(t, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes})
	require.Equal(t, []string{
		`create a "p"`, `create b "p"`, `replace b "p"`, `replace a "p"`, `replace a "p"`, `delete b "p"`,
		`delete a "p" ttl-expired`, // the expired version goes, as if swept, before the create
		`create a "p"`,
	}, ruleSummary(chs))
	var base uint64
	for i, ch := range chs {
		require.Equal(t, uint64(i+1), ch.LSN, "LSNs are 1, 2, ... without a gap")
		if ch.Op == ttldb.OpDelete {
			continue
		}
		require.Equal(t, ch.LSN, ch.Document.LSN())
		require.Equal(t, ch.TS, ch.Document.TS())
		etag, err := strconv.ParseUint(ch.Document.ETag(), 16, 64)
		require.NoError(t, err, "an etag is 16 hexadecimal digits: %q", ch.Document.ETag())
		require.Len(t, ch.Document.ETag(), 16)
		if i == 0 {
			base = etag - ch.LSN
		}
		require.Equal(t, base, etag-ch.LSN, "the etag is the collection's base plus the LSN")
	}
	require.Equal(t, uint64(3), chs[5].Previous.LSN(), "a delete's previous version: b's replace")
	require.Equal(t, `{"id":"b","pk":"p","v":2}`, chs[5].Previous.Body())
	require.Zero(t, chs[2].Previous, "a replace has no previous")
	require.Equal(t, int64(1_000_000), chs[3].TS)
	require.Equal(t, int64(1_000_001), chs[4].TS, "the touch's _ts")
	require.Equal(t, int64(1_000_011), chs[6].TS, "the expiry delete's _ts is the write's")
	require.Equal(t, uint64(8), c.LastLSN())
}

// R11, R4: the latest-version feed gives each live document once, at its
// latest version, in the order of its last write; from a continuation,
// only what was written since; never a deleted or expired document; one
// partition, or from now, or after an LSN a consumer kept.
func checkFeedLatestVersion(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLSeconds(100))
	for i := range 10 {
		ruleCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d"}`, i, i%2))
	}
	_, err := c.Upsert(bg, []byte(`{"id":"d3","pk":"p1","v":2}`))
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, ttldb.StringKey("p0"), "d4"))
	_, err = c.Create(bg, []byte(`{"id":"short","pk":"p0","ttl":1}`))
	require.NoError(t, err)
	ids := func(chs []ttldb.Change) string {
		var s []string
		for _, ch := range chs {
			require.Equal(t, ttldb.OpLatest, ch.Op)
			s = append(s, ch.ID)
		}
		return strings.Join(s, " ")
	}
	chs, cont := ruleReadFeed(t, c, ttldb.FeedQuery{Limit: 3})
	require.Equal(t, "d0 d1 d2 d5 d6 d7 d8 d9 d3 short", ids(chs))
	require.Equal(t, `{"id":"d3","pk":"p1","v":2}`, chs[8].Document.Body(), "the latest version")
	p0 := ttldb.StringKey("p0")
	chs, _ = ruleReadFeed(t, c, ttldb.FeedQuery{Partition: &p0, Limit: 2})
	require.Equal(t, "d0 d2 d6 d8 short", ids(chs))

	clk.Advance(time.Second) // short expires
	chs, _ = ruleReadFeed(t, c, ttldb.FeedQuery{})
	require.Equal(t, "d0 d1 d2 d5 d6 d7 d8 d9 d3", ids(chs), "an expired document never appears, swept or not")
	now, err := c.ReadFeed(bg, ttldb.FeedQuery{FromNow: true})
	require.NoError(t, err)
	require.Empty(t, now.Changes)

	_, err = c.Touch(bg, ttldb.StringKey("p0"), "d0")
	require.NoError(t, err)
	ruleCreate(t, c, `{"id":"new","pk":"p1"}`)
	require.NoError(t, c.Delete(bg, ttldb.StringKey("p1"), "d1"))
	chs, _ = ruleReadFeed(t, c, ttldb.FeedQuery{Continuation: cont})
	require.Equal(t, "d0 new", ids(chs), "from the continuation: what was written since")
	chs, _ = ruleReadFeed(t, c, ttldb.FeedQuery{Continuation: now.Continuation})
	require.Equal(t, "d0 new", ids(chs), "from now")
	chs, _ = ruleReadFeed(t, c, ttldb.FeedQuery{AfterLSN: chs[0].LSN})
	require.Equal(t, "new", ids(chs), "after an LSN a consumer kept")
	end, err := c.ReadFeed(bg, ttldb.FeedQuery{Continuation: now.Continuation})
	require.NoError(t, err)
	require.Equal(t, c.LastLSN(), end.LSN, "a page that read to the end holds the last LSN")
	require.Equal(t, now.LSN+3, end.LSN, "the touch, the create and the delete")
}

// R11: the all-versions feed keeps records within its bounds, in records
// or in age; a read from before them fails with ErrFeedTrimmed, whose
// TrimmedError names the oldest change kept and resumes from it; the
// latest-version feed needs no retention. (The bound in bytes counts the
// engine's own record sizes: the root package checks it.)
func checkFeedRetention(t *testing.T, h Harness) {
	for _, tc := range []struct {
		name string
		opts ttldb.FeedOptions
		step time.Duration
	}{
		{"Records", ttldb.FeedOptions{MaxRecords: 10}, 0},
		{"Age", ttldb.FeedOptions{MaxAge: 10 * time.Second}, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, clk := ruleOpen(t, h, "/pk", ttldb.Options{Feed: tc.opts})
			for i := range 30 {
				_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"d%02d","pk":"p"}`, i%10))
				require.NoError(t, err)
				clk.Advance(tc.step)
			}
			st, err := c.FeedStats(bg)
			require.NoError(t, err)
			require.Equal(t, uint64(30), st.LastLSN)
			require.Equal(t, uint64(21), st.Oldest)
			require.Equal(t, int64(10), st.Records)
			_, err = c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes})
			require.ErrorIs(t, err, ttldb.ErrFeedTrimmed, "from the beginning: changes 1 to 20 are gone, and the reader is told")
			_, err = c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: 5})
			require.ErrorIs(t, err, ttldb.ErrFeedTrimmed)
			var te *ttldb.TrimmedError
			require.True(t, errors.As(err, &te))
			require.Equal(t, uint64(5), te.After)
			require.Equal(t, uint64(21), te.Oldest)
			require.ErrorContains(t, err, "oldest change kept is LSN 21")
			chs, _ := ruleReadFeed(t, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: te.Continuation})
			require.Equal(t, 10, len(chs), "the error's continuation resumes at the oldest change kept")
			require.Equal(t, uint64(21), chs[0].LSN)
			_, err = c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: 20})
			require.NoError(t, err, "after the last change dropped: nothing is missed")
			latest, _ := ruleReadFeed(t, c, ttldb.FeedQuery{})
			require.Equal(t, 10, len(latest), "the latest-version feed reaches back to the first write")
		})
	}
}

// R11: FromOldest starts the all-versions feed at the oldest change kept,
// where a read from the beginning fails with ErrFeedTrimmed, with ReadFeed
// and WatchFeed, of one partition or all; in latest-version mode it is the
// beginning. It takes no other start.
func checkFeedFromOldest(t *testing.T, h Harness) {
	c, _ := ruleOpen(t, h, "/pk", ttldb.Options{Feed: ttldb.FeedOptions{MaxRecords: 5}})
	for i := range 12 {
		ruleCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"%c"}`, i, "ab"[i%2]))
	}
	_, err := c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes})
	require.ErrorIs(t, err, ttldb.ErrFeedTrimmed, "from the beginning")

	all, _ := ruleReadFeed(t, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromOldest: true})
	require.Equal(t, []uint64{8, 9, 10, 11, 12}, ruleLSNs(all))
	a := ttldb.StringKey("a")
	part, _ := ruleReadFeed(t, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromOldest: true, Partition: &a})
	require.Equal(t, []uint64{9, 11}, ruleLSNs(part), "ids 8 and 10, in partition a")
	latest, _ := ruleReadFeed(t, c, ttldb.FeedQuery{FromOldest: true})
	require.Len(t, latest, 12, "the latest-version feed keeps no records: its oldest is the beginning")

	var watched []uint64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for ch, err := range c.WatchFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromOldest: true, Partition: &a, Limit: 1}) {
		require.NoError(t, err)
		watched = append(watched, ch.LSN)
		if len(watched) == 2 {
			require.NoError(t, c.Delete(bg, a, "8")) // LSN 13, which the watch waits for
		}
		if len(watched) == 3 {
			break
		}
	}
	require.Equal(t, []uint64{9, 11, 13}, watched, "pages of one: the start is kept only for the first")

	page, err := c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1, FromOldest: true})
	require.NoError(t, err)
	for _, q := range []ttldb.FeedQuery{
		{FromOldest: true, FromNow: true},
		{FromOldest: true, AfterLSN: 9},
		{FromOldest: true, Continuation: page.Continuation, Mode: ttldb.AllVersionsAndDeletes},
	} {
		_, err := c.ReadFeed(bg, q)
		require.ErrorIs(t, err, ttldb.ErrInvalidOption, "%+v", q)
		require.ErrorContains(t, err, "FromOldest and")
	}
}
