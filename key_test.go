package ttldb

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPartitionedByID(t *testing.T) { // R4, R10
	c, clk := newTestCollection(t, "/id", TTLSeconds(60))
	ids := []string{"b", "a", "é", "a b", "z", "key:0000000042"}
	for _, id := range ids {
		d := mustCreate(t, c, `{"id":"`+id+`","n":1}`)
		require.Equal(t, StringKey(id), d.PartitionKey())
		require.Equal(t, id, d.ID())
		require.Equal(t, string(StringKey(id).appendEncoded(nil)), d.d.Key(), "the id is not stored twice")
	}
	_, err := c.Create(bg, []byte(`{"id":"a","n":2}`))
	require.ErrorIs(t, err, ErrConflict)
	require.Contains(t, err.Error(), `document "a" in partition "a"`)

	// Only the id's own partition key finds the document.
	for _, pk := range []PartitionKey{StringKey("a"), StringKey("b"), StringKey("a\x00"), StringKey(""), NumberKey(1), NoPartitionKey(), NullKey()} {
		d, err := c.Get(bg, pk, "a")
		if pk == StringKey("a") {
			require.NoError(t, err)
			require.Equal(t, `{"id":"a","n":1}`, d.Body())
			continue
		}
		require.ErrorIs(t, err, ErrNotFound, "%v", pk)
		require.ErrorIs(t, c.Delete(bg, pk, "a"), ErrNotFound, "%v", pk)
		_, err = c.Touch(bg, pk, "a")
		require.ErrorIs(t, err, ErrNotFound, "%v", pk)
	}

	// Writes and Touch keep the key form.
	d, err := c.Upsert(bg, []byte(`{"n":3,"id":"a"}`))
	require.NoError(t, err)
	_, err = c.Replace(bg, []byte(`{"id":"a","n":4}`), IfMatch("0000000000000000"))
	require.ErrorIs(t, err, ErrPreconditionFailed)
	require.Contains(t, err.Error(), `document "a" in partition "a"`)
	clk.Advance(30 * time.Second)
	d2, err := c.Touch(bg, StringKey("a"), "a")
	require.NoError(t, err)
	require.Equal(t, d.Body(), d2.Body())
	require.Equal(t, "a", d2.ID())
	require.Equal(t, StringKey("a"), d2.PartitionKey())
	require.NoError(t, c.Delete(bg, StringKey("b"), "b"))

	// Listing: by id order, one partition per id, pages resume by token.
	var got []string
	q := Query{Limit: 1}
	for {
		page, err := c.List(bg, q)
		require.NoError(t, err)
		for _, d := range page.Documents {
			got = append(got, d.ID())
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	require.Equal(t, []string{"a", "a b", "key:0000000042", "z", "é"}, got)
	pk := StringKey("z")
	page, err := c.List(bg, Query{Partition: &pk})
	require.NoError(t, err)
	require.Len(t, page.Documents, 1)
	require.Equal(t, "z", page.Documents[0].ID())

	// Expiry as anywhere else (R4): "a" was touched, the rest were not.
	clk.Advance(30 * time.Second)
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	swept, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 4, swept)
}
