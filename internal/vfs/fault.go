package vfs

// Fault is a file system for crash tests: see its doc below. It is in the
// package, not in a test file, because the tests of two packages (the API's
// crash harness and the in-process engine's) use it.

import (
	"errors"
	"sync"
)

// Fault is a [Mem] that dies at its n-th event (a write, sync,
// create, rename, removal or directory sync): it then crashes the Mem, as a
// power failure (keeping a random part of what was not synced) or as a
// killed process (keeping everything written), and fails that event and
// every later one, so that the dead collection cannot touch what the next
// one opens.
//
// Set its fields before the first use, and N later only with Arm. Its
// methods are safe for concurrent use.
type Fault struct {
	// Mem is the file system that crashes.
	Mem *Mem
	// Kill crashes it as a killed process, keeping what was written;
	// otherwise as a power failure, keeping what Tear keeps of what was
	// written to each file since its last sync (Mem.CrashTearing).
	Kill bool
	Tear func(name string, unsynced []byte) []byte
	// N is the event that crashes it, counting from 1; 0 is none.
	N int

	mu     sync.Mutex
	events int
	dead   bool
}

// ErrDead is the error of every event of a Fault from its crash on.
var ErrDead = errors.New("vfs.Fault: the machine is down")

// Events returns the number of events so far.
func (f *Fault) Events() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events
}

// Dead reports whether it has crashed.
func (f *Fault) Dead() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dead
}

// Arm makes the n-th event, counting from the first ever, crash it: 0 is
// none. It may be called while the file system is in use.
func (f *Fault) Arm(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.N = n
}

// Crash crashes it now, if it has not crashed yet.
func (f *Fault) Crash() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.dead {
		f.crash()
	}
}

// event counts an event and crashes at the n-th; it reports whether the
// event may go on.
func (f *Fault) event() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dead {
		return ErrDead
	}
	f.events++
	if f.events == f.N {
		f.crash()
		return ErrDead
	}
	return nil
}

// crash crashes the Mem now. Call with mu held.
func (f *Fault) crash() {
	f.dead = true
	if f.Kill {
		f.Mem.Kill()
	} else {
		f.Mem.CrashTearing(f.Tear)
	}
}

// MkdirAll is Mem.MkdirAll: not an event.
func (f *Fault) MkdirAll(dir string) error { return f.Mem.MkdirAll(dir) }

// SyncDir is an event, then Mem.SyncDir.
func (f *Fault) SyncDir(dir string) error {
	if err := f.event(); err != nil {
		return err
	}
	return f.Mem.SyncDir(dir)
}

// OpenDir opens a directory whose creations, renames, removals and
// syncs, and whose files' writes and syncs, are events.
func (f *Fault) OpenDir(dir string) (Dir, error) {
	d, err := f.Mem.OpenDir(dir)
	return faultDir{d, f}, err
}

// faultDir is a directory of a Fault: its creations, renames, removals
// and syncs are events.
type faultDir struct {
	Dir
	f *Fault
}

func (d faultDir) Create(name string) (File, error) {
	if err := d.f.event(); err != nil {
		return nil, err
	}
	fl, err := d.Dir.Create(name)
	return faultFile{fl, d.f}, err
}

func (d faultDir) Open(name string) (File, error) {
	fl, err := d.Dir.Open(name)
	return faultFile{fl, d.f}, err
}

func (d faultDir) Rename(old, new string) error {
	if err := d.f.event(); err != nil {
		return err
	}
	return d.Dir.Rename(old, new)
}

func (d faultDir) Remove(name string) error {
	if err := d.f.event(); err != nil {
		return err
	}
	return d.Dir.Remove(name)
}

func (d faultDir) Sync() error {
	if err := d.f.event(); err != nil {
		return err
	}
	return d.Dir.Sync()
}

type faultFile struct {
	File
	f *Fault
}

func (fl faultFile) Write(p []byte) (int, error) {
	if err := fl.f.event(); err != nil {
		return 0, err
	}
	return fl.File.Write(p)
}

func (fl faultFile) Sync() error {
	if err := fl.f.event(); err != nil {
		return err
	}
	return fl.File.Sync()
}
