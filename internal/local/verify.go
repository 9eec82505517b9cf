package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
)

// VerifyReport is what [Verify] found in a directory: its files (name and
// size, in the order an open reads them, then those it would remove), the
// collection they hold, and the torn tail an open would cut, if any. The
// zero value is a directory not yet verified.
type VerifyReport struct {
	Files     []VerifiedFile
	Name      string
	Path      string
	Documents int // in the snapshot
	Changes   int // in the logs after it
	LastLSN   uint64
	Live      int // documents held once the logs are replayed, expired ones included
	// Torn is the log whose torn tail (a write a crash interrupted, never
	// acknowledged) an open would cut, at TornAt, with TornReason; empty
	// for none.
	Torn       string
	TornAt     int64
	TornReason string
}

// VerifiedFile is a file of a verified directory, its size (-1 when it
// could not be read); Leftover marks one an open removes (a snapshot being
// written, files before the newest snapshot). The zero value is no file.
type VerifiedFile struct {
	Name     string
	Size     int64
	Leftover bool
}

// Verify reads every file of the durable collection in dir as an open
// does, into a collection in memory that it then drops, and checks the
// result (Check), without writing to the directory: an open would cut a
// torn tail and sync; Verify reports it. It opens every file read-only.
// It locks the directory meanwhile, so that no collection opens it while
// it reads: a directory a collection has open is refused, as its files
// change under a reader. A directory whose LOCK it cannot open for writing
// (permission denied, a read-only file system) it locks without that file
// (the directory's own lock, vfs.DirLocker), which excludes the opens of
// this version on the same machine; only a collection of an older version
// of ttldb (which locks LOCK alone), or one on another NFS client, may then
// write as it reads, and show as damaged.
//
// It costs the time and memory of an open: O(n) for the n changes the
// files hold.
//
// ctx is looked at between two files.
//
// Errors: [engine.ErrCorrupt], as an [*engine.CorruptError] naming the
// file and the offset, for damage that an open refuses (a missing log
// included); [engine.ErrLocked]; [engine.ErrInvalidOption] for a directory
// that does not exist or holds no collection, or cannot be read.
func Verify(ctx context.Context, fsys vfs.FS, dir string, documents func(path string) (Parser, error)) (VerifyReport, error) {
	var rep VerifyReport
	if !ctxLive(ctx) {
		return rep, engine.ContextError(ctx, "Verify")
	}
	if fsys == nil {
		fsys = vfs.OS{}
	}
	dir = filepath.Clean(dir)
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return rep, errorf(engine.ErrInvalidOption, "verify %s: %w", dir, err)
	}
	defer d.Close()
	lock, err := d.Lock(LockName)
	switch {
	case errors.Is(err, vfs.ErrLocked):
		return rep, errorf(engine.ErrLocked, "verify %s: a collection has it open, whose files change as it runs: Close it first", dir)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		// A directory whose LOCK it cannot open for writing: it locks the
		// directory alone, if it can, so that no collection opens it.
		if dl, ok := d.(vfs.DirLocker); ok {
			lock, err := dl.LockDir()
			if errors.Is(err, vfs.ErrLocked) {
				return rep, errorf(engine.ErrLocked, "verify %s: a collection has it open, whose files change as it runs: Close it first", dir)
			}
			if err == nil {
				defer lock.Close()
			}
		}
	case err != nil:
		return rep, errorf(engine.ErrInvalidOption, "verify %s: locking it: %w", dir, err)
	default:
		defer lock.Close()
	}
	pd, err := pin(d) // every file read-only
	if err != nil {
		return rep, err
	}
	defer pd.release()
	x, err := Open(Config{Documents: documents, ManualSweep: true})
	if err != nil {
		return rep, err
	}
	defer x.Close()
	c := (*collection)(x)
	if err := c.loadFiles(ctx, pd, &rep); err != nil {
		return rep, err
	}
	rep.Changes, rep.LastLSN, rep.Live = c.recovery.Changes, c.seq, c.prim.len()
	if err := x.Check(); err != nil {
		return rep, &engine.CorruptError{File: dir, Offset: -1, Reason: err.Error()}
	}
	return rep, nil
}

// verifyLogs replays the logs of the snapshot of epoch s and after, as
// replayLogs does, writing nothing: what an open would cut or end is
// reported in rep, or refused.
func (c *collection) verifyLogs(ctx context.Context, d vfs.Dir, s uint64, logs []uint64, rep *VerifyReport) error {
	epoch := s
	ended := false
	for i := 0; i < len(logs); i++ {
		n := logs[i]
		if !ctxLive(ctx) {
			return engine.ContextError(ctx, "Verify")
		}
		name := inDir(d, LogName(n))
		if n != epoch {
			return missingLog(d, epoch, c.seq+1, n, LogName(n)+" follows it")
		}
		last := i == len(logs)-1
		tornOK := last || i == len(logs)-2 && logs[i+1] == n+1 && noGroups(d, LogName(n+1))
		f, err := d.Open(LogName(n))
		if err != nil {
			return errorf(engine.ErrInvalidOption, "%s: %w", name, err)
		}
		p := &replayer{file: name}
		res, err := c.replayLogFile(p, f)
		sz, _ := f.Size()
		rep.Files = append(rep.Files, VerifiedFile{Name: LogName(n), Size: sz})
		if err == nil && p.ended && p.next != n+1 {
			err = &engine.CorruptError{File: name, Offset: res.End, Reason: fmt.Sprintf("the log ends saying that the log of epoch %d follows it", p.next)}
		}
		if err == nil && res.End == 0 && res.Dropped == 0 && !last {
			err = &engine.CorruptError{File: name, Reason: "the log is empty, and later logs follow it"}
		}
		if err == nil && res.Dropped > 0 && !tornOK && !zeroTail(f, res) && !(i == len(logs)-2 && !p.ended && endTorn(f, res, c.seq, n+1)) {
			err = &engine.CorruptError{File: name, Offset: res.End, Reason: res.Reason + ", and later logs follow it: a log is synced whole before the next begins"}
		}
		if err == nil && res.Dropped > 0 && !zeroTail(f, res) {
			rep.Torn, rep.TornAt, rep.TornReason = name, res.End, res.Reason
		}
		f.Close()
		if err != nil {
			return err
		}
		ended = p.ended
		epoch++
		if pd, ok := d.(*pinnedDir); ok && ended && last && pd.pinMore(LogName(epoch)) == nil {
			logs = append(logs, epoch) // a rotation since the listing: the log it began follows
		}
	}
	switch {
	case epoch == s:
		return missingLog(d, s, c.seq+1, 0, SnapName(s)+" exists, written only once its log does")
	case ended:
		return missingLog(d, epoch, c.seq+1, 0, LogName(epoch-1)+" ends saying that it follows")
	}
	return nil
}

// loadFiles loads the files of the directory d into c, new and in memory,
// as an open does but writing nothing: the newest snapshot, then the logs
// after it (verifyLogs). It notes in rep the files, the collection's
// identity, and a torn tail. An error wrapping [io/fs.ErrNotExist] is a
// file gone between the listing and its reading (a compaction of the
// process that has the directory open).
func (c *collection) loadFiles(ctx context.Context, d vfs.Dir, rep *VerifyReport) error {
	dir := d.Path()
	names, err := d.List()
	if err != nil {
		return errorf(engine.ErrInvalidOption, "%s: %w", dir, err)
	}
	if err := unfinishedRestore(dir, names); err != nil {
		return err
	}
	var snaps, logs []uint64
	var leftovers []string
	for _, name := range names {
		if n, ok := fileEpoch(name, "snap-"); ok {
			snaps = append(snaps, n)
		} else if n, ok := fileEpoch(name, "log-"); ok {
			logs = append(logs, n)
		} else if strings.HasSuffix(name, TmpSuffix) {
			leftovers = append(leftovers, name)
		}
	}
	if len(snaps) == 0 {
		return errorf(engine.ErrInvalidOption, "%s holds no collection (no snapshot, snap-...)", dir)
	}
	s := slices.Max(snaps)
	size := func(name string) int64 {
		f, err := d.Open(name)
		if err != nil {
			return -1
		}
		defer f.Close()
		n, _ := f.Size()
		return n
	}
	rep.Files = append(rep.Files, VerifiedFile{Name: SnapName(s), Size: size(SnapName(s))})
	if _, err := c.loadSnapshot(d, s); err != nil {
		return err
	}
	rep.Name, rep.Path, rep.Documents = c.name, c.path, c.recovery.Documents
	var after []uint64
	for _, n := range logs {
		if n >= s {
			after = append(after, n)
		} else {
			leftovers = append(leftovers, LogName(n))
		}
	}
	for _, n := range snaps {
		if n < s {
			leftovers = append(leftovers, SnapName(n))
		}
	}
	if !ctxLive(ctx) {
		return engine.ContextError(ctx, "Verify")
	}
	if err := c.verifyLogs(ctx, d, s, after, rep); err != nil {
		return err
	}
	for _, name := range leftovers {
		rep.Files = append(rep.Files, VerifiedFile{Name: name, Size: size(name), Leftover: true})
	}
	return nil
}
