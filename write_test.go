package ttldb

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

func TestCreateGetRoundTrip(t *testing.T) { // R2, R10
	c, _ := newTestCollection(t, "/customerId", TTLOff())
	d := mustCreate(t, c, ` { "id" : "o1", "customerId" : "c1", "ttl" : 10, "items" : [ 1, { "sku" : "\u00e9" } ] } `)
	require.Equal(t, `{"id":"o1","customerId":"c1","ttl":10,"items":[1,{"sku":"\u00e9"}],"_ts":1000000,"_etag":"`+d.ETag()+`"}`, d.JSON())
	require.Equal(t, "o1", d.ID())
	require.Equal(t, StringKey("c1"), d.PartitionKey())
	require.Equal(t, int64(1_000_000), d.TS())
	require.Equal(t, time.Unix(1_000_000, 0), d.Timestamp())
	require.Len(t, d.ETag(), engine.ETagLen)
	ttl, ok := d.TTL()
	require.True(t, ok)
	require.Equal(t, 10, ttl)

	got, err := c.Get(bg, StringKey("c1"), "o1")
	require.NoError(t, err)
	require.Equal(t, d.JSON(), got.JSON())
	require.Equal(t, d.JSON(), string(got.AppendJSON(nil)))
	require.Equal(t, d.JSON(), got.String())
	require.Equal(t, `{"id":"o1","customerId":"c1","ttl":10,"items":[1,{"sku":"\u00e9"}]}`, got.Body())
	require.Equal(t, "pre"+d.JSON(), string(got.AppendJSON([]byte("pre"))))

	var order struct {
		ID   string `json:"id"`
		TTL  *int   `json:"ttl,omitempty"`
		TS   int64  `json:"_ts"`
		ETag string `json:"_etag"`
	}
	require.NoError(t, got.Decode(&order))
	require.Equal(t, "o1", order.ID)
	require.Equal(t, 10, *order.TTL)
	require.Equal(t, d.TS(), order.TS)
	require.Equal(t, d.ETag(), order.ETag)
}

func TestCRUD(t *testing.T) { // R10
	c, clk := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")

	_, err := c.Replace(bg, []byte(`{"id":"a","pk":"p"}`))
	require.ErrorIs(t, err, ErrNotFound, "replace of an absent document")
	a := mustCreate(t, c, `{"id":"a","pk":"p","v":1}`)
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"p","v":2}`))
	require.ErrorIs(t, err, ErrConflict)
	require.Contains(t, err.Error(), `"a"`)

	clk.Advance(time.Second)
	r, err := c.Replace(bg, []byte(`{"id":"a","pk":"p","v":3}`))
	require.NoError(t, err)
	require.Contains(t, r.JSON(), `"v":3`)
	require.Equal(t, a.TS()+1, r.TS())

	u, err := c.Upsert(bg, []byte(`{"id":"b","pk":"p"}`))
	require.NoError(t, err, "upsert creates")
	u2, err := c.Upsert(bg, []byte(`{"id":"b","pk":"p","v":4}`))
	require.NoError(t, err, "upsert replaces")
	require.NotEqual(t, u.ETag(), u2.ETag())

	clk.Advance(time.Second)
	tch, err := c.Touch(bg, pk, "a")
	require.NoError(t, err)
	require.Equal(t, strings.Replace(r.JSON(), fmt.Sprintf(`"_ts":%d,"_etag":"%s"`, r.TS(), r.ETag()), fmt.Sprintf(`"_ts":%d,"_etag":"%s"`, tch.TS(), tch.ETag()), 1), tch.JSON())
	require.Equal(t, r.TS()+1, tch.TS())

	require.NoError(t, c.Delete(bg, pk, "a"))
	_, err = c.Get(bg, pk, "a")
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, c.Delete(bg, pk, "a"), ErrNotFound)
	_, err = c.Touch(bg, pk, "a")
	require.ErrorIs(t, err, ErrNotFound)
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func TestETags(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")
	seen := map[string]bool{}
	d := mustCreate(t, c, `{"id":"a","pk":"p"}`)
	seen[d.ETag()] = true
	writes := []func(etag string) (Document, error){
		func(e string) (Document, error) {
			return c.Replace(bg, []byte(`{"id":"a","pk":"p","w":1}`), IfMatch(e))
		},
		func(e string) (Document, error) { return c.Upsert(bg, []byte(`{"id":"a","pk":"p","w":2}`), IfMatch(e)) },
		func(e string) (Document, error) { return c.Touch(bg, pk, "a", IfMatch(e)) },
	}
	for i, w := range writes {
		before := state(t, c)
		_, err := w("not-the-etag")
		require.ErrorIs(t, err, ErrPreconditionFailed, "write %d", i)
		require.Contains(t, err.Error(), "not-the-etag")
		require.Equal(t, before, state(t, c), "a failed if-match changes nothing")

		next, err := w(d.ETag())
		require.NoError(t, err, "write %d", i)
		require.False(t, seen[next.ETag()], "every write has a fresh etag")
		seen[next.ETag()] = true
		d = next
	}
	require.ErrorIs(t, c.Delete(bg, pk, "a", IfMatch("stale")), ErrPreconditionFailed)
	require.NoError(t, c.Delete(bg, pk, "a", IfMatch(d.ETag())))

	// Conditional writes against a missing document: not found (R4).
	_, err := c.Upsert(bg, []byte(`{"id":"a","pk":"p"}`), IfMatch(d.ETag()))
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p"}`), IfMatch(d.ETag()))
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, c.Delete(bg, pk, "a", IfMatch(d.ETag())), ErrNotFound)

	// The zero WriteOption adds no condition; the last IfMatch wins.
	_, err = c.Upsert(bg, []byte(`{"id":"a","pk":"p"}`), WriteOption{})
	require.NoError(t, err)
	_, err = c.Touch(bg, pk, "a", IfMatch("x"), IfMatch(""))
	require.ErrorIs(t, err, ErrPreconditionFailed)
}

// TestRawJSONWrites: CreateJSON, ReplaceJSON and UpsertJSON behave as
// Create, Replace and Upsert do with a []byte, and a raw write allocates
// once: the stored document (R10).
func TestRawJSONWrites(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLSeconds(60))
	d, err := c.CreateJSON(bg, []byte(`{"id":"a","pk":"p","v":1}`))
	require.NoError(t, err)
	_, err = c.CreateJSON(bg, []byte(`{"id":"a","pk":"p","v":2}`))
	require.ErrorIs(t, err, ErrConflict)
	_, err = c.ReplaceJSON(bg, []byte(`{"id":"a","pk":"p","v":3}`), IfMatch("stale"))
	require.ErrorIs(t, err, ErrPreconditionFailed)
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
