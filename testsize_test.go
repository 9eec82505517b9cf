package ttldb

import "github.com/ttldb/ttldb/internal/testsize"

// LongTestsEnv names the environment variable that turns on the long forms
// of the randomized, crash, kill and memory tests (package testsize).
// Exported, in a test file, for the external test package.
const LongTestsEnv = testsize.Env

// LongTests reports whether the long forms run: testsize.Long.
func LongTests() bool { return testsize.Long() }

// sized returns long when the long forms run, else quick.
func sized(quick, long int) int { return testsize.Sized(quick, long) }
