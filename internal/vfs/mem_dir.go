package vfs

import (
	"io"
	"io/fs"
	"maps"
	"path"
	"strings"
)

// A directory of a [Mem] is an object (memDir), as a directory's inode is:
// a [Dir] open on it names its files wherever RenameDir moves it, and a
// MkdirAll of the old path makes another.

// OpenDir opens the directory dir: the [Dir] names the files of the
// directory object, wherever RenameDir moves it; once RemoveAll removed
// it, its calls fail with [fs.ErrNotExist], and once the Mem crashed (or
// was killed), with [ErrCrashed].
func (m *Mem) OpenDir(dir string) (Dir, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, _, err := m.dir(path.Join(dir, "x"), false)
	if err != nil {
		return nil, err
	}
	return &memDirFile{m, d, path.Clean(dir), m.gen}, nil
}

// memDirFile is a directory of a [Mem], open.
type memDirFile struct {
	fs   *Mem
	d    *memDir
	path string // the path it was opened by
	gen  int
}

// check fails when the directory was removed or the Mem crashed since the
// open. Call with mu held.
func (d *memDirFile) check(name string) error {
	if d.gen != d.fs.gen {
		return ErrCrashed
	}
	if d.d.gone {
		return &fs.PathError{Op: "open", Path: path.Join(d.path, name), Err: fs.ErrNotExist}
	}
	return nil
}

func (d *memDirFile) Create(name string) (File, error) {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check(name); err != nil {
		return nil, err
	}
	return d.fs.create(d.d, name, path.Join(d.path, name)), nil
}

func (d *memDirFile) Open(name string) (File, error) {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check(name); err != nil {
		return nil, err
	}
	return d.fs.open(d.d, name, path.Join(d.path, name))
}

func (d *memDirFile) Rename(old, new string) error {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check(old); err != nil {
		return err
	}
	return rename(d.d, old, d.d, new, path.Join(d.path, old))
}

func (d *memDirFile) Remove(name string) error {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check(name); err != nil {
		return err
	}
	return remove(d.d, name, path.Join(d.path, name))
}

func (d *memDirFile) List() ([]string, error) {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check("."); err != nil {
		return nil, err
	}
	return list(d.d), nil
}

func (d *memDirFile) Sync() error {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check("."); err != nil {
		return err
	}
	return d.fs.syncDir(d.d, d.path)
}

func (d *memDirFile) Lock(name string) (io.Closer, error) {
	d.fs.mu.Lock()
	defer d.fs.mu.Unlock()
	if err := d.check(name); err != nil {
		return nil, err
	}
	return d.fs.lock(d.d, name)
}

func (d *memDirFile) Path() string { return d.path }

func (d *memDirFile) Close() error { return nil }

// RenameDir renames the directory old, and the directories under it, to
// new, durably at once, as mv and a sync would: a [Dir] open on it follows
// it, and a MkdirAll of old makes another directory. It fails when old
// does not exist or new does.
func (m *Mem) RenameDir(old, new string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	old, new = path.Clean(old), path.Clean(new)
	if m.dirs[old] == nil {
		return &fs.PathError{Op: "rename", Path: old, Err: fs.ErrNotExist}
	}
	if m.dirs[new] != nil {
		return &fs.PathError{Op: "rename", Path: new, Err: fs.ErrExist}
	}
	if m.dirs[path.Dir(new)] == nil {
		return &fs.PathError{Op: "rename", Path: new, Err: fs.ErrNotExist}
	}
	moved := map[string]*memDir{}
	for p, d := range m.dirs {
		if p == old || strings.HasPrefix(p, old+"/") {
			moved[new+strings.TrimPrefix(p, old)] = d
			delete(m.dirs, p)
		}
	}
	maps.Copy(m.dirs, moved)
	return nil
}
