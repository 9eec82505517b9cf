package ttldb

import (
	"time"

	"github.com/ttldb/ttldb/engine"
)

// FromEngine returns a collection that keeps its documents in eng, an
// engine of another package (PostgreSQL's, in the module
// github.com/ttldb/ttldb/postgres, is one): the API, with its rules
// R1-R15, over the engine, as [NewCollection] gives it over the in-process
// engine. The collection's name, partition-key path and settings are the
// engine's. Its queries' GetCurrentDateTime and kin read eng's Now method,
// if it has one (func() time.Time), else this machine's clock. Closing the collection closes eng. It takes O(1).
//
// Errors: [ErrInvalidOption] for a nil eng, or an engine whose name or
// partition-key path breaks the rules of NewCollection's.
func FromEngine(eng engine.Engine) (*Collection, error) {
	if eng == nil {
		return nil, errorf(ErrInvalidOption, "FromEngine(nil): an engine is needed")
	}
	s := eng.Settings()
	if p := nameProblem(s.Name, MaxNameLength); p != "" {
		return nil, errorf(ErrInvalidOption, "the engine's collection name %q %s", s.Name, p)
	}
	c := &Collection{eng: eng, stop: make(chan struct{}), clock: time.Now}
	if ck, ok := eng.(interface{ Now() time.Time }); ok {
		c.clock = ck.Now
	}
	if err := c.identify(s); err != nil {
		return nil, err
	}
	return c, nil
}

// identify gives c the identity its engine holds.
func (c *Collection) identify(s engine.Settings) error {
	segs, err := parsePath(s.PartitionKeyPath)
	if err != nil {
		return err
	}
	c.name, c.path, c.pkPath, c.byID = s.Name, s.PartitionKeyPath, segs, isIDPath(segs)
	c.tokenID, c.etagBase = s.ID, s.ETagBase
	return nil
}
