package local

import (
	"fmt"
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// noLockFile is the operating system's filesystem, whose directories'
// LOCK cannot be opened for writing (as in a directory another user owns),
// and which checks, whenever a directory is listed, that a collection
// could not lock it.
type noLockFile struct {
	t   *testing.T
	dir string
}

func (f noLockFile) MkdirAll(dir string) error { return vfs.OS{}.MkdirAll(dir) }
func (f noLockFile) SyncDir(dir string) error  { return vfs.OS{}.SyncDir(dir) }
func (f noLockFile) OpenDir(dir string) (vfs.Dir, error) {
	d, err := vfs.OS{}.OpenDir(dir)
	return noLockDir{d, f}, err
}

type noLockDir struct {
	vfs.Dir
	fs noLockFile
}

func (d noLockDir) Lock(name string) (io.Closer, error) {
	return nil, fmt.Errorf("open %s: %w", name, fs.ErrPermission)
}

func (d noLockDir) LockDir() (io.Closer, error) { return d.Dir.(vfs.DirLocker).LockDir() }

func (d noLockDir) List() ([]string, error) {
	other, err := vfs.OS{}.OpenDir(d.fs.dir)
	require.NoError(d.fs.t, err)
	defer other.Close()
	_, err = other.Lock(LockName)
	require.ErrorIs(d.fs.t, err, vfs.ErrLocked, "a collection's lock while Verify reads a directory whose LOCK it cannot write")
	return d.Dir.List()
}

// TestVerifyLocksWithoutLockFile: Verify of a directory whose LOCK it
// cannot open for writing still locks the directory, so that no
// collection opens it while it reads (R17, R12).
func TestVerifyLocksWithoutLockFile(t *testing.T) { // R17, R12
	dir := t.TempDir()
	c, err := openDurable(t, nil, dir, &fakeClock{}, Options{})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	require.NoError(t, c.Close())
	rep, err := Verify(bg, noLockFile{t, dir}, dir, testDocuments)
	require.NoError(t, err)
	require.Equal(t, uint64(1), rep.LastLSN)
	c, err = openDurable(t, nil, dir, &fakeClock{}, Options{})
	require.NoError(t, err, "the lock is released after")
	require.NoError(t, c.Close())
}
