package ttldb

import "github.com/ttldb/ttldb/engine"

// opaqueEngine hides the in-process engine's type behind the interface
// alone, as an engine of another package would be.
type opaqueEngine struct{ engine.Engine }

// ThroughInterface makes c reach its engine through [engine.Engine]
// alone, as if it were of another package: never directly (see calls.go),
// and without the in-process engine's own state, for the conformance suite
// to check that the interface carries the contract whole. It returns c.
func ThroughInterface(c *Collection) *Collection {
	c.fast, c.local = nil, nil
	c.eng = opaqueEngine{c.eng}
	return c
}
