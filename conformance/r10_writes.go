package conformance

// R10's writes: a document round trip, create, replace, upsert, touch and
// delete, and etags and the conditions on them. Moved from the root
// package's write_test.go.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// R2, R10: a document comes back as written, compacted, with _ts and
// _etag at the end; its accessors and Decode agree.
func checkCreateGetRoundTrip(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/customerId", ttldb.TTLOff())
	d := ruleCreate(t, c, ` { "id" : "o1", "customerId" : "c1", "ttl" : 10, "items" : [ 1, { "sku" : "\u00e9" } ] } `)
	require.Equal(t, `{"id":"o1","customerId":"c1","ttl":10,"items":[1,{"sku":"\u00e9"}],"_ts":1000000,"_etag":"`+d.ETag()+`"}`, d.JSON())
	require.Equal(t, "o1", d.ID())
	require.Equal(t, ttldb.StringKey("c1"), d.PartitionKey())
	require.Equal(t, int64(1_000_000), d.TS())
	require.Equal(t, time.Unix(1_000_000, 0), d.Timestamp())
	require.Len(t, d.ETag(), 16)
	ttl, ok := d.TTL()
	require.True(t, ok)
	require.Equal(t, 10, ttl)

	got, err := c.Get(bg, ttldb.StringKey("c1"), "o1")
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

// R10, R4: create, replace, upsert, touch and delete, what each refuses,
// and the _ts each gives.
func checkCRUD(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	pk := ttldb.StringKey("p")

	_, err := c.Replace(bg, []byte(`{"id":"a","pk":"p"}`))
	require.ErrorIs(t, err, ttldb.ErrNotFound, "replace of an absent document")
	a := ruleCreate(t, c, `{"id":"a","pk":"p","v":1}`)
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"p","v":2}`))
	require.ErrorIs(t, err, ttldb.ErrConflict)
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
	require.ErrorIs(t, err, ttldb.ErrNotFound)
	require.ErrorIs(t, c.Delete(bg, pk, "a"), ttldb.ErrNotFound)
	_, err = c.Touch(bg, pk, "a")
	require.ErrorIs(t, err, ttldb.ErrNotFound)
	n, err := c.Count(bg, ttldb.Query{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

// R10: every write has a fresh etag; a write conditional on an etag that
// is not the current one fails with ErrPreconditionFailed and changes
// nothing; on a missing document, ErrNotFound; the zero WriteOption adds
// no condition, and the last IfMatch wins.
func checkETags(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	pk := ttldb.StringKey("p")
	seen := map[string]bool{}
	d := ruleCreate(t, c, `{"id":"a","pk":"p"}`)
	seen[d.ETag()] = true
	writes := []func(etag string) (ttldb.Document, error){
		func(e string) (ttldb.Document, error) {
			return c.Replace(bg, []byte(`{"id":"a","pk":"p","w":1}`), ttldb.IfMatch(e))
		},
		func(e string) (ttldb.Document, error) {
			return c.Upsert(bg, []byte(`{"id":"a","pk":"p","w":2}`), ttldb.IfMatch(e))
		},
		func(e string) (ttldb.Document, error) { return c.Touch(bg, pk, "a", ttldb.IfMatch(e)) },
	}
	for i, w := range writes {
		before := ruleState(t, c)
		_, err := w("not-the-etag")
		require.ErrorIs(t, err, ttldb.ErrPreconditionFailed, "write %d", i)
		require.Contains(t, err.Error(), "not-the-etag")
		require.Equal(t, before, ruleState(t, c), "a failed if-match changes nothing")

		next, err := w(d.ETag())
		require.NoError(t, err, "write %d", i)
		require.False(t, seen[next.ETag()], "every write has a fresh etag")
		seen[next.ETag()] = true
		d = next
	}
	require.ErrorIs(t, c.Delete(bg, pk, "a", ttldb.IfMatch("stale")), ttldb.ErrPreconditionFailed)
	require.NoError(t, c.Delete(bg, pk, "a", ttldb.IfMatch(d.ETag())))

	// Conditional writes against a missing document: not found (R4).
	_, err := c.Upsert(bg, []byte(`{"id":"a","pk":"p"}`), ttldb.IfMatch(d.ETag()))
	require.ErrorIs(t, err, ttldb.ErrNotFound)
	_, err = c.Replace(bg, []byte(`{"id":"a","pk":"p"}`), ttldb.IfMatch(d.ETag()))
	require.ErrorIs(t, err, ttldb.ErrNotFound)
	require.ErrorIs(t, c.Delete(bg, pk, "a", ttldb.IfMatch(d.ETag())), ttldb.ErrNotFound)

	// The zero ttldb.WriteOption adds no condition; the last ttldb.IfMatch wins.
	_, err = c.Upsert(bg, []byte(`{"id":"a","pk":"p"}`), ttldb.WriteOption{})
	require.NoError(t, err)
	_, err = c.Touch(bg, pk, "a", ttldb.IfMatch("x"), ttldb.IfMatch(""))
	require.ErrorIs(t, err, ttldb.ErrPreconditionFailed)
}
