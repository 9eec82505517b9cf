package postgres

import (
	"errors"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// wantExpiresAt checks ExpiresAt of d.
func (h *handle) wantExpiresAt(what string, d *engine.Doc, at int64, ok bool) {
	h.t.Helper()
	if got, gotOK := h.e.ExpiresAt(d); got != at && ok || gotOK != ok {
		h.t.Errorf("%s: ExpiresAt = %d, %t; want %d, %t", what, got, gotOK, at, ok)
	}
}

// set changes the DefaultTTL at now, failing the test on an error.
func (h *handle) set(d engine.DefaultTTL) {
	h.t.Helper()
	if err := h.e.SetDefaultTTL(h.t.Context(), d); err != nil {
		h.t.Fatalf("SetDefaultTTL(%v): %v", d, err)
	}
}

func TestSetDefaultTTLKeepsWhatExpiredExpired(t *testing.T) { // R7, R3
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	other := open(t, s, "sessions", nil)             // another process, which reads the setting from the server
	a := h.mustPut(engine.Create, "a", `{"a":1}`, 0) // inherits
	b := h.mustPut(engine.Create, "b", `{"b":1}`, 50)
	h.wantExpiresAt("a under 100", a, t0+100, true)

	// Off at t0+60: b, expired at t0+50, stays expired; a never expires.
	h.clock.set(t0 + 60)
	other.clock.set(t0 + 60)
	h.set(engine.DefaultTTL{})
	for _, x := range []*handle{h, other} {
		x.clock.set(t0 + 1000)
		x.gone("b")
		x.live("a", `{"a":1}`)
	}
	h.wantExpiresAt("b, expired before TTL went off", b, t0+50, true)
	h.wantExpiresAt("a, TTL off", a, 0, false)
	if got := h.e.Settings().DefaultTTL; got.On {
		t.Errorf("Settings().DefaultTTL = %v after SetDefaultTTL(off)", got)
	}

	// On, 10 s, at t0+1000: a, of _ts t0, is expired at once; c, new, lives 10 s.
	c := h.mustPut(engine.Create, "c", `{"c":1}`, 0)
	h.set(engine.DefaultTTL{On: true, Seconds: 10})
	h.gone("a")
	h.live("c", `{"c":1}`)
	h.wantExpiresAt("a under 10", a, t0+10, true)

	// Raised to 1000 at t0+1005: a stays expired (expired under 10), c lives on.
	h.clock.set(t0 + 1005)
	h.set(engine.DefaultTTL{On: true, Seconds: 1000})
	h.clock.set(t0 + 1500)
	h.gone("a")
	h.gone("b")
	other.clock.set(t0 + 1500)
	other.gone("a")
	h.live("c", `{"c":1}`)
	h.wantExpiresAt("a, expired under 10, after a raise", a, t0+10, true)
	h.wantExpiresAt("c under 1000", c, t0+2000, true)

	// Lowered to 3 at t0+1500: c expires at once, at t0+1003; raised
	// again, it stays expired, and a keeps its instant.
	h.set(engine.DefaultTTL{On: true, Seconds: 3})
	h.gone("c")
	h.clock.set(t0 + 1501)
	h.set(engine.DefaultTTL{On: true, Seconds: 1000})
	h.set(engine.DefaultTTL{On: true, Seconds: -1})
	h.gone("c")
	h.gone("a")
	h.gone("b")
	h.wantExpiresAt("c, expired under 3", c, t0+1003, true)
	h.wantExpiresAt("a, expired under 10", a, t0+10, true)
	h.wantExpiresAt("b, its own ttl", b, t0+50, true)
	// A document of the present lives under -1, and one of its own ttl expires.
	d := h.mustPut(engine.Create, "d", `{"d":1}`, 0)
	e := h.mustPut(engine.Create, "e", `{"e":1}`, 5)
	h.clock.set(t0 + 1501 + 5)
	h.live("d", `{"d":1}`)
	h.gone("e")
	h.wantExpiresAt("d under -1", d, 0, false)
	h.wantExpiresAt("e, its own ttl", e, t0+1506, true)
	// O(1): a change costs the row, one pair of cuts per setting's value.
	if n := s.count(`SELECT cardinality(inherit_cuts) FROM ` + s.ident() + `.ttldb_collections`); n != 2*3 {
		t.Errorf("inherit_cuts holds %d numbers, want 6: cuts under 100, 10 and 3", n)
	}
}

func TestSetDefaultTTLRefusals(t *testing.T) { // R8, R1
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Indexing: ttldb.IndexingNone})
	err := h.e.SetDefaultTTL(t.Context(), engine.DefaultTTL{On: true, Seconds: 10})
	if !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("SetDefaultTTL(10) in indexing mode none: %v, want ErrInvalidOption (R8)", err)
	}
	if err := h.e.SetDefaultTTL(t.Context(), engine.DefaultTTL{On: true, Seconds: 0}); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("SetDefaultTTL(on, 0): %v, want ErrInvalidOption (R1)", err)
	}
	h.set(engine.DefaultTTL{}) // off is allowed
	if err := h.e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.e.SetDefaultTTL(t.Context(), engine.DefaultTTL{}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("SetDefaultTTL after Close: %v, want ErrClosed", err)
	}
	if _, ok := h.e.ExpiresAt(doc("a", `{}`, 5)); ok {
		t.Errorf("ExpiresAt after Close: ok")
	}
}
