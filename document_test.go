package ttldb

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestZeroDocument(t *testing.T) {
	var d Document
	require.Empty(t, d.ID())
	require.Empty(t, d.JSON())
	require.Empty(t, d.ETag())
	require.Zero(t, d.TS())
	require.True(t, d.PartitionKey().IsNone())
	_, ok := d.TTL()
	require.False(t, ok)
	require.ErrorIs(t, d.Decode(&struct{}{}), ErrNotFound)
}

func TestDecodeErrors(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLOff())
	d := mustCreate(t, c, `{"id":"a","n":"not a number"}`)
	var v struct{ N int }
	err := d.Decode(&v)
	require.ErrorIs(t, err, ErrInvalidDocument)
	var typeErr *json.UnmarshalTypeError
	require.ErrorAs(t, err, &typeErr, "encoding/json's error is wrapped too")
	require.Contains(t, err.Error(), `"a"`)
}
