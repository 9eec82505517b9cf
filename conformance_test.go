package ttldb_test

import (
	"sync"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/conformance"
)

// TestConformance runs the conformance suite (R1-R16: conformance/doc.go
// lists what it checks) against the in-process engine, in memory and with a
// directory (R12). The checks that need the engine's internals stay beside
// it, in this package's other tests.
func TestConformance(t *testing.T) {
	t.Run("Memory", func(t *testing.T) {
		conformance.Run(t, conformance.Harness{Open: openMemory})
	})
	t.Run("Interface", func(t *testing.T) { // R16: the in-process engine through the engine interface alone
		if ttldb.RaceDetector() {
			t.Skip("the same engine and code as Memory, which runs under the race detector: CI runs this without it (.ci/run)")
		}
		conformance.Run(t, conformance.Harness{Open: func(t testing.TB, name, path string, opts *ttldb.Options) (*ttldb.Collection, error) {
			c, err := openMemory(t, name, path, opts)
			if err != nil {
				return nil, err
			}
			return ttldb.ThroughInterface(c)
		}})
	})
	t.Run("Dir", func(t *testing.T) {
		d := &dirEngine{}
		conformance.Run(t, conformance.Harness{Open: d.open, Reopen: d.reopen})
	})
}

// openMemory opens a collection in memory, closed when t ends.
func openMemory(t testing.TB, name, path string, opts *ttldb.Options) (*ttldb.Collection, error) {
	c, err := ttldb.NewCollection(name, path, opts)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// dirEngine opens collections each in a directory of its own, and
// remembers which, for Reopen.
type dirEngine struct {
	mu   sync.Mutex
	dirs map[*ttldb.Collection]string // a collection's directory
}

func (d *dirEngine) open(t testing.TB, name, path string, opts *ttldb.Options) (*ttldb.Collection, error) {
	o := *opts
	o.Dir = t.TempDir()
	return d.add(t, name, path, &o)
}

func (d *dirEngine) reopen(t testing.TB, c *ttldb.Collection, opts *ttldb.Options) (*ttldb.Collection, error) {
	d.mu.Lock()
	dir, ok := d.dirs[c]
	delete(d.dirs, c)
	d.mu.Unlock()
	if !ok {
		t.Fatalf("Reopen of a collection Open did not open")
	}
	o := *opts
	o.Dir = dir
	return d.add(t, c.Name(), c.PartitionKeyPath(), &o)
}

// add opens the collection o describes and remembers its directory.
func (d *dirEngine) add(t testing.TB, name, path string, o *ttldb.Options) (*ttldb.Collection, error) {
	c, err := ttldb.NewCollection(name, path, o)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	if d.dirs == nil {
		d.dirs = map[*ttldb.Collection]string{}
	}
	d.dirs[c] = o.Dir
	d.mu.Unlock()
	t.Cleanup(func() {
		c.Close()
		d.mu.Lock()
		delete(d.dirs, c)
		d.mu.Unlock()
	})
	return c, nil
}
