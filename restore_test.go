package ttldb

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRestoreIsACollectionOfItsOwn: a restored collection keeps the
// documents' etags, so an etag read before the backup still matches at
// the copy; but what the original gave out after the backup never names a
// version of the copy: an etag of the original's later write does not
// match the copy's own write of that document, the original's
// continuation tokens are another collection's, and a feed position the
// original gave after the backup is refused, in both modes, also once the
// copy has written past it and after it compacts and reopens (R17, R10,
// R11, R12).
func TestRestoreIsACollectionOfItsOwn(t *testing.T) { // R17, R10, R11, R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", "/pk", &Options{Dir: t.TempDir(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	x0 := mustCreate(t, c, `{"id":"x","pk":"p","v":0}`)
	mustCreate(t, c, `{"id":"y","pk":"p"}`)
	mustCreate(t, c, `{"id":"z","pk":"p"}`)
	page, err := c.List(bg, Query{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, page.Continuation)
	feedPage, err := c.ReadFeed(bg, FeedQuery{Limit: 1})
	require.NoError(t, err)

	b, info := backupOf(t, c)
	x1, err := c.Replace(bg, []byte(`{"id":"x","pk":"p","v":1}`)) // the original goes on
	require.NoError(t, err)
	for range 5 {
		_, err = c.Upsert(bg, []byte(`{"id":"y","pk":"p"}`))
		require.NoError(t, err)
	}
	later := c.LastLSN() // a checkpoint of a reader of the original's feed
	require.Greater(t, later, info.LastLSN)

	dir := filepath.Join(t.TempDir(), "restored")
	_, err = Restore(bg, bytes.NewReader(b), dir)
	require.NoError(t, err)
	open := func() *Collection {
		r, err := Open(bg, "file://"+dir, &Options{Now: clk.Now, ManualSweep: true})
		require.NoError(t, err)
		t.Cleanup(func() { r.Close() })
		return r
	}
	r := open()
	require.Equal(t, x0.ETag(), mustGet(t, r, StringKey("p"), "x").ETag(), "a restored document keeps its etag")
	x2, err := r.Replace(bg, []byte(`{"id":"x","pk":"p","v":2}`), IfMatch(x0.ETag()))
	require.NoError(t, err, "an etag read before the backup matches")
	require.NotEqual(t, x1.ETag(), x2.ETag(), "the copy's write has an etag of its own")
	_, err = r.Replace(bg, []byte(`{"id":"x","pk":"p","v":3}`), IfMatch(x1.ETag()))
	require.ErrorIs(t, err, ErrPreconditionFailed, "the original's etag of a version the copy never had")

	_, err = r.List(bg, Query{Limit: 1, Continuation: page.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation, "a token of the original")
	_, err = r.ReadFeed(bg, FeedQuery{Continuation: feedPage.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation, "a feed token of the original")

	for range 10 { // the copy writes past the original's checkpoint
		_, err = r.Upsert(bg, []byte(`{"id":"z","pk":"p"}`))
		require.NoError(t, err)
	}
	require.Greater(t, r.LastLSN(), later)
	refused := func(r *Collection) {
		t.Helper()
		for _, mode := range []FeedMode{LatestVersion, AllVersionsAndDeletes} {
			_, err := r.ReadFeed(bg, FeedQuery{Mode: mode, AfterLSN: later})
			require.ErrorIs(t, err, ErrFeedTrimmed, "%v: a position of the original after the backup", mode)
			require.ErrorContains(t, err, "restored from a backup")
			_, err = r.ReadFeed(bg, FeedQuery{Mode: mode, AfterLSN: info.LastLSN + 1})
			require.ErrorIs(t, err, ErrFeedTrimmed, "%v: the first position after the backup", mode)
		}
		p, err := r.ReadFeed(bg, FeedQuery{AfterLSN: info.LastLSN}) // a position of the backup's: the copy's too
		require.NoError(t, err)
		require.Len(t, p.Changes, 2, "x and z, written by the copy")
	}
	refused(r)
	require.NoError(t, r.Compact(bg))
	require.NoError(t, r.Close())
	refused(open()) // the gap is in the copy's state
}
