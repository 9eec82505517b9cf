package ttldb

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRestoredFeedPositions: at a restored collection, a feed position in
// the gap of its LSNs is refused with a *TrimmedError in both modes, which
// names the position asked and the copy's first own LSN; the backup's last
// LSN and the gap's end are positions that resume, in both modes, with
// nothing missed (nothing exists between them).
func TestRestoredFeedPositions(t *testing.T) { // R17, R11
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", "/pk", &Options{Dir: t.TempDir(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"x","pk":"p"}`)
	mustCreate(t, c, `{"id":"y","pk":"p"}`)
	b, info := backupOf(t, c)
	r := restoreAndOpen(t, b, clk)
	end := r.LastLSN() // the gap's end: the copy's own changes follow
	require.Greater(t, end, info.LastLSN+1)
	mustCreate(t, r, `{"id":"z","pk":"p"}`)
	for _, mode := range []FeedMode{LatestVersion, AllVersionsAndDeletes} {
		for _, after := range []uint64{info.LastLSN + 1, end - 1} {
			_, err := r.ReadFeed(bg, FeedQuery{Mode: mode, AfterLSN: after})
			var te *TrimmedError
			require.True(t, errors.As(err, &te), "%v after %d: %v; want a *TrimmedError", mode, after, err)
			require.ErrorIs(t, err, ErrFeedTrimmed)
			require.Equal(t, after, te.After, "%v: the position asked", mode)
			require.Equal(t, end+1, te.Oldest, "%v: the copy's first own LSN", mode)
			require.NotEmpty(t, te.Continuation)
			require.Contains(t, err.Error(), "restored", "%v: the message says why", mode)
			require.NotContains(t, err.Error(), "at most", "%v: no position of the original after the backup resumes safely", mode)
		}
		for _, after := range []uint64{info.LastLSN, end} {
			p, err := r.ReadFeed(bg, FeedQuery{Mode: mode, AfterLSN: after})
			require.NoError(t, err, "%v after %d: nothing exists between the backup's last LSN and the gap's end", mode, after)
			require.Len(t, p.Changes, 1, "%v after %d", mode, after)
			require.Equal(t, "z", p.Changes[0].ID)
		}
	}
}
