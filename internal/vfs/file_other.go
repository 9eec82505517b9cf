//go:build !linux

package vfs

import "os"

// newOSFile returns f, written with write(2).
func newOSFile(f *os.File) (File, error) {
	size, err := fileSize(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &osFile{File: f, size: size}, nil
}

// osFile is a file written with write(2), at its end.
type osFile struct {
	*os.File
	size int64
}

func (f *osFile) Write(p []byte) (int, error) {
	n, err := f.File.WriteAt(p, f.size)
	f.size += int64(n)
	return n, err
}

func (f *osFile) Truncate(size int64) error {
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	f.size = size
	return nil
}

func (f *osFile) Size() (int64, error) { return f.size, nil }

// Linked reports whether the file still has a name.
func (f *osFile) Linked() (bool, error) { return linked(f.File) }
