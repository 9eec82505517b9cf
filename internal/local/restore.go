package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// A restored collection (R17) is a collection of its own, not the
// original: after the backup, the original and the copy each go on
// writing, and what either gives out must never name a version of the
// other. So a restore gives the copy:
//
//   - a new token ID: the original's continuation tokens (of listings,
//     queries and the feed) are refused as another collection's;
//   - a jump of its LSNs: the copy numbers its changes from the backup's
//     last LSN L plus restoreJump or more (drawn at random), and records
//     the gap (L, L+jump) in its state. A document's etag is the etag base
//     plus its LSN (seq.go), so the documents restored keep their etags
//     (an etag read before the backup still matches), while the copy's own
//     writes get etags the original would give only after 2^44 writes more
//     than the backup held, and two restores of one backup share one only
//     by a chance of about their writes in 2^44. An LSN the original gave
//     after the backup, passed to the copy as a feed position (AfterLSN),
//     falls in the gap and is refused (inGap), not taken for the copy's
//     own change of that number. Only a position given out before the
//     backup resumes safely: a latest-version position up to L given out
//     after it may be past a document the original rewrote since.
//
// A restore is marked, from before its first file to after its last is
// durable, by the file RestoringName, which an open, a read-only open and
// Verify refuse: a crash after the mark is durable leaves a directory that
// opens as no collection (restore into it again to finish); a crash before
// leaves it absent or empty (or holding only LOCK), which an open takes for
// a new empty collection.

// RestoringName is the file that marks a directory a restore is writing.
const RestoringName = "RESTORING"

// unfinishedRestore refuses the directory dir, whose files are names,
// when a restore into it did not finish.
func unfinishedRestore(dir string, names []string) error {
	if !slices.Contains(names, RestoringName) {
		return nil
	}
	return &engine.CorruptError{File: filepath.Join(dir, RestoringName), Offset: -1, Reason: "a restore (ttldb.Restore) into this directory did not finish, so it holds no whole collection: restore into it again, or remove the directory"}
}

// restoreCopy is the name of the copy of the backup a restore checks.
const restoreCopy = "backup" + TmpSuffix

// restoreJump is the least jump of a restored collection's LSNs; it draws
// one from restoreJump to 2 restoreJump.
const restoreJump = 1 << 44

// lsnGap is the LSNs from+1 to to-1, which a restore skipped: from was the
// backup's last LSN, to the copy's first last LSN.
type lsnGap struct{ from, to uint64 }

// inGap refuses a feed position after that lies in a gap of c's LSNs: one
// that the collection this one was restored from gave out after its backup.
// Call it with mu held.
func (c *collection) inGap(after uint64) error {
	for _, g := range c.gaps {
		if g.from < after && after < g.to {
			return &engine.FeedTrimmed{After: after, Oldest: c.seqGapEnd() + 1, Gap: fmt.Sprintf(
				"LSN %d is not a position of collection %q, which was restored from a backup of LSN %d and numbers its own changes from %d: it was given out by the collection backed up, after the backup, so the changes %d to %d that its reader applied are not here: read the feed again from the beginning (TrimmedError.Continuation reads only the copy's own changes, from LSN %d)",
				after, c.name, g.from, g.to+1, g.from+1, after, c.seqGapEnd()+1)}
		}
	}
	return nil
}

// seqGapEnd returns the end of the last gap of c's LSNs: the last LSN of
// its last restore, its own changes following. Call it with mu held.
func (c *collection) seqGapEnd() uint64 {
	if len(c.gaps) == 0 {
		return 0
	}
	return c.gaps[len(c.gaps)-1].to
}

// pastGaps returns the position after, moved to the end of each gap that
// starts at it: no change was made between (R17). Call it with mu held.
func (c *collection) pastGaps(after uint64) uint64 {
	for _, g := range c.gaps { // oldest first
		if after == g.from {
			after = g.to
		}
	}
	return after
}

// RestoreConfig is what [Restore] restores into. Dir and Documents (as
// [Config]'s) are required: the zero value is refused. FS is the
// filesystem, nil for the operating system's; Source names the backup in
// errors ("" is "the backup").
type RestoreConfig struct {
	Dir       string
	Documents func(path string) (Parser, error)
	FS        vfs.FS
	Source    string
}

// Restore makes the directory cfg.Dir hold the collection of the backup
// r: it must not exist, hold nothing but a LOCK file, or be one a restore
// did not finish (marked by RestoringName), whose files it removes;
// Restore locks it meanwhile. It marks the directory, copies r to a
// temporary file, synced, loads that file as an open would into a
// collection in memory (every record parsed, every document checked),
// gives that collection a token ID and LSNs of its own (see above), writes
// it as the directory's snapshot beside an empty log, and removes the
// mark once all is durable. It costs the time and memory of an open and
// twice the writes of the backup's size. A backup refused, or a failure,
// leaves no file of the collection behind (the directory, made if need
// be, stays); a crash after the mark is durable leaves it, so that the
// directory opens as no collection until a restore into it finishes; a
// crash before leaves the directory absent or empty.
//
// Errors: [engine.ErrCorrupt] as an [*engine.CorruptError] whose File is
// cfg.Source and Offset the offset in the stream, for a backup cut short,
// damaged, or followed by more bytes; [engine.ErrLocked] for a directory
// a collection has open; [engine.ErrInvalidOption] for a directory that
// holds files, or cannot be made or written (wrapping the error), or a
// backup whose LSNs leave no room for a copy's; r's error, wrapped; ctx's,
// checked every MiB and every snapshot group.
func Restore(ctx context.Context, r io.Reader, cfg RestoreConfig) (info engine.BackupInfo, err error) {
	if !ctxLive(ctx) {
		return info, engine.ContextError(ctx, "Restore")
	}
	if cfg.Dir == "" || cfg.Documents == nil || r == nil {
		return info, errorf(engine.ErrInvalidOption, "Restore needs a backup to read, a directory and a parser of documents")
	}
	if cfg.Source == "" {
		cfg.Source = "the backup"
	}
	fsys := cfg.FS
	if fsys == nil {
		fsys = vfs.OS{}
	}
	dir := filepath.Clean(cfg.Dir)
	failed := func(err error) error { return errorf(engine.ErrInvalidOption, "Restore into %q: %w", cfg.Dir, err) }
	if err := fsys.MkdirAll(dir); err != nil {
		return info, failed(err)
	}
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return info, failed(err)
	}
	defer d.Close()
	lock, err := d.Lock(LockName)
	if err != nil {
		if errors.Is(err, vfs.ErrLocked) {
			return info, errorf(engine.ErrLocked, "Restore into %s: a collection has it open", dir)
		}
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: locking it: %w", cfg.Dir, err)
	}
	defer lock.Close()
	names, err := d.List()
	if err != nil {
		return info, failed(err)
	}
	unfinished := slices.Contains(names, RestoringName)
	for _, n := range names {
		if n != LockName && !unfinished {
			return info, errorf(engine.ErrInvalidOption, "Restore into %s: the directory holds %s: restore into a new or empty directory (a restore never merges with, or replaces, what a directory holds)", dir, n)
		}
	}
	defer func() {
		if err != nil {
			unmark(d, names)
		}
	}()
	if unfinished { // the files of a restore that did not finish: they go, the mark stays
		for _, n := range names {
			if n != LockName && n != RestoringName {
				if err := d.Remove(n); err != nil {
					return info, failed(fmt.Errorf("removing %s, left by a restore that did not finish: %w", n, err))
				}
			}
		}
	} else if err := mark(fsys, d); err != nil {
		return info, failed(err)
	}
	names = []string{restoreCopy, LogName(0), SnapName(0) + TmpSuffix, SnapName(0), RestoringName}
	if err := copyBackup(ctx, d, restoreCopy, r, cfg.Source); err != nil {
		return info, err
	}
	x, info, err := checkBackup(d, restoreCopy, cfg)
	if err != nil {
		return info, err
	}
	defer x.Close()
	f, err := newLog(d, 0) // the log first: a snapshot without its log lost it
	if err != nil {
		return info, failed(err)
	}
	f.Close()
	if err := writeRestored(ctx, d, (*collection)(x)); err != nil {
		return info, err
	}
	if err := d.Remove(restoreCopy); err != nil {
		return info, failed(err)
	}
	if err := d.Sync(); err != nil { // all but the mark
		return info, failed(fmt.Errorf("syncing it: %w", err))
	}
	if err := d.Remove(RestoringName); err != nil {
		return info, failed(err)
	}
	if err := d.Sync(); err != nil {
		return info, failed(fmt.Errorf("syncing it: %w", err))
	}
	if err := fsys.SyncDir(filepath.Dir(dir)); err != nil {
		return info, failed(fmt.Errorf("syncing its parent: %w", err))
	}
	return info, nil
}

// mark creates the mark of a restore in d, durably, the directory's name
// too.
func mark(fsys vfs.FS, d vfs.Dir) error {
	f, err := d.Create(RestoringName)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte("A restore (ttldb.Restore) into this directory has not finished: restore into it again.\n"))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.Sync()
	}
	if err == nil {
		err = fsys.SyncDir(filepath.Dir(d.Path()))
	}
	return err
}

// unmark removes the files of a restore that failed, names, and then its
// mark, only if all of them went.
func unmark(d vfs.Dir, names []string) {
	for _, n := range names {
		if n != RestoringName && n != LockName {
			if err := d.Remove(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return
			}
		}
	}
	if d.Sync() == nil {
		d.Remove(RestoringName)
		d.Sync()
	}
}

// writeRestored gives c, loaded from a backup, a token ID and LSNs of its
// own, and writes it as the snapshot of epoch 0 of d.
func writeRestored(ctx context.Context, d vfs.Dir, c *collection) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	jump := restoreJump + rand.Uint64N(restoreJump)
	if c.seq > math.MaxUint64/2 || len(c.gaps) >= math.MaxUint16 {
		return errorf(engine.ErrInvalidOption, "Restore of collection %q: its last LSN, %d, after %d restores, leaves no room for the LSNs of a copy of its own", c.name, c.seq, len(c.gaps))
	}
	for old := c.tokenID; c.tokenID == old || c.tokenID == 0; {
		c.tokenID = rand.Uint64()
	}
	c.gaps = append(c.gaps, lsnGap{from: c.seq, to: c.seq + jump})
	c.seq += jump
	docs := make([]*engine.Doc, 0, c.prim.len())
	c.prim.keys.each(func(d *engine.Doc, _ *entry) { docs = append(docs, d) })
	slices.SortFunc(docs, func(a, b *engine.Doc) int { return cmp.Compare(c.seqOf(a), c.seqOf(b)) })
	_, err := writeSnapshot(d, 0, c.savedState(), docs, c.etagBase, ctx.Done(), nil)
	switch {
	case errors.Is(err, errStopped):
		return engine.ContextError(ctx, "Restore")
	case err != nil:
		return errorf(engine.ErrInvalidOption, "Restore into %s: %w", d.Path(), err)
	}
	return nil
}

// copyBackup copies r into the new file name of d, synced, and cut to what
// it wrote, looking at ctx every MiB.
func copyBackup(ctx context.Context, d vfs.Dir, name string, r io.Reader, source string) error {
	f, err := d.Create(name)
	if err != nil {
		return errorf(engine.ErrInvalidOption, "Restore: creating %s: %w", inDir(d, name), err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var size int64
	for {
		if !ctxLive(ctx) {
			return engine.ContextError(ctx, "Restore")
		}
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			if _, err := f.Write(buf[:n]); err != nil {
				return errorf(engine.ErrInvalidOption, "Restore: writing %s: %w", inDir(d, name), err)
			}
			size += int64(n)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("ttldb: Restore: reading %s at offset %d: %w", source, size, rerr)
		}
	}
	if err := f.Truncate(size); err != nil { // of the space taken ahead of the writes (internal/vfs)
		return errorf(engine.ErrInvalidOption, "Restore: truncating %s: %w", inDir(d, name), err)
	}
	if err := f.Sync(); err != nil {
		return errorf(engine.ErrInvalidOption, "Restore: syncing %s: %w", inDir(d, name), err)
	}
	return nil
}

// checkBackup loads the backup in the file name of d into a collection in
// memory, which it returns open, and returns what it held.
func checkBackup(d vfs.Dir, name string, cfg RestoreConfig) (*Engine, engine.BackupInfo, error) {
	x, err := Open(Config{Documents: cfg.Documents, ManualSweep: true})
	if err != nil {
		return nil, engine.BackupInfo{}, err
	}
	c := (*collection)(x)
	size, err := c.loadSnapshotFile(d, name, cfg.Source)
	var ce *engine.CorruptError
	switch {
	case errors.As(err, &ce):
	case errors.Is(err, fs.ErrNotExist):
		err = errorf(engine.ErrInvalidOption, "Restore: %w", err)
	case err == nil && size < wal.HeaderSize:
		err = &engine.CorruptError{File: cfg.Source, Offset: 0, Reason: "empty"}
	}
	if err != nil {
		x.Close()
		return nil, engine.BackupInfo{}, err
	}
	return x, engine.BackupInfo{Name: c.name, PartitionKeyPath: c.path, LastLSN: c.seq, Documents: c.recovery.Documents, Bytes: size}, nil
}
