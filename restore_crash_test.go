package ttldb

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// TestRestoreCrashAtEachStep: a restore that crashes at any of its steps
// (each write, sync, creation, rename, removal, directory sync), as a
// power failure or as a killed process, leaves a directory that opens as
// no collection: the open, the read-only open and Verify refuse it with
// ErrCorrupt naming the file RESTORING; or one that holds nothing, as
// before the restore (a crash before the mark was durable); or, once the
// mark is gone, the whole restore. A restore into it again finishes, and
// opens as the backup's collection (R17, R12).
func TestRestoreCrashAtEachStep(t *testing.T) { // R17, R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", "/pk", &Options{Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	for i := range 5000 { // two groups
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%d","pk":"p"}`, i))
	}
	b, info := backupOf(t, c)
	want := originalState(c)
	restore := func(fsys vfs.FS) error {
		_, err := local.Restore(bg, bytes.NewReader(b), local.RestoreConfig{Dir: "db", Documents: documents, FS: fsys})
		return err
	}
	whole := func(mem *vfs.Mem, what string) {
		t.Helper()
		r, err := openDurable(t, mem, "db", clk, Options{})
		require.NoError(t, err, what)
		defer r.Close()
		require.Equal(t, want, restoredState(t, r, info.LastLSN), what)
	}

	count := &vfs.Fault{Mem: &vfs.Mem{}}
	require.NoError(t, count.Mem.MkdirAll("db"))
	require.NoError(t, restore(count))
	events := count.Events()
	require.Greater(t, events, 10)
	for n := 1; n <= events; n++ {
		for _, kill := range []bool{false, true} {
			what := fmt.Sprintf("crash at event %d of %d (kill %v)", n, events, kill)
			mem := &vfs.Mem{}
			require.NoError(t, mem.MkdirAll("db"))
			fault := &vfs.Fault{Mem: mem, N: n, Kill: kill, Tear: func(_ string, unsynced []byte) []byte { return unsynced[:len(unsynced)/2] }}
			err := restore(fault)
			require.True(t, fault.Dead(), what)
			if err == nil { // the crash came after the restore's end (its last sync)
				whole(mem, what)
				continue
			}
			names, err := mem.List("db")
			require.NoError(t, err)
			if len(names) == 0 || len(names) == 1 && names[0] == "LOCK" {
				continue // as before the restore
			}
			r, err := openDurable(t, mem, "db", clk, Options{})
			if err == nil { // the crash came after the mark's removal
				require.Equal(t, want, restoredState(t, r, info.LastLSN), "%s: the directory, holding %v, opens", what, names)
				r.Close()
				continue
			}
			require.ErrorIs(t, err, ErrCorrupt, what)
			require.ErrorContains(t, err, "RESTORING", what)
			_, err = openDurable(t, mem, "db", clk, Options{ReadOnly: true})
			require.ErrorIs(t, err, ErrCorrupt, what)
			_, err = local.Verify(bg, mem, "db", documents)
			require.ErrorIs(t, err, ErrCorrupt, what)
			require.NoError(t, restore(mem), "%s: a restore into it again", what)
			whole(mem, what)
		}
	}
}
