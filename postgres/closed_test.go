package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/ttldb/ttldb/engine"
)

func TestPointOperationsRefuseWhatMustNotStart(t *testing.T) { // R15, R16
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	k, _ := key("a")
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.e.Get(done, k); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a done context: %v", err)
	}
	if _, err := h.e.Write(done, k, engine.Write{Op: engine.Upsert, Doc: doc("a", `{}`, 0)}); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a done context: %v", err)
	}
	//lint:ignore SA1012 the nil context is the point
	if _, err := h.e.Get(nil, k); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Get with a nil context: %v", err)
	}
	for _, w := range []engine.Write{{Op: engine.Read}, {Op: engine.Create}, {Op: engine.Modify}, {Op: engine.Upsert, Doc: doc("b", `{}`, 0)}} {
		if _, err := h.e.Write(t.Context(), k, w); !errors.Is(err, engine.ErrInvalidOption) {
			t.Errorf("Write of %v without what it needs: %v, want ErrInvalidOption", w.Op, err)
		}
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1`); n != 0 {
		t.Errorf("refused writes left %d feed records", n)
	}
	d := h.mustPut(engine.Create, "a", `{}`, 0)
	_ = h.e.Close()
	if _, err := h.e.Get(t.Context(), k); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}
	if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if _, ok := h.e.ExpiresAt(d); ok {
		t.Errorf("ExpiresAt after Close: ok")
	}
	if got := h.e.LastLSN(); got != 1 {
		t.Errorf("LastLSN() after Close = %d, want 1, as last seen", got)
	}
}
