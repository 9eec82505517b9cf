package ttldb

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTTLDuration: a DefaultTTL from a time.Duration is the same setting as
// from seconds when the duration is whole seconds in range, and is refused
// with a message that says why otherwise (R1).
func TestTTLDuration(t *testing.T) { // R1
	require.Equal(t, TTLSeconds(1800), TTLDuration(30*time.Minute))
	require.Equal(t, TTLSeconds(1), TTLDuration(time.Second))
	require.Equal(t, TTLSeconds(MaxTTL), TTLDuration(MaxTTL*time.Second))
	d, ok := TTLDuration(90 * time.Second).Duration()
	require.True(t, ok)
	require.Equal(t, 90*time.Second, d)
	for _, def := range []DefaultTTL{TTLOff(), TTLNoDefault(), TTLDuration(0)} {
		_, ok := def.Duration()
		require.False(t, ok, "%v has no default duration", def)
	}
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{1500 * time.Millisecond, "DefaultTTL 1.5s is not a whole number of seconds"},
		{0, "DefaultTTL 0s is invalid: TTLDuration takes 1s to 2147483647s; for \"on, no default\" use TTLNoDefault"},
		{-time.Second, "DefaultTTL -1s is invalid"},
		{(MaxTTL + 1) * time.Second, "DefaultTTL 596523h14m8s is over the most, 2147483647s"},
	} {
		def := TTLDuration(tc.d)
		_, err := NewCollection("c", "/pk", &Options{DefaultTTL: def, ManualSweep: true})
		require.ErrorIs(t, err, ErrInvalidTTL, tc.d)
		require.ErrorContains(t, err, tc.want)
		require.ErrorContains(t, err, "(R1)")
		c, _ := newTestCollection(t, "/pk", TTLSeconds(5))
		require.ErrorIs(t, c.SetDefaultTTL(def), ErrInvalidTTL)
		require.Equal(t, TTLSeconds(5), c.DefaultTTL(), "a refused setting changes nothing")
	}
}

// TestTTLUnitHints: a number of seconds that looks like a time.Duration in
// nanoseconds, or like milliseconds, gets a hint (R1, R2).
func TestTTLUnitHints(t *testing.T) { // R1, R2
	_, err := NewCollection("c", "/pk", &Options{DefaultTTL: TTLSeconds(int64(30 * time.Minute)), ManualSweep: true})
	require.ErrorIs(t, err, ErrInvalidTTL)
	require.ErrorContains(t, err, "DefaultTTL 1800000000000 is invalid")
	require.ErrorContains(t, err, "looks like a time.Duration in nanoseconds (30m0s): TTL counts seconds, so use TTLDuration(30m0s) or 1800")

	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	thirtyDaysInMillis := int64(30 * 24 * time.Hour / time.Millisecond)
	require.ErrorContains(t, c.SetDefaultTTL(TTLSeconds(thirtyDaysInMillis)), "2592000000 looks like milliseconds: TTL counts seconds (2592000)")
	require.ErrorContains(t, c.SetDefaultTTL(TTLSeconds(thirtyDaysInMillis+1)), "(R1)")
	require.NotContains(t, c.SetDefaultTTL(TTLSeconds(thirtyDaysInMillis+1)).Error(), "looks like")

	_, err = c.Create([]byte(`{"id":"a","ttl":1800000000000}`))
	require.ErrorIs(t, err, ErrInvalidTTL)
	require.ErrorContains(t, err, "(R2); 1800000000000 looks like a time.Duration in nanoseconds (30m0s)")
	_, err = c.Create([]byte(`{"id":"a","ttl":0}`))
	require.ErrorIs(t, err, ErrInvalidTTL)
	require.NotContains(t, err.Error(), "looks like")
	n, err := c.Count(Query{})
	require.NoError(t, err)
	require.Zero(t, n, "refused writes store nothing")
}

// TestMissingIDHint: a document without "id" but with "ID" or "Id", as a Go
// struct without a json tag writes, is told so (R10).
func TestMissingIDHint(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	_, err := c.Create(struct{ ID, Name string }{"a", "n"})
	require.ErrorIs(t, err, ErrInvalidID)
	require.ErrorContains(t, err, `document has no "id" member, but has "ID": member names are case-sensitive; a Go struct field ID encodes as "ID" unless tagged`)
	_, err = c.Create([]byte(`{"Id":"a","nested":{"id":"b"}}`))
	require.ErrorContains(t, err, `but has "Id"`)
	_, err = c.Create([]byte(`{"name":"a"}`))
	require.ErrorIs(t, err, ErrInvalidID)
	require.Equal(t, "ttldb: invalid id: document has no id (R10)", err.Error())
	require.False(t, errors.Is(err, ErrInvalidDocument))
}
