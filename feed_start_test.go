package ttldb

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// lsns returns the LSN of each change.
func lsns(chs []Change) []uint64 {
	var s []uint64
	for _, ch := range chs {
		s = append(s, ch.LSN)
	}
	return s
}

// TestFeedFromOldestAfterReopen: a reopened durable collection's
// all-versions feed starts after its last snapshot (R12); FromOldest
// starts there, with the expiries its sweeper deletes as it opens.
func TestFeedFromOldestAfterReopen(t *testing.T) { // R11, R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	o := Options{DefaultTTL: TTLNoDefault()}
	c, err := openDurable(t, nil, dir, clk, o)
	require.NoError(t, err)
	for i := range 4 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","ttl":60}`, i)) // LSNs 1-4
	}
	require.NoError(t, c.Compact(context.Background()))
	mustCreate(t, c, `{"id":"q","pk":"q"}`)               // LSN 5
	require.NoError(t, c.Delete(bg, StringKey("p"), "0")) // LSN 6
	require.NoError(t, c.Close())
	clk.Advance(time.Minute) // 1, 2 and 3 expire while it is closed

	c, err = openDurable(t, nil, dir, clk, o)
	require.NoError(t, err)
	defer c.Close()
	n, err := c.Sweep(bg) // as the open's sweeper would: LSNs 7-9
	require.NoError(t, err)
	require.Equal(t, 3, n)
	_, err = c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes})
	require.ErrorIs(t, err, ErrFeedTrimmed, "the records start after the snapshot")
	all, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true})
	require.Equal(t, []uint64{5, 6, 7, 8, 9}, lsns(all))
	for _, ch := range all[2:] {
		require.True(t, ch.TimeToLiveExpired, "LSN %d", ch.LSN)
	}
	p := StringKey("p")
	part, _ := readAllFeed(t, c, FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true, Partition: &p})
	require.Equal(t, []uint64{6, 7, 8, 9}, lsns(part))
}

// TestFeedCheckpointAcrossReopen: a consumer that keeps the LSN of the
// last change it handled, and resumes after it (AfterLSN), sees each
// delete of what expired while a durable collection was closed once, as
// an expiry, though the background sweeper deleted them as the collection
// opened, before the consumer started; a watch from now, started then,
// sees none of them (R11, R12, R5). In a synctest bubble, whose clock the
// sweeper's timers and the collection share.
func TestFeedCheckpointAcrossReopen(t *testing.T) { // R11, R12
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		o := Options{Dir: dir, DefaultTTL: TTLNoDefault()}
		c, err := NewCollection("sessions", "/pk", &o)
		require.NoError(t, err)
		for _, id := range []string{"a", "b", "c"} {
			mustCreate(t, c, `{"id":"`+id+`","pk":"p","ttl":10}`)
		}
		mustCreate(t, c, `{"id":"kept","pk":"p"}`)
		page, err := c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, FromOldest: true})
		require.NoError(t, err)
		require.Len(t, page.Changes, 4)
		checkpoint := page.LSN // the consumer's, kept with its own state
		require.NoError(t, c.Close())

		time.Sleep(time.Minute) // a, b and c expire while it is closed
		c, err = NewCollection("sessions", "/pk", &o)
		require.NoError(t, err)
		defer c.Close()
		synctest.Wait() // the sweeper deletes them as the collection opens
		require.Equal(t, checkpoint+3, c.LastLSN())
		now, err := c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, FromNow: true})
		require.NoError(t, err)
		require.Empty(t, now.Changes, "a watch from now starts after the sweep")

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		seen := map[string]int{}
		for ch, err := range c.WatchFeed(ctx, FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: checkpoint}) {
			require.NoError(t, err)
			require.Equal(t, OpDelete, ch.Op)
			require.True(t, ch.TimeToLiveExpired, ch.ID)
			seen[ch.ID]++
			checkpoint = ch.LSN
			if ch.LSN == c.LastLSN() {
				break
			}
		}
		require.Equal(t, map[string]int{"a": 1, "b": 1, "c": 1}, seen)
		again, err := c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes, AfterLSN: checkpoint})
		require.NoError(t, err)
		require.Empty(t, again.Changes, "from the new checkpoint: each once")
	})
}
