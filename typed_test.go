package ttldb

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
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
