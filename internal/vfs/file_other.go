//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

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
