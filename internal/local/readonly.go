package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
)

// A read-only open (Config.ReadOnly) loads a durable collection's files
// into memory as they are, writing nothing and taking no lock, so that a
// tool reads a directory another process has open: the collection as of
// the open, which later changes of that process do not reach. It is safe
// because of how the files are written: a reader of a log that another
// process appends sees whole groups, then the group being written cut
// (a torn tail, which it leaves out, as those changes were not yet
// acknowledged or are not yet durable) or zeros; files are replaced by
// renames, and removed only once a newer snapshot holds what they held:
// the reader opens every file right after listing them, and reads the
// open files, which a removal does not take away; a file gone between the
// listing and its opening, or a chain of logs caught in a rotation, makes
// it list them again. Nothing is
// written: not the clock, not the cut of a torn tail, not the end of a
// log; the sweeper does not run; every call that writes is refused.

// openReadOnly opens the collection of cfg.Dir read-only: see above. It
// lists the files and opens them at once (pin), then reads them; it does
// so up to readOnlyTries times while what it finds is a file gone or
// damage, which a concurrent compaction or rotation can show for a
// moment.
func openReadOnly(cfg Config) (*Engine, error) {
	fsys := cfg.FS
	if fsys == nil {
		fsys = vfs.OS{}
	}
	dir := filepath.Clean(cfg.Dir)
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return nil, errorf(engine.ErrInvalidOption, "Options.Dir %q (read-only): %w", cfg.Dir, err)
	}
	defer d.Close()
	for try := 1; ; try++ {
		pd, err := pin(d)
		if err != nil {
			if try < readOnlyTries && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		x, err := open(Config{Name: cfg.Name, Path: cfg.Path, Documents: cfg.Documents, Now: cfg.Now, SweepBatch: cfg.SweepBatch, ManualSweep: true, Feed: cfg.Feed, Keep: cfg.Keep, Logger: cfg.Logger})
		if err != nil {
			pd.release()
			return nil, err
		}
		c := (*collection)(x)
		var rep VerifyReport
		err = c.loadFiles(context.Background(), pd, &rep)
		pd.release()
		if err == nil {
			c.recovery.LastLSN = c.seq
			if rep.Torn != "" {
				c.recovery.Truncated, c.recovery.Reason = rep.Torn, rep.TornReason+" (left out, not cut: read-only)"
			}
			if err = c.declareIndexes(nil); err == nil {
				c.readOnly = true
				return x, nil
			}
		}
		x.Close()
		if try >= readOnlyTries || !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, engine.ErrCorrupt) {
			return nil, err
		}
	}
}

// pinnedDir is a directory whose snapshots and logs were opened at once
// after one listing: its List gives those names, and its Open the files
// opened then, which a removal since does not take away (the file stays
// readable while open). Nothing is written through it.
type pinnedDir struct {
	vfs.Dir
	names []string
	files map[string]vfs.File
}

// pin lists d and opens its snapshots and logs. An error wrapping
// [io/fs.ErrNotExist] is a file removed between the two.
func pin(d vfs.Dir) (*pinnedDir, error) {
	names, err := d.List()
	if err != nil {
		return nil, errorf(engine.ErrInvalidOption, "%s: %w", d.Path(), err)
	}
	if err := unfinishedRestore(d.Path(), names); err != nil {
		return nil, err
	}
	pd := &pinnedDir{Dir: d, files: map[string]vfs.File{}}
	for _, name := range names {
		_, snap := fileEpoch(name, "snap-")
		_, log := fileEpoch(name, "log-")
		if !snap && !log {
			continue
		}
		f, err := vfs.OpenReadOnly(d, name) // never d.Open, whose Close cuts the file (internal/vfs)
		if err != nil {
			pd.release()
			return nil, errorf(engine.ErrInvalidOption, "%s: %w", inDir(d, name), err)
		}
		pd.names = append(pd.names, name)
		pd.files[name] = f
	}
	return pd, nil
}

// pinMore opens the file name too, which a listing since pin would give.
func (pd *pinnedDir) pinMore(name string) error {
	f, err := vfs.OpenReadOnly(pd.Dir, name)
	if err != nil {
		return err
	}
	pd.names = append(pd.names, name)
	pd.files[name] = f
	return nil
}

// List returns the names pinned.
func (pd *pinnedDir) List() ([]string, error) { return pd.names, nil }

// Open returns the file pinned under name, which its Close leaves open.
func (pd *pinnedDir) Open(name string) (vfs.File, error) {
	if f, ok := pd.files[name]; ok {
		return keptFile{f}, nil
	}
	return nil, fmt.Errorf("%s: %w", inDir(pd.Dir, name), fs.ErrNotExist)
}

// release closes the pinned files.
func (pd *pinnedDir) release() {
	for _, f := range pd.files {
		f.Close()
	}
}

// keptFile is a pinned file whose Close does nothing.
type keptFile struct{ vfs.File }

func (keptFile) Close() error { return nil }

// readOnlyTries is how many times openReadOnly reads the files at most
// (Options.ReadOnly's doc says five).
const readOnlyTries = 5

// errReadOnly is the refusal of op, a call that writes, on a collection
// opened read-only.
func (c *collection) errReadOnly(op string) error {
	return errorf(engine.ErrInvalidOption, "%s: collection %q was opened read-only (Options.ReadOnly), and nothing of it can be written: open it without ReadOnly, once no other process has its directory open", op, c.name)
}
