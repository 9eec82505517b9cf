package local

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// openDir opens the directory of a durable collection, made by
// NewCollection but not yet started: a new one gets a snapshot of the
// collection as made; an existing one replaces the collection's state
// with its own. Then the collection writes its changes there.
func (c *collection) openDir(o *Config) (err error) {
	fsys := o.FS
	if fsys == nil {
		fsys = vfs.OS{}
	}
	dir := filepath.Clean(o.Dir)
	if err := fsys.MkdirAll(dir); err != nil {
		return errorf(engine.ErrInvalidOption, "Options.Dir %q: %w", o.Dir, err)
	}
	// The directory, open once: every file of the collection is named in
	// it from now on, not by path, so that its files stay where its lock
	// is whatever happens to the path (a rename of the directory, another
	// directory made at the path).
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return errorf(engine.ErrInvalidOption, "Options.Dir %q: %w", o.Dir, err)
	}
	lock, err := d.Lock(LockName)
	if err != nil {
		d.Close()
		if errors.Is(err, vfs.ErrLocked) {
			return errorf(engine.ErrLocked, "%s is used by another open collection, of this process or another: Close it first (R12)", dir)
		}
		return errorf(engine.ErrInvalidOption, "Options.Dir %q: locking it: %w", o.Dir, err)
	}
	j := &journal{dir: d, policy: o.Sync, lock: lock, cut: -1, wake: c.feed.wakeAll}
	defer func() {
		if err != nil {
			if j.file != nil {
				j.file.Close()
			}
			lock.Close()
			d.Close()
		}
	}()
	snaps, logs, err := listFiles(d)
	if err != nil {
		return err
	}
	if len(snaps) == 0 {
		if len(logs) > 1 || len(logs) == 1 && (logs[0] != 0 || !noGroups(d, LogName(0))) {
			return &engine.CorruptError{File: dir, Offset: -1, Reason: fmt.Sprintf("%d logs and no snapshot: the snapshot was removed", len(logs))}
		}
		// A new directory, or one whose first open a crash interrupted
		// before its snapshot: its log holds nothing. The log comes first
		// (logchain.go).
		if c.name == "" || c.path == "" { // Open checked it; the files may have gone since
			return errorf(engine.ErrInvalidOption, "%s holds no collection, and a new one needs Options.Name and Options.PartitionKeyPath (R12)", dir)
		}
		if j.file, err = newLog(d, 0); err != nil {
			return err
		}
		size, err := writeSnapshot(d, 0, c.savedState(), nil, c.etagBase, nil, nil)
		if err != nil {
			return err
		}
		if err := fsys.SyncDir(filepath.Dir(dir)); err != nil { // the directory's own name
			return errorf(engine.ErrInvalidOption, "Options.Dir %q: syncing its parent: %w", o.Dir, err)
		}
		j.snap.Store(size)
		j.logs.Store(wal.HeaderSize)
		j.off = wal.HeaderSize
		j.syncedOff.Store(wal.HeaderSize)
		c.j = j
		return nil
	}
	s := slices.Max(snaps)
	size, err := c.loadSnapshot(d, s)
	if err != nil {
		return err
	}
	j.snap.Store(size)
	f, epoch, err := c.replayLogs(j, s, logs)
	if err != nil {
		return err
	}
	// Before anything is written but a crash's repair (logchain.go).
	if err := c.checkSettings(dir, o); err != nil {
		f.Close()
		return err
	}
	end, err := f.Size()
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, filepath.Join(dir, LogName(epoch-1)), err)
	}
	// What the last process wrote it may not have synced, nor the name of
	// its last log: both are durable before anything is built on them.
	err = f.Sync()
	if err == nil {
		err = d.Sync()
	}
	if err == nil { // the directory's own name, which a killed creator may not have synced
		err = fsys.SyncDir(filepath.Dir(dir))
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, filepath.Join(dir, LogName(epoch-1)), err)
	}
	j.off = end
	j.syncedOff.Store(end)
	j.file, j.epoch = f, epoch-1
	j.rotated.Store(epoch - 1)
	j.visible.Store(c.seq)
	j.wlsn, j.pendLSN = c.seq, c.seq
	var live int64
	c.prim.keys.each(func(d *engine.Doc, _ *entry) { live += diskSize(d) })
	j.live.Store(live)
	c.j = j
	c.recovery.LastLSN = c.seq
	removeBefore(d, s, snaps, logs) // leftovers of a compaction a crash interrupted
	return nil
}

// replayLogs replays the logs of the snapshot of epoch s and after, of
// those in logs, and returns the last open, and the epoch after it. A log
// missing is damage (logchain.go): the snapshot's own, one between two,
// one that the last says follows it. The log before the last, when it
// does not say that the last follows, it ends so, durably.
func (c *collection) replayLogs(j *journal, s uint64, logs []uint64) (f vfs.File, epoch uint64, err error) {
	dir := j.dir
	var prev vfs.File // the log before f
	var prevEnded, ended bool
	var prevSeq uint64 // the last LSN of prev
	defer func() {
		if prev != nil {
			prev.Close()
		}
		if err != nil && f != nil {
			f.Close()
		}
	}()
	epoch = s
	for i, n := range logs {
		if n < s {
			continue
		}
		if n != epoch {
			why := LogName(n) + " follows it"
			if epoch == s {
				why = SnapName(s) + " exists, written only once its log does, and " + why
			}
			return f, 0, missingLog(dir, epoch, c.seq+1, n, why)
		}
		last := i == len(logs)-1
		// A rotation a crash interrupted may leave the log before the last
		// torn, when the last holds nothing.
		tornOK := last || i == len(logs)-2 && logs[i+1] == n+1 && noGroups(dir, LogName(n+1))
		if prev != nil {
			prev.Close()
		}
		prev, prevEnded, prevSeq = f, ended, c.seq
		if f, ended, err = c.replayLog(dir, n, last, tornOK, i == len(logs)-2); err != nil {
			return nil, 0, err
		}
		sz, err := f.Size()
		if err != nil {
			return f, 0, fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, inDir(dir, LogName(n)), err)
		}
		j.logs.Add(sz)
		epoch++
	}
	switch {
	case f == nil:
		why := SnapName(s) + " exists, written only once its log does"
		if s == 0 && c.seq == 0 {
			why += "; unless an earlier version of ttldb, which wrote the first snapshot before the first log, made the directory and a crash interrupted that first open: then it held nothing, and removing " + SnapName(0) + " opens the directory as new"
		}
		return nil, 0, missingLog(dir, s, c.seq+1, 0, why)
	case ended:
		return f, 0, missingLog(dir, epoch, c.seq+1, 0, LogName(epoch-1)+" ends saying that it follows")
	case prev != nil && !prevEnded:
		name := inDir(dir, LogName(epoch-2))
		// The last log and its name first: a killed rotation may have left
		// them unsynced, and a log that ends saying the last follows,
		// without it, is a missing log.
		err := f.Sync()
		if err == nil {
			err = dir.Sync()
		}
		var size int64
		if err == nil {
			size, err = prev.Size()
		}
		if err == nil {
			err = prev.Sync()
		}
		if err == nil {
			_, err = endLog(prev, size, prevSeq, epoch-1)
		}
		if err != nil {
			return f, 0, fmt.Errorf("%w: %s: ending it: %w", engine.ErrInvalidOption, name, err)
		}
	}
	return f, epoch, nil
}

// replayLog replays the log of epoch, and returns it open, and whether it
// ends saying the next log follows. The last log may end with a torn group,
// which it cuts off, and so may another when tornOK is set, and the log
// before the last when the torn group is the one that ends it (endTorn);
// otherwise, that is damage.
func (c *collection) replayLog(dir vfs.Dir, epoch uint64, last, tornOK, beforeLast bool) (vfs.File, bool, error) {
	name := inDir(dir, LogName(epoch))
	f, err := dir.Open(LogName(epoch))
	if err != nil {
		return nil, false, fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, name, err)
	}
	p := &replayer{file: name}
	res, err := c.replayLogFile(p, f)
	if err == nil && p.ended && p.next != epoch+1 {
		err = &engine.CorruptError{File: name, Offset: res.End, Reason: fmt.Sprintf("the log ends saying that the log of epoch %d follows it", p.next)}
	}
	if err == nil && res.End == 0 && res.Dropped == 0 { // an empty file
		if !last {
			err = &engine.CorruptError{File: name, Reason: "the log is empty, and later logs follow it: a log is synced with its header before the next begins"}
		} else {
			res.Reason = "the log is empty: its creation was interrupted"
		}
	}
	if err == nil && res.Dropped > 0 && !tornOK && !zeroTail(f, res) && !(beforeLast && !p.ended && endTorn(f, res, c.seq, epoch+1)) {
		err = &engine.CorruptError{File: name, Offset: res.End, Reason: res.Reason + ", and later logs follow it: a log is synced whole before the next begins"}
	}
	if err == nil && (res.Dropped > 0 || res.End == 0) {
		zeros := zeroTail(f, res)
		err = cutTail(f, name, res)
		if !zeros { // zeros are the space a log takes ahead of its writes
			c.recovery.Truncated, c.recovery.Dropped, c.recovery.Reason = name, res.Dropped, res.Reason
		}
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	c.recovery.Logs++
	return f, p.ended, nil
}

// zeroTail reports whether the tail of a log that Scan dropped is zeros
// only: the space a log is given ahead of its writes (internal/vfs), not a
// write a crash tore.
func zeroTail(f vfs.File, res wal.Result) bool {
	if res.Dropped == 0 {
		return false
	}
	buf := make([]byte, 64<<10)
	for off := res.End; off < res.End+res.Dropped; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), res.End+res.Dropped-off)], off)
		for _, b := range buf[:n] {
			if b != 0 {
				return false
			}
		}
		if n == 0 || err != nil && n < len(buf) && off+int64(n) < res.End+res.Dropped {
			return false
		}
		off += int64(n)
	}
	return true
}

// cutTail cuts the torn tail off a log, durably, and writes its header
// again if the tail was in the header.
func cutTail(f vfs.File, name string, res wal.Result) error {
	err := f.Truncate(res.End)
	if err == nil && res.End == 0 {
		_, err = f.Write(wal.Header())
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		return fmt.Errorf("%w: %s: cutting its torn tail at offset %d: %w", engine.ErrInvalidOption, name, res.End, err)
	}
	return nil
}
