package conformance

import (
	"testing"

	"github.com/ttldb/ttldb"
)

// TestSharedChecks runs R16's checks of sharing, which no engine of this
// module can run (none has a second handle), against the in-process engine
// with a "second handle" that is the same one: a trivially shared engine,
// on which they must pass. It checks the checks, not an engine.
func TestSharedChecks(t *testing.T) {
	eng := Harness{
		Open: func(t testing.TB, name, path string, opts *ttldb.Options) (*ttldb.Collection, error) {
			c, err := ttldb.NewCollection(name, path, opts)
			if err == nil {
				t.Cleanup(func() { c.Close() })
			}
			return c, err
		},
		Second: func(t testing.TB, c *ttldb.Collection) (*ttldb.Collection, error) { return c, nil },
	}
	t.Run("R16/SharedReadYourWrites", func(t *testing.T) { checkSharedReadYourWrites(t, eng) })
	t.Run("R16/SharedFeedOnce", func(t *testing.T) { checkSharedFeedOnce(t, eng) })
	t.Run("R16/SharedSweepOnce", func(t *testing.T) { checkSharedSweepOnce(t, eng) })
}
