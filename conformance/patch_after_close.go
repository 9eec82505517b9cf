package conformance

// R14 after Close: a patch on a closed collection.

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// Patch after Close.

// checkPatchAfterClose: every call after Close returns ErrClosed
// (Collection.Close), whatever its input, and so does every method of the
// zero Collection. (Patch once checked its operations first, and reported
// ErrInvalidPatch for bad ones after Close, and for every patch of the zero
// Collection, whose partition-key path is empty.) R14, R12.
func checkPatchAfterClose(t *testing.T, eng Harness) {
	c, err := eng.Open(t, "c", "/pk", &ttldb.Options{ManualSweep: true, Now: newClock(time.Unix(1_700_000_000, 0)).Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(bg, []byte(`{"id":"a","pk":"p"}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ops := range [][]ttldb.PatchOp{
		{ttldb.PatchSet("/x", 1)},
		nil,
		{{}},
		{ttldb.PatchSet("/id", 1)},
		{ttldb.PatchSet("/x", json.RawMessage("{"))},
	} {
		if _, err := c.Patch(bg, ttldb.StringKey("p"), "a", ops); !errors.Is(err, ttldb.ErrClosed) {
			t.Errorf("Patch(%v) after Close: %v, want ErrClosed", ops, err)
		}
		b := ttldb.NewBatch(ttldb.StringKey("p"))
		b.Patch("a", ops)
		if _, err := c.ExecuteBatch(bg, b); !errors.Is(err, ttldb.ErrClosed) {
			t.Errorf("ExecuteBatch of Patch(%v) after Close: %v, want ErrClosed", ops, err)
		}
	}
	var zero ttldb.Collection
	if _, err := zero.Patch(bg, ttldb.NoPartitionKey(), "a", []ttldb.PatchOp{ttldb.PatchSet("/x", 1)}); !errors.Is(err, ttldb.ErrClosed) {
		t.Errorf("Patch of the zero Collection: %v, want ErrClosed", err)
	}
}
