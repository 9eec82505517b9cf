package main

import (
	"bytes"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/examples/internal/golden"
)

// TestRun runs the program in a synctest bubble, which fails if a goroutine
// the program started is left blocked: a logger that nobody stops waits
// in WatchFeed for ever. Its directory and checkpoint are in a temporary
// directory. It compares the output with testdata/expirylog.golden, which
// shows the logger, restarted from its checkpoint, logging the expiries of
// the downtime.
func TestRun(t *testing.T) {
	base := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, run(t.Context(), &buf, base))
		golden.Check(t, "expirylog", buf.Bytes())
	})
}
