package ttldb

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBadOptions(t *testing.T) { // R1, R8, R16
	for _, tc := range []struct {
		name, path string
		opts       *Options
		want       error
		text       string
	}{
		{"", "/pk", nil, ErrInvalidOption, "empty"},
		{"a/b", "/pk", nil, ErrInvalidOption, `"a/b"`},
		{strings.Repeat("n", MaxNameLength+1), "/pk", nil, ErrInvalidOption, "256 bytes"},
		{"c", "pk", nil, ErrInvalidOption, `"pk"`},
		{"c", "", nil, ErrInvalidOption, `""`},
		{"c", "/a//b", nil, ErrInvalidOption, "empty segment"},
		{"c", "/_ts", nil, ErrInvalidOption, "system property"},
		{"c", "/_etag/x", nil, ErrInvalidOption, "system property"},
		{"c", "/", nil, ErrInvalidOption, "empty segment"},
		{"c", "/pk", &Options{DefaultTTL: TTLSeconds(0)}, ErrInvalidTTL, "DefaultTTL 0"},
		{"c", "/pk", &Options{DefaultTTL: TTLSeconds(MaxTTL + 1)}, ErrInvalidTTL, "2147483648"},
		{"c", "/pk", &Options{DefaultTTL: TTLNoDefault(), Indexing: IndexingNone}, ErrInvalidOption, "R8"},
		{"c", "/pk", &Options{Indexing: 7}, ErrInvalidOption, "7"},
		{"c", "/pk", &Options{SweepBatch: -1}, ErrInvalidOption, "-1"},
	} {
		c, err := NewCollection(tc.name, tc.path, tc.opts)
		require.ErrorIs(t, err, tc.want, "%q %q %+v", tc.name, tc.path, tc.opts)
		require.Contains(t, err.Error(), tc.text)
		require.Nil(t, c)
		// R16: an engine that makes its collections elsewhere is told the same.
		require.Equal(t, err.Error(), CheckCollection(tc.name, tc.path, tc.opts).Error())
	}
	require.NoError(t, CheckCollection("c", "/pk", nil))
	require.NoError(t, CheckCollection("c", "/pk", &Options{DefaultTTL: TTLSeconds(60), Indexes: []string{"/a"}, Feed: FeedOptions{MaxRecords: 10}}))
	require.ErrorIs(t, CheckCollection("c", "/pk", &Options{Indexes: []string{"/a", "/a"}}), ErrInvalidOption)
	for _, in := range []string{"0", "1.5", `"10"`, "true", "{}", "-2", "2147483648", "nope", ""} {
		d := TTLSeconds(5)
		err := d.UnmarshalJSON([]byte(in))
		require.ErrorIs(t, err, ErrInvalidTTL, in)
		require.Equal(t, TTLSeconds(5), d, "a rejected value leaves the DefaultTTL unchanged")
	}
	_, err := json.Marshal(TTLSeconds(0))
	require.ErrorIs(t, err, ErrInvalidTTL)
}
