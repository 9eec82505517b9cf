package ttldb

import (
	"os"
	"testing"
)

// LongTestsEnv names the environment variable that turns on the long forms
// of the randomized, crash, kill and memory tests. Without it, `go test ./...`
// runs their quick forms and takes about a minute on a 2-core machine; CI
// (.ci/run) sets it and adds -race:
//
//	TTLDB_LONG_TESTS=1 go test -race ./...
//
// Exported, in a test file, for the external test package. (The conformance
// suite reads the variable itself: conformance.Long.)
const LongTestsEnv = "TTLDB_LONG_TESTS"

// LongTests reports whether the long forms run: LongTestsEnv is set to
// anything but "" or "0", and the run is not -short.
func LongTests() bool {
	v := os.Getenv(LongTestsEnv)
	return v != "" && v != "0" && !testing.Short()
}

// sized returns long when the long forms run, else quick.
func sized(quick, long int) int {
	if LongTests() {
		return long
	}
	return quick
}
