package ttldb

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDefaultTTLValues(t *testing.T) { // R1
	for _, tc := range []struct {
		d    DefaultTTL
		json string
	}{{TTLOff(), "null"}, {DefaultTTL{}, "null"}, {TTLNoDefault(), "-1"}, {TTLSeconds(-1), "-1"}, {TTLSeconds(1), "1"}, {TTLSeconds(MaxTTL), "2147483647"}} {
		b, err := json.Marshal(tc.d)
		require.NoError(t, err)
		require.Equal(t, tc.json, string(b))
		var back DefaultTTL
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, tc.d, back)
	}
	require.Equal(t, "off", TTLOff().String())
	require.Equal(t, "-1", TTLNoDefault().String())
	n, on := TTLSeconds(30).Seconds()
	require.Equal(t, int64(30), n)
	require.True(t, on)
	_, on = DefaultTTL{}.Seconds()
	require.False(t, on, "the zero DefaultTTL is off")
	var back DefaultTTL
	require.NoError(t, json.Unmarshal([]byte("10.0"), &back))
	require.Equal(t, TTLSeconds(10), back)
}

func TestExactInt(t *testing.T) { // R2
	for raw, want := range map[string]int64{
		"0": 0, "-0": 0, "10": 10, "10.0": 10, "1e1": 10, "1E+1": 10, "100e-2": 1, "-1": -1, "-1.000": -1,
		"-10e-1": -1, "0.0e99999999999": 0, "2147483647": 2147483647, "2147483647.000": 2147483647, "9999999999": 9999999999,
	} {
		got, ok := exactInt([]byte(raw))
		require.True(t, ok, raw)
		require.Equal(t, want, got, raw)
	}
	// Exponents too long to read cannot cancel a long fraction or a long
	// run of zeros: 0.000...1e10000000 is 10^9000000, not 1.
	huge := "0." + strings.Repeat("0", 999_999) + "1e10000000"
	tiny := "1" + strings.Repeat("0", 1_200_000) + "e-12000000"
	for _, raw := range []string{huge, tiny} {
		_, ok := exactInt([]byte(raw))
		require.False(t, ok, "%.20s... (%d bytes)", raw, len(raw))
	}
	for _, raw := range []string{"10.5", "1e-1", "2147483647.0000000001", "99999999999", "1e10", "1e999999999999", "", "-", "1.", ".5", "1e", "01x", "NaN"} {
		_, ok := exactInt([]byte(raw))
		require.False(t, ok, raw)
	}
}

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
		require.ErrorIs(t, c.SetDefaultTTL(bg, def), ErrInvalidTTL)
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
	require.ErrorContains(t, c.SetDefaultTTL(bg, TTLSeconds(thirtyDaysInMillis)), "2592000000 looks like milliseconds: TTL counts seconds (2592000)")
	require.ErrorContains(t, c.SetDefaultTTL(bg, TTLSeconds(thirtyDaysInMillis+1)), "(R1)")
	require.NotContains(t, c.SetDefaultTTL(bg, TTLSeconds(thirtyDaysInMillis+1)).Error(), "looks like")

	_, err = c.Create(bg, []byte(`{"id":"a","ttl":1800000000000}`))
	require.ErrorIs(t, err, ErrInvalidTTL)
	require.ErrorContains(t, err, "(R2); 1800000000000 looks like a time.Duration in nanoseconds (30m0s)")
	_, err = c.Create(bg, []byte(`{"id":"a","ttl":0}`))
	require.ErrorIs(t, err, ErrInvalidTTL)
	require.NotContains(t, err.Error(), "looks like")
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Zero(t, n, "refused writes store nothing")
}
