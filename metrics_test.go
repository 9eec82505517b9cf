package ttldb

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMetricsReads: a point read counts a hit when it finds the document
// and a miss when it does not, none there or expired; an expired document
// hidden counts in Expired; a read refused before the engine (a bad key)
// counts nothing (R17).
func TestMetricsReads(t *testing.T) { // R17
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	mustCreate(t, c, `{"id":"e","pk":"p","ttl":5}`)
	for range 3 {
		_, err := c.Get(bg, StringKey("p"), "a")
		require.NoError(t, err)
	}
	_, err := c.Get(bg, StringKey("p"), "none")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.Get(bg, StringKey("p"), "bad/id")
	require.ErrorIs(t, err, ErrInvalidID)
	m := c.Metrics()
	require.Equal(t, uint64(3), m.Hits)
	require.Equal(t, uint64(1), m.Misses)
	require.Equal(t, uint64(4), m.Reads)
	require.Zero(t, m.Expired)

	clk.Advance(5 * time.Second)
	_, err = c.Get(bg, StringKey("p"), "e")
	require.ErrorIs(t, err, ErrNotFound)
	m = c.Metrics()
	require.Equal(t, uint64(2), m.Misses)
	require.Equal(t, uint64(1), m.Expired, "the expired document a read hid")
}

// TestMetricsWrites: each write applied counts once by its kind, a batch
// once whatever its operations; a write refused counts nothing; a create
// over an expired document counts in Expired (R17).
func TestMetricsWrites(t *testing.T) { // R17
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	_, err := c.Create(bg, []byte(`{"id":"a","pk":"p"}`))
	require.ErrorIs(t, err, ErrConflict)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p","n":1}`))
	require.NoError(t, err)
	_, err = c.Replace(bg, []byte(`{"id":"none","pk":"p"}`))
	require.ErrorIs(t, err, ErrNotFound)
	for range 2 {
		_, err = c.Upsert(bg, []byte(`{"id":"u","pk":"p"}`))
		require.NoError(t, err)
	}
	_, err = c.Patch(bg, StringKey("p"), "a", []PatchOp{PatchSet("/n", 2)})
	require.NoError(t, err)
	_, err = c.Touch(bg, StringKey("p"), "a")
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, StringKey("p"), "u"))
	require.ErrorIs(t, c.Delete(bg, StringKey("p"), "u"), ErrNotFound)
	b := NewBatch(StringKey("p"))
	b.Create([]byte(`{"id":"b1","pk":"p"}`))
	b.Upsert([]byte(`{"id":"b2","pk":"p"}`))
	_, err = c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	b = NewBatch(StringKey("p"))
	b.Create([]byte(`{"id":"a","pk":"p"}`))
	_, err = c.ExecuteBatch(bg, b)
	require.Error(t, err, "a batch refused")

	m := c.Metrics()
	require.Equal(t, Metrics{
		Creates: 1, Replaces: 1, Upserts: 2, Patches: 1, Touches: 1, Deletes: 1, Batches: 1,
		Documents: 3, Bytes: m.Bytes, LastLSN: m.LastLSN, FeedOldest: 1,
	}, m)

	mustCreate(t, c, `{"id":"x","pk":"p","ttl":1}`)
	clk.Advance(time.Second)
	mustCreate(t, c, `{"id":"x","pk":"p"}`) // over the expired one (R4)
	m = c.Metrics()
	require.Equal(t, uint64(3), m.Creates)
	require.Equal(t, uint64(1), m.Expired, "the expired document the create found")
}

// TestMetricsSweeper: Backlog and OldestDue show the expired documents
// not yet swept and when the oldest expired; Swept counts what a sweep
// deleted; Documents and Bytes follow the documents held (R17).
func TestMetricsSweeper(t *testing.T) { // R17
	c, clk := newTestCollection(t, "/pk", TTLSeconds(100))
	start := clk.Now()
	mustCreate(t, c, `{"id":"a","pk":"p","ttl":10}`)
	mustCreate(t, c, `{"id":"b","pk":"p"}`)
	mustCreate(t, c, `{"id":"c","pk":"p","ttl":-1}`)
	m := c.Metrics()
	require.Equal(t, int64(3), m.Documents)
	require.Equal(t, int64(len(`{"id":"a","pk":"p","ttl":10}`)+len(`{"id":"b","pk":"p"}`)+len(`{"id":"c","pk":"p","ttl":-1}`)), m.Bytes)
	require.Zero(t, m.Backlog)
	require.True(t, m.OldestDue.IsZero())

	clk.Advance(10 * time.Second)
	m = c.Metrics()
	require.Equal(t, int64(1), m.Backlog)
	require.Equal(t, start.Add(10*time.Second), m.OldestDue)
	require.Equal(t, int64(2), m.Documents)

	clk.Advance(100 * time.Second) // b too, by the DefaultTTL
	m = c.Metrics()
	require.Equal(t, int64(2), m.Backlog)
	require.Equal(t, start.Add(10*time.Second), m.OldestDue, "the oldest of the two")
	require.Equal(t, int64(1), m.Documents)

	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	m = c.Metrics()
	require.Equal(t, uint64(2), m.Swept)
	require.Zero(t, m.Backlog)
	require.True(t, m.OldestDue.IsZero())
	require.Equal(t, int64(len(`{"id":"c","pk":"p","ttl":-1}`)), m.Bytes, "the swept documents' bytes gone")
	_, err = c.Upsert(bg, []byte(`{"id":"c","pk":"p","ttl":-1,"longer":true}`))
	require.NoError(t, err)
	require.Equal(t, int64(len(`{"id":"c","pk":"p","ttl":-1,"longer":true}`)), c.Metrics().Bytes, "a replace counts the new body")

	// Inherit's oldest under a cut-off of R7: a document expired under
	// DefaultTTL 100 keeps that instant after the setting changes.
	mustCreate(t, c, `{"id":"d","pk":"p"}`)
	at := clk.Now()
	clk.Advance(200 * time.Second)
	require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(1000)))
	require.Equal(t, at.Add(100*time.Second), c.Metrics().OldestDue)
}

// TestMetricsFeed: LastLSN is the last change's, FeedOldest the oldest
// the all-versions feed holds, which retention moves; with the feed off it
// is 0 (R17).
func TestMetricsFeed(t *testing.T) { // R17
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", "/pk", &Options{Now: clk.Now, ManualSweep: true, Feed: FeedOptions{MaxRecords: 2}})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, Metrics{}, c.Metrics(), "a new collection")
	for range 5 {
		_, err := c.Upsert(bg, []byte(`{"id":"a","pk":"p"}`))
		require.NoError(t, err)
	}
	m := c.Metrics()
	require.Equal(t, c.LastLSN(), m.LastLSN)
	require.Equal(t, m.LastLSN-1, m.FeedOldest, "two records kept")

	off, err := NewCollection("off", "/pk", &Options{Now: clk.Now, ManualSweep: true, Feed: FeedOptions{Off: true}})
	require.NoError(t, err)
	defer off.Close()
	mustCreate(t, off, `{"id":"a","pk":"p"}`)
	m = off.Metrics()
	require.Equal(t, uint64(1), m.LastLSN)
	require.Zero(t, m.FeedOldest)
}

// TestMetricsEngines: through the engine interface alone the API still
// counts the calls, and the engine's figures come through engine.Meter;
// an engine without it gives 0 for them. After Close the counters stay
// and the gauges are 0; the zero Collection gives the zero Metrics (R17).
func TestMetricsEngines(t *testing.T) { // R17
	c, _ := newTestCollection(t, "/pk", TTLOff())
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	via, err := ThroughInterface(c) // opaqueEngine: no engine.Meter
	require.NoError(t, err)
	_, err = via.Get(bg, StringKey("p"), "a")
	require.NoError(t, err)
	_, err = via.Get(bg, StringKey("p"), "b")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = via.Upsert(bg, []byte(`{"id":"b","pk":"p"}`))
	require.NoError(t, err)
	require.Equal(t, Metrics{Reads: 2, Hits: 1, Misses: 1, Upserts: 1}, via.Metrics())
	require.Equal(t, int64(2), c.Metrics().Documents, "the in-process engine's own figures")

	require.NoError(t, c.Close())
	m := c.Metrics()
	require.Equal(t, uint64(1), m.Creates)
	require.Zero(t, m.Documents)
	require.Zero(t, m.Bytes)
	require.Equal(t, Metrics{}, (&Collection{}).Metrics())
}
