package conformance

// Typed[T] through an engine: a round trip of the Cosmos documentation's
// SalesOrder with its ttl, the system properties filled in, and listings
// decoded. Moved from the root package's typed_test.go; the root keeps
// NewTyped's refusals of mistaken types, which run no engine.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// checkTypedRoundTrip: a typed collection stores and reads the C# shape, with
// the ttl as written or absent, and gives the system properties (R2, R3, R4).
func checkTypedRoundTrip(t *testing.T, h Harness) { // R2, R3, R4
	c, clk := ruleOpenTTL(t, h, "/CustomerId", ttldb.TTLSeconds(3600))
	orders, err := ttldb.NewTyped[r14Order](c)
	require.NoError(t, err)
	require.Same(t, c, orders.Collection())

	two := 2
	short := r14Order{ID: "SO05", CustomerID: "c1", Total: 9.5, TTL: &two}
	long := r14Order{ID: "SO06", CustomerID: "c1", Total: 12}
	created, err := orders.Create(bg, short)
	require.NoError(t, err)
	require.Equal(t, short, created.Value)
	require.Equal(t, `{"id":"SO05","CustomerId":"c1","total":9.5,"ttl":2}`, created.Body())
	_, err = orders.Create(bg, long)
	require.NoError(t, err)

	got, err := orders.Get(bg, ttldb.StringKey("c1"), "SO06")
	require.NoError(t, err)
	require.Equal(t, long, got.Value, "an absent ttl reads back as nil: it inherits")
	require.Equal(t, `{"id":"SO06","CustomerId":"c1","total":12}`, got.Body(), "the default is never written in (R2)")
	require.Equal(t, int64(1_000_000), got.TS())
	require.Len(t, got.ETag(), 16)
	_, own := got.TTL()
	require.False(t, own)

	got, err = orders.Get(bg, ttldb.StringKey("c1"), "SO05")
	require.NoError(t, err)
	require.Equal(t, short, got.Value)
	ttl, own := got.TTL()
	require.True(t, own)
	require.Equal(t, 2, ttl)

	at, ok := orders.ExpiresAt(got)
	require.True(t, ok)
	require.Equal(t, time.Unix(1_000_002, 0), at, "its own ttl: _ts + 2")
	at, ok = orders.ExpiresAt(ttldb.Item[r14Order]{Document: r13Get(t, c, ttldb.StringKey("c1"), "SO06")})
	require.True(t, ok)
	require.Equal(t, time.Unix(1_000_000+3600, 0), at, "the ttldb.DefaultTTL")

	clk.Advance(2 * time.Second) // SO05 expires at _ts + 2 (R4)
	_, err = orders.Get(bg, ttldb.StringKey("c1"), "SO05")
	require.ErrorIs(t, err, ttldb.ErrNotFound)
	touched, err := orders.Touch(bg, ttldb.StringKey("c1"), "SO06", ttldb.IfMatch(got.ETag()), ttldb.IfMatch(created.ETag()))
	require.ErrorIs(t, err, ttldb.ErrPreconditionFailed)
	require.Zero(t, touched)
	touched, err = orders.Touch(bg, ttldb.StringKey("c1"), "SO06")
	require.NoError(t, err)
	require.Equal(t, long, touched.Value)
	require.Equal(t, int64(1_000_002), touched.TS())

	long.Total = 13
	replaced, err := orders.Replace(bg, long, ttldb.IfMatch(touched.ETag()))
	require.NoError(t, err)
	require.Equal(t, long, replaced.Value)
	upserted, err := orders.Upsert(bg, r14Order{ID: "SO07", CustomerID: "c2"})
	require.NoError(t, err)
	require.Equal(t, "SO07", upserted.ID())
	require.NoError(t, orders.Delete(bg, ttldb.StringKey("c2"), "SO07", ttldb.IfMatch(upserted.ETag())))
	_, err = orders.Get(bg, ttldb.StringKey("c2"), "SO07")
	require.ErrorIs(t, err, ttldb.ErrNotFound)
}

// checkTypedSystemProperties: fields tagged _ts and _etag are filled on
// reads and on the Item of a write; the values written in them are ignored
// (R10).
func checkTypedSystemProperties(t *testing.T, h Harness) { // R10
	type withSystem struct {
		ID   string `json:"id"`
		TS   int64  `json:"_ts"`
		ETag string `json:"_etag"`
	}
	c, _ := ruleOpenTTL(t, h, "/id", ttldb.TTLOff())
	docs, err := ttldb.NewTyped[withSystem](c)
	require.NoError(t, err)
	w, err := docs.Create(bg, withSystem{ID: "a", TS: 7, ETag: "mine"})
	require.NoError(t, err)
	require.Equal(t, withSystem{ID: "a", TS: 1_000_000, ETag: w.ETag()}, w.Value)
	require.Equal(t, `{"id":"a"}`, w.Body())
	g, err := docs.Get(bg, ttldb.StringKey("a"), "a")
	require.NoError(t, err)
	require.Equal(t, w.Value, g.Value)
}

// checkTypedListing: All and List decode every document of one snapshot, in
// key order, and a document that does not fit T ends the iteration with
// ErrInvalidDocument.
func checkTypedListing(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/CustomerId", ttldb.TTLOff())
	orders, err := ttldb.NewTyped[*r14Order](c)
	require.NoError(t, err)
	for _, id := range []string{"b", "a", "c"} {
		_, err := orders.Create(bg, &r14Order{ID: id, CustomerID: "c1", Total: 1})
		require.NoError(t, err)
	}
	var ids []string
	for it, err := range orders.All(bg, ttldb.Query{}) {
		require.NoError(t, err)
		ids = append(ids, it.Value.ID)
		require.Equal(t, it.ID(), it.Value.ID)
	}
	require.Equal(t, []string{"a", "b", "c"}, ids)
	items, next, err := orders.List(bg, ttldb.Query{Limit: 2})
	require.NoError(t, err)
	require.Len(t, items, 2)
	require.Equal(t, "b", items[1].Value.ID)
	items, next, err = orders.List(bg, ttldb.Query{Limit: 2, Continuation: next})
	require.NoError(t, err)
	require.Len(t, items, 1)
	require.Empty(t, next)

	ruleCreate(t, c, `{"id":"d","CustomerId":"c1","total":"not a number"}`)
	var errs []error
	for _, err := range orders.All(bg, ttldb.Query{}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 4, "a, b, c, then the error, which ends the iteration")
	require.ErrorIs(t, errs[3], ttldb.ErrInvalidDocument)
	require.ErrorContains(t, errs[3], `decode document "d" into *conformance.r14Order`)
	_, _, err = orders.List(bg, ttldb.Query{})
	require.ErrorIs(t, err, ttldb.ErrInvalidDocument)
	_, err = orders.Get(bg, ttldb.StringKey("c1"), "d")
	require.ErrorIs(t, err, ttldb.ErrInvalidDocument)
}
