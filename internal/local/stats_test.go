package local

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// R4, R5, R17 (its counters that exist today: expired and not yet swept,
// and swept): Live + Expired is the number of stored documents, and Swept
// counts only the sweeper's deletions: not a user's Delete, nor an expired
// document replaced by a Create or an Upsert.
func TestStatsAddUp(t *testing.T) {
	clock := newSweepClock(1000)
	e := newSweepEnv(t, Options{DefaultTTL: TTLNoDefault(), Now: clock.Now, ManualSweep: true})
	stored := 0
	check := func(swept uint64) {
		t.Helper()
		st := e.counts()
		require.Equal(t, stored, st.Live+st.Expired, "Live + Expired")
		require.Equal(t, swept, st.Swept, "Swept")
		n, err := e.c.Count(bg, Query{})
		require.NoError(t, err)
		require.Equal(t, st.Live, n, "Count")
	}

	for _, d := range [][2]string{{"a", "10"}, {"b", "20"}, {"c", "-1"}, {"d", ""}, {"e", "10"}, {"f", "10"}} {
		e.create(d[0], d[1])
		stored++
	}
	check(0)
	clock.advance(10) // a, e and f expire
	require.Equal(t, sweepCounts{Live: 3, Expired: 3}, e.counts())
	check(0)

	require.NoError(t, e.c.Delete(bg, sweepPK, "d"))
	stored--
	check(0)

	e.create("a", "10") // replaces the expired a: not swept
	_, err := e.c.Upsert(bg, sweepDoc("f", "-1"))
	require.NoError(t, err)
	require.Equal(t, sweepCounts{Live: 4, Expired: 1}, e.counts())
	check(0)

	e.sweep(1) // e
	stored--
	check(1)

	clock.advance(10) // b and the new a expire
	require.Equal(t, sweepCounts{Live: 2, Expired: 2, Swept: 1}, e.counts())
	check(1)
	e.sweep(2)
	stored -= 2
	check(3)
	e.requireLive("c", "f")
}
