package ttldb

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// FuzzRestore: a restore of any bytes never panics, and either restores a
// directory that Verify takes whole, or fails with an error wrapping
// ErrCorrupt or ErrInvalidOption and leaves a directory that holds no
// collection (nothing but its LOCK file) (R17). It restores into a
// file system in memory (vfs.Mem), the code of Restore but the disk's.
// The seeds are real backups (of an empty collection, of one with
// documents, settings, cut-offs and an index, and of a restore of it,
// whose state record holds the gap of its LSNs) and cuts of them; the
// whole ones must restore.
func FuzzRestore(f *testing.F) { // R17
	c, clk := newTestCollection(f, "/pk", TTLSeconds(60))
	var empty bytes.Buffer
	if _, err := c.Backup(bg, &empty); err != nil {
		f.Fatal(err)
	}
	f.Add(empty.Bytes())
	if err := c.CreateIndex(bg, "/n"); err != nil {
		f.Fatal(err)
	}
	for i := range 40 {
		if _, err := c.Create(bg, fmt.Appendf(nil, `{"id":"k%d","pk":"p%d","n":%d,"ttl":%d}`, i, i%3, i, 1+i%4*30)); err != nil {
			f.Fatal(err)
		}
	}
	clk.Advance(45e9)
	if err := c.SetDefaultTTL(bg, TTLSeconds(100)); err != nil { // a cut-off (R7)
		f.Fatal(err)
	}
	var full bytes.Buffer
	if _, err := c.Backup(bg, &full); err != nil {
		f.Fatal(err)
	}
	b := full.Bytes()
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:len(b)-1])
	f.Add(append(slices.Clone(b), 0))
	// a backup of a restored collection, whose state record holds the gap
	// of its LSNs, written past the gap
	dir := filepath.Join(f.TempDir(), "restored")
	if _, err := Restore(bg, bytes.NewReader(b), dir); err != nil {
		f.Fatal(err)
	}
	r, err := NewCollection("test", "/pk", &Options{Dir: dir, Now: clk.Now, ManualSweep: true})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := r.Upsert(bg, []byte(`{"id":"k0","pk":"p0","n":-1}`)); err != nil {
		f.Fatal(err)
	}
	var again bytes.Buffer
	if _, err := r.Backup(bg, &again); err != nil {
		f.Fatal(err)
	}
	if err := r.Close(); err != nil {
		f.Fatal(err)
	}
	gapped := again.Bytes()
	f.Add(gapped)
	f.Add(gapped[:len(gapped)-9])
	whole := [][]byte{empty.Bytes(), b, gapped}
	f.Fuzz(func(t *testing.T, in []byte) {
		mem := &vfs.Mem{}
		_, err := local.Restore(bg, bytes.NewReader(in), local.RestoreConfig{Dir: "db", Documents: documents, FS: mem})
		if err != nil && slices.ContainsFunc(whole, func(w []byte) bool { return bytes.Equal(w, in) }) {
			t.Fatalf("a whole backup (a seed) is refused: %v", err)
		}
		if err == nil {
			if _, err := local.Verify(bg, mem, "db", documents); err != nil {
				t.Fatalf("a restore said whole does not verify: %v", err)
			}
			return
		}
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrInvalidOption) {
			t.Fatalf("the error wraps no sentinel: %v", err)
		}
		names, lerr := mem.List("db")
		if lerr != nil {
			t.Fatal(lerr)
		}
		for _, n := range names {
			if n != "LOCK" {
				t.Fatalf("a refused restore (%v) left %s in %v", err, n, names)
			}
		}
		if held, herr := local.Holds(mem, "db"); held || herr != nil {
			t.Fatalf("a refused restore (%v) left a directory that holds a collection (%v, %v)", err, held, herr)
		}
	})
}
