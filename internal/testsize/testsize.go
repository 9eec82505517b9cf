// Package testsize says whether the module's tests run their long forms
// (more random sequences, more crashes and kills, larger collections) or
// their quick ones. It is imported only by tests: the root package's and
// the in-process engine's read it alike. (The conformance suite, which an
// engine outside the module runs, reads the variable itself:
// conformance.Long.)
package testsize

import (
	"os"
	"testing"
)

// Env names the environment variable that turns on the long forms.
// Without it, `go test ./...` runs the quick forms and takes about a
// minute on a 2-core machine; CI (.ci/run) sets it and adds -race:
//
//	TTLDB_LONG_TESTS=1 go test -race ./...
const Env = "TTLDB_LONG_TESTS"

// Long reports whether the long forms run: Env is set to anything but ""
// or "0", and the run is not -short. Call it from a test.
func Long() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0" && !testing.Short()
}

// Sized returns long when the long forms run, else quick.
func Sized(quick, long int) int {
	if Long() {
		return long
	}
	return quick
}
