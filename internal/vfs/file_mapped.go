//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package vfs

import (
	"errors"
	"os"
	"syscall"
)

// mappedFile is a file written through a shared memory mapping: a write
// is a copy into the page cache, with no system call, and belongs to the
// file as soon as it is made, so that the death of the process, however it
// dies, loses nothing written (what a power failure keeps is still what
// Sync synced: fsync writes the mapping's dirty pages too). The file is
// grown ahead of the writes, in zeros: on disk it is longer than what was
// written, until Close cuts it to its size. Reads go through the file, which
// the kernel keeps coherent with the mapping.
type mappedFile struct {
	*os.File
	data []byte // the mapping, of the file's length on disk
	size int64  // the bytes written
}

// mapStep is the least a mapped file grows by.
const mapStep = 1 << 20

// newOSFile returns f, written through a mapping.
func newOSFile(f *os.File) (File, error) {
	size, err := fileSize(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &mappedFile{File: f, size: size}, nil
}

func (f *mappedFile) Write(p []byte) (int, error) {
	if f.File == nil {
		return 0, os.ErrClosed
	}
	end := f.size + int64(len(p))
	if end > int64(len(f.data)) {
		if err := f.grow(end); err != nil {
			return 0, err
		}
	}
	copy(f.data[f.size:], p)
	f.size = end
	return len(p), nil
}

// grow makes the file and the mapping at least end bytes long: a quarter
// more than that, at least mapStep more.
func (f *mappedFile) grow(end int64) error {
	n := end + max(end/4, mapStep)
	n = (n + mapStep - 1) / mapStep * mapStep
	if err := f.unmap(); err != nil {
		return err
	}
	if err := f.File.Truncate(n); err != nil {
		return err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	f.data = data
	return nil
}

func (f *mappedFile) unmap() error {
	if f.data == nil {
		return nil
	}
	err := syscall.Munmap(f.data)
	f.data = nil
	return err
}

// Truncate cuts the file to size, on disk too.
func (f *mappedFile) Truncate(size int64) error {
	if err := f.unmap(); err != nil {
		return err
	}
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	f.size = size
	return nil
}

func (f *mappedFile) Size() (int64, error) { return f.size, nil }

// Close cuts the file to what was written and closes it.
func (f *mappedFile) Close() error {
	if f.File == nil {
		return os.ErrClosed
	}
	err := errors.Join(f.unmap(), f.File.Truncate(f.size), f.File.Close())
	f.File = nil
	return err
}
