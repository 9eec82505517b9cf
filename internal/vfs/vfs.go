// Package vfs is the filesystem ttldb's durable collections (R12) use,
// as an interface, so that tests can crash it: [OS] is the real one; [Mem]
// keeps files in memory and, on Crash, keeps only what was synced, as a
// machine that loses power would.
//
// The model of durability is POSIX's, at its strictest: a file's bytes are
// durable once the file is synced; a file's name (its creation, a rename
// onto it, its removal) is durable once its directory is synced.
//
// Files are named in a directory opened once ([FS.OpenDir], a [Dir]), not
// by path, as openat(2) names them: [OS] opens an [os.Root], a descriptor
// of the directory; [Mem] keeps its directories as objects that its
// RenameDir moves. A collection's files then go where its lock is (the
// directory's, [Dir.Lock]), whatever happens to the path: renamed while
// open, the directory takes its files and lock along, and another made at
// the old path is another directory. Only a directory's own name in its
// parent is named by path ([FS.SyncDir]).
package vfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// FS is a filesystem. The files of a directory are reached through the
// directory, opened once with OpenDir: its [Dir] names them relative to
// the directory itself, not to its path, so that they stay in the
// directory whatever happens to the path (a rename of the directory, a new
// directory made at its old path).
type FS interface {
	// MkdirAll creates the directory dir and its parents.
	MkdirAll(dir string) error
	// SyncDir makes the names in dir durable: files created, renamed or
	// removed there. It names dir by its path: for a directory's own name
	// in its parent.
	SyncDir(dir string) error
	// OpenDir opens the existing directory dir; it fails with
	// [io/fs.ErrNotExist] when there is none.
	OpenDir(dir string) (Dir, error)
}

// DirLocker is a [Dir] that can lock itself without a lock file, as
// [OS]'s can: for a reader of a directory it cannot write, whose lock file
// it cannot open for writing, to keep collections out while it reads.
// LockDir fails with [ErrLocked] when the directory is locked already.
type DirLocker interface {
	LockDir() (io.Closer, error)
}

// Dir is an open directory. Its names are names of files in it, without
// a separator; it follows the directory when the directory is renamed, as
// a file descriptor does.
type Dir interface {
	// Create creates or truncates the file name, for reading and writing.
	Create(name string) (File, error)
	// Open opens the existing file name for reading and appending.
	Open(name string) (File, error)
	// Rename renames old to new, replacing new if it exists.
	Rename(old, new string) error
	// Remove removes the file name.
	Remove(name string) error
	// List returns the names of the files in the directory, sorted.
	List() ([]string, error)
	// Sync makes the names in the directory durable: files created,
	// renamed or removed there.
	Sync() error
	// Lock locks the directory, and creates the file name in it if need
	// be and locks it too, for as long as the process lives or until the
	// lock is closed; it fails with [ErrLocked] when the directory or the
	// file is locked already, by this process or another. The directory's
	// lock holds when the file is removed, and excludes a Lock of any
	// other name in the directory. The lock outlives the Dir's Close.
	Lock(name string) (io.Closer, error)
	// Path is the path the directory was opened by, for messages: the
	// directory may have another by now.
	Path() string
	// Close closes the directory.
	io.Closer
}

// ErrLocked: the directory or the file is locked already.
var ErrLocked = errors.New("vfs: locked by another user")

// File is an open file. Writes append at its end.
type File interface {
	io.Writer
	io.ReaderAt
	// Sync makes the file's bytes durable.
	Sync() error
	// Truncate cuts the file to size bytes.
	Truncate(size int64) error
	// Size returns the file's size.
	Size() (int64, error)
	// Linked reports whether the file still has a name: false once every
	// name it had was removed (rm of it, rm -rf of its directory), when
	// what is written to it is out of reach of whoever opens its
	// directory next, synced or not. It costs an fstat(2); on a platform
	// without link counts it is always true.
	Linked() (bool, error)
	io.Closer
}

// OS is the operating system's filesystem.
type OS struct{}

var _ FS = OS{}

// MkdirAll creates dir and its parents.
func (OS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// OpenDir opens the directory dir, as an [os.Root]: a file descriptor of
// the directory, to which its names are relative (openat(2), renameat(2),
// unlinkat(2): no more system calls than by path), held until Close. It
// fails as open(2) does: [io/fs.ErrNotExist] when there is no dir. List and
// Sync open the directory again through the root, once per call.
func (OS) OpenDir(dir string) (Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &osDir{root: r, path: dir}, nil
}

// osDir is a directory of [OS], open as an [os.Root].
type osDir struct {
	root *os.Root
	path string
}

// Create creates or truncates the file name.
func (d *osDir) Create(name string) (File, error) {
	f, err := d.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return newOSFile(f)
}

// Open opens the existing file name.
func (d *osDir) Open(name string) (File, error) {
	f, err := d.root.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return newOSFile(f)
}

// Rename renames old to new.
func (d *osDir) Rename(old, new string) error { return d.root.Rename(old, new) }

// Remove removes the file name.
func (d *osDir) Remove(name string) error { return d.root.Remove(name) }

// List returns the names of the files in the directory.
func (d *osDir) List() ([]string, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// Sync syncs the directory, through a descriptor of it opened by the root
// (a Root has no Sync).
func (d *osDir) Sync() error { return syncClose(d.root.Open(".")) }

// Path is the path the directory was opened by.
func (d *osDir) Path() string { return d.path }

// Close closes the directory.
func (d *osDir) Close() error { return d.root.Close() }

// SyncDir syncs the directory dir.
func (OS) SyncDir(dir string) error { return syncClose(os.Open(filepath.Clean(dir))) }

// syncClose syncs the directory f, opened with err, and closes it.
func syncClose(f *os.File, err error) error {
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fileSize returns the size of f on disk.
func fileSize(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
