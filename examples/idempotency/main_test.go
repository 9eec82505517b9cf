package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/examples/internal/golden"
)

// TestRun runs the program and compares its output with
// testdata/idempotency.golden.
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, run(t.Context(), &buf))
	golden.Check(t, "idempotency", buf.Bytes())
}
