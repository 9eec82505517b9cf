package ttldb

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestInputKinds(t *testing.T) { // R2, R10
	type order struct {
		ID         string `json:"id"`
		CustomerID string `json:"customerId"`
		TTL        *int   `json:"ttl,omitempty"`
	}
	ten := 10
	c, _ := newTestCollection(t, "/customerId", TTLNoDefault())
	for i, in := range []any{
		[]byte(`{"id":"a0","customerId":"c"}`),
		json.RawMessage(`{"id":"a1","customerId":"c"}`),
		order{ID: "a2", CustomerID: "c", TTL: &ten},
		&order{ID: "a3", CustomerID: "c"},
		map[string]any{"id": "a4", "customerId": "c", "ttl": nil},
	} {
		d, err := c.Create(bg, in)
		require.NoError(t, err, "%T", in)
		require.Equal(t, fmt.Sprintf("a%d", i), d.ID())
	}
	// A struct without omitempty writes "ttl":null: it inherits (R2), and is
	// stored as written.
	d, err := c.Create(bg, struct {
		ID  string `json:"id"`
		TTL *int   `json:"ttl"`
	}{ID: "a5"})
	require.NoError(t, err)
	require.Contains(t, d.JSON(), `"ttl":null`)
	_, ok := d.TTL()
	require.False(t, ok)
	// No inherited default is ever written into a document (R2).
	d, _ = c.Get(bg, StringKey("c"), "a3")
	require.NotContains(t, d.JSON(), "ttl")
}

func TestSystemPropertiesAreTheLibrarys(t *testing.T) { // R10
	c, clk := newTestCollection(t, "/pk", TTLOff())
	d := mustCreate(t, c, `{"_ts":1,"id":"a","_etag":"mine","pk":"p","_ts":2}`)
	require.Equal(t, `{"id":"a","pk":"p","_ts":1000000,"_etag":"`+d.ETag()+`"}`, d.JSON())
	clk.Advance(1500 * time.Millisecond)
	_, err := c.Replace(bg, d.JSON()+"") // a string is not JSON text
	require.ErrorIs(t, err, ErrInvalidDocument)
	d2, err := c.Replace(bg, []byte(d.JSON()))
	require.NoError(t, err)
	require.Equal(t, int64(1_000_001), d2.TS(), "_ts is the floor of the write time")
	require.NotEqual(t, d.ETag(), d2.ETag())
	require.Equal(t, `{"id":"a","pk":"p","_ts":1000001,"_etag":"`+d2.ETag()+`"}`, d2.JSON())
}

// TestMissingIDHint: a document without "id" but with "ID" or "Id", as a Go
// struct without a json tag writes, is told so (R10).
func TestMissingIDHint(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	_, err := c.Create(bg, struct{ ID, Name string }{"a", "n"})
	require.ErrorIs(t, err, ErrInvalidID)
	require.ErrorContains(t, err, `document has no "id" member, but has "ID": member names are case-sensitive; a Go struct field ID encodes as "ID" unless tagged`)
	_, err = c.Create(bg, []byte(`{"Id":"a","nested":{"id":"b"}}`))
	require.ErrorContains(t, err, `but has "Id"`)
	_, err = c.Create(bg, []byte(`{"name":"a"}`))
	require.ErrorIs(t, err, ErrInvalidID)
	require.Equal(t, "ttldb: invalid id: document has no id (R10)", err.Error())
	require.False(t, errors.Is(err, ErrInvalidDocument))
}

// TestLoneSurrogatesRefused: an id or a partition-key string whose escapes
// hold a lone surrogate is not Unicode text and is refused, where decoding
// it as U+FFFD made "\ud800" and "\udc00" one id and "\udfff" and "\ufffd"
// one partition (R10). Pairs decode to the character they encode.
func TestLoneSurrogatesRefused(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for _, doc := range []string{
		`{"id":"\ud800"}`, `{"id":"\udc00"}`, `{"id":"a\ud800b"}`, `{"id":"\udc00\ud800"}`,
		`{"id":"\ud800\u0041"}`, `{"id":"\ud800\\udc00"}`, `{"id":"\uD83D"}`,
	} {
		_, err := c.Create(bg, []byte(doc))
		require.ErrorIs(t, err, ErrInvalidID, doc)
		require.ErrorContains(t, err, "lone surrogate escape", doc)
	}
	for _, doc := range []string{`{"id":"a","pk":"\udfff"}`, `{"id":"a","pk":"x\ud800"}`} {
		_, err := c.Create(bg, []byte(doc))
		require.ErrorIs(t, err, ErrInvalidPartitionKey, doc)
	}
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Zero(t, n, "nothing was stored")

	mustCreate(t, c, `{"id":"a","pk":"\ufffd"}`) // U+FFFD itself is a character
	smile := mustCreate(t, c, `{"id":"\ud83d\ude00","pk":"\uD83D\uDE00"}`)
	require.Equal(t, "😀", smile.ID())
	got, err := c.Get(bg, StringKey("😀"), "😀")
	require.NoError(t, err)
	require.Equal(t, smile.JSON(), got.JSON())
	_, err = c.Create(bg, []byte(`{"id":"😀","pk":"😀"}`))
	require.ErrorIs(t, err, ErrConflict, "the escaped pair and the raw character are one id")
	// A member name with a lone surrogate is only a name.
	d := mustCreate(t, c, `{"id":"b","\ud800":1}`)
	require.Equal(t, `{"id":"b","\ud800":1}`, d.Body())
}

// TestFastScanDocuments checks that parseDocument gives the same result,
// error or document, whether the fast path takes a text or not (R10): each
// text is parsed as it is and with a space before it, which the fast path
// leaves to the full scanner.
func TestFastScanDocuments(t *testing.T) {
	for _, src := range fzDocumentSeeds() {
		for _, path := range [][]string{{"id"}, {"pk"}, {"a", "b"}} {
			var kb1, kb2 keyBuffer
			in1, key1, err1 := parseDocument(nil, kb1[:0], src, path)
			in2, key2, err2 := parseDocument(nil, kb2[:0], append([]byte(" "), src...), path)
			if err1 != nil || err2 != nil {
				require.Error(t, err1, "%q", src)
				require.Error(t, err2, "%q", src)
				continue
			}
			require.Equal(t, string(in2.out), string(in1.out), "%q", src)
			require.Equal(t, in2.ttl, in1.ttl, "%q", src)
			require.Equal(t, in2.at, in1.at, "%q", src)
			require.Equal(t, string(key2), string(key1), "%q", src)
		}
	}
}
