package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// opaqueEngine hides the in-process engine's type behind the interface
// alone, as an engine of another package would be.
type opaqueEngine struct{ engine.Engine }

// RaceDetector reports whether the tests run under the race detector.
func RaceDetector() bool { return raceDetector() }

// ThroughInterface returns a collection on c's engine made by FromEngine,
// which reaches it through [engine.Engine] alone, as it would an engine of
// another package: never directly (see calls.go), and without the
// in-process engine's own state, for the conformance suite to check that
// the interface carries the contract whole. Closing either closes both.
func ThroughInterface(c *Collection) (*Collection, error) {
	return FromEngine(opaqueEngine{c.eng})
}

// checkInvariants checks the in-process engine's structures against each
// other ([local.Engine.Check]) and that its reads agree: All, Get, Stats
// and Count.
func checkInvariants(t *testing.T, c *Collection) {
	t.Helper()
	require.NoError(t, c.fast.Check())
	live := 0
	for d, err := range c.All(bg, Query{}) {
		require.NoError(t, err)
		live++
		got, err := c.Get(bg, d.PartitionKey(), d.ID())
		if err == nil { // a concurrent sweep may have expired it since the snapshot
			require.Equal(t, d.JSON(), got.JSON())
		}
	}
	st, err := c.Stats(bg)
	require.NoError(t, err)
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, st.Live, n)
	require.Equal(t, live, n, "All and Count agree")
}
