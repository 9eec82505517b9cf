package ttldb

import (
	"errors"
	"fmt"
	"strings"
	"testing"
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
		st, err := c.FeedStats(bg)
		require.NoError(t, err)
		require.LessOrEqual(t, st.Bytes, int64(MinFeedBytes), "after large record %d", i)
		checkInvariants(t, c)
	}
}

// TestFeedRetentionBytes: the all-versions feed keeps records within its
// bound in bytes, each record counted as the in-process engine stores it;
// a read from before them fails with ErrFeedTrimmed, and the error's
// continuation resumes at the oldest change kept. (The bounds in records
// and age are the conformance suite's, R11/FeedRetention.)
func TestFeedRetentionBytes(t *testing.T) { // R11
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("retention", "/pk", &Options{Now: clk.Now, ManualSweep: true, Feed: FeedOptions{MaxBytes: MinFeedBytes}})
	require.NoError(t, err)
	defer c.Close()
	// Each record is a tenth of MinFeedBytes: 24 bytes, the header, the
	// key (4 + 3 bytes) and the body (30 bytes and the pad).
	pad := strings.Repeat("x", MinFeedBytes/10-24-engine.HeaderSize-7-30)
	for i := range 30 {
		_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"d%02d","pk":"p","pad":%q}`, i%10, pad))
		require.NoError(t, err)
	}
	st, err := c.FeedStats(bg)
	require.NoError(t, err)
	require.Equal(t, FeedStats{LastLSN: 30, Oldest: 21, Records: 10, Bytes: 10 * (MinFeedBytes / 10)}, st, "ten records of a tenth of MinFeedBytes each")
	_, err = c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: 5})
	require.ErrorIs(t, err, ErrFeedTrimmed)
	var te *TrimmedError
	require.True(t, errors.As(err, &te))
	require.Equal(t, uint64(21), te.Oldest)
	chs, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, Continuation: te.Continuation})
	require.Equal(t, 10, len(chs), "the error's continuation resumes at the oldest change kept")
	checkInvariants(t, c)
}

// TestFeedBadInputInternal: the refusals of bad feed reads that only
// internals can make: a well-formed token for an LSN beyond the last, a
// partition key no constructor makes, a zero Collection. (The rest are
// the conformance suite's, R11/FeedBadInput.)
func TestFeedBadInputInternal(t *testing.T) { // R11, R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for i := range 5 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p"}`, i))
	}
	future := encodeFeedToken(scopeOf(c, readFeed+byte(LatestVersion), false, ""), 99)
	before := state(t, c)
	for _, tc := range []struct {
		q    FeedQuery
		want error
		text string
	}{
		{FeedQuery{Continuation: future}, ErrInvalidContinuation, "beyond the collection's last change, LSN 5"},
		{FeedQuery{Partition: &PartitionKey{kind: pkString, s: "\xff"}}, ErrInvalidPartitionKey, ""},
	} {
		_, err := c.ReadFeed(bg, tc.q)
		require.ErrorIs(t, err, tc.want, "%+v", tc.q)
		require.ErrorContains(t, err, tc.text, "%+v", tc.q)
		for _, err := range c.WatchFeed(t.Context(), tc.q) {
			require.ErrorIs(t, err, tc.want, "WatchFeed %+v", tc.q)
		}
	}
	require.Equal(t, before, state(t, c))
	_, err := (&Collection{}).ReadFeed(bg, FeedQuery{})
	require.ErrorIs(t, err, ErrClosed)
}
