//go:build unix

package vfs

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// Lock locks the directory and the file name in it, created if need be,
// with flock(2), which the kernel releases when the process dies, however
// it dies. The locks belong to the open files (the directory's opened
// again through the root, so that the lock is its own), so two opens in
// one process exclude each other too. The directory's lock is the one that
// holds when the file is removed (by a person or a cleanup script): a new
// file of that name would be another file, free to lock. The file's lock
// is the one older versions of ttldb take, and the one that holds across
// machines on NFS, where a directory's flock is only the client's.
func (d *osDir) Lock(name string) (io.Closer, error) {
	dir, err := d.lockDir()
	if err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		dir.Close()
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		dir.Close()
		return nil, err
	}
	return osLock{dir, f}, nil
}

// LockDir locks the directory alone, as Lock does first: a Lock of any
// name in it then fails with [ErrLocked] until the lock is closed.
func (d *osDir) LockDir() (io.Closer, error) {
	dir, err := d.lockDir()
	if err != nil {
		return nil, err
	}
	return dir, nil
}

// lockDir opens the directory and locks it.
func (d *osDir) lockDir() (*os.File, error) {
	dir, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	if err := flock(dir); err != nil {
		dir.Close()
		return nil, err
	}
	return dir, nil
}

// flock locks f, exclusively, without waiting: [ErrLocked] when another
// open file holds a lock on it.
func flock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrLocked
	}
	return err
}

// osLock is the directory and the file Lock locked: closing them releases
// the locks.
type osLock struct{ dir, file *os.File }

func (l osLock) Close() error {
	return errors.Join(l.file.Close(), l.dir.Close())
}
