package ttldb

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRawJSONWrites: CreateJSON, ReplaceJSON and UpsertJSON behave as
// Create, Replace and Upsert do with a []byte, and a raw write allocates
// once: the stored document (R10).
func TestRawJSONWrites(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLSeconds(60))
	d, err := c.CreateJSON(bg, []byte(`{"id":"a","pk":"p","v":1}`))
	require.NoError(t, err)
	_, err = c.CreateJSON(bg, []byte(`{"id":"a","pk":"p","v":2}`))
	require.ErrorIs(t, err, ErrConflict)
	require.EqualError(t, err, `ttldb: conflict: document "a" in partition "p" exists`)
	_, err = c.ReplaceJSON(bg, []byte(`{"id":"a","pk":"p","v":3}`), IfMatch("stale"))
	require.ErrorIs(t, err, ErrPreconditionFailed)
	require.ErrorContains(t, err, `Replace: document "a" in partition "p" has etag "`)
	require.ErrorContains(t, err, `", not "stale"`)
	r, err := c.ReplaceJSON(bg, []byte(`{"id":"a","pk":"p","v":3}`), IfMatch(d.ETag()))
	require.NoError(t, err)
	require.Equal(t, `{"id":"a","pk":"p","v":3}`, r.Body())
	_, err = c.ReplaceJSON(bg, []byte(`{"id":"b","pk":"p"}`))
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.UpsertJSON(bg, []byte(`{"id":"b","pk":"p"}`))
	require.NoError(t, err)
	_, err = c.UpsertJSON(bg, []byte(`not json`))
	require.ErrorIs(t, err, ErrInvalidDocument)
	_, err = c.CreateJSON(bg, nil)
	require.ErrorIs(t, err, ErrInvalidDocument)

	doc := []byte(`{"id":"a","pk":"p","ttl":30,"note":"` + strings.Repeat("x", 150) + `"}`)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.UpsertJSON(bg, doc); err != nil {
			panic(err)
		}
	})
	if !raceDetector() { // under -race, sync.Pool drops what it holds at random, on purpose
		require.Equal(t, 1.0, allocs, "an overwrite allocates its document only")
	}
	// With the background sweeper, which writes help, and the change feed.
	bgc, err := NewCollection("bg", "/pk", &Options{DefaultTTL: TTLSeconds(60)})
	require.NoError(t, err)
	defer bgc.Close()
	allocs = testing.AllocsPerRun(200, func() {
		if _, err := bgc.UpsertJSON(bg, doc); err != nil {
			panic(err)
		}
	})
	if !raceDetector() {
		require.Equal(t, 1.0, allocs, "an overwrite allocates its document only, feed and help included")
	}
	// And in a durable collection (R12): its record is encoded in place.
	dur, err := NewCollection("dur", "/pk", &Options{DefaultTTL: TTLSeconds(60), Dir: t.TempDir()})
	require.NoError(t, err)
	defer dur.Close()
	allocs = testing.AllocsPerRun(200, func() {
		if _, err := dur.UpsertJSON(bg, doc); err != nil {
			panic(err)
		}
	})
	if !raceDetector() {
		require.Equal(t, 1.0, allocs, "an overwrite of a durable collection allocates its document only, log included")
	}
	require.NoError(t, c.Close())
	_, err = c.UpsertJSON(bg, doc)
	require.ErrorIs(t, err, ErrClosed)
}
