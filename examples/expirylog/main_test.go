package main

import (
	"bytes"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/examples/internal/golden"
)

// TestRun runs the program in a synctest bubble, which fails if a goroutine
// the program started is left blocked: a consumer that nobody stops waits
// in WatchFeed for ever. It compares the output with
// testdata/expirylog.golden.
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		require.NoError(t, run(&buf))
		golden.Check(t, "expirylog", buf.Bytes())
	})
}
