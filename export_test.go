package ttldb

import "github.com/ttldb/ttldb/engine"

// opaqueEngine hides the in-process engine's type behind the interface
// alone, as an engine of another package would be.
type opaqueEngine struct{ engine.Engine }

// RaceDetector reports whether the tests run under the race detector.
func RaceDetector() bool { return raceDetector() }

// ThroughInterface returns a collection on c's engine made by FromEngine,
// which reaches it through [engine.Engine] alone, as it would an engine of
// another package: never directly (see calls.go), and without the
// in-process engine's own state, for the conformance suite to check that
// the interface carries the contract whole. Closing either closes both.
func ThroughInterface(c *Collection) (*Collection, error) {
	return FromEngine(opaqueEngine{c.eng})
}
