package ttldb

import "github.com/ttldb/ttldb/engine"

// opaqueEngine hides the in-process engine's type behind the interface
// alone, as an engine of another package would be.
type opaqueEngine struct{ engine.Engine }

// ThroughInterface makes c call its engine through [engine.Engine] only,
// never directly (see calls.go), for the conformance suite to check that
// the interface carries the contract whole. It returns c.
func ThroughInterface(c *Collection) *Collection {
	c.fast = nil
	c.eng = opaqueEngine{c.eng}
	return c
}
