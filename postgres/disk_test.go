package postgres

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

func TestFullDisk(t *testing.T) { // R12, R11, R16
	t.Parallel()
	// The server may write no file larger than 20 MB: its tables fill
	// up as on a full disk (its WAL's segments, of 16 MB, still fit).
	c := newCluster(t)
	c.stop()
	c.fileLimit = 20 << 20
	c.start()
	clock := &testClock{}
	clock.set(t0)
	e, err := Open(t.Context(), c.pool(), "sessions", "/tenant", &ttldb.Options{Now: clock.Now, ManualSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	h := &handle{t: t, e: e, clock: clock}
	// Batches of 10 documents of 48 KB that do not compress, until one
	// fails; then a single write fails too.
	body := func() string {
		var b [24 << 10]byte
		_, _ = rand.Read(b[:])
		return `{"b":"` + hex.EncodeToString(b[:]) + `"}`
	}
	var acked []*engine.Doc
	var full error
	for i := 0; i < 1000 && full == nil; i += 10 {
		steps := make([]engine.Step, 10)
		for j := range steps {
			steps[j] = put(engine.Create, fmt.Sprint("d", i+j), body(), 0)
		}
		docs, err := h.batch(steps...)
		full = err
		acked = append(acked, docs...)
	}
	if full == nil {
		t.Fatal("1000 writes of 48 KB fit in files of 20 MB")
	}
	wantClear(t, "a batch to a full disk", full)
	_, full = h.put(engine.Create, fmt.Sprint("d", len(acked)), body(), 0)
	// A clear error: the server's, naming the collection.
	wantClear(t, "a write to a full disk", full)
	if !strings.Contains(full.Error(), "could not extend file") {
		t.Errorf("a write to a full disk: %v; want the server's error", full)
	}
	t.Logf("%d writes acknowledged, then: %v", len(acked), full)
	// The failed write left nothing; reads go on.
	h.gone(fmt.Sprint("d", len(acked)))
	for _, d := range acked[len(acked)-3:] {
		if got, err := e.Get(t.Context(), []byte(d.Key())); err != nil || got.Tag != d.Tag {
			t.Errorf("an acknowledged write, the disk full: Get = %v, %v", got, err)
		}
	}
	// The disk grows (the server restarted without the limit): the same
	// handle writes again, and every acknowledged write is there.
	c.stop()
	c.fileLimit = 0
	c.start()
	h.mustPut(engine.Create, "after", `{}`, 0)
	for _, d := range acked {
		if got, err := e.Get(t.Context(), []byte(d.Key())); err != nil || got.Tag != d.Tag {
			t.Errorf("an acknowledged write of %s: Get = %v, %v", d.ID(), got, err)
		}
	}
	st, err := e.FeedStats(t.Context())
	if err != nil || st.LastLSN != uint64(len(acked)+1) || st.Records != int64(len(acked)+1) {
		t.Errorf("FeedStats = %+v, %v; want %d records to LSN %d", st, err, len(acked)+1, len(acked)+1)
	}
	if errors.Is(full, engine.ErrClosed) {
		t.Errorf("a full disk closed the handle: %v", full)
	}
}
