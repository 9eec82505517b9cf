package vfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// contents returns the whole of file name in fsys, or ok false when there
// is no such file.
func contents(t *testing.T, fsys FS, name string) (string, bool) {
	t.Helper()
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	require.NoError(t, err)
	defer f.Close()
	size, err := f.Size()
	require.NoError(t, err)
	b := make([]byte, size)
	n, err := f.ReadAt(b, 0)
	if err != io.EOF {
		require.NoError(t, err)
	}
	return string(b[:n]), true
}

func write(t *testing.T, f File, s string) {
	t.Helper()
	n, err := f.Write([]byte(s))
	require.NoError(t, err)
	require.Equal(t, len(s), n)
}

// TestMemKeepsWhatWasSynced: a crash keeps a file's synced bytes and drops
// the rest; CrashKeeping keeps a prefix of the rest, as a torn write.
func TestMemKeepsWhatWasSynced(t *testing.T) {
	m := &Mem{}
	require.NoError(t, m.MkdirAll("db"))
	f, err := m.Create("db/log")
	require.NoError(t, err)
	require.NoError(t, m.SyncDir("db"))
	write(t, f, "synced.")
	require.NoError(t, f.Sync())
	write(t, f, "lost")
	m.Crash()
	got, ok := contents(t, m, "db/log")
	require.True(t, ok)
	require.Equal(t, "synced.", got)
	_, err = f.Write([]byte("x"))
	require.ErrorIs(t, err, ErrCrashed, "a file from before the crash is dead")

	f, err = m.Open("db/log")
	require.NoError(t, err)
	write(t, f, "torn write")
	m.CrashKeeping(func(name string, unsynced []byte) int {
		require.Equal(t, "db/log", name)
		require.Equal(t, "torn write", string(unsynced))
		return 4
	})
	got, _ = contents(t, m, "db/log")
	require.Equal(t, "synced.torn", got)
}

// TestMemNamesNeedSyncDir: a file created, renamed or removed is so after
// a crash only if its directory was synced since.
func TestMemNamesNeedSyncDir(t *testing.T) {
	m := &Mem{}
	require.NoError(t, m.MkdirAll("db"))
	f, err := m.Create("db/a")
	require.NoError(t, err)
	write(t, f, "a")
	require.NoError(t, f.Sync())
	m.Crash()
	_, ok := contents(t, m, "db/a")
	require.False(t, ok, "created and synced, but its name was not")

	f, err = m.Create("db/snap.tmp")
	require.NoError(t, err)
	write(t, f, "snapshot")
	require.NoError(t, f.Sync())
	require.NoError(t, m.SyncDir("db"))
	require.NoError(t, m.Rename("db/snap.tmp", "db/snap"))
	m.Crash()
	names, err := m.List("db")
	require.NoError(t, err)
	require.Equal(t, []string{"snap.tmp"}, names, "the rename was not synced")

	require.NoError(t, m.Rename("db/snap.tmp", "db/snap"))
	require.NoError(t, m.SyncDir("db"))
	require.NoError(t, m.Remove("db/snap"))
	m.Crash()
	got, ok := contents(t, m, "db/snap")
	require.True(t, ok, "the removal was not synced: the file is back")
	require.Equal(t, "snapshot", got)
}

// TestMemFaults: FailWrite and FailSync fail the call and change nothing.
func TestMemFaults(t *testing.T) {
	disk := errors.New("disk full")
	m := &Mem{}
	require.NoError(t, m.MkdirAll("db"))
	f, err := m.Create("db/log")
	require.NoError(t, err)
	write(t, f, "ok")
	m.FailWrite = func(string) error { return disk }
	_, err = f.Write([]byte("no"))
	require.ErrorIs(t, err, disk)
	m.FailSync = func(name string) error { return disk }
	require.ErrorIs(t, f.Sync(), disk)
	require.ErrorIs(t, m.SyncDir("db"), disk)
	got, _ := contents(t, m, "db/log")
	require.Equal(t, "ok", got)
	m.FailWrite, m.FailSync = nil, nil
	require.NoError(t, f.Truncate(1))
	got, _ = contents(t, m, "db/log")
	require.Equal(t, "o", got)
	_, err = m.Open("db/none")
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = m.Create("nodir/x")
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// TestOS: the real filesystem does what the interface says.
func TestOS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	var fsys FS = OS{}
	require.NoError(t, fsys.MkdirAll(dir))
	f, err := fsys.Create(filepath.Join(dir, "log"))
	require.NoError(t, err)
	write(t, f, "hello")
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	require.NoError(t, fsys.SyncDir(dir))
	f, err = fsys.Open(filepath.Join(dir, "log"))
	require.NoError(t, err)
	write(t, f, ", world") // appends
	require.NoError(t, f.Close())
	got, _ := contents(t, fsys, filepath.Join(dir, "log"))
	require.Equal(t, "hello, world", got)
	require.NoError(t, fsys.Rename(filepath.Join(dir, "log"), filepath.Join(dir, "log2")))
	names, err := fsys.List(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"log2"}, names)
	require.NoError(t, fsys.Remove(filepath.Join(dir, "log2")))
	_, ok := contents(t, fsys, filepath.Join(dir, "log2"))
	require.False(t, ok)
}

// TestLockExcludes: a second Lock of a file fails with ErrLocked until the
// first is closed, on both filesystems; a crash of a Mem releases its locks,
// as the death of the process would.
func TestLockExcludes(t *testing.T) {
	mem := &Mem{}
	require.NoError(t, mem.MkdirAll("d"))
	dir := t.TempDir()
	for _, c := range []struct {
		fs   FS
		name string
	}{{OS{}, filepath.Join(dir, "LOCK")}, {mem, "d/LOCK"}} {
		l, err := c.fs.Lock(c.name)
		require.NoError(t, err)
		_, err = c.fs.Lock(c.name)
		require.ErrorIs(t, err, ErrLocked)
		require.NoError(t, l.Close())
		l, err = c.fs.Lock(c.name)
		require.NoError(t, err)
		require.NoError(t, l.Close())
	}
	l, err := mem.Lock("d/LOCK")
	require.NoError(t, err)
	mem.Crash()
	l2, err := mem.Lock("d/LOCK")
	require.NoError(t, err)
	require.NoError(t, l.Close()) // the dead lock's Close does not release the new one
	_, err = mem.Lock("d/LOCK")
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, l2.Close())
}

// TestLockHoldsTheDirectory: the lock is the directory's, not the file
// name's: once the file is removed (by a person, or a cleanup script), a
// new one of that name cannot be locked, nor another name in the
// directory, until the lock is closed; then the directory locks again, on
// both filesystems.
func TestLockHoldsTheDirectory(t *testing.T) {
	mem := &Mem{}
	require.NoError(t, mem.MkdirAll("d"))
	dir := t.TempDir()
	for _, c := range []struct {
		fs       FS
		name, in string
	}{{OS{}, filepath.Join(dir, "LOCK"), filepath.Join(dir, "OTHER")}, {mem, "d/LOCK", "d/OTHER"}} {
		l, err := c.fs.Lock(c.name)
		require.NoError(t, err)
		require.NoError(t, c.fs.Remove(c.name))
		_, err = c.fs.Lock(c.name)
		require.ErrorIs(t, err, ErrLocked, "a new file of the name, in the locked directory")
		_, err = c.fs.Lock(c.in)
		require.ErrorIs(t, err, ErrLocked, "another name in the locked directory")
		require.NoError(t, l.Close())
		l, err = c.fs.Lock(c.name)
		require.NoError(t, err)
		require.NoError(t, l.Close())
	}
}

// TestOSFileWritesAcrossGrowth: the operating system's files take writes
// across the space they grow ahead by, read back what was written, report
// the size written, and are cut to it by Close; Truncate then Write goes on
// from the cut.
func TestOSFileWritesAcrossGrowth(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	f, err := OS{}.Create(name)
	require.NoError(t, err)
	var want []byte
	for i := range 3000 {
		p := bytes.Repeat([]byte{byte(i)}, 1000)
		n, err := f.Write(p)
		require.NoError(t, err)
		require.Equal(t, len(p), n)
		want = append(want, p...)
	}
	size, err := f.Size()
	require.NoError(t, err)
	require.Equal(t, int64(len(want)), size)
	got := make([]byte, len(want))
	_, err = f.ReadAt(got, 0)
	require.NoError(t, err)
	require.Equal(t, want, got, "reads see the writes")
	require.NoError(t, f.Sync())
	require.NoError(t, f.Truncate(1500))
	_, err = f.Write([]byte("after"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	st, err := os.Stat(name)
	require.NoError(t, err)
	require.Equal(t, int64(1505), st.Size(), "Close cuts the space ahead")
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	require.Equal(t, append(want[:1500:1500], "after"...), b)
	_, err = f.Write([]byte("x"))
	require.Error(t, err, "closed")
}

// TestLinked: a file has a name until its last one is removed, on its own
// or with its directory, and the write that follows goes on to a file that
// no open will find; Mem's RemoveAll is that rm -rf, durable at once.
func TestLinked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	mem := &Mem{}
	for name, fsys := range map[string]FS{"os": OS{}, "mem": mem} {
		require.NoError(t, fsys.MkdirAll(dir))
		a, err := fsys.Create(filepath.Join(dir, "a"))
		require.NoError(t, err)
		b, err := fsys.Create(filepath.Join(dir, "b"))
		require.NoError(t, err)
		require.NoError(t, fsys.Rename(filepath.Join(dir, "b"), filepath.Join(dir, "c")))
		for _, f := range []File{a, b} {
			ok, err := f.Linked()
			require.NoError(t, err)
			require.True(t, ok, name)
		}
		require.NoError(t, fsys.Remove(filepath.Join(dir, "a")))
		ok, err := a.Linked()
		require.NoError(t, err)
		require.False(t, ok, "%s: a file removed", name)
		if name == "os" {
			require.NoError(t, os.RemoveAll(dir))
		} else {
			mem.RemoveAll(dir)
		}
		write(t, b, "lost")
		require.NoError(t, b.Sync())
		ok, err = b.Linked()
		require.NoError(t, err)
		require.False(t, ok, "%s: its directory removed", name)
		names, err := fsys.List(dir)
		require.Error(t, err, "%s: %v", name, names)
		require.NoError(t, a.Close())
		require.NoError(t, b.Close())
	}
	mem.Crash()
	_, ok := contents(t, mem, filepath.Join(dir, "c"))
	require.False(t, ok, "a crash brings nothing back")
}

// BenchmarkLinked: the cost of Linked, which a durable collection pays
// once a sync, beside the sync (sync: a sync of a page written before,
// on the disk of the test's temporary directory).
func BenchmarkLinked(b *testing.B) {
	f, err := OS{}.Create(filepath.Join(b.TempDir(), "a"))
	require.NoError(b, err)
	defer f.Close()
	b.Run("linked", func(b *testing.B) {
		for b.Loop() {
			if ok, err := f.Linked(); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("sync", func(b *testing.B) {
		for b.Loop() {
			f.Write([]byte("x"))
			if err := f.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
