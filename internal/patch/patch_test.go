package patch

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPointer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"/a", []string{"a"}, ""},
		{"/a/b/0/-", []string{"a", "b", "0", "-"}, ""},
		{"/a~1b/c~0d/~01", []string{"a/b", "c~d", "~1"}, ""},
		{"/", []string{""}, ""},
		{"//", []string{"", ""}, ""},
		{"", nil, "the path is empty"},
		{"a", nil, "does not start with '/'"},
		{"/a~", nil, "'~' not followed by 0 or 1"},
		{"/a~2", nil, "'~' not followed by 0 or 1"},
		{"/\xff", nil, "not valid UTF-8"},
		{strings.Repeat("/a", MaxPathTokens+1), nil, "tokens, at most"},
	} {
		got, err := Pointer(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
		require.Equal(t, tc.in, Format(got), "Format undoes Pointer")
	}
}

func TestIndex(t *testing.T) {
	for tok, want := range map[string]int{"0": 0, "7": 7, "10": 10, "999999999": 999999999} {
		i, ok := index(tok)
		require.True(t, ok, tok)
		require.Equal(t, want, i)
	}
	for _, tok := range []string{"", "-", "01", "-1", "1e3", "+1", "1000000000", "a"} {
		_, ok := index(tok)
		require.False(t, ok, tok)
	}
}

func TestAdd(t *testing.T) {
	for _, tc := range []struct {
		v    string
		by   Number
		want string
		err  string
	}{
		{"1", Number{Int: 2}, "3", ""},
		{"-5", Number{Int: 5}, "0", ""},
		{"1.5", Number{Int: 1}, "2.5", ""},
		{"1e2", Number{Int: 1}, "101", ""},
		{"1", Number{Float: 0.25, IsFloat: true}, "1.25", ""},
		{"0.1", Number{Float: 0.2, IsFloat: true}, "0.30000000000000004", ""},
		{"9223372036854775807", Number{Int: 1}, "", "out of the range of a 64-bit integer"},
		{"-9223372036854775808", Number{Int: -1}, "", "out of the range of a 64-bit integer"},
		{"9223372036854775807", Number{Int: -1}, "9223372036854775806", ""},
		{"99999999999999999999", Number{Int: 0}, "", "beyond the range of a 64-bit integer"}, // never rounded
		{"99999999999999999999", Number{Float: 1, IsFloat: true}, "100000000000000000000", ""},
		{"1e308", Number{Float: 1e308, IsFloat: true}, "", "beyond the range"},
		{"1e400", Number{Int: 1}, "", "beyond the range"},
		{"0", Number{Float: 1e-7, IsFloat: true}, "1e-7", ""},
		{"0", Number{Float: 1e21, IsFloat: true}, "1e+21", ""},
		{"0", Number{Float: -2.5e-300, IsFloat: true}, "-2.5e-300", ""},
		{`"1"`, Number{Int: 1}, "", "is a string, not a number"},
		{"true", Number{Int: 1}, "", "is a bool, not a number"},
		{"null", Number{Int: 1}, "", "is a null, not a number"},
	} {
		got, err := add(&value{raw: []byte(tc.v)}, tc.by)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.v)
			continue
		}
		require.NoError(t, err, tc.v)
		require.Equal(t, tc.want, string(got), "%s + %v", tc.v, tc.by)
	}
	_, err := add(&value{kind: '{'}, Number{Int: 1})
	require.ErrorContains(t, err, "is an object, not a number")
	require.Equal(t, "5e-324", string(appendFloat(nil, math.SmallestNonzeroFloat64)))
}

// TestApplyLeavesTheInputAlone checks that Apply writes nothing into the
// document it reads, and copies what it does not touch as it was.
func TestApplyLeavesTheInputAlone(t *testing.T) {
	doc := []byte(`{"a":{"b":[1,{"c":"\u00e9"}]},"d":"x\"y","e":[]}`)
	keep := string(doc)
	out, err := Apply(doc, []Op{
		{Kind: Add, Path: []string{"a", "b", "1", "z"}, Value: []byte(`[]`)},
		{Kind: Add, Path: []string{"e", "-"}, Value: []byte(`{}`)},
		{Kind: Remove, Path: []string{"d"}},
		{Kind: Add, Path: []string{"é/~"}, Value: []byte(`1`)},
	})
	require.NoError(t, err)
	require.Equal(t, keep, string(doc))
	require.Equal(t, `{"a":{"b":[1,{"c":"\u00e9","z":[]}]},"e":[{}],"é/~":1}`, string(out))

	_, err = Apply([]byte(`{"a":1,"a":2}`), []Op{{Kind: Set, Path: []string{"a"}, Value: []byte(`3`)}})
	require.ErrorContains(t, err, `holds member "a" twice`)
	_, err = Apply([]byte(`[1]`), []Op{{Kind: Remove, Path: []string{"0"}}})
	require.ErrorContains(t, err, "not a JSON object")
	_, err = Apply([]byte(`{"a":1}`), []Op{{Kind: Kind(9), Path: []string{"a"}}})
	require.Error(t, err)
}
