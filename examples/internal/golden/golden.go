// Package golden checks an example program's output against the golden file
// beside its test, testdata/<name>.golden; `go test ./examples/... -update`
// rewrites the golden files instead.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the examples' golden files")

// Check requires got to equal testdata/<name>.golden, or writes it there
// with -update.
func Check(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./examples/%s -update creates it", name)
	require.Equal(t, string(want), string(got), "the output of %s differs from %s (go test ./examples/%s -update rewrites it)", name, path, name)
}
