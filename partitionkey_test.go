package ttldb

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPartitionKeyValues: PartitionKeyOf and the key's accessors, which
// run no engine (R10; partition keys in documents are the conformance
// suite's, R10/PartitionKeys).
func TestPartitionKeyValues(t *testing.T) { // R10
	k, err := PartitionKeyOf(7)
	require.NoError(t, err)
	require.Equal(t, NumberKey(7), k)
	type tenant string
	type shard uint16
	for v, want := range map[any]PartitionKey{nil: NullKey(), "s": StringKey("s"), true: BoolKey(true), json.Number("2.5"): NumberKey(2.5), uint8(3): NumberKey(3),
		tenant("t1"): StringKey("t1"), shard(7): NumberKey(7), float32(0.5): NumberKey(0.5), json.Number("-1e2"): NumberKey(-100)} {
		k, err := PartitionKeyOf(v)
		require.NoError(t, err)
		require.Equal(t, want, k)
	}
	require.Equal(t, `"t1"`, StringKey("t1").String())
	require.Equal(t, "none", NoPartitionKey().String())
	require.Equal(t, "null", NullKey().String())
	require.Equal(t, "7", NumberKey(7).String())
	require.True(t, NoPartitionKey().IsNone())
	v, ok := NumberKey(2).Value()
	require.True(t, ok)
	require.Equal(t, 2.0, v)
}

func TestKeyEncodingRoundTrip(t *testing.T) {
	keys := []PartitionKey{NoPartitionKey(), NullKey(), BoolKey(false), BoolKey(true),
		NumberKey(math.Inf(-1) / math.Inf(1)), NumberKey(-1e300), NumberKey(-1), NumberKey(0), NumberKey(0.5), NumberKey(1e300),
		StringKey(""), StringKey("\x00"), StringKey("\x00\x00"), StringKey("a"), StringKey("a\x00"), StringKey("a\x00b"), StringKey("ab"), StringKey("b")}
	keys[4] = NumberKey(-math.MaxFloat64)
	var prev string
	for i, k := range keys {
		enc := string(k.appendEncoded(nil))
		back, ok := decodePartitionKey(enc)
		require.True(t, ok, k)
		require.Equal(t, k, back)
		full := enc + "id"
		e, id, ok := splitKey(full)
		require.True(t, ok)
		require.Equal(t, enc, e)
		require.Equal(t, "id", id)
		if i > 0 {
			require.Less(t, prev, enc, "the encoding sorts like the values: %v", k)
		}
		prev = enc
	}
	require.Equal(t, string(NumberKey(0).appendEncoded(nil)), string(NumberKey(math.Copysign(0, -1)).appendEncoded(nil)))
}

// TestPartitionKeyOfRefuses: values that are not a partition key of R10 are
// refused with ErrInvalidPartitionKey, a json.Number by JSON's grammar.
func TestPartitionKeyOfRefuses(t *testing.T) { // R10
	for _, v := range []any{json.Number("0x1p4"), json.Number("Inf"), json.Number("NaN"), json.Number(""), json.Number("1e999"), json.Number("+1"),
		math.NaN(), math.Inf(1), []byte("k"), struct{}{}, map[string]any{}, StringKey("k"), "\xff"} {
		_, err := PartitionKeyOf(v)
		require.ErrorIs(t, err, ErrInvalidPartitionKey, "%T %v", v, v)
	}
}
