//go:build !unix

package vfs

import (
	"io"
	"os"
	"path/filepath"
	"sync"
)

// held are the directories this process has locked. Without flock(2), the
// lock only excludes the users of one process: two processes are not kept
// apart on these systems.
var held sync.Map

type osLock struct {
	f    *os.File
	dir  string
	once sync.Once
}

// Lock locks the directory within this process, by the absolute path it
// was opened by, and creates the file name in it if need be: the lock
// holds when the file is removed.
func (d *osDir) Lock(name string) (io.Closer, error) {
	abs, err := filepath.Abs(d.path)
	if err != nil {
		return nil, err
	}
	if _, loaded := held.LoadOrStore(abs, true); loaded {
		return nil, ErrLocked
	}
	f, err := d.root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		held.Delete(abs)
		return nil, err
	}
	return &osLock{f: f, dir: abs}, nil
}

func (l *osLock) Close() error {
	var err error
	l.once.Do(func() {
		err = l.f.Close()
		held.Delete(l.dir)
	})
	return err
}

// LockDir locks the directory alone within this process, as Lock does
// first: a Lock of any name in it then fails with [ErrLocked] until the
// lock is closed.
func (d *osDir) LockDir() (io.Closer, error) {
	abs, err := filepath.Abs(d.path)
	if err != nil {
		return nil, err
	}
	if _, loaded := held.LoadOrStore(abs, true); loaded {
		return nil, ErrLocked
	}
	return dirLock(abs), nil
}

// dirLock is a directory LockDir locked, by its absolute path.
type dirLock string

func (l dirLock) Close() error {
	held.Delete(string(l))
	return nil
}
