package main

import (
	"bytes"
	"errors"
	"go/build"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExamplesListsEveryProgram checks that the runner's list names exactly
// the subdirectories of examples/ that hold a main package, so that a new
// example cannot be forgotten. It runs none of them: each checks its own
// output in its main_test.go.
func TestExamplesListsEveryProgram(t *testing.T) {
	entries, err := os.ReadDir(".") // go test runs in examples/
	require.NoError(t, err)
	var programs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		pkg, err := build.ImportDir(e.Name(), 0)
		if noGo := (*build.NoGoError)(nil); errors.As(err, &noGo) {
			continue // testdata, internal and the like
		}
		require.NoError(t, err, e.Name())
		if pkg.Name == "main" {
			programs = append(programs, e.Name())
		}
	}
	require.Equal(t, programs, slices.Sorted(slices.Values(examples)), "the runner's examples and the main packages in examples/: update the examples variable in main.go")
}

// TestUnknownExample checks that an unknown name fails with status 2, names
// the known examples, and runs nothing.
func TestUnknownExample(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, runExamples([]string{"sessions", "nosuch"}, &stdout, &stderr), "the exit status")
	require.Empty(t, stdout.String(), "ran nothing")
	for _, want := range append([]string{`"nosuch"`}, examples...) {
		require.Contains(t, stderr.String(), want)
	}
}

// TestNotInRepositoryRoot checks that, run from elsewhere than the
// repository root, the runner says so and exits with status 2, running
// nothing.
func TestNotInRepositoryRoot(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr bytes.Buffer
	require.Equal(t, 2, runExamples(nil, &stdout, &stderr), "the exit status")
	require.Empty(t, stdout.String(), "ran nothing")
	require.Contains(t, stderr.String(), "not found")
	require.Contains(t, stderr.String(), "repository root")
}
