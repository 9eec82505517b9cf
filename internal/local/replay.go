package local

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// Reading a durable collection's files into it (R12): a snapshot's
// documents, and the records of a log.

// replayer reads the groups of a file of the collection's directory and
// turns what goes wrong into a [*CorruptError] that names the file and the
// offset of the group.
type replayer struct {
	file  string
	start int64  // of the group being read
	err   error  // of the collection, not of the file: passed on as it is
	ended bool   // a next record ends the log (logchain.go)
	next  uint64 // the epoch it says follows
}

// scan calls fn with each record of the file's groups, and tag with each
// group's tag once its records are applied.
func (p *replayer) scan(f vfs.File, fn func(rec []byte) error, tag func(uint64) error) (wal.Result, error) {
	size, err := f.Size()
	if err != nil {
		return wal.Result{}, fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, p.file, err)
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
		return res, &engine.CorruptError{File: p.file, Offset: ce.Offset, Reason: ce.Reason}
	case p.err != nil:
		return res, p.err
	case err != nil:
		return res, &engine.CorruptError{File: p.file, Offset: p.start, Reason: err.Error()}
	}
	return res, nil
}

// loadSnapshot loads the snapshot of epoch s into the new collection, and
// returns its size. A goroutine of its own reads and parses the documents,
// and hands them over in batches to be indexed: on two cores, a reopen
// takes about the time of the indexing alone.
func (c *collection) loadSnapshot(dir vfs.Dir, s uint64) (int64, error) {
	return c.loadSnapshotFile(dir, SnapName(s), inDir(dir, SnapName(s)))
}

// loadSnapshotFile loads the snapshot in the file of dir into the new
// collection, as loadSnapshot does; name is the file's in messages and
// errors.
func (c *collection) loadSnapshotFile(dir vfs.Dir, file, name string) (int64, error) {
	f, err := dir.Open(file)
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, name, err)
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", engine.ErrInvalidOption, name, err)
	}
	p := &replayer{file: name}
	batches := make(chan []*engine.Doc, 4)
	var dup atomic.Pointer[string] // a key found twice, which stops the reading
	var res wal.Result
	var docs uint64
	ended := false
	go func() {
		defer close(batches)
		var st *savedState
		var prev uint64
		var buf, kb []byte
		var batch []*engine.Doc
		res, err = p.scan(f, func(r []byte) error {
			switch {
			case dup.Load() != nil:
				return fmt.Errorf("a second document with the key %q", *dup.Load())
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
				if p.err = c.adoptIdentity(dir, v); p.err != nil {
					return p.err
				}
				if v.docs > uint64(size/32) { // a put record takes more than 32 bytes

					return fmt.Errorf("a state record counts %d documents in a snapshot of %d bytes", v.docs, size)
				}
				st = &v
				c.restore(v) // before the first batch, which the indexing waits for
				return nil
			case r[0] == recPut:
				op, lsn, d, err := c.readPut(r[1:], &buf, &kb)
				if err != nil {
					return err
				}
				if op != engine.OpCreate || lsn <= prev || lsn > st.seq {
					return fmt.Errorf("a document of LSN %d after LSN %d in the snapshot at LSN %d", lsn, prev, st.seq)
				}
				prev = lsn
				docs++
				if batch = append(batch, d); len(batch) == loadBatch {
					batches <- batch
					batch = make([]*engine.Doc, 0, loadBatch)
				}
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
		if err == nil && len(batch) > 0 {
			batches <- batch
		}
	}()
	for batch := range batches { // until the reading ends: it may not stop halfway
		for _, d := range batch {
			if dup.Load() == nil && !c.load(d) {
				key := d.Key()
				dup.Store(&key)
			}
		}
	}
	switch k := dup.Load(); {
	case k != nil && err == nil:
		return 0, &engine.CorruptError{File: name, Offset: -1, Reason: fmt.Sprintf("a second document with the key %q", *k)}
	case err != nil:
		return 0, err
	case res.Dropped > 0 || !ended:
		return 0, &engine.CorruptError{File: name, Offset: res.End, Reason: "the snapshot ends early (" + res.Reason + "); it was synced before it took its name: this is damage"}
	}
	c.recovery.Snapshot, c.recovery.Documents = name, int(docs)
	return res.End, nil
}

// loadBatch is how many documents loadSnapshot hands over at once.
const loadBatch = 1024

// logItem is a record of a log read ahead of its replay: a put, parsed into
// its document, or another record as it is; or the end of a group, with its
// tag. at is the offset of its group, for errors.
type logItem struct {
	rec []byte
	d   *engine.Doc
	op  uint8
	lsn uint64
	end bool
	tag uint64
	at  int64
}

// replayLogFile replays the groups of the log f. A goroutine of its own
// reads them and parses the puts, and hands them over in batches, as
// loadSnapshot does. It returns what the scan found.
func (c *collection) replayLogFile(p *replayer, f vfs.File) (wal.Result, error) {
	items := make(chan []logItem, 4)
	var stop atomic.Bool // the replay failed: read no further
	var res wal.Result
	var err error
	go func() {
		defer close(items)
		var buf, kb []byte
		batch := make([]logItem, 0, loadBatch)
		add := func(it logItem) {
			if batch = append(batch, it); len(batch) == loadBatch {
				items <- batch
				batch = make([]logItem, 0, loadBatch)
			}
		}
		res, err = p.scan(f, func(r []byte) error {
			if stop.Load() {
				return errStopped
			}
			it := logItem{at: p.start}
			if len(r) > 0 && r[0] == recPut {
				op, lsn, d, err := c.readPut(r[1:], &buf, &kb)
				if err != nil {
					return err
				}
				it.d, it.op, it.lsn = d, op, lsn
			} else {
				it.rec = bytes.Clone(r) // the scan reuses its buffer
			}
			add(it)
			return nil
		}, func(tag uint64) error {
			add(logItem{end: true, tag: tag, at: p.start})
			return nil
		})
		if len(batch) > 0 {
			items <- batch
		}
	}()
	var failed error
	for batch := range items { // until the reading ends: it may not stop halfway
		for _, it := range batch {
			if failed != nil {
				break
			}
			var e error
			switch {
			case len(it.rec) > 0 && it.rec[0] == recNext:
				e = p.follows(it.rec)
			case p.ended && !it.end:
				e = errors.New("a change after the record that ends the log")
			default:
				if !it.end {
					c.recovery.Changes++
				}
				e = c.replay(it)
			}
			if e != nil {
				failed = &engine.CorruptError{File: p.file, Offset: it.at, Reason: e.Error()}
				stop.Store(true)
			}
		}
	}
	if failed != nil {
		return res, failed
	}
	return res, err
}

// replay applies a record of a log to the collection.
func (c *collection) replay(it logItem) error {
	if it.end {
		if it.tag != c.seq {
			return fmt.Errorf("a group that ends at LSN %d says it ends at LSN %d", c.seq, it.tag)
		}
		return nil
	}
	if d := it.d; d != nil { // a put, parsed already
		if it.lsn != c.seq+1 {
			return fmt.Errorf("the change of LSN %d after LSN %d", it.lsn, c.seq)
		}
		e, h := c.prim.get([]byte(d.Key()))
		if (e == nil) != (it.op == engine.OpCreate) {
			return fmt.Errorf("the %s of LSN %d, and the key is there: %v", engine.OpName(it.op), it.lsn, e != nil)
		}
		c.seq = it.lsn
		c.store(e, d, h, it.op)
		return nil
	}
	r := it.rec
	if len(r) == 0 {
		return fmt.Errorf("an empty record")
	}
	f := fields{b: r[1:]}
	switch r[0] {
	case recDelete:
		how := f.u8()
		lsn, now := f.u64(), f.i64()
		key := f.rest()
		if f.bad || how > delEvicted || now < -maxClock || now > maxClock {
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
		c.logDeleteAs(e, now, how)
		c.exp.remove(e, e.doc())
		c.prim.remove(e)
		return nil
	case recDefault:
		def := engine.DefaultTTL{On: f.flag(), Seconds: f.i64()}
		now := f.i64()
		if f.bad || len(f.b) != 0 || !def.Valid() || !c.mode.Allows(def) || now < -maxClock || now > maxClock {
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
	case recIndex:
		made, ptr := f.flag(), string(f.rest())
		if _, err := query.ParsePointer(ptr); f.bad || err != nil || made == slices.Contains(c.sec.loaded, ptr) {
			return fmt.Errorf("a malformed index record")
		}
		if made {
			c.sec.loaded = append(c.sec.loaded, ptr)
		} else {
			c.sec.loaded = slices.DeleteFunc(c.sec.loaded, func(p string) bool { return p == ptr })
		}
		return nil
	case recIndexing:
		m := engine.Indexing(f.u8())
		if f.bad || len(f.b) != 0 || m > engine.None || !m.Allows(c.exp.def) {
			return fmt.Errorf("a malformed indexing record")
		}
		c.mode = m
		return nil
	}
	return fmt.Errorf("a record of kind %d in a log", r[0])
}

// readPut decodes a put record, without its kind, into its document,
// stamped, parsing the body again into buf and kb.
func (c *collection) readPut(r []byte, buf, kb *[]byte) (op uint8, lsn uint64, d *engine.Doc, err error) {
	f := fields{b: r}
	op = uint8(f.u8())
	lsn, ts := f.u64(), f.i64()
	body := f.rest()
	if f.bad || op != engine.OpCreate && op != engine.OpReplace || lsn == 0 || ts < -maxClock || ts > maxClock {
		return 0, 0, nil, fmt.Errorf("a malformed put record")
	}
	in, err := c.parser(*buf, (*kb)[:0], body)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("the document of LSN %d: %w", lsn, err)
	}
	*buf, *kb = in.Body[:0], in.Key[:0]
	c.advance(ts)
	return op, lsn, engine.NewDoc(in.Key, in.At, in.Body, in.TTL, ts, c.etagBase+lsn), nil
}

// advance makes now no earlier than t, an instant the collection's files
// hold: the clock of a reopened collection never goes back before them.
func (c *collection) advance(t int64) {
	for last := c.last.Load(); t > last && !c.last.CompareAndSwap(last, t); last = c.last.Load() {
	}
}

// load puts a document of a snapshot, in the order of their LSNs, in the
// indexes: as a write, but for the all-versions feed, which starts after
// the snapshot.
func (c *collection) load(d *engine.Doc) (ok bool) {
	e, h := c.prim.get([]byte(d.Key()))
	if e != nil {
		return false // a key twice
	}
	e = c.prim.insert(d, h)
	c.exp.add(e)
	if c.feed.on {
		c.feed.latest.written(e)
	}
	return true
}

// restore gives the new collection the state of a snapshot.
func (c *collection) restore(s savedState) {
	c.etagBase, c.tokenID, c.seq, c.gaps = s.etagBase, s.tokenID, s.seq, s.gaps
	c.advance(s.last)
	c.mode = s.mode
	c.exp.def, c.exp.ownCut, c.exp.cuts = s.def, s.ownCut, s.cuts
	c.publish()
	c.feed.log.last = s.seq
	c.feed.log.clear()
	c.prim.presize(int(min(s.docs, 1<<30)))
	c.sec.loaded = s.indexes
}

// adoptIdentity checks that the stored collection v is the one opened: of
// its name and partition-key path, or, where those are empty (Open with
// Options that leave them), gives it v's.
func (c *collection) adoptIdentity(dir vfs.Dir, v savedState) error {
	name, path := c.name, c.path
	if name == "" {
		name = v.name
	}
	if path == "" {
		path = v.path
	}
	if v.name != name || v.path != path {
		return errorf(engine.ErrInvalidOption, "%s holds collection %q partitioned by %s, not %q partitioned by %s: a collection's name and partition-key path cannot change; open it with those it was made with, or give another Dir (R12)", dir.Path(), v.name, v.path, name, path)
	}
	if c.path == "" {
		if err := c.usePath(v.path); err != nil {
			return &engine.CorruptError{File: dir.Path(), Offset: -1, Reason: fmt.Sprintf("the stored partition-key path: %v", err)}
		}
	}
	c.name = name
	return nil
}
