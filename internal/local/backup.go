package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// A backup (R17) is a snapshot file, the one format an open reads: the wal
// header (magic and format version), the state record (identity,
// settings, R7's cut-offs, the last LSN, the clock, the index paths), the
// documents in the order of their LSNs, and the end record that counts
// them, in groups each closed by a checksummed commit frame. So a backup
// checks itself as a snapshot does: a stream cut anywhere lacks its end
// record, or ends inside a group; a damaged byte fails its frame's
// checksum; either is an [engine.CorruptError] naming the offset. Restore
// makes of it the directory an open reads, as bbolt's Tx.WriteTo writes a
// database file, rather than a stream of writes to replay, as Badger's
// backup is: a restore then costs a copy and one check, and what it gives
// is the collection the backup's instant held, LSNs and etags included,
// not one whose writes were made again.

// Backup implements [engine.Backuper]: it writes the collection as of one
// instant to w. It takes that instant in O(1) under the lock, as a
// compaction does (a view and the start of a walk of the key map, which
// Backup and compactions take one at a time), reads the key map a few
// tables per hold of the lock, letting waiting callers go first between
// two (R5), then writes without the lock. It costs O(n log n) for n
// documents, and the memory of a pointer each while it runs; writers go
// on meanwhile, and what they write is not in the backup.
//
// Errors: [engine.ErrInvalidOption] for a nil w; [engine.ErrClosed] when
// the collection closes before or while it writes; ctx's error, wrapped,
// checked between groups; w's error, wrapped. After an error what w got is
// not a whole backup, and Restore refuses it.
func (x *Engine) Backup(ctx context.Context, w io.Writer) (engine.BackupInfo, error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.BackupInfo{}, engine.ContextError(ctx, "Backup")
	}
	if w == nil {
		return engine.BackupInfo{}, errorf(engine.ErrInvalidOption, "Backup of collection %q to a nil io.Writer", c.name)
	}
	select {
	case c.walking <- struct{}{}:
	case <-ctx.Done():
		return engine.BackupInfo{}, engine.ContextError(ctx, "Backup")
	case <-c.stop:
		return engine.BackupInfo{}, c.errClosed("Backup")
	}
	c.lock()
	if c.unusable() {
		c.mu.Unlock()
		<-c.walking
		return engine.BackupInfo{}, c.errClosed("Backup")
	}
	s := c.openView()
	wk := c.startWalk()
	st := c.savedState()
	c.mu.Unlock()
	docs, err := c.snapshotDocs("Backup", s, wk, st.docs)
	s.release()
	<-c.walking
	if err != nil {
		return engine.BackupInfo{}, err
	}
	if !ctxLive(ctx) {
		return engine.BackupInfo{}, engine.ContextError(ctx, "Backup")
	}
	info := engine.BackupInfo{Name: st.name, PartitionKeyPath: st.path, LastLSN: st.seq, Documents: len(docs)}
	var stopped error
	size, err := encodeSnapshot(w, st, docs, c.etagBase, func() error {
		switch {
		case !ctxLive(ctx):
			stopped = engine.ContextError(ctx, "Backup")
		case c.unusable():
			stopped = c.errClosed("Backup")
		}
		return stopped
	})
	switch {
	case stopped != nil:
		return engine.BackupInfo{}, stopped
	case err != nil:
		return engine.BackupInfo{}, fmt.Errorf("ttldb: Backup of collection %q: writing: %w", c.name, err)
	}
	info.Bytes = size
	return info, nil
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
// r: it must not exist, or hold nothing but a LOCK file; Restore locks it
// meanwhile. It copies r to a temporary file, synced, loads that file as
// an open would, into a collection in memory that it then drops (every
// record parsed, every document checked: the time and memory of an open),
// and only then gives it its name, beside an empty log (logchain.go). A
// backup refused, or a failure, leaves no file of the collection behind
// (the directory, made if need be, stays). A crash while it runs leaves a
// temporary file, which an open removes.
//
// Errors: [engine.ErrCorrupt] as an [*engine.CorruptError] whose File is
// cfg.Source and Offset the offset in the stream, for a backup cut short,
// damaged, or followed by more bytes; [engine.ErrLocked] for a directory
// a collection has open; [engine.ErrInvalidOption] for a directory that
// holds files, or cannot be made or written (wrapping the error); r's
// error, wrapped; ctx's, checked every MiB.
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
	if err := fsys.MkdirAll(dir); err != nil {
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: %w", cfg.Dir, err)
	}
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: %w", cfg.Dir, err)
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
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: %w", cfg.Dir, err)
	}
	for _, n := range names {
		if n != LockName {
			return info, errorf(engine.ErrInvalidOption, "Restore into %s: the directory holds %s: restore into a new or empty directory (a restore never merges with, or replaces, what a directory holds)", dir, n)
		}
	}
	tmp := SnapName(0) + TmpSuffix
	made := []string{tmp}
	defer func() {
		if err != nil {
			for _, n := range made {
				d.Remove(n)
			}
			d.Sync()
		}
	}()
	if err := copyBackup(ctx, d, tmp, r, cfg.Source); err != nil {
		return info, err
	}
	info, err = checkBackup(d, tmp, cfg)
	if err != nil {
		return info, err
	}
	made = append(made, LogName(0))
	f, err := newLog(d, 0) // the log first: a snapshot without its log lost it
	if err != nil {
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: %w", cfg.Dir, err)
	}
	f.Close()
	made = append(made, SnapName(0))
	if err := d.Rename(tmp, SnapName(0)); err != nil {
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: %w", cfg.Dir, err)
	}
	if err := d.Sync(); err != nil {
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: syncing it: %w", cfg.Dir, err)
	}
	if err := fsys.SyncDir(filepath.Dir(dir)); err != nil {
		return info, errorf(engine.ErrInvalidOption, "Restore into %q: syncing its parent: %w", cfg.Dir, err)
	}
	return info, nil
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
// memory, which it closes, and returns what it held.
func checkBackup(d vfs.Dir, name string, cfg RestoreConfig) (engine.BackupInfo, error) {
	x, err := Open(Config{Documents: cfg.Documents, ManualSweep: true})
	if err != nil {
		return engine.BackupInfo{}, err
	}
	defer x.Close()
	c := (*collection)(x)
	size, err := c.loadSnapshotFile(d, name, cfg.Source)
	var ce *engine.CorruptError
	switch {
	case errors.As(err, &ce):
		return engine.BackupInfo{}, err
	case errors.Is(err, fs.ErrNotExist):
		return engine.BackupInfo{}, errorf(engine.ErrInvalidOption, "Restore: %w", err)
	case err != nil:
		return engine.BackupInfo{}, err
	}
	if size == 0 || size < wal.HeaderSize {
		return engine.BackupInfo{}, &engine.CorruptError{File: cfg.Source, Offset: 0, Reason: "empty"}
	}
	return engine.BackupInfo{Name: c.name, PartitionKeyPath: c.path, LastLSN: c.seq, Documents: c.recovery.Documents, Bytes: size}, nil
}
