package local

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// FuzzRecover: a log whose last group holds records of any bytes, framed
// with valid checksums (so that only their meaning is wrong), never makes
// an open panic: it opens, or fails with ErrCorrupt naming the log; and
// what opens can be written to, swept and closed (R12).
func FuzzRecover(f *testing.F) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	mem := &vfs.Mem{}
	c, err := NewCollection("test", "/pk", &Options{Dir: "db", fs: mem, Now: clk.Now, ManualSweep: true, DefaultTTL: TTLSeconds(5)})
	if err != nil {
		f.Fatal(err)
	}
	for _, doc := range []string{`{"id":"a","pk":"p"}`, `{"id":"b","pk":"p","ttl":2}`} {
		if _, err := c.Create(bg, []byte(doc)); err != nil {
			f.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		f.Fatal(err)
	}
	base := mustRead(f, mem, filepath.Join("db", LogName(0)))
	snap := mustRead(f, mem, filepath.Join("db", SnapName(0)))

	// Seeds: a delete, a put, a setting and a clock record, an indexing
	// record and a stray state record.
	f.Add(appendDelete(nil, "\x03p\x00a", 3, 1_000_001, false), []byte{})
	f.Add(append([]byte{recPut, engine.OpCreate, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 15, 66, 64}, `{"id":"c","pk":"p"}`...), []byte{})
	f.Add(appendDefault(nil, TTLSeconds(7), 1_000_002), appendClock(nil, 1_000_003))
	f.Add(appendIndexing(nil, IndexingNone), []byte{recState})
	f.Fuzz(func(t *testing.T, r1, r2 []byte) {
		m := &vfs.Mem{}
		if err := m.MkdirAll("db"); err != nil {
			t.Fatal(err)
		}
		log := append([]byte(nil), base...)
		log = append(log, groupOf(r1, r2)...)
		mustWrite(t, m, filepath.Join("db", LogName(0)), log)
		mustWrite(t, m, filepath.Join("db", SnapName(0)), snap)
		c, err := NewCollection("test", "/pk", &Options{Dir: "db", fs: m, Now: clk.Now, ManualSweep: true})
		if err != nil {
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.File != filepath.Join("db", LogName(0)) {
				t.Fatalf("open: %v", err)
			}
			return
		}
		defer c.Close()
		if _, err := c.Upsert(bg, []byte(`{"id":"z","pk":"p"}`)); err != nil {
			t.Fatalf("write after the open: %v", err)
		}
		if _, err := c.Sweep(bg); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// groupOf frames the records as one group, closed by its commit.
func groupOf(records ...[]byte) []byte {
	var b []byte
	for _, r := range records {
		var mark int
		b, mark = wal.Begin(b)
		b = append(b, r...)
		b = wal.End(b, mark)
	}
	return wal.AppendCommit(b, uint32(len(records)), 0, 0)
}

// mustRead returns the contents of name in mem.
func mustRead(t testing.TB, mem *vfs.Mem, name string) []byte {
	t.Helper()
	b, err := mem.ReadFile(name)
	require.NoError(t, err)
	return b
}

// mustWrite makes name in mem hold b.
func mustWrite(t testing.TB, mem *vfs.Mem, name string, b []byte) {
	t.Helper()
	require.NoError(t, mem.WriteFile(name, b))
}
