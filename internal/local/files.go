package local

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// The files of a durable collection's directory (R12): LOCK, which the
// open collection locks, with the directory itself (whose lock holds when
// LOCK is removed); logs, of changes; snapshots, of the collection
// at an instant. They are numbered by epoch: a compaction starts a new
// epoch with a new log, and writes the snapshot of the collection as it was
// when that log began. The newest snapshot and the logs of its epoch and
// after hold the collection; older files are removed. How the files show
// that none of those logs is missing: logchain.go.

// LockName is the file a durable collection locks in its directory.
const LockName = "LOCK"

// TmpSuffix ends the name of a snapshot being written.
const TmpSuffix = ".tmp"

// snapshotGroup and snapshotBytes bound a group of a snapshot: recovery
// reads a group at once.
const (
	snapshotGroup = 4096
	snapshotBytes = 4 << 20
)

// errStopped: Close stopped a compaction, which left nothing behind.
var errStopped = errors.New("stopped by Close")

// LogName is the name of the log of epoch.
func LogName(epoch uint64) string { return fmt.Sprintf("log-%016x", epoch) }

// SnapName is the name of the snapshot of epoch.
func SnapName(epoch uint64) string { return fmt.Sprintf("snap-%016x", epoch) }

// inDir is the path of the file name of the directory d, for messages.
func inDir(d vfs.Dir, name string) string { return filepath.Join(d.Path(), name) }

// newLog creates the log of epoch in the directory d, with its header,
// durable.
func newLog(d vfs.Dir, epoch uint64) (vfs.File, error) {
	name := inDir(d, LogName(epoch))
	f, err := d.Create(LogName(epoch))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", name, err)
	}
	if _, err := f.Write(wal.Header()); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("syncing %s: %w", name, err)
	}
	if err := d.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("syncing directory %s: %w", d.Path(), err)
	}
	return f, nil
}

// listFiles returns the epochs of the snapshots and logs in the directory
// d, in order, and removes the temporary files a crash left.
func listFiles(d vfs.Dir) (snaps, logs []uint64, err error) {
	names, err := d.List()
	if err != nil {
		return nil, nil, errorf(engine.ErrInvalidOption, "Options.Dir %q: %w", d.Path(), err)
	}
	if err := unfinishedRestore(d.Path(), names); err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		if strings.HasSuffix(name, TmpSuffix) {
			d.Remove(name) // a snapshot never finished
			continue
		}
		if n, ok := fileEpoch(name, "snap-"); ok {
			snaps = append(snaps, n)
		} else if n, ok := fileEpoch(name, "log-"); ok {
			logs = append(logs, n)
		}
	}
	slices.Sort(snaps)
	slices.Sort(logs)
	return snaps, logs, nil
}

// fileEpoch parses the epoch of a file named prefix followed by 16
// hexadecimal digits.
func fileEpoch(name, prefix string) (uint64, bool) {
	hex, ok := strings.CutPrefix(name, prefix)
	if !ok || len(hex) != 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(hex, 16, 64)
	return n, err == nil
}

// removeBefore removes the snapshots and logs of the epochs before s,
// which the snapshot of s makes useless. A failure leaves files that a
// later compaction or open removes.
func removeBefore(d vfs.Dir, s uint64, snaps, logs []uint64) {
	removed := false
	for _, n := range snaps {
		if n < s {
			removed = d.Remove(SnapName(n)) == nil || removed
		}
	}
	for _, n := range logs {
		if n < s {
			removed = d.Remove(LogName(n)) == nil || removed
		}
	}
	if removed {
		d.Sync()
	}
}

// savedState returns the collection's state for a snapshot. Call with mu
// held.
func (c *collection) savedState() savedState {
	return savedState{
		name: c.name, path: c.path, etagBase: c.etagBase, tokenID: c.tokenID,
		seq: c.seq, last: c.last.Load(), mode: c.mode, def: c.exp.def,
		ownCut: c.exp.ownCut, cuts: slices.Clone(c.exp.cuts), docs: uint64(c.prim.len()),
		indexes: append(c.sec.paths(), c.sec.loaded...), // loaded: those an opening collection has yet to build
		gaps:    slices.Clone(c.gaps),
	}
}

// writeSnapshot writes the snapshot of epoch: the state st and docs, in the
// order of their LSNs, durably: to a temporary file, synced, then renamed,
// and the directory synced. It returns its size. stop or closing abandon
// it, and remove the temporary file. A group closes at snapshotGroup
// documents or snapshotBytes, whichever comes first: recovery reads a group
// at once.
func writeSnapshot(dir vfs.Dir, epoch uint64, st savedState, docs []*engine.Doc, etagBase uint64, stop, closing <-chan struct{}) (size int64, err error) {
	name := inDir(dir, SnapName(epoch))
	tmp := name + TmpSuffix
	f, err := dir.Create(SnapName(epoch) + TmpSuffix)
	if err != nil {
		return 0, fmt.Errorf("creating %s: %w", tmp, err)
	}
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			dir.Remove(SnapName(epoch) + TmpSuffix)
		}
	}()
	size, err = encodeSnapshot(f, st, docs, etagBase, func() error {
		select {
		case <-stop:
			return errStopped
		case <-closing:
			return errStopped
		default:
			return nil
		}
	})
	if errors.Is(err, errStopped) {
		return 0, err
	}
	if err != nil {
		return 0, fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := f.Truncate(size); err != nil { // of the space taken ahead of the writes (internal/vfs)
		return 0, fmt.Errorf("truncating %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("syncing %s: %w", tmp, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("closing %s: %w", tmp, err)
	}
	if err := dir.Rename(SnapName(epoch)+TmpSuffix, SnapName(epoch)); err != nil {
		return 0, fmt.Errorf("renaming %s: %w", tmp, err)
	}
	if err := dir.Sync(); err != nil {
		return 0, fmt.Errorf("syncing directory %s: %w", dir.Path(), err)
	}
	return size, nil
}

// encodeSnapshot writes to w a snapshot of the state st and docs, in the
// order of their LSNs, and returns its size: the wal header, a group of
// the state record and the first documents, groups of the others, and the
// end record, which counts them. After each group but the last it calls
// stopped, and returns its error if any. A group closes at snapshotGroup
// documents or snapshotBytes, whichever comes first: recovery reads a
// group at once.
func encodeSnapshot(w io.Writer, st savedState, docs []*engine.Doc, etagBase uint64, stopped func() error) (int64, error) {
	if _, err := w.Write(wal.Header()); err != nil {
		return 0, err
	}
	ww := wal.NewWriter(w, wal.HeaderSize)
	ww.Add(appendState(nil, st))
	var rec []byte
	pending := 0
	for _, d := range docs {
		rec = appendPut(rec[:0], d, d.Tag-etagBase, engine.OpCreate)
		if err := ww.Add(rec); err != nil {
			return 0, err
		}
		if pending += len(rec); ww.Pending() == snapshotGroup || pending >= snapshotBytes {
			pending = 0
			if _, err := ww.Commit(st.seq); err != nil {
				return 0, err
			}
			if err := stopped(); err != nil {
				return 0, err
			}
		}
	}
	ww.Add(appendEnd(nil, uint64(len(docs))))
	return ww.Commit(st.seq)
}

// Holds reports whether the directory dir holds a collection: a
// snapshot, which a collection's first open writes. It writes nothing. It
// fails with an [engine.CorruptError] for a directory a restore did not
// finish (restore.go), and with the error of a directory it cannot read.
func Holds(fsys vfs.FS, dir string) (bool, error) {
	if fsys == nil {
		fsys = vfs.OS{}
	}
	d, err := fsys.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer d.Close()
	names, err := d.List()
	if err != nil {
		return false, err
	}
	if err := unfinishedRestore(dir, names); err != nil {
		return false, err
	}
	for _, name := range names {
		if _, ok := fileEpoch(name, "snap-"); ok {
			return true, nil
		}
	}
	return false, nil
}
