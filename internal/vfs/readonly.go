package vfs

import (
	"errors"
	"os"
)

// ErrReadOnly: a write, Truncate or Sync of a file opened by OpenReadOnly.
var ErrReadOnly = errors.New("vfs: file opened read-only")

// OpenReadOnly opens the existing file name of d for reading only, for a
// reader of a directory that another process may be writing: a File
// whose Write, Truncate and Sync fail with [ErrReadOnly] and whose Close
// only closes it. A file that [Dir.Open] opens is cut at its Close to what
// it was when opened plus what was written through it (the zeros a mapped
// file is grown by go), which would cut the file from under the process
// writing it. Size is the file's size on disk, the zeros ahead of the
// writes included. On a Dir other than the operating system's, it is
// d.Open. It costs an open(2).
func OpenReadOnly(d Dir, name string) (File, error) {
	od, ok := d.(*osDir)
	if !ok {
		return d.Open(name)
	}
	f, err := od.root.Open(name)
	if err != nil {
		return nil, err
	}
	return readOnlyFile{f}, nil
}

// readOnlyFile is a file OpenReadOnly opened.
type readOnlyFile struct{ *os.File }

func (readOnlyFile) Write([]byte) (int, error) { return 0, ErrReadOnly }

func (readOnlyFile) Truncate(int64) error { return ErrReadOnly }

func (readOnlyFile) Sync() error { return ErrReadOnly }

func (f readOnlyFile) Size() (int64, error) { return fileSize(f.File) }

func (f readOnlyFile) Linked() (bool, error) { return linked(f.File) }
