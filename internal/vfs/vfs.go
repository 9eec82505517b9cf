// Package vfs is the filesystem ttldb's durable collections (R12) will
// use, as an interface, so that tests can crash it: [OS] is the real one;
// [Mem] keeps files in memory and, on Crash, keeps only what was synced, as
// a machine that loses power would.
//
// The model of durability is POSIX's, at its strictest: a file's bytes are
// durable once the file is synced; a file's name (its creation, a rename
// onto it, its removal) is durable once its directory is synced.
package vfs

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// FS is a filesystem.
type FS interface {
	// Create creates or truncates the file name, for reading and writing.
	Create(name string) (File, error)
	// Open opens the existing file name for reading and appending.
	Open(name string) (File, error)
	// Rename renames old to new, replacing new if it exists.
	Rename(old, new string) error
	// Remove removes the file name.
	Remove(name string) error
	// MkdirAll creates the directory dir and its parents.
	MkdirAll(dir string) error
	// List returns the names of the files in dir, sorted.
	List(dir string) ([]string, error)
	// SyncDir makes the names in dir durable: files created, renamed or
	// removed there.
	SyncDir(dir string) error
	// Lock locks the directory that holds the file name, and creates the
	// file name if need be and locks it too, for as long as the process
	// lives or until the lock is closed; it fails with [ErrLocked] when
	// the directory or the file is locked already, by this process or
	// another. The directory's lock holds when the file is removed, and
	// excludes a Lock of any other name in the directory.
	Lock(name string) (io.Closer, error)
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

// Create creates or truncates the file name.
func (OS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return newOSFile(f)
}

// Open opens the existing file name.
func (OS) Open(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return newOSFile(f)
}

// Rename renames old to new.
func (OS) Rename(old, new string) error { return os.Rename(old, new) }

// Remove removes the file name.
func (OS) Remove(name string) error { return os.Remove(name) }

// MkdirAll creates dir and its parents.
func (OS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// List returns the names of the files in dir.
func (OS) List(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// SyncDir syncs the directory dir.
func (OS) SyncDir(dir string) error {
	d, err := os.Open(filepath.Clean(dir))
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
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
