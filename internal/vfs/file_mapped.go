//go:build linux

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
// Sync synced: on Linux, fsync writes the mapping's dirty pages too).
// Reads go through the file, which the kernel keeps coherent with the
// mapping.
//
// The mapping is a window on the file's end: it starts at the multiple of
// mapStep at or before the end, and its length is the least multiple of
// mapStep that holds the write that made it. A write past it grows the
// file to the next window's end (by mapStep, for a write smaller than
// that), and maps that window in place of the last: so what a growth
// costs does not grow with the file. (Mapping the whole file again, a
// quarter larger each time, made the write that grew a log of 500 MB wait
// 26-65 ms, and up to 290 ms when the page cache was under pressure:
// zeros written, and the writers of the collection waiting behind it;
// issue 31.)
//
// The file is grown ahead of the writes by writing zeros, with write(2),
// not by ftruncate: the blocks are then the file's before the mapping
// touches them, so that a full disk is an error of the write that grows,
// not a SIGBUS that kills the process. On disk the file is longer than
// what was written until Close (or Truncate) cuts it to its size. Should
// the mapping fail (a filesystem that cannot map), the file goes on with
// write(2).
type mappedFile struct {
	*os.File
	data   []byte // the window: the mapping of the file from base
	base   int64  // the offset of data[0] in the file, a multiple of mapStep
	size   int64  // the bytes written
	direct bool   // no mapping: write(2)
}

// mapStep is what a mapped file grows by, and the least its window maps.
const mapStep = 1 << 20

// zeros is what a file grows by, a piece at a time.
var zeros [64 << 10]byte

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
	if len(p) == 0 {
		return 0, nil
	}
	if f.direct {
		n, err := f.File.WriteAt(p, f.size)
		f.size += int64(n)
		return n, err
	}
	end := f.size + int64(len(p))
	if end > f.base+int64(len(f.data)) { // with no window, base is 0: any write grows
		if err := f.grow(end); err != nil {
			return 0, err
		}
		if f.direct {
			return f.Write(p)
		}
	}
	copy(f.data[f.size-f.base:], p)
	f.size = end
	return len(p), nil
}

// grow makes the file at least end bytes long, and maps the window from
// base, the multiple of mapStep at or before the end written so far, to
// end, its length rounded up to a multiple of mapStep. base is a multiple
// of the page size, as mmap wants, and, once the file has grown from a
// length that was one, of the 64 KB pieces its zeros are written in: a
// window that started at the page of the end, 4 KB short of a piece's,
// took 3.8 times as many page faults, and a record 20-25% more time
// (BenchmarkLogFloor/grown: 110-114 ns against 86-95).
func (f *mappedFile) grow(end int64) error {
	base := f.size / mapStep * mapStep
	n := base + (end-base+mapStep-1)/mapStep*mapStep
	if err := f.unmap(); err != nil {
		return err
	}
	disk, err := fileSize(f.File)
	if err != nil {
		return err
	}
	for off := max(disk, f.size); off < n; {
		k, err := f.File.WriteAt(zeros[:min(int64(len(zeros)), n-off)], off)
		if err != nil {
			f.File.Truncate(max(disk, f.size)) // give back what was taken
			return err
		}
		off += int64(k)
	}
	data, err := syscall.Mmap(int(f.Fd()), base, int(n-base), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.direct = true // write(2) from now on; the zeros ahead are cut at Close
		return nil
	}
	f.data, f.base = data, base
	return nil
}

func (f *mappedFile) unmap() error {
	if f.data == nil {
		return nil
	}
	err := syscall.Munmap(f.data)
	f.data, f.base = nil, 0
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

// Linked reports whether the file still has a name.
func (f *mappedFile) Linked() (bool, error) {
	if f.File == nil {
		return false, os.ErrClosed
	}
	return linked(f.File)
}

// Close cuts the file to what was written and closes it.
func (f *mappedFile) Close() error {
	if f.File == nil {
		return os.ErrClosed
	}
	err := f.unmap()
	if disk, serr := fileSize(f.File); serr == nil && disk != f.size {
		err = errors.Join(err, f.File.Truncate(f.size))
	}
	err = errors.Join(err, f.File.Close())
	f.File = nil
	return err
}
