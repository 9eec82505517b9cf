package ttldb

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// salesOrder is the shape of the Cosmos DB documentation's C# SalesOrder,
// whose ttl is a nullable int left out when null:
// [JsonProperty(PropertyName = "ttl", NullValueHandling = Ignore)] int? ttl.
type salesOrder struct {
	ID         string  `json:"id"`
	CustomerID string  `json:"CustomerId"`
	Total      float64 `json:"total"`
	TTL        *int    `json:"ttl,omitempty"`
}

// TestTypedRoundTrip: a typed collection stores and reads the C# shape, with
// the ttl as written or absent, and gives the system properties (R2, R3, R4).
func TestTypedRoundTrip(t *testing.T) { // R2, R3, R4
	c, clk := newTestCollection(t, "/CustomerId", TTLSeconds(3600))
	orders, err := NewTyped[salesOrder](c)
	require.NoError(t, err)
	require.Same(t, c, orders.Collection())

	two := 2
	short := salesOrder{ID: "SO05", CustomerID: "c1", Total: 9.5, TTL: &two}
	long := salesOrder{ID: "SO06", CustomerID: "c1", Total: 12}
	created, err := orders.Create(bg, short)
	require.NoError(t, err)
	require.Equal(t, short, created.Value)
	require.Equal(t, `{"id":"SO05","CustomerId":"c1","total":9.5,"ttl":2}`, created.Body())
	_, err = orders.Create(bg, long)
	require.NoError(t, err)

	got, err := orders.Get(bg, StringKey("c1"), "SO06")
	require.NoError(t, err)
	require.Equal(t, long, got.Value, "an absent ttl reads back as nil: it inherits")
	require.Equal(t, `{"id":"SO06","CustomerId":"c1","total":12}`, got.Body(), "the default is never written in (R2)")
	require.Equal(t, int64(1_000_000), got.TS())
	require.Len(t, got.ETag(), engine.ETagLen)
	_, own := got.TTL()
	require.False(t, own)

	got, err = orders.Get(bg, StringKey("c1"), "SO05")
	require.NoError(t, err)
	require.Equal(t, short, got.Value)
	ttl, own := got.TTL()
	require.True(t, own)
	require.Equal(t, 2, ttl)

	at, ok := orders.ExpiresAt(got)
	require.True(t, ok)
	require.Equal(t, time.Unix(1_000_002, 0), at, "its own ttl: _ts + 2")
	at, ok = orders.ExpiresAt(Item[salesOrder]{Document: mustGet(t, c, StringKey("c1"), "SO06")})
	require.True(t, ok)
	require.Equal(t, time.Unix(1_000_000+3600, 0), at, "the DefaultTTL")

	clk.Advance(2 * time.Second) // SO05 expires at _ts + 2 (R4)
	_, err = orders.Get(bg, StringKey("c1"), "SO05")
	require.ErrorIs(t, err, ErrNotFound)
	touched, err := orders.Touch(bg, StringKey("c1"), "SO06", IfMatch(got.ETag()), IfMatch(created.ETag()))
	require.ErrorIs(t, err, ErrPreconditionFailed)
	require.Zero(t, touched)
	touched, err = orders.Touch(bg, StringKey("c1"), "SO06")
	require.NoError(t, err)
	require.Equal(t, long, touched.Value)
	require.Equal(t, int64(1_000_002), touched.TS())

	long.Total = 13
	replaced, err := orders.Replace(bg, long, IfMatch(touched.ETag()))
	require.NoError(t, err)
	require.Equal(t, long, replaced.Value)
	upserted, err := orders.Upsert(bg, salesOrder{ID: "SO07", CustomerID: "c2"})
	require.NoError(t, err)
	require.Equal(t, "SO07", upserted.ID())
	require.NoError(t, orders.Delete(bg, StringKey("c2"), "SO07", IfMatch(upserted.ETag())))
	_, err = orders.Get(bg, StringKey("c2"), "SO07")
	require.ErrorIs(t, err, ErrNotFound)
}

// TestTypedSystemProperties: fields tagged _ts and _etag are filled on
// reads and on the Item of a write; the values written in them are ignored
// (R10).
func TestTypedSystemProperties(t *testing.T) { // R10
	type withSystem struct {
		ID   string `json:"id"`
		TS   int64  `json:"_ts"`
		ETag string `json:"_etag"`
	}
	c, _ := newTestCollection(t, "/id", TTLOff())
	docs, err := NewTyped[withSystem](c)
	require.NoError(t, err)
	w, err := docs.Create(bg, withSystem{ID: "a", TS: 7, ETag: "mine"})
	require.NoError(t, err)
	require.Equal(t, withSystem{ID: "a", TS: 1_000_000, ETag: w.ETag()}, w.Value)
	require.Equal(t, `{"id":"a"}`, w.Body())
	g, err := docs.Get(bg, StringKey("a"), "a")
	require.NoError(t, err)
	require.Equal(t, w.Value, g.Value)
}

// TestTypedListing: All and List decode every document of one snapshot, in
// key order, and a document that does not fit T ends the iteration with
// ErrInvalidDocument.
func TestTypedListing(t *testing.T) {
	c, _ := newTestCollection(t, "/CustomerId", TTLOff())
	orders, err := NewTyped[*salesOrder](c)
	require.NoError(t, err)
	for _, id := range []string{"b", "a", "c"} {
		_, err := orders.Create(bg, &salesOrder{ID: id, CustomerID: "c1", Total: 1})
		require.NoError(t, err)
	}
	var ids []string
	for it, err := range orders.All(bg, Query{}) {
		require.NoError(t, err)
		ids = append(ids, it.Value.ID)
		require.Equal(t, it.ID(), it.Value.ID)
	}
	require.Equal(t, []string{"a", "b", "c"}, ids)
	items, next, err := orders.List(bg, Query{Limit: 2})
	require.NoError(t, err)
	require.Len(t, items, 2)
	require.Equal(t, "b", items[1].Value.ID)
	items, next, err = orders.List(bg, Query{Limit: 2, Continuation: next})
	require.NoError(t, err)
	require.Len(t, items, 1)
	require.Empty(t, next)

	mustCreate(t, c, `{"id":"d","CustomerId":"c1","total":"not a number"}`)
	var errs []error
	for _, err := range orders.All(bg, Query{}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 4, "a, b, c, then the error, which ends the iteration")
	require.ErrorIs(t, errs[3], ErrInvalidDocument)
	require.ErrorContains(t, errs[3], `decode document "d" into *ttldb.salesOrder`)
	_, _, err = orders.List(bg, Query{})
	require.ErrorIs(t, err, ErrInvalidDocument)
	_, err = orders.Get(bg, StringKey("c1"), "d")
	require.ErrorIs(t, err, ErrInvalidDocument)
}

// TestNewTypedRefusesMistakes: the mistakes encoding/json makes silently
// are refused once, when the view is made.
func TestNewTypedRefusesMistakes(t *testing.T) { // R2, R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	type untaggedID struct{ ID, Name string }
	type wrongCaseTTL struct {
		ID  string `json:"id"`
		TTL *int
	}
	type zeroTTL struct {
		ID  string `json:"id"`
		TTL int    `json:"ttl"`
	}
	type noID struct {
		Name string `json:"name"`
	}
	for _, tc := range []struct {
		make func() error
		want string
	}{
		{func() error { _, err := NewTyped[untaggedID](c); return err }, `field ID encodes as "ID", and ttldb reads "id": member names are case-sensitive; tag it ` + "`json:\"id\"`"},
		{func() error { _, err := NewTyped[wrongCaseTTL](c); return err }, `field TTL encodes as "TTL", and ttldb reads "ttl"`},
		{func() error { _, err := NewTyped[zeroTTL](c); return err }, `field TTL int encodes its zero value as "ttl":0, which R2 refuses; use *int`},
		{func() error { _, err := NewTyped[noID](c); return err }, `no field encodes as "id"`},
		{func() error { _, err := NewTyped[int](c); return err }, `T must be a struct or a map with string keys`},
		{func() error { _, err := NewTyped[[]salesOrder](c); return err }, `NewTyped[[]ttldb.salesOrder]`},
	} {
		err := tc.make()
		require.ErrorIs(t, err, ErrInvalidOption)
		require.ErrorContains(t, err, tc.want)
	}

	type embedded struct {
		ID string `json:"id"`
	}
	type withEmbedded struct {
		embedded
		TTL  int    `json:"ttl,omitempty"` // omitempty: 0 is left out, and inherits
		Skip string `json:"-"`
	}
	for _, make := range []func() error{
		func() error { _, err := NewTyped[withEmbedded](c); return err },
		func() error { _, err := NewTyped[map[string]any](c); return err },
		func() error { _, err := NewTyped[*salesOrder](c); return err },
	} {
		require.NoError(t, make())
	}
	v, err := NewTyped[withEmbedded](c)
	require.NoError(t, err)
	it, err := v.Create(bg, withEmbedded{embedded: embedded{ID: "e"}})
	require.NoError(t, err)
	require.Equal(t, `{"id":"e"}`, it.Body())

	require.NoError(t, c.Close())
	_, err = NewTyped[salesOrder](c)
	require.ErrorIs(t, err, ErrClosed)
	_, err = NewTyped[salesOrder](nil)
	require.ErrorIs(t, err, ErrClosed)
	_, err = v.Get(bg, StringKey("e"), "e")
	require.ErrorIs(t, err, ErrClosed)
}

// TestNewTypedFollowsEncodingJSON: NewTyped finds fields by encoding/json's
// rules for embedded structs (the least nested wins, then the tagged one),
// so that its checks look at the field that is encoded (R2, R10).
func TestNewTypedFollowsEncodingJSON(t *testing.T) { // R2, R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	type base struct {
		ID  string `json:"id"`
		TTL *int   `json:"ttl,omitempty"`
	}
	type outerZeroTTL struct {
		base
		TTL int `json:"ttl"` // hides base.TTL: encodes "ttl":0
	}
	_, err := NewTyped[outerZeroTTL](c)
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, `field TTL int encodes its zero value as "ttl":0`)
	_, err = json.Marshal(outerZeroTTL{})
	require.NoError(t, err)

	type zeroBase struct {
		ID  string `json:"id"`
		TTL int    `json:"ttl"`
	}
	type outerPointerTTL struct {
		zeroBase
		TTL *int `json:"ttl,omitempty"` // hides zeroBase.TTL
	}
	v, err := NewTyped[outerPointerTTL](c)
	require.NoError(t, err)
	it, err := v.Create(bg, outerPointerTTL{zeroBase: zeroBase{ID: "p"}})
	require.NoError(t, err)
	require.Equal(t, `{"id":"p"}`, it.Body())

	type a struct{ Id string }
	type b struct{ Id string }
	type ambiguous struct {
		a
		b
	}
	_, err = NewTyped[ambiguous](c)
	require.ErrorContains(t, err, `no field encodes as "id"`, "two Id fields at one depth: encoding/json writes neither, so neither is a mistaken id")
	out, err := json.Marshal(ambiguous{})
	require.NoError(t, err)
	require.Equal(t, "{}", string(out))
}

// failsToDecode writes itself with encoding/json's defaults and refuses to
// be read back.
type failsToDecode struct {
	ID string `json:"id"`
	TS int64  `json:"_ts"`
}

func (*failsToDecode) UnmarshalJSON([]byte) error { return errors.New("never") }

// TestTypedSystemFieldTypes: a field for _ts or _etag must hold what the
// library writes there, or NewTyped refuses it; a write whose stored document
// does not decode back says that it was stored (R10).
func TestTypedSystemFieldTypes(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	type stringTS struct {
		ID string `json:"id"`
		TS string `json:"_ts,omitempty"`
	}
	type intETag struct {
		ID   string `json:"id"`
		ETag int    `json:"_etag"`
	}
	type quotedTS struct {
		ID string `json:"id"`
		TS int64  `json:"_ts,string"`
	}
	for _, tc := range []struct {
		make func() error
		want string
	}{
		{func() error { _, err := NewTyped[stringTS](c); return err }, "field TS, for _ts, is a string, and _ts is a number (Unix seconds): use int64"},
		{func() error { _, err := NewTyped[intETag](c); return err }, "field ETag, for _etag, is a int, and _etag is a string"},
		{func() error { _, err := NewTyped[quotedTS](c); return err }, "has the ,string option"},
	} {
		err := tc.make()
		require.ErrorIs(t, err, ErrInvalidOption)
		require.ErrorContains(t, err, tc.want)
	}
	type loose struct {
		ID   string      `json:"id"`
		TS   json.Number `json:"_ts"`
		ETag any         `json:"_etag"`
		P    *int64      `json:"-"`
	}
	l, err := NewTyped[loose](c)
	require.NoError(t, err)
	got, err := l.Create(bg, loose{ID: "l"})
	require.NoError(t, err)
	require.Equal(t, json.Number("1000000"), got.Value.TS)
	require.Equal(t, got.ETag(), got.Value.ETag)

	f, err := NewTyped[failsToDecode](c)
	require.NoError(t, err)
	it, err := f.Create(bg, failsToDecode{ID: "f"})
	require.ErrorIs(t, err, ErrInvalidDocument)
	require.ErrorContains(t, err, "the document was stored (_ts 1000000), but does not decode back into its type")
	require.Equal(t, "f", it.ID(), "the Item holds the stored document")
	_, err = c.Get(bg, NoPartitionKey(), "f")
	require.NoError(t, err)
}
