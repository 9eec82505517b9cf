package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// writeN creates n documents, ids from first on.
func writeN(t *testing.T, c *Collection, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
	}
}

// requireMissingLog checks that opening dir refuses with a *CorruptError
// that names the missing log and the first LSN it held.
func requireMissingLog(t *testing.T, dir string, clk *fakeClock, log string, first uint64) *CorruptError {
	t.Helper()
	c, err := openDurable(t, nil, dir, clk, Options{})
	if err == nil {
		c.Close()
	}
	require.ErrorIs(t, err, ErrCorrupt)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, filepath.Join(dir, log), ce.File)
	require.Contains(t, ce.Reason, "the log is missing")
	require.Contains(t, ce.Reason, fmt.Sprintf("LSN %d", first), "the LSNs it held")
	require.Equal(t, int64(-1), ce.Offset, "a missing file has no offset")
	require.NotContains(t, err.Error(), "at offset", "nor does its message name one")
	return ce
}

// TestMissingLogRefuses: issue 27's scenario on real files. 40 writes,
// Compact, 19 writes, Close; the log that holds the 19 deleted: the open
// refuses, naming the log and the LSNs it held, rather than open 19
// acknowledged changes short and give their LSNs to new changes (R12:
// damage other than a torn tail refuses to open). The log of a snapshot's
// epoch exists before the snapshot, so its absence is never a crash's.
func TestMissingLogRefuses(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	writeN(t, c, 0, 40)
	require.NoError(t, c.Compact(context.Background()))
	at := c.LastLSN()
	writeN(t, c, 40, 19)
	require.NoError(t, c.Close())
	log := filepath.Join(dir, LogName(1))
	require.NoError(t, os.Remove(log))
	requireMissingLog(t, dir, clk, LogName(1), at+1)
	_, err = os.Stat(log)
	require.ErrorIs(t, err, os.ErrNotExist, "a refused open makes no log")

	// The same with the first log of a new directory, never compacted.
	dir = t.TempDir()
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	writeN(t, c, 0, 5)
	require.NoError(t, c.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, LogName(0))))
	requireMissingLog(t, dir, clk, LogName(0), 1)

	// A new directory's snapshot alone: what a crash during the first
	// open left, with the versions that wrote the snapshot first. Still
	// refused (a deleted log leaves the same), with the way out.
	dir = t.TempDir()
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, LogName(0))))
	ce := requireMissingLog(t, dir, clk, LogName(0), 1)
	require.Contains(t, ce.Reason, "removing "+SnapName(0)+" opens the directory as new")
	require.NoError(t, os.Remove(filepath.Join(dir, SnapName(0))))
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	require.NoError(t, c.Close())
}

// TestMissingTrailingLogRefuses: a compaction whose snapshot failed leaves
// the log it began after the newest snapshot's; the changes go on there.
// That log deleted, the open refuses: the log before it says that it
// follows (R12). A log missing between two others refuses too.
func TestMissingTrailingLogRefuses(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	writeN(t, c, 0, 10)
	require.NoError(t, c.Compact(context.Background())) // snap-1, log-1
	writeN(t, c, 10, 10)
	// The snapshot of epoch 2 cannot be made: its temporary name is a
	// directory's.
	blocker := filepath.Join(dir, SnapName(2)+TmpSuffix)
	require.NoError(t, os.Mkdir(blocker, 0o755))
	require.ErrorIs(t, c.Compact(context.Background()), ErrClosed)
	require.NoError(t, os.Remove(blocker))
	at := c.LastLSN()
	writeN(t, c, 20, 10) // to log-2
	require.NoError(t, c.Close())
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err, "the files as they are open")
	require.Equal(t, at+10, c.LastLSN())
	require.NoError(t, c.Close())

	require.NoError(t, os.Rename(filepath.Join(dir, LogName(2)), filepath.Join(t.TempDir(), "saved")))
	requireMissingLog(t, dir, clk, LogName(2), at+1)

	// A log missing between two: the LSNs it held are known.
	dir = t.TempDir()
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	writeN(t, c, 0, 10)
	require.NoError(t, c.Compact(context.Background())) // snap-1, log-1
	writeN(t, c, 10, 10)
	for _, epoch := range []uint64{2, 3} { // log-2 and log-3 follow snap-1
		blocker := filepath.Join(dir, SnapName(epoch)+TmpSuffix)
		require.NoError(t, os.Mkdir(blocker, 0o755))
		require.ErrorIs(t, c.Compact(context.Background()), ErrClosed)
		require.NoError(t, os.Remove(blocker))
		writeN(t, c, 10*int(epoch), 10)
	}
	require.NoError(t, c.Close())
	require.NoError(t, os.Remove(filepath.Join(dir, LogName(2))))
	ce := requireMissingLog(t, dir, clk, LogName(2), 21)
	require.Contains(t, ce.Reason, "LSN 21 to 30")
}

// TestInterruptedCreationOpens: a new directory whose first open a crash
// interrupted, at any of its events, opens as new: no change was
// acknowledged there yet, so a log that was never made is no loss (R12).
func TestInterruptedCreationOpens(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	count := &vfs.Fault{Mem: &vfs.Mem{}}
	c, err := openDurable(t, count, "db", clk, Options{})
	require.NoError(t, err)
	events := count.Events()
	require.NoError(t, c.Close())
	for n := 1; n <= events; n++ {
		mem := &vfs.Mem{}
		ffs := &vfs.Fault{Mem: mem, N: n, Tear: func(_ string, b []byte) []byte { return b[:len(b)/2] }}
		_, err := openDurable(t, ffs, "db", clk, Options{})
		require.Error(t, err, "the crash at event %d", n)
		c, err = openDurable(t, mem, "db", clk, Options{})
		require.NoError(t, err, "a crash at event %d of the first open", n)
		mustCreate(t, c, `{"id":"a","pk":"p"}`)
		require.NoError(t, c.Close())
		c, err = openDurable(t, mem, "db", clk, Options{})
		require.NoError(t, err, "a crash at event %d of the first open, then a write", n)
		require.Equal(t, uint64(1), c.LastLSN())
		require.NoError(t, c.Close())
	}
}

// TestInterruptedRotationOpens: a crash at any event of a compaction, as a
// power failure that tears what was not synced or as a killed process,
// opens with every change acknowledged (R12); and once it has, the last
// log is never missing in silence, whichever step the crash interrupted:
// the open ends the log before it as the rotation would have.
func TestInterruptedRotationOpens(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	from, to := compactionEvents(t, clk)
	tears := map[string]func(string, []byte) []byte{
		"half": func(_ string, b []byte) []byte { return b[:len(b)/2] },
		"all":  func(_ string, b []byte) []byte { return b },
		"none": nil,
	}
	for n := from + 1; n <= to; n++ {
		for tear, fn := range tears {
			for _, kill := range []bool{false, true} {
				mem := &vfs.Mem{}
				ffs := &vfs.Fault{Mem: mem, Tear: fn, Kill: kill}
				c, err := openDurable(t, ffs, "db", clk, Options{Sync: SyncAlways})
				require.NoError(t, err)
				writeN(t, c, 0, 10)
				ffs.Arm(n)
				c.Compact(context.Background())
				c.Close()
				c, err = openDurable(t, mem, "db", clk, Options{Sync: SyncAlways})
				require.NoError(t, err, "a crash at event %d of a compaction (%s, kill %v)", n, tear, kill)
				require.Equal(t, uint64(10), c.LastLSN())
				writeN(t, c, 10, 5)
				require.NoError(t, c.Close())
				names, err := mem.List("db")
				require.NoError(t, err)
				var last string
				for _, name := range names {
					if _, ok := fileEpoch(name, "log-"); ok {
						last = name
					}
				}
				require.NoError(t, mem.Remove(filepath.Join("db", last)))
				_, err = openDurable(t, mem, "db", clk, Options{Sync: SyncAlways})
				require.ErrorIs(t, err, ErrCorrupt, "a crash at event %d of a compaction (%s, kill %v), then %s removed", n, tear, kill, last)
			}
		}
	}
}

// openTears are the ways a crash of an open tears what it had not synced:
// none of it kept, half, all, and all with a hole.
var openTears = map[string]func(string, []byte) []byte{
	"none":  nil,
	"half":  func(_ string, b []byte) []byte { return b[:len(b)/2] },
	"all":   func(_ string, b []byte) []byte { return b },
	"holes": func(_ string, b []byte) []byte { clear(b[len(b)/4 : len(b)/2]); return b },
}

// crashEveryRepair opens the directory that made() makes (a fresh Mem
// each time) and crashes that open, a power failure with each of
// openTears, at each of its events; then the directory must open, with
// the LSN want: an open that repairs the files is itself crash-safe.
func crashEveryRepair(t *testing.T, clk *fakeClock, want uint64, made func() *vfs.Mem, msg string) {
	t.Helper()
	count := &vfs.Fault{Mem: made()}
	c, err := openDurable(t, count, "db", clk, Options{Sync: SyncAlways})
	require.NoError(t, err, msg)
	events := count.Events()
	require.NoError(t, c.Close())
	for n := 1; n <= events; n++ {
		for tear, fn := range openTears {
			mem := made()
			if c, err := openDurable(t, &vfs.Fault{Mem: mem, Tear: fn, N: n}, "db", clk, Options{Sync: SyncAlways}); err == nil {
				c.Close()
			}
			c, err := openDurable(t, mem, "db", clk, Options{Sync: SyncAlways})
			require.NoError(t, err, "%s, then the open that repairs it crashed at its event %d of %d (%s)", msg, n, events, tear)
			require.Equal(t, want, c.LastLSN(), msg)
			require.NoError(t, c.Close())
		}
	}
}

// TestRepairOfInterruptedRotationSurvivesACrash: a compaction killed at
// any of its events, then the open that repairs the rotation crashed at
// any of its events, as a power failure: the directory opens with every
// change (R12). It failed with ErrCorrupt ("log-1 is missing") when the
// kill came inside the creation of log-1, before its name was synced: the
// open ended log-0 saying log-1 follows before it synced the directory,
// and the power failure lost log-1's name.
func TestRepairOfInterruptedRotationSurvivesACrash(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	from, to := compactionEvents(t, clk)
	kills := []bool{true} // the kill is the one that leaves log-1's name unsynced
	if LongTests() {
		kills = append(kills, false)
	}
	for n := from + 1; n <= to; n++ {
		for _, kill := range kills {
			crashEveryRepair(t, clk, 10, func() *vfs.Mem {
				mem := &vfs.Mem{}
				ffs := &vfs.Fault{Mem: mem, Kill: kill, Tear: openTears["half"]}
				c, err := openDurable(t, ffs, "db", clk, Options{Sync: SyncAlways})
				require.NoError(t, err)
				writeN(t, c, 0, 10)
				ffs.Arm(n)
				c.Compact(context.Background())
				c.Close()
				return mem
			}, fmt.Sprintf("a compaction crashed at its event %d (kill %v)", n, kill))
		}
	}
}

// TestRepairOfOldFormatSurvivesACrash: a directory of a version before
// the next record, whose compaction's snapshot failed after its rotation:
// snap-0, log-0 that does not end, log-1 with changes. The first open ends
// log-0; crashed at any of its events, as a power failure, the directory
// opens with every change (R12). It failed with ErrCorrupt ("log-0 ...
// later logs follow it") when the crash tore that end group: a torn tail
// of a log before one with groups was damage.
func TestRepairOfOldFormatSurvivesACrash(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	crashEveryRepair(t, clk, 20, func() *vfs.Mem {
		mem := &vfs.Mem{}
		c, err := openDurable(t, mem, "db", clk, Options{Sync: SyncAlways})
		require.NoError(t, err)
		writeN(t, c, 0, 10)
		log0 := filepath.Join("db", LogName(0))
		f, err := mem.Open(log0)
		require.NoError(t, err)
		size, err := f.Size() // before the group that ends it
		require.NoError(t, err)
		mem.FailWrite = func(name string) error {
			if name == filepath.Join("db", SnapName(1)+TmpSuffix) {
				return vfs.ErrDead
			}
			return nil
		}
		require.ErrorIs(t, c.Compact(context.Background()), ErrClosed)
		mem.FailWrite = nil
		writeN(t, c, 10, 10) // to log-1
		require.NoError(t, c.Close())
		f, err = mem.Open(log0)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(size)) // as an earlier version left it
		require.NoError(t, f.Sync())
		return mem
	}, "an earlier version's directory")
}

// TestTornEndGroupOnRealFiles: on real files, an earlier version's log
// before the last, whose end group the open was writing when the power
// failed: a part of the group, a hole, and the zeros the file was grown by
// ahead of the write (internal/vfs). The open cuts it and ends the log
// again, with every change (R12); it refused with ErrCorrupt before. A tail
// that differs from that group by one bit is damage, still refused.
func TestTornEndGroupOnRealFiles(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	dir := t.TempDir()
	c, err := openDurable(t, nil, dir, clk, Options{Sync: SyncAlways})
	require.NoError(t, err)
	writeN(t, c, 0, 10)
	blocker := filepath.Join(dir, SnapName(1)+TmpSuffix) // the snapshot fails after the rotation
	require.NoError(t, os.Mkdir(blocker, 0o755))
	require.ErrorIs(t, c.Compact(context.Background()), ErrClosed)
	require.NoError(t, os.Remove(blocker))
	writeN(t, c, 10, 10) // to log-1
	require.NoError(t, c.Close())
	log0 := filepath.Join(dir, LogName(0))
	whole, err := os.ReadFile(log0)
	require.NoError(t, err)
	base := whole[:len(whole)-len(endGroup(0, 10, 1))] // as an earlier version left it
	end := endGroup(int64(len(base)), 10, 1)
	require.Equal(t, whole[len(base):], end)
	tail := append(slices.Clone(end[:20]), make([]byte, 1<<20)...)
	copy(tail[25:], end[25:30])
	require.NoError(t, os.WriteFile(log0, append(slices.Clone(base), tail...), 0o644))
	c, err = openDurable(t, nil, dir, clk, Options{Sync: SyncAlways})
	require.NoError(t, err)
	require.Equal(t, uint64(20), c.LastLSN())
	require.NoError(t, c.Close())
	got, err := os.ReadFile(log0)
	require.NoError(t, err)
	require.Equal(t, whole, got, "log-0 ended again")

	bad := slices.Clone(end[:20])
	bad[15] ^= 1
	require.NoError(t, os.WriteFile(log0, append(slices.Clone(base), bad...), 0o644))
	_, err = openDurable(t, nil, dir, clk, Options{Sync: SyncAlways})
	require.ErrorIs(t, err, ErrCorrupt)
}

// compactionEvents counts the events of the filesystem (writes, syncs,
// creations, renames, removals) that a durable collection of ten documents
// makes through its Compact, and returns the range they take: a crash at
// any of them is a crash in the middle of a compaction.
func compactionEvents(t *testing.T, clk *fakeClock) (from, to int) {
	t.Helper()
	count := &vfs.Fault{Mem: &vfs.Mem{}}
	c, err := openDurable(t, count, "db", clk, Options{Sync: SyncAlways})
	require.NoError(t, err)
	writeN(t, c, 0, 10)
	from = count.Events()
	require.NoError(t, c.Compact(context.Background()))
	to = count.Events()
	require.NoError(t, c.Close())
	return from, to
}
