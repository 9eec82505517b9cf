package postgres

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/conformance"
)

// TestConformance runs the conformance suite (R1-R16: conformance/doc.go)
// against the engine on a real server: each collection in a PostgreSQL
// schema of its own; Reopen closes the handle and opens the collection
// again as another process would, then gives it the options' settings
// through the setters (Open keeps a stored collection's settings); Second
// opens another handle, on a pool of its own, as another process sharing
// the collection. It takes about three minutes (its quick forms: every
// call is a round trip to the server); CI runs it without the race
// detector, which the module's other tests run under.
func TestConformance(t *testing.T) { // R1-R16
	var h pgHarness
	conformance.Run(t, conformance.Harness{Open: h.open, Reopen: h.reopen, Second: h.second})
}

// pgHarness remembers where each collection it opened lives.
type pgHarness struct {
	mu    sync.Mutex
	where map[*ttldb.Collection]*pgCollection
}

type pgCollection struct {
	s          *server
	name, path string
}

func (h *pgHarness) open(t testing.TB, name, path string, opts *ttldb.Options) (*ttldb.Collection, error) {
	tt, ok := t.(*testing.T)
	if !ok {
		t.Fatalf("the harness needs a *testing.T")
	}
	s := newServer(tt)
	return h.add(t, &pgCollection{s: s, name: name, path: path}, opts, false)
}

func (h *pgHarness) add(t testing.TB, pc *pgCollection, opts *ttldb.Options, apply bool) (*ttldb.Collection, error) {
	o := *opts
	if apply { // a reopen: open as stored, then apply the options' settings
		o.DefaultTTL, o.Indexing, o.Indexes, o.Feed = ttldb.TTLOff(), ttldb.IndexingConsistent, nil, ttldb.FeedOptions{}
	}
	e, err := Open(context.Background(), pc.s.pool(), pc.name, pc.path, &o)
	if err != nil {
		return nil, err
	}
	c, err := ttldb.FromEngine(e)
	if err != nil {
		e.Close()
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	if apply {
		if opts.Indexing == ttldb.IndexingNone {
			if err := c.SetDefaultTTL(context.Background(), opts.DefaultTTL); err != nil {
				return nil, err
			}
			if err := c.SetIndexingMode(context.Background(), opts.Indexing); err != nil {
				return nil, err
			}
		} else {
			if err := c.SetIndexingMode(context.Background(), opts.Indexing); err != nil {
				return nil, err
			}
			if err := c.SetDefaultTTL(context.Background(), opts.DefaultTTL); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range opts.Indexes {
		if apply && !slices.Contains(c.Indexes(), p) {
			if err := c.CreateIndex(context.Background(), p); err != nil {
				return nil, err
			}
		}
	}
	h.mu.Lock()
	if h.where == nil {
		h.where = map[*ttldb.Collection]*pgCollection{}
	}
	h.where[c] = pc
	h.mu.Unlock()
	return c, nil
}

func (h *pgHarness) find(t testing.TB, c *ttldb.Collection) *pgCollection {
	h.mu.Lock()
	defer h.mu.Unlock()
	pc := h.where[c]
	if pc == nil {
		t.Fatalf("a collection the harness did not open")
	}
	return pc
}

func (h *pgHarness) reopen(t testing.TB, c *ttldb.Collection, opts *ttldb.Options) (*ttldb.Collection, error) {
	return h.add(t, h.find(t, c), opts, true)
}

func (h *pgHarness) second(t testing.TB, c *ttldb.Collection) (*ttldb.Collection, error) {
	pc := h.find(t, c)
	e, err := Open(context.Background(), pc.s.pool(), pc.name, pc.path, nil)
	if err != nil {
		return nil, err
	}
	c2, err := ttldb.FromEngine(e)
	if err != nil {
		e.Close()
		return nil, err
	}
	t.Cleanup(func() { c2.Close() })
	return c2, nil
}
