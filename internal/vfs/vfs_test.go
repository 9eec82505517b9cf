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

// contents returns the whole of file name in fsys (a [Mem], by path, or a
// [Dir]), or ok false when there is no such file.
func contents(t *testing.T, fsys interface{ Open(string) (File, error) }, name string) (string, bool) {
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
	d, err := fsys.OpenDir(dir)
	require.NoError(t, err)
	defer d.Close()
	require.Equal(t, dir, d.Path())
	f, err := d.Create("log")
	require.NoError(t, err)
	write(t, f, "hello")
	require.NoError(t, f.Sync())
	require.NoError(t, f.Close())
	require.NoError(t, d.Sync())
	require.NoError(t, fsys.SyncDir(dir))
	f, err = d.Open("log")
	require.NoError(t, err)
	write(t, f, ", world") // appends
	require.NoError(t, f.Close())
	got, _ := contents(t, d, "log")
	require.Equal(t, "hello, world", got)
	require.NoError(t, d.Rename("log", "log2"))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	names, err := d.List()
	require.NoError(t, err)
	require.Equal(t, []string{"log2"}, names, "files only")
	require.NoError(t, d.Remove("log2"))
	_, ok := contents(t, d, "log2")
	require.False(t, ok)
	_, err = fsys.OpenDir(filepath.Join(dir, "none"))
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// TestLockExcludes: a second Lock of a file fails with ErrLocked until the
// first is closed, on both filesystems; a crash of a Mem releases its locks,
// as the death of the process would.
func TestLockExcludes(t *testing.T) {
	mem := &Mem{}
	for _, c := range bothFS(t, mem) {
		d, err := c.fs.OpenDir(c.dir)
		require.NoError(t, err)
		l, err := d.Lock("LOCK")
		require.NoError(t, err)
		d2, err := c.fs.OpenDir(c.dir)
		require.NoError(t, err)
		_, err = d2.Lock("LOCK")
		require.ErrorIs(t, err, ErrLocked, "another open of the directory")
		_, err = d.Lock("LOCK")
		require.ErrorIs(t, err, ErrLocked, "the same open")
		require.NoError(t, d.Close())
		_, err = d2.Lock("LOCK")
		require.ErrorIs(t, err, ErrLocked, "the lock outlives the Dir's Close")
		require.NoError(t, l.Close())
		l, err = d2.Lock("LOCK")
		require.NoError(t, err)
		require.NoError(t, l.Close())
		require.NoError(t, d2.Close())
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
	for _, c := range bothFS(t, mem) {
		d, err := c.fs.OpenDir(c.dir)
		require.NoError(t, err)
		l, err := d.Lock("LOCK")
		require.NoError(t, err)
		require.NoError(t, d.Remove("LOCK"))
		_, err = d.Lock("LOCK")
		require.ErrorIs(t, err, ErrLocked, "a new file of the name, in the locked directory")
		_, err = d.Lock("OTHER")
		require.ErrorIs(t, err, ErrLocked, "another name in the locked directory")
		require.NoError(t, l.Close())
		l, err = d.Lock("LOCK")
		require.NoError(t, err)
		require.NoError(t, l.Close())
		require.NoError(t, d.Close())
	}
}

// TestOSFileWritesAcrossGrowth: the operating system's files take writes
// across the space they grow ahead by, read back what was written, report
// the size written, and are cut to it by Close; Truncate then Write goes on
// from the cut.
func TestOSFileWritesAcrossGrowth(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	d, err := OS{}.OpenDir(filepath.Dir(name))
	require.NoError(t, err)
	defer d.Close()
	f, err := d.Create("f")
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
		d, err := fsys.OpenDir(dir)
		require.NoError(t, err)
		a, err := d.Create("a")
		require.NoError(t, err)
		b, err := d.Create("b")
		require.NoError(t, err)
		require.NoError(t, d.Rename("b", "c"))
		for _, f := range []File{a, b} {
			ok, err := f.Linked()
			require.NoError(t, err)
			require.True(t, ok, name)
		}
		require.NoError(t, d.Remove("a"))
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
		_, err = fsys.OpenDir(dir)
		require.ErrorIs(t, err, fs.ErrNotExist, name)
		_, err = d.Create("new")
		require.ErrorIs(t, err, fs.ErrNotExist, "%s: a file made in the removed directory", name)
		require.NoError(t, d.Close())
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
	d, err := OS{}.OpenDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	f, err := d.Create("a")
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

// TestDirFollowsRename: a Dir names the files of the directory it opened,
// not of its path: once the directory is renamed and another made at its
// path, the Dir's creations, renames, removals, listings and locks are the
// renamed directory's, and the new directory is free to lock, on both
// filesystems (Mem's RenameDir is mv, durable at once).
func TestDirFollowsRename(t *testing.T) {
	mem := &Mem{}
	tmp := t.TempDir()
	for _, c := range []struct {
		fs     FS
		dir    string
		rename func(old, new string) error
	}{{OS{}, filepath.Join(tmp, "db"), os.Rename}, {mem, "db", mem.RenameDir}} {
		require.NoError(t, c.fs.MkdirAll(c.dir))
		d, err := c.fs.OpenDir(c.dir)
		require.NoError(t, err)
		l, err := d.Lock("LOCK")
		require.NoError(t, err)
		f, err := d.Create("a")
		require.NoError(t, err)
		write(t, f, "before")
		require.NoError(t, f.Close())

		require.NoError(t, c.rename(c.dir, c.dir+".old"))
		require.NoError(t, c.fs.MkdirAll(c.dir))
		nd, err := c.fs.OpenDir(c.dir)
		require.NoError(t, err)
		nl, err := nd.Lock("LOCK")
		require.NoError(t, err, "the new directory is another, unlocked")
		f, err = nd.Create("a")
		require.NoError(t, err)
		write(t, f, "new")
		require.NoError(t, f.Close())

		f, err = d.Create("b")
		require.NoError(t, err)
		write(t, f, "after")
		require.NoError(t, f.Close())
		require.NoError(t, d.Rename("b", "c"))
		require.NoError(t, d.Remove("a"))
		require.NoError(t, d.Sync())
		names, err := d.List()
		require.NoError(t, err)
		require.Equal(t, []string{"LOCK", "c"}, names)
		_, err = d.Lock("OTHER")
		require.ErrorIs(t, err, ErrLocked, "the renamed directory is still locked")

		old, err := c.fs.OpenDir(c.dir + ".old")
		require.NoError(t, err)
		got, ok := contents(t, old, "c")
		require.True(t, ok)
		require.Equal(t, "after", got)
		names, err = nd.List()
		require.NoError(t, err)
		require.Equal(t, []string{"LOCK", "a"}, names, "the new directory: untouched by d")
		got, _ = contents(t, nd, "a")
		require.Equal(t, "new", got)
		for _, cl := range []io.Closer{l, nl, d, nd, old} {
			require.NoError(t, cl.Close())
		}
	}
	require.ErrorIs(t, mem.RenameDir("none", "x"), fs.ErrNotExist)
	require.ErrorIs(t, mem.RenameDir("db", "db.old"), fs.ErrExist)
	require.ErrorIs(t, mem.RenameDir("db", "nodir/db"), fs.ErrNotExist)
}

// fsDir is a filesystem and a directory made in it.
type fsDir struct {
	fs  FS
	dir string
}

// bothFS makes a directory on the operating system's filesystem and one,
// "d", in mem, for the tests that check both behave alike.
func bothFS(t *testing.T, mem *Mem) []fsDir {
	t.Helper()
	require.NoError(t, mem.MkdirAll("d"))
	return []fsDir{{OS{}, t.TempDir()}, {mem, "d"}}
}

// TestLockDir: the OS's LockDir locks the directory alone, which a Lock of
// another open of it (a collection's) then finds locked until it is
// closed, and finds a directory locked by a Lock (R12, R17).
func TestLockDir(t *testing.T) { // R12, R17
	dir := t.TempDir()
	d, err := OS{}.OpenDir(dir)
	require.NoError(t, err)
	defer d.Close()
	d2, err := OS{}.OpenDir(dir)
	require.NoError(t, err)
	defer d2.Close()
	l, err := d.(DirLocker).LockDir()
	require.NoError(t, err)
	_, err = d2.Lock("LOCK")
	require.ErrorIs(t, err, ErrLocked, "a collection's Lock while the directory is locked")
	require.NoError(t, l.Close())
	l2, err := d2.Lock("LOCK")
	require.NoError(t, err)
	_, err = d.(DirLocker).LockDir()
	require.ErrorIs(t, err, ErrLocked, "a directory a collection has locked")
	require.NoError(t, l2.Close())
}
