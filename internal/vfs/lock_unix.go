//go:build unix

package vfs

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// Lock locks the file name with flock(2), which the kernel releases when
// the process dies, however it dies. The lock belongs to the open file, so
// two opens in one process exclude each other too.
func (OS) Lock(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return f, nil // closing the file releases the lock
}
