package vfs

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ErrCrashed: a file opened before the last Crash of a [Mem].
var ErrCrashed = errors.New("vfs: file opened before the crash")

// Mem is a filesystem in memory that can crash: Crash keeps only what was
// synced (file bytes synced by Sync, names by SyncDir), and CrashKeeping
// also keeps a prefix of the bytes written since, as a torn write would.
// Directories made by MkdirAll, and moved by RenameDir, are durable at
// once. Paths are slash-separated and cleaned. Mem is safe for concurrent
// use; the zero Mem is empty and ready.
//
// FailWrite and FailSync, when set, are called before each write and sync
// with the file's path; an error they return fails the call, and a write
// that fails writes nothing.
type Mem struct {
	FailWrite func(name string) error
	FailSync  func(name string) error

	mu    sync.Mutex
	dirs  map[string]*memDir
	gen   int              // counts crashes: handles of an earlier one are dead
	locks map[any]*memLock // by the *memDir or *memNode locked
}

// memLock is a lock Lock took, of a directory and a file in it; a crash
// releases it, as the death of the process that held it would.
type memLock struct {
	fs   *Mem
	dir  *memDir
	node *memNode
	gen  int
}

// Lock locks the directory that holds the file name, and the file name,
// as [Dir.Lock] does.
func (m *Mem) Lock(name string) (io.Closer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.dir(name, false)
	if err != nil {
		return nil, err
	}
	return m.lock(d, base)
}

// lock locks the directory d and its file base, created if need be, until
// the lock is closed or the next crash. The locks belong to the directory
// and the file, not to their names, as flock(2)'s do: the directory stays
// locked when the file is removed or the directory renamed, and a new
// file of the name is another file. Call with mu held.
func (m *Mem) lock(d *memDir, base string) (io.Closer, error) {
	if m.locked(d) {
		return nil, ErrLocked
	}
	n := d.names[base]
	if n == nil {
		n = &memNode{}
		d.names[base] = n
	}
	if m.locked(n) {
		return nil, ErrLocked
	}
	if m.locks == nil {
		m.locks = map[any]*memLock{}
	}
	l := &memLock{fs: m, dir: d, node: n, gen: m.gen}
	m.locks[d], m.locks[n] = l, l
	return l, nil
}

// locked reports whether the directory or file held is locked since the
// last crash. Call with mu held.
func (m *Mem) locked(held any) bool {
	l, ok := m.locks[held]
	return ok && l.gen == m.gen
}

// Close releases the lock.
func (l *memLock) Close() error {
	l.fs.mu.Lock()
	defer l.fs.mu.Unlock()
	for _, held := range []any{l.dir, l.node} {
		if l.fs.locks[held] == l {
			delete(l.fs.locks, held)
		}
	}
	return nil
}

var _ FS = (*Mem)(nil)

// memDir is a directory: an object, which a rename of its path (RenameDir)
// moves, as a directory's inode is, so that a [Dir] open on it follows it.
type memDir struct {
	names  map[string]*memNode // now
	synced map[string]*memNode // as of the last SyncDir
	gone   bool                // removed (RemoveAll)
}

type memNode struct {
	data   []byte // now
	synced []byte // as of the last Sync
}

type memFile struct {
	fs   *Mem
	node *memNode
	name string
	gen  int
}

func newMemDir() *memDir {
	return &memDir{names: map[string]*memNode{}, synced: map[string]*memNode{}}
}

// dir returns the directory of name and name's last element. Call with mu
// held.
func (m *Mem) dir(name string, create bool) (*memDir, string, error) {
	if m.dirs == nil {
		m.dirs = map[string]*memDir{"/": newMemDir(), ".": newMemDir()}
	}
	dir, base := path.Split(path.Clean(name))
	dir = path.Clean(dir)
	d := m.dirs[dir]
	if d == nil {
		if !create {
			return nil, "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return nil, "", &fs.PathError{Op: "create", Path: name, Err: fs.ErrNotExist}
	}
	return d, base, nil
}

// Create creates or truncates the file name.
func (m *Mem) Create(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.dir(name, true)
	if err != nil {
		return nil, err
	}
	return m.create(d, base, path.Clean(name)), nil
}

// create creates or truncates the file base of d, whose path is name.
// Call with mu held.
func (m *Mem) create(d *memDir, base, name string) File {
	n := d.names[base]
	if n == nil {
		n = &memNode{}
		d.names[base] = n
	}
	n.data = nil
	return &memFile{m, n, name, m.gen}
}

// Open opens the existing file name.
func (m *Mem) Open(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.dir(name, false)
	if err != nil {
		return nil, err
	}
	return m.open(d, base, path.Clean(name))
}

// open opens the existing file base of d, whose path is name. Call with mu
// held.
func (m *Mem) open(d *memDir, base, name string) (File, error) {
	n := d.names[base]
	if n == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{m, n, name, m.gen}, nil
}

// Rename renames old to new, replacing new.
func (m *Mem) Rename(old, new string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	od, ob, err := m.dir(old, false)
	if err != nil {
		return err
	}
	nd, nb, err := m.dir(new, true)
	if err != nil {
		return err
	}
	return rename(od, ob, nd, nb, old)
}

// rename renames the file ob of od, whose path is old, to nb of nd. Call
// with mu held.
func rename(od *memDir, ob string, nd *memDir, nb, old string) error {
	n := od.names[ob]
	if n == nil {
		return &fs.PathError{Op: "rename", Path: old, Err: fs.ErrNotExist}
	}
	delete(od.names, ob)
	nd.names[nb] = n
	return nil
}

// Remove removes the file name.
func (m *Mem) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, base, err := m.dir(name, false)
	if err != nil {
		return err
	}
	return remove(d, base, name)
}

// remove removes the file base of d, whose path is name. Call with mu
// held.
func remove(d *memDir, base, name string) error {
	if d.names[base] == nil {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(d.names, base)
	return nil
}

// MkdirAll creates dir and its parents, durably.
func (m *Mem) MkdirAll(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs == nil {
		m.dirs = map[string]*memDir{"/": newMemDir(), ".": newMemDir()}
	}
	for d := path.Clean(dir); m.dirs[d] == nil; d = path.Dir(d) {
		m.dirs[d] = newMemDir()
	}
	return nil
}

// List returns the names of the files in dir, sorted.
func (m *Mem) List(dir string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, _, err := m.dir(path.Join(dir, "x"), false)
	if err != nil {
		return nil, err
	}
	return list(d), nil
}

// list returns the names of the files in d, sorted. Call with mu held.
func list(d *memDir) []string {
	var names []string
	for name := range d.names {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// SyncDir makes the names in dir durable.
func (m *Mem) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, _, err := m.dir(path.Join(dir, "x"), false)
	if err != nil {
		return err
	}
	return m.syncDir(d, path.Clean(dir))
}

// syncDir makes the names in d, whose path is dir, durable. Call with mu
// held.
func (m *Mem) syncDir(d *memDir, dir string) error {
	if m.FailSync != nil {
		if err := m.FailSync(dir); err != nil {
			return err
		}
	}
	d.synced = make(map[string]*memNode, len(d.names))
	for name, n := range d.names {
		d.synced[name] = n
	}
	return nil
}

// Crash loses what was not synced: every directory's names go back to
// their last SyncDir, and every file's bytes to its last Sync. Files
// opened before are dead: their calls return [ErrCrashed].
func (m *Mem) Crash() { m.CrashKeeping(nil) }

// CrashKeeping is Crash, but for each file keeps the first keep(name,
// unsynced) of the bytes written since its last Sync (0 when keep is nil),
// as a crash in the middle of writing them may.
func (m *Mem) CrashKeeping(keep func(name string, unsynced []byte) int) {
	var tear func(string, []byte) []byte
	if keep != nil {
		tear = func(name string, unsynced []byte) []byte {
			return unsynced[:min(max(keep(name, unsynced), 0), len(unsynced))]
		}
	}
	m.CrashTearing(tear)
}

// CrashTearing is Crash, but for each file keeps what tear returns of the
// bytes written since its last Sync (a copy it may change, of which it
// returns a prefix): a write torn out of order, its pages reaching the disk
// in any order, keeps some parts and loses others, as zeros.
func (m *Mem) CrashTearing(tear func(name string, unsynced []byte) []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
	done := map[*memNode]bool{}
	for dir, d := range m.dirs {
		d.names = make(map[string]*memNode, len(d.synced))
		for name, n := range d.synced {
			d.names[name] = n
			if done[n] {
				continue
			}
			done[n] = true
			var tail []byte
			if tear != nil && len(n.data) > len(n.synced) && bytes.Equal(n.data[:len(n.synced)], n.synced) {
				unsynced := slices.Clone(n.data[len(n.synced):])
				tail = tear(path.Join(dir, name), unsynced)
				tail = tail[:min(len(tail), len(unsynced))]
			}
			n.data = append(slices.Clone(n.synced), tail...)
		}
	}
}

func (f *memFile) check() error {
	if f.gen != f.fs.gen {
		return ErrCrashed
	}
	return nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(); err != nil {
		return 0, err
	}
	if f.fs.FailWrite != nil {
		if err := f.fs.FailWrite(f.name); err != nil {
			return 0, err
		}
	}
	f.node.data = append(f.node.data, p...)
	return len(p), nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, errors.New("vfs: negative offset")
	}
	if off >= int64(len(f.node.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.node.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	if f.fs.FailSync != nil {
		if err := f.fs.FailSync(f.name); err != nil {
			return err
		}
	}
	f.node.synced = slices.Clone(f.node.data)
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	if size < 0 {
		return errors.New("vfs: negative size")
	}
	if size <= int64(len(f.node.data)) {
		f.node.data = f.node.data[:size]
	} else {
		f.node.data = append(f.node.data, make([]byte, size-int64(len(f.node.data)))...)
	}
	return nil
}

func (f *memFile) Size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(); err != nil {
		return 0, err
	}
	return int64(len(f.node.data)), nil
}

// Linked reports whether the file still has a name, in any directory.
func (f *memFile) Linked() (bool, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check(); err != nil {
		return false, err
	}
	for _, d := range f.fs.dirs {
		for _, n := range d.names {
			if n == f.node {
				return true, nil
			}
		}
	}
	return false, nil
}

func (f *memFile) Close() error { return nil }

// RemoveAll removes the directory dir, the directories under it and their
// files, durably at once, as rm -rf and a sync would: the files open stay
// readable and writable, but have no name ([File.Linked] is false), and a
// crash or a later open finds none of them.
func (m *Mem) RemoveAll(dir string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir = path.Clean(dir)
	for d := range m.dirs {
		if d == dir || strings.HasPrefix(d, dir+"/") {
			m.dirs[d].gone = true
			delete(m.dirs, d)
		}
	}
}

// Kill is the death of the process using the filesystem, the machine
// running on: nothing written is lost (the kernel has it), but the files
// opened before are dead, their calls return [ErrCrashed], and the locks
// are released.
func (m *Mem) Kill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gen++
}
