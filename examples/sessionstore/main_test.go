package main

import (
	"bytes"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/examples/internal/golden"
)

// TestRun runs the service three times on one directory, in a synctest
// bubble whose clock is simulated: a second between the first two runs
// (every session is found), ten between the last two (the short sessions
// expired while nothing ran: they are gone).
func TestRun(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, run(t.Context(), &buf, dir, 1))
		buf.WriteString("--- a second later\n")
		time.Sleep(time.Second)
		require.NoError(t, run(t.Context(), &buf, dir, 2))
		buf.WriteString("--- ten seconds later\n")
		time.Sleep(10 * time.Second)
		require.NoError(t, run(t.Context(), &buf, dir, 3))
		golden.Check(t, "sessionstore", bytes.ReplaceAll(buf.Bytes(), []byte(dir), []byte("DIR")))
	})
}
