package main

import (
	"bytes"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/examples/internal/golden"
)

// TestRun runs the program in a synctest bubble, where time.Now, time.Sleep
// and the timers the background sweeper sleeps on are simulated: the test
// does not sleep for real, and synctest.Test fails if the sweeper outlives
// the program (Close must stop it).
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var buf bytes.Buffer
		require.NoError(t, run(t.Context(), &buf))
		require.LessOrEqual(t, time.Since(start), 6*time.Second, "the program's run time")
		golden.Check(t, "sessions", buf.Bytes())
	})
}
