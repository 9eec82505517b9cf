package postgres

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// wantMismatch checks that err is an *engine.ETagMismatch whose Current is
// current.
func wantMismatch(t *testing.T, what string, err error, current string) {
	t.Helper()
	var m *engine.ETagMismatch
	if !errors.As(err, &m) || !errors.Is(err, engine.ErrPreconditionFailed) || m.Current != current {
		t.Errorf("%s: %v; want an *ETagMismatch with Current %q", what, err, current)
	}
}

func TestConflictsAndPreconditions(t *testing.T) { // R10
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	a := h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	if _, err := h.put(engine.Create, "a", `{"v":2}`, 0); !errors.Is(err, engine.ErrConflict) {
		t.Errorf("Create over a live document: %v, want ErrConflict", err)
	}
	if _, err := h.put(engine.Replace, "b", `{"v":2}`, 0); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Replace of no document: %v, want ErrNotFound", err)
	}
	for _, op := range []engine.Op{engine.Delete, engine.Touch} {
		if _, err := h.write("b", engine.Write{Op: op}); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("%v of no document: %v, want ErrNotFound", op, err)
		}
	}
	if _, err := h.write("b", engine.Write{Op: engine.Upsert, Doc: doc("b", `{}`, 0), IfMatch: a.ETag(), HasIfMatch: true}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Upsert with IfMatch of no document: %v, want ErrNotFound", err)
	}
	wrong := "0123456789abcdef"
	for _, w := range []engine.Write{
		{Op: engine.Replace, Doc: doc("a", `{"v":2}`, 0)},
		{Op: engine.Upsert, Doc: doc("a", `{"v":2}`, 0)},
		{Op: engine.Delete},
		{Op: engine.Touch},
		{Op: engine.Modify, Change: func(*engine.Doc, int64) (*engine.Doc, error) { return doc("a", `{}`, 0), nil }},
	} {
		w.IfMatch, w.HasIfMatch = wrong, true
		_, err := h.write("a", w)
		wantMismatch(t, w.Op.String()+" with a stale IfMatch", err, a.ETag())
	}
	h.live("a", `{"v":1}`) // nothing changed it
	b, err := h.write("a", engine.Write{Op: engine.Replace, Doc: doc("a", `{"v":2}`, 0), IfMatch: a.ETag(), HasIfMatch: true})
	if err != nil || b.ETag() == a.ETag() || h.lsn(b) != h.lsn(a)+1 {
		t.Fatalf("Replace with the current IfMatch = %v, %v; want a new etag, LSN %d", b, err, h.lsn(a)+1)
	}
	if got := h.live("a", `{"v":2}`); got.Tag != b.Tag || got.TS != b.TS {
		t.Errorf("Get after Replace: etag %s, _ts %d; the write returned %s, %d", got.ETag(), got.TS, b.ETag(), b.TS)
	}
	_, err = h.write("a", engine.Write{Op: engine.Replace, Doc: doc("a", `{"v":3}`, 0), IfMatch: a.ETag(), HasIfMatch: true})
	wantMismatch(t, "Replace with the etag of the version before", err, b.ETag())

	// Delete with the current etag; the document is then gone.
	if d, err := h.write("a", engine.Write{Op: engine.Delete, IfMatch: b.ETag(), HasIfMatch: true}); d != nil || err != nil {
		t.Errorf("Delete with the current IfMatch = %v, %v; want nil, nil", d, err)
	}
	h.gone("a")
	if got := h.e.LastLSN(); got != 3 {
		t.Errorf("LastLSN() = %d after a create, a replace and a delete, want 3", got)
	}
}

func TestModify(t *testing.T) { // R14, R10
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	a := h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	h.clock.set(t0 + 7)
	var calls int
	d, err := h.write("a", engine.Write{Op: engine.Modify, IfMatch: a.ETag(), HasIfMatch: true, Change: func(old *engine.Doc, now int64) (*engine.Doc, error) {
		calls++
		if old.Body() != `{"v":1}` || old.Tag != a.Tag || now != t0+7 {
			t.Errorf("Change got %s (etag %s) at %d; want {\"v\":1}, %s, %d", old.Body(), old.ETag(), now, a.ETag(), t0+7)
		}
		return doc("a", `{"v":2}`, 30), nil
	}})
	if err != nil || calls != 1 || d.TS != t0+7 || d.TTL != 30 || h.lsn(d) != 2 {
		t.Fatalf("Modify = %v, %v after %d calls; want _ts %d, ttl 30, LSN 2", d, err, calls, t0+7)
	}
	h.live("a", `{"v":2}`)
	refusal := errors.New("the patch's test failed")
	_, err = h.write("a", engine.Write{Op: engine.Modify, Change: func(*engine.Doc, int64) (*engine.Doc, error) { return nil, refusal }})
	if err != refusal {
		t.Errorf("Modify whose Change fails = %v, want its error as it is", err)
	}
	h.live("a", `{"v":2}`)
}

func TestTouchRenewsTS(t *testing.T) { // R6
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
	a := h.mustPut(engine.Create, "a", `{"v":1}`, 10)
	h.clock.set(t0 + 5)
	d, err := h.write("a", engine.Write{Op: engine.Touch})
	if err != nil || d.TS != t0+5 || d.ETag() == a.ETag() || d.Body() != a.Body() || d.TTL != 10 || d.Key() != a.Key() || d.Layout != a.Layout {
		t.Fatalf("Touch = %v, %v; want the same document at _ts %d with a new etag", d, err, t0+5)
	}
	h.clock.set(t0 + 14)
	if got := h.live("a", `{"v":1}`); got.TS != t0+5 || got.Tag != d.Tag {
		t.Errorf("Get after Touch: _ts %d, etag %s; want %d, %s", got.TS, got.ETag(), t0+5, d.ETag())
	}
	h.clock.set(t0 + 15)
	h.gone("a")
}

func TestLongKeys(t *testing.T) { // R10
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, ttldb.MaxPartitionKeyLength-3)
	for i := range random {
		random[i] = byte(1 + r.IntN(255))
	}
	for _, pk := range [][]byte{random, make([]byte, ttldb.MaxPartitionKeyLength)} {
		k, pkEnd, idAt, idEnd := longKey(r, pk, ttldb.MaxIDLength)
		at := engine.Layout{PK: uint16(pkEnd), IDAt: uint16(idAt), IDEnd: uint16(idEnd)}
		ctx := t.Context()
		if _, err := h.e.Write(ctx, k, engine.Write{Op: engine.Create, Doc: engine.NewDoc(k, at, `{"n":1}`, 0, 0, 0)}); err != nil {
			t.Fatalf("Create with a key of %d bytes: %v", len(k), err)
		}
		d, err := h.e.Get(ctx, k)
		if err != nil || d.Key() != string(k) || d.Layout != at || d.Body() != `{"n":1}` {
			t.Fatalf("Get with a key of %d bytes = %v, %v", len(k), d, err)
		}
		if _, err := h.e.Write(ctx, k, engine.Write{Op: engine.Replace, Doc: engine.NewDoc(k, at, `{"n":2}`, 0, 0, 0), IfMatch: d.ETag(), HasIfMatch: true}); err != nil {
			t.Errorf("Replace with a key of %d bytes: %v", len(k), err)
		}
		// A key that differs in its last byte only is another document.
		other := append([]byte(nil), k...)
		other[len(other)-1] ^= 1
		if d, err := h.e.Get(ctx, other); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Get of a key one byte off = %v, %v; want ErrNotFound", d, err)
		}
		if _, err := h.e.Write(ctx, k, engine.Write{Op: engine.Delete}); err != nil {
			t.Errorf("Delete with a key of %d bytes: %v", len(k), err)
		}
	}
}
