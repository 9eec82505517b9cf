package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// t0 is the instant the tests' clocks start at.
const t0 = 2_000_000_000

// handle is a test's engine with its clock.
type handle struct {
	t     *testing.T
	e     *Engine
	clock *testClock
}

// open opens the collection name, partitioned by /tenant, with its own
// clock at t0, on a pool of its own (another process's).
func open(t *testing.T, s *server, name string, opts *ttldb.Options) *handle {
	t.Helper()
	var o ttldb.Options
	if opts != nil {
		o = *opts
	}
	h := &handle{t: t, clock: &testClock{}}
	h.clock.set(t0)
	o.Now = h.clock.Now
	o.ManualSweep = true // a moved clock: the test sweeps (background.go)
	h.e = mustOpen(t, s, name, "/tenant", &o)
	return h
}

// key returns the key of the document id in partition "t", as the API
// makes it, and its layout.
func key(id string) ([]byte, engine.Layout) {
	k := append([]byte{5, 't', 0, 1}, id...)
	return k, engine.Layout{PK: 4, IDAt: 4, IDEnd: uint16(len(k))}
}

// doc returns a new document of the key id, with body and ttl.
func doc(id, body string, ttl int32) *engine.Doc {
	k, at := key(id)
	return engine.NewDoc(k, at, body, ttl, 0, 0)
}

// put writes a new document op (Create, Replace, Upsert) of the key id.
func (h *handle) put(op engine.Op, id, body string, ttl int32) (*engine.Doc, error) {
	k, _ := key(id)
	return h.e.Write(h.t.Context(), k, engine.Write{Op: op, Doc: doc(id, body, ttl)})
}

// mustPut is put, failing the test on an error.
func (h *handle) mustPut(op engine.Op, id, body string, ttl int32) *engine.Doc {
	h.t.Helper()
	d, err := h.put(op, id, body, ttl)
	if err != nil {
		h.t.Fatalf("%v of %q: %v", op, id, err)
	}
	return d
}

// write applies w to the key id.
func (h *handle) write(id string, w engine.Write) (*engine.Doc, error) {
	k, _ := key(id)
	return h.e.Write(h.t.Context(), k, w)
}

// get reads the key id.
func (h *handle) get(id string) (*engine.Doc, error) {
	k, _ := key(id)
	return h.e.Get(h.t.Context(), k)
}

// live checks that the document id is live, with body, and returns it.
func (h *handle) live(id, body string) *engine.Doc {
	h.t.Helper()
	d, err := h.get(id)
	if err != nil || d == nil || d.Body() != body || d.ID() != id {
		h.t.Fatalf("at %+d, Get(%q) = %v, %v; want the live document %s", h.clock.s.Load()-t0, id, d, err, body)
	}
	return d
}

// gone checks that the document id is not live.
func (h *handle) gone(id string) {
	h.t.Helper()
	if d, err := h.get(id); !errors.Is(err, engine.ErrNotFound) {
		h.t.Fatalf("at %+d, Get(%q) = %v, %v; want ErrNotFound", h.clock.s.Load()-t0, id, d, err)
	}
}

// lsn returns the LSN a document's etag carries, 0 for none.
func (h *handle) lsn(d *engine.Doc) uint64 {
	if d == nil {
		return 0
	}
	return d.Tag - h.e.Settings().ETagBase
}

func TestGetJudgesTheR3Matrix(t *testing.T) { // R3, R4
	t.Parallel()
	s := newServer(t)
	defaults := map[string]ttldb.DefaultTTL{"off": ttldb.TTLOff(), "nodefault": ttldb.TTLNoDefault(), "n100": ttldb.TTLSeconds(100)}
	for name, def := range defaults {
		n, on := def.Seconds()
		setting := engine.DefaultTTL{On: on, Seconds: n}
		for _, ttl := range []int32{engine.TTLInherit, engine.TTLNever, 50} {
			id := fmt.Sprint(name, "-", ttl)
			// A handle of its own at t0: now never goes backward (R4).
			h := open(t, s, id, &ttldb.Options{DefaultTTL: def})
			d := h.mustPut(engine.Create, id, `{"a":1}`, ttl)
			if d.TS != t0 || h.lsn(d) < 1 {
				t.Fatalf("%s: Create stamped _ts %d, LSN %d; want %d and an LSN", name, d.TS, h.lsn(d), t0)
			}
			after, expires := setting.Expiry(ttl)
			if !expires {
				h.clock.set(t0 + engine.MaxTTL + 10)
				h.live(id, `{"a":1}`)
				continue
			}
			h.clock.set(t0 + after - 1)
			h.live(id, `{"a":1}`)
			h.clock.set(t0 + after)
			h.gone(id)
		}
	}
}

func TestWritesOverAnExpiredDocument(t *testing.T) { // R4, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	old := h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	h.clock.set(t0 + 10) // expired
	refusals := map[string]engine.Write{
		"Replace":         {Op: engine.Replace, Doc: doc("a", `{"v":2}`, 0)},
		"Upsert, IfMatch": {Op: engine.Upsert, Doc: doc("a", `{"v":2}`, 0), IfMatch: old.ETag(), HasIfMatch: true},
		"Create, IfMatch": {Op: engine.Create, Doc: doc("a", `{"v":2}`, 0), IfMatch: old.ETag(), HasIfMatch: true},
		"Delete":          {Op: engine.Delete},
		"Touch":           {Op: engine.Touch},
		"Modify": {Op: engine.Modify, Change: func(*engine.Doc, int64) (*engine.Doc, error) {
			t.Error("Modify called Change on an expired document")
			return doc("a", `{}`, 0), nil
		}},
	}
	for what, w := range refusals {
		if d, err := h.write("a", w); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("%s over an expired document = %v, %v; want ErrNotFound", what, d, err)
		}
	}
	d := h.mustPut(engine.Create, "a", `{"v":3}`, 0)
	if d.TS != t0+10 || h.lsn(d) != 3 {
		t.Errorf("Create over an expired document: _ts %d, LSN %d; want %d, 3 (its delete is LSN 2)", d.TS, h.lsn(d), t0+10)
	}
	h.live("a", `{"v":3}`)
	// R11: the feed holds the create, the expired version's delete,
	// flagged, then the new create.
	rows, err := s.admin.Query(t.Context(), `SELECT lsn, op, expired, body FROM `+s.ident()+`.ttldb_feed_1 ORDER BY lsn`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := []string{`1 1 false {"v":1}`, `2 3 true {"v":1}`, `3 1 false {"v":3}`}
	var got []string
	for rows.Next() {
		var lsn, op int64
		var expired bool
		var body string
		if err := rows.Scan(&lsn, &op, &expired, &body); err != nil {
			t.Fatal(err)
		}
		got = append(got, sprint(lsn, op, expired, body))
	}
	if sprint(got) != sprint(want) {
		t.Errorf("feed = %q, want %q", got, want)
	}
	// A document of its own ttl, expired, is refused and replaced alike.
	h.mustPut(engine.Create, "b", `{"b":1}`, 5)
	h.clock.set(t0 + 14)
	if _, err := h.put(engine.Create, "b", `{"b":2}`, 5); !errors.Is(err, engine.ErrConflict) {
		t.Errorf("Create over a live document of ttl 5 at +4: %v, want ErrConflict", err)
	}
	h.clock.set(t0 + 15)
	if _, err := h.put(engine.Replace, "b", `{"b":2}`, 5); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Replace of a document of ttl 5 at +5: %v, want ErrNotFound", err)
	}
	if d, err := h.put(engine.Create, "b", `{"b":3}`, 5); err != nil || h.lsn(d) != 6 {
		t.Errorf("Create over an expired document of ttl 5 = LSN %d, %v; want 6", h.lsn(d), err)
	}
	// An Upsert over an expired document is a create too.
	h.clock.set(t0 + 20)
	if d, err := h.put(engine.Upsert, "a", `{"v":4}`, 0); err != nil || h.lsn(d) != 8 {
		t.Errorf("Upsert over an expired document = LSN %d, %v; want 8", h.lsn(d), err)
	}
}
