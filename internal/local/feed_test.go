package local

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
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
	c.local.feed.latest.fmu.Lock()
	c.local.feed.latest.fingers = [maxFingers]finger{} // forget every page end (stale marks cost only a look)
	c.local.feed.latest.fmu.Unlock()
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
		before := c.local.feed.latest.visited.Load()
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
		visited := c.local.feed.latest.visited.Load() - before
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
