package ttldb

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// Recovery says what opening a durable collection found in its directory
// (R12). The zero value is a collection that is not durable, or a new
// directory.
type Recovery struct {
	// Snapshot is the snapshot loaded, a path; empty for a new directory.
	Snapshot string
	// Documents is the number of documents it held, expired ones
	// included: the sweeper deletes them, as changes of the feed.
	Documents int
	// Logs is the number of logs replayed after it, and Changes the
	// changes they held.
	Logs, Changes int
	// LastLSN is the LSN of the last change recovered.
	LastLSN uint64
	// Truncated is the log whose torn tail, a write a crash interrupted,
	// the open cut off; empty when there was none. Dropped is its size in
	// bytes and Reason says what was wrong with it. Only changes that
	// were never acknowledged are in a torn tail.
	Truncated string
	Dropped   int64
	Reason    string
}

// Recovery returns what opening the collection found in its directory.
func (c *Collection) Recovery() Recovery { return c.recovery }

// openDir opens the directory of a durable collection, made by
// NewCollection but not yet started: a new one gets a snapshot of the
// collection as made; an existing one replaces the collection's state
// with its own. Then the collection writes its changes there.
func (c *Collection) openDir(o *Options) (err error) {
	fsys := o.fs
	if fsys == nil {
		fsys = vfs.OS{}
	}
	dir := filepath.Clean(o.Dir)
	if err := fsys.MkdirAll(dir); err != nil {
		return errorf(ErrInvalidOption, "Options.Dir %q: %w", o.Dir, err)
	}
	lock, err := fsys.Lock(filepath.Join(dir, lockName))
	if errors.Is(err, vfs.ErrLocked) {
		return errorf(ErrLocked, "%s is used by another open collection, of this process or another: Close it first (R12)", dir)
	} else if err != nil {
		return errorf(ErrInvalidOption, "Options.Dir %q: locking it: %w", o.Dir, err)
	}
	j := &journal{fs: fsys, dir: dir, policy: o.Sync, lock: lock, cut: -1, wake: c.feed.wakeAll}
	defer func() {
		if err != nil {
			if j.file != nil {
				j.file.Close()
			}
			lock.Close()
		}
	}()
	snaps, logs, err := listFiles(fsys, dir)
	if err != nil {
		return err
	}
	if len(snaps) == 0 {
		if len(logs) > 0 {
			return &CorruptError{File: dir, Reason: fmt.Sprintf("%d logs and no snapshot: the snapshot was removed", len(logs))}
		}
		size, err := writeSnapshot(fsys, dir, 0, c.savedState(), nil, c.etagBase, nil, nil)
		if err != nil {
			return err
		}
		if j.file, err = newLog(fsys, dir, 0); err != nil {
			return err
		}
		if err := fsys.SyncDir(filepath.Dir(dir)); err != nil { // the directory's own name
			return errorf(ErrInvalidOption, "Options.Dir %q: syncing its parent: %w", o.Dir, err)
		}
		j.snap.Store(size)
		j.logs.Store(wal.HeaderSize)
		j.off = wal.HeaderSize
		j.syncedOff.Store(wal.HeaderSize)
		c.j = j
		return nil
	}
	s := slices.Max(snaps)
	size, err := c.loadSnapshot(fsys, dir, s)
	if err != nil {
		return err
	}
	j.snap.Store(size)
	epoch := s
	var f vfs.File
	for i, n := range logs {
		if n < s {
			continue
		}
		if f != nil {
			f.Close()
		}
		if n != epoch {
			return &CorruptError{File: filepath.Join(dir, logName(epoch)), Reason: fmt.Sprintf("the log is missing, and %s follows", logName(n))}
		}
		if f, err = c.replayLog(fsys, dir, n, i == len(logs)-1); err != nil {
			return err
		}
		sz, err := f.Size()
		if err != nil {
			f.Close()
			return fmt.Errorf("%w: %s: %w", ErrInvalidOption, filepath.Join(dir, logName(n)), err)
		}
		j.logs.Add(sz)
		epoch++
	}
	if f == nil { // a crash before the log of the snapshot's epoch was made durable
		if f, err = newLog(fsys, dir, s); err != nil {
			return err
		}
		j.logs.Store(wal.HeaderSize)
		epoch++
	}
	end, err := f.Size()
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", ErrInvalidOption, filepath.Join(dir, logName(epoch-1)), err)
	}
	// What the last process wrote it may not have synced, nor the name of
	// its last log: both are durable before anything is built on them.
	err = f.Sync()
	if err == nil {
		err = fsys.SyncDir(dir)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("%w: %s: %w", ErrInvalidOption, filepath.Join(dir, logName(epoch-1)), err)
	}
	j.off = end
	j.syncedOff.Store(end)
	j.file, j.epoch = f, epoch-1
	j.rotated.Store(epoch - 1)
	j.visible.Store(c.seq)
	j.wlsn, j.pendLSN = c.seq, c.seq
	var live int64
	c.prim.tree.Ascend(func(e *entry) bool { live += diskSize(e.doc()); return true })
	j.live.Store(live)
	c.j = j
	c.recovery.LastLSN = c.seq
	removeBefore(fsys, dir, s, snaps, logs) // leftovers of a compaction a crash interrupted
	return nil
}

// replayer reads the groups of a file of the collection's directory and
// turns what goes wrong into a [*CorruptError] that names the file and the
// offset of the group.
type replayer struct {
	file  string
	start int64 // of the group being read
	err   error // of the collection, not of the file: passed on as it is
}

// scan calls fn with each record of the file's groups, and tag with each
// group's tag once its records are applied.
func (p *replayer) scan(f vfs.File, fn func(rec []byte) error, tag func(uint64) error) (wal.Result, error) {
	size, err := f.Size()
	if err != nil {
		return wal.Result{}, fmt.Errorf("%w: %s: %w", ErrInvalidOption, p.file, err)
	}
	p.start = wal.HeaderSize
	res, err := wal.Scan(f, size, func(g wal.Group) error {
		for _, r := range g.Records {
			if err := fn(r); err != nil {
				return err
			}
		}
		if err := tag(g.Tag); err != nil {
			return err
		}
		p.start = g.End
		return nil
	})
	var ce *wal.CorruptError
	switch {
	case errors.As(err, &ce):
		return res, &CorruptError{File: p.file, Offset: ce.Offset, Reason: ce.Reason}
	case p.err != nil:
		return res, p.err
	case err != nil:
		return res, &CorruptError{File: p.file, Offset: p.start, Reason: err.Error()}
	}
	return res, nil
}

// loadSnapshot loads the snapshot at s into the new collection, and
// returns its size.
func (c *Collection) loadSnapshot(fsys vfs.FS, dir string, s uint64) (int64, error) {
	name := filepath.Join(dir, snapName(s))
	f, err := fsys.Open(name)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrInvalidOption, name, err)
	}
	defer f.Close()
	p := &replayer{file: name}
	var st *savedState
	var docs, prev uint64
	ended := false
	var buf, kb []byte
	res, err := p.scan(f, func(r []byte) error {
		switch {
		case len(r) == 0 || ended:
			return fmt.Errorf("a record after the snapshot's end")
		case st == nil && r[0] != recState:
			return fmt.Errorf("a snapshot that does not begin with its state")
		case r[0] == recState && st != nil:
			return fmt.Errorf("a second state record")
		case r[0] == recState:
			v, err := readState(r[1:])
			if err != nil {
				return err
			}
			if v.name != c.name || v.path != c.path {
				p.err = errorf(ErrInvalidOption, "%s holds collection %q partitioned by %s, not %q partitioned by %s", dir, v.name, v.path, c.name, c.path)
				return p.err
			}
			st = &v
			c.restore(v)
			return nil
		case r[0] == recPut:
			op, lsn, d, err := c.readPut(r[1:], &buf, &kb)
			if err != nil {
				return err
			}
			if op != OpCreate || lsn <= prev || lsn > st.seq {
				return fmt.Errorf("a document of LSN %d after LSN %d in the snapshot at LSN %d", lsn, prev, st.seq)
			}
			prev = lsn
			if e, _ := c.prim.get([]byte(d.key())); e != nil {
				return fmt.Errorf("a second document with the key of LSN %d", lsn)
			}
			c.load(d)
			docs++
			return nil
		case r[0] == recEnd:
			f := fields{b: r[1:]}
			if n := f.u64(); f.bad || len(f.b) != 0 || n != docs {
				return fmt.Errorf("the snapshot's end counts %d documents, and it holds %d", n, docs)
			}
			ended = true
			return nil
		}
		return fmt.Errorf("a record of kind %d in a snapshot", r[0])
	}, func(uint64) error { return nil })
	if err != nil {
		return 0, err
	}
	if res.Dropped > 0 || !ended {
		return 0, &CorruptError{File: name, Offset: res.End, Reason: "the snapshot ends early (" + res.Reason + "); it was synced before it took its name: this is damage"}
	}
	c.recovery.Snapshot, c.recovery.Documents = name, int(docs)
	return res.End, nil
}

// replayLog replays the log of epoch, and returns it open. The last log may
// end with a torn group, which it cuts off; in another, that is damage.
func (c *Collection) replayLog(fsys vfs.FS, dir string, epoch uint64, last bool) (vfs.File, error) {
	name := filepath.Join(dir, logName(epoch))
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidOption, name, err)
	}
	p := &replayer{file: name}
	var buf, kb []byte
	res, err := p.scan(f, func(r []byte) error {
		c.recovery.Changes++
		return c.replay(r, &buf, &kb)
	}, func(tag uint64) error {
		if tag != c.seq {
			return fmt.Errorf("a group that ends at LSN %d says it ends at LSN %d", c.seq, tag)
		}
		return nil
	})
	if err == nil && res.End == 0 && res.Dropped == 0 { // an empty file
		if !last {
			err = &CorruptError{File: name, Reason: "the log is empty, and later logs follow it: a log is synced with its header before the next begins"}
		} else {
			res.Reason = "the log is empty: its creation was interrupted"
		}
	}
	if err == nil && res.Dropped > 0 && !last {
		err = &CorruptError{File: name, Offset: res.End, Reason: res.Reason + ", and later logs follow it: a log is synced whole before the next begins"}
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
		return nil, err
	}
	c.recovery.Logs++
	return f, nil
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
		return fmt.Errorf("%w: %s: cutting its torn tail at offset %d: %w", ErrInvalidOption, name, res.End, err)
	}
	return nil
}

// replay applies a record of a log to the collection.
func (c *Collection) replay(r []byte, buf, kb *[]byte) error {
	if len(r) == 0 {
		return fmt.Errorf("an empty record")
	}
	f := fields{b: r[1:]}
	switch r[0] {
	case recPut:
		op, lsn, d, err := c.readPut(r[1:], buf, kb)
		if err != nil {
			return err
		}
		if lsn != c.seq+1 {
			return fmt.Errorf("the change of LSN %d after LSN %d", lsn, c.seq)
		}
		e, h := c.prim.get([]byte(d.key()))
		if (e == nil) != (op == OpCreate) {
			return fmt.Errorf("the %v of LSN %d, and the key is there: %v", op, lsn, e != nil)
		}
		c.seq = lsn
		c.store(e, d, h, op)
		return nil
	case recDelete:
		expired := f.flag()
		lsn, now := f.u64(), f.i64()
		key := f.rest()
		if f.bad || now < -maxClock || now > maxClock {
			return fmt.Errorf("a malformed delete record")
		}
		if lsn != c.seq+1 {
			return fmt.Errorf("the change of LSN %d after LSN %d", lsn, c.seq)
		}
		e, _ := c.prim.get(key)
		if e == nil {
			return fmt.Errorf("the delete of LSN %d, of a key that is not there", lsn)
		}
		c.advance(now)
		c.logDelete(e, now, expired)
		c.exp.remove(e, e.doc())
		c.prim.remove(e)
		return nil
	case recDefault:
		def := DefaultTTL{on: f.flag(), seconds: f.i64()}
		now := f.i64()
		if f.bad || len(f.b) != 0 || !def.on && def.seconds != 0 || def.on && def.validate() != nil ||
			ttlNeedsIndexing(def, c.mode) != nil || now < -maxClock || now > maxClock {
			return fmt.Errorf("a malformed DefaultTTL record")
		}
		c.advance(now)
		c.exp.setDefault(def, now)
		c.publish()
		return nil
	case recClock:
		now := f.i64()
		if f.bad || len(f.b) != 0 || now < -maxClock || now > maxClock {
			return fmt.Errorf("a malformed clock record")
		}
		c.advance(now)
		return nil
	case recIndexing:
		m := IndexingMode(f.u8())
		if f.bad || len(f.b) != 0 || m.validate() != nil || ttlNeedsIndexing(c.exp.def, m) != nil {
			return fmt.Errorf("a malformed indexing record")
		}
		c.mode = m
		return nil
	}
	return fmt.Errorf("a record of kind %d in a log", r[0])
}

// readPut decodes a put record, without its kind, into its document,
// stamped, parsing the body again into buf and kb.
func (c *Collection) readPut(r []byte, buf, kb *[]byte) (op ChangeOp, lsn uint64, d *doc, err error) {
	f := fields{b: r}
	op = ChangeOp(f.u8())
	lsn, ts := f.u64(), f.i64()
	body := f.rest()
	if f.bad || op != OpCreate && op != OpReplace || lsn == 0 || ts < -maxClock || ts > maxClock {
		return 0, 0, nil, fmt.Errorf("a malformed put record")
	}
	in, key, err := parseDocument(*buf, (*kb)[:0], body, c.pkPath)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("the document of LSN %d: %w", lsn, err)
	}
	*buf, *kb = in.out[:0], key[:0]
	c.advance(ts)
	return op, lsn, newDoc(key, in.at, in.out, in.ttl, ts, c.etagBase+lsn), nil
}

// advance makes now no earlier than t, an instant the collection's files
// hold: the clock of a reopened collection never goes back before them.
func (c *Collection) advance(t int64) {
	if t > c.last.Load() {
		c.last.Store(t)
	}
}

// load puts a document of a snapshot, in the order of their LSNs, in the
// indexes: as a write, but for the all-versions feed, which starts after
// the snapshot.
func (c *Collection) load(d *doc) {
	_, h := c.prim.get([]byte(d.key()))
	e := c.prim.insert(d, h)
	c.exp.add(e)
	if c.feed.on {
		c.feed.latest.written(e)
	}
}

// restore gives the new collection the state of a snapshot.
func (c *Collection) restore(s savedState) {
	c.etagBase, c.tokenID, c.seq = s.etagBase, s.tokenID, s.seq
	c.advance(s.last)
	c.mode = s.mode
	c.exp.def, c.exp.ownCut, c.exp.cuts = s.def, s.ownCut, s.cuts
	c.publish()
	c.feed.log.last = s.seq
	c.feed.log.clear()
}
