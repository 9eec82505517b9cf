//go:build unix

package vfs

import (
	"os"
	"syscall"
)

// linked reports whether f has a name left, from its link count: the
// kernel keeps the file of an open descriptor when its last name goes.
func linked(f *os.File) (bool, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return false, err
	}
	return st.Nlink > 0, nil
}
