package local

import (
	"fmt"
	"io"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// journal writes a durable collection's changes to its log (R12).
//
// A call that changes the collection encodes its records under
// collection.mu, in the critical section that makes the changes (group),
// and closes them as one group there too (commit), so groups are in the
// order of the changes. It waits for the group to reach the file only once
// it has released collection.mu (wait): whoever finds its group not yet
// written, and no round of another in progress, leads a round: it takes
// fmu and writes every group pending, its own and those of the calls that
// queued meanwhile, with one write, and under [SyncAlways] one sync; the
// others wait for the round's end, then look again. That is group commit: concurrent writers share a
// write and a sync, and readers never wait for either.
//
// The sweeper's deletions are groups too; the sweeper writes them, and the
// background goroutine (run) writes what is left and syncs every second.
//
// A write or sync that fails breaks the journal for good: what reached the
// file is unknown, and the collection closes (Collection.fail) rather than
// run ahead of its disk.
type journal struct {
	dir    vfs.Dir // the directory, open: its files are named in it
	policy Sync
	lock   io.Closer
	wake   func() // wakes the feed's readers when visible moves

	// Under collection.mu: the open group.
	grp   []byte
	n     uint32
	live  atomic.Int64 // the bytes a snapshot would take now, about
	clock int64        // the latest "now" recorded

	// pmu guards the closed groups not yet written.
	pmu     sync.Mutex
	pend    []byte
	groups  uint64 // groups closed so far: a group's number
	pendLSN uint64 // the last LSN in a closed group
	cut     int    // where the log rotates in pend, or -1
	cutTo   uint64 // the number of the log it rotates to
	cutLSN  uint64 // the last LSN before the cut

	// cmu guards leading, whether a round of wait is in progress, and
	// round, closed when it ends (nil while nobody waits for it).
	cmu     sync.Mutex
	leading bool
	round   chan struct{}

	// fmu is held by the writer of the moment.
	fmu sync.Mutex
	// smu is held through every sync of a log, so that they are made one
	// at a time: by syncBehind without fmu, by sync and next under fmu
	// (taken after it, never before). The operating system may report a
	// failed writeback to one of several syncs in progress only: the first
	// failure (serr) is then every later sync's too.
	smu       sync.Mutex
	serr      error // under smu
	file      vfs.File
	epoch     uint64 // the current log's number
	spare     []byte
	unsync    bool   // written since the last sync
	wlsn      uint64 // the last LSN written
	err       error  // sticky: the first failure
	written   atomic.Uint64
	synced    atomic.Uint64
	visible   atomic.Uint64 // the last LSN the feed shows: written, or synced under SyncAlways
	rotated   atomic.Uint64 // the number of the log written to now
	off       int64         // the size of the log written to now
	syncedOff atomic.Int64  // how much of it is synced, which each group's commit says (internal/wal)
	logs      atomic.Int64  // the bytes of the logs the newest snapshot needs, about
	snap      atomic.Int64  // the bytes of the newest snapshot
}

// errJournalClosed is the state of a journal after close: it writes no
// more.
var errJournalClosed = fmt.Errorf("the log is closed")

// put adds the record of the write of d, stamped with lsn, replacing old
// (nil for none), to the open group. Call with collection.mu held.
func (j *journal) put(d, old *engine.Doc, lsn uint64, op uint8) {
	var mark int
	j.grp, mark = wal.Begin(j.grp)
	j.grp = appendPut(j.grp, d, lsn, op)
	j.grp = wal.End(j.grp, mark)
	j.n++
	j.clock = max(j.clock, d.TS)
	delta := diskSize(d)
	if old != nil {
		delta -= diskSize(old)
	}
	j.live.Add(delta)
}

// diskSize is about the bytes d takes in a snapshot.
func diskSize(d *engine.Doc) int64 { return int64(len(d.Body())) + 27 }

// del adds the record of the deletion of d, at now, with lsn, of the kind
// how (delAsked, delExpired, delEvicted: records.go). Call with
// collection.mu held.
func (j *journal) del(d *engine.Doc, lsn uint64, now int64, how byte) {
	var mark int
	j.grp, mark = wal.Begin(j.grp)
	j.grp = appendDeleteAs(j.grp, d.Key(), lsn, now, how)
	j.grp = wal.End(j.grp, mark)
	j.n++
	j.clock = max(j.clock, now)
	j.live.Add(-diskSize(d))
}

// setting adds a record that rec appends, a change of a setting. Call with
// collection.mu held.
func (j *journal) setting(rec []byte) {
	var mark int
	j.grp, mark = wal.Begin(j.grp)
	j.grp = append(j.grp, rec...)
	j.grp = wal.End(j.grp, mark)
	j.n++
}

// commit closes the open group, whose changes end at the LSN seq, and
// returns its number, or 0 when it is empty. Call with collection.mu held.
func (j *journal) commit(seq uint64) uint64 {
	if j.n == 0 {
		return 0
	}
	j.pmu.Lock()
	j.pend = append(j.pend, j.grp...)
	synced := j.syncedOff.Load()
	if j.cut >= 0 {
		synced = 0 // the group goes to the next log, of which nothing is known yet
	}
	j.pend = wal.AppendCommit(j.pend, j.n, seq, synced)
	j.groups++
	g := j.groups
	j.pendLSN = seq
	j.pmu.Unlock()
	j.grp, j.n = j.grp[:0], 0
	if cap(j.grp) > 1<<20 {
		j.grp = nil // a large group's buffer goes
	}
	return g
}

// rotate makes the log end after the groups closed so far: those that
// follow go to the log numbered epoch. Call with collection.mu held, with
// no group open; flush does it.
func (j *journal) rotate(epoch uint64) {
	j.pmu.Lock()
	defer j.pmu.Unlock()
	j.cut, j.cutTo, j.cutLSN = len(j.pend), epoch, j.pendLSN
}

// force writes what is pending now, rotating the log if rotate asked for
// it.
func (j *journal) force() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	j.flush()
	return j.err
}

// wait returns once group g is written to the log, and synced if sync is
// set (0 is no group). One caller at a time leads a round: it writes every
// group pending, its own and those closed meanwhile, and syncs; the others
// wait for the round's end, then look again, and one of those a round did
// not serve leads the next. A caller waits on the round, not on fmu: a
// writer the round served returns as soon as it ends, where one queued on
// fmu waited for the next leader's sync too (with 16 writers under
// SyncAlways, half the rate).
func (j *journal) wait(g uint64, sync bool) error {
	done := func() bool { return g == 0 || j.written.Load() >= g && (!sync || j.synced.Load() >= g) }
	for !done() {
		j.cmu.Lock()
		if j.leading { // another leads: wait for its round's end
			if j.round == nil {
				j.round = make(chan struct{}) // made by the first waiter: a round nobody waits for makes none
			}
			end := j.round
			j.cmu.Unlock()
			<-end
			continue
		}
		j.leading = true
		j.cmu.Unlock()
		return j.lead(g, sync)
	}
	return nil
}

// lead is wait's round: it writes the groups pending, and syncs if sync
// is set, unless group g is there already; then it ends the round, and
// wakes its waiters, whatever happened (a panic included).
func (j *journal) lead(g uint64, sync bool) error {
	defer func() {
		j.cmu.Lock()
		end := j.round
		j.leading, j.round = false, nil
		j.cmu.Unlock()
		if end != nil {
			close(end)
		}
	}()
	j.fmu.Lock()
	defer j.fmu.Unlock()
	if j.written.Load() < g {
		j.flush()
	}
	if sync && j.err == nil && j.synced.Load() < g {
		j.sync()
	}
	if j.written.Load() >= g && (!sync || j.synced.Load() >= g) {
		return nil // done before a later failure
	}
	return j.err
}

// syncAll writes every closed group and syncs.
func (j *journal) syncAll() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	j.flush()
	j.sync()
	return j.err
}

// flush writes the closed groups to the log, rotating it on the way if
// they hold a cut. Call with fmu held.
func (j *journal) flush() {
	if j.err != nil {
		return
	}
	j.pmu.Lock()
	buf, upto, lsn, cut, epoch, cutLSN := j.pend, j.groups, j.pendLSN, j.cut, j.cutTo, j.cutLSN
	j.pend, j.cut = j.spare[:0], -1
	if cut >= 0 {
		// The groups closed from now on go to the next log, whose header
		// alone is synced when they reach it: none may claim more.
		j.syncedOff.Store(wal.HeaderSize)
	}
	j.pmu.Unlock()
	j.spare = buf[:0]
	if cap(j.spare) > 4<<20 {
		j.spare = nil
	}
	rest := buf
	if cut >= 0 {
		if !j.write(buf[:cut]) || !j.next(epoch, cutLSN) {
			return
		}
		rest = buf[cut:]
	}
	if !j.write(rest) || upto == j.written.Load() {
		return
	}
	j.wlsn = lsn
	if j.policy != SyncAlways {
		j.show(lsn) // before written moves: a writer that returns finds its change in the feed
	}
	j.written.Store(upto)
}

// write writes b to the log. Call with fmu held.
func (j *journal) write(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	n, err := j.file.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		j.err = fmt.Errorf("writing %s: %w", j.name(), err)
		return false
	}
	j.unsync = true
	j.off += int64(n)
	j.logs.Add(int64(n))
	return true
}

// next ends the log, synced, and starts the log numbered epoch, durable
// before anything is written to it: a crash leaves every log but the last
// whole. The log ends with a group that says the next follows, written once
// the next is durable (logchain.go); lsn is the last LSN in the log. Call
// with fmu held.
func (j *journal) next(epoch, lsn uint64) bool {
	// A sync of the second in progress (syncBehind) ends first, and its
	// failure is this one's.
	j.smu.Lock()
	defer j.smu.Unlock()
	// Cut the log to what was written before the sync, so that its length
	// is durable too: the space ahead of the writes (internal/vfs) goes.
	err := j.serr
	if err == nil {
		err = j.file.Truncate(j.off)
	}
	if err == nil {
		err = j.file.Sync()
	}
	if err != nil {
		j.err = fmt.Errorf("syncing %s: %w", j.name(), err)
		return false
	}
	j.unsync = false
	f, err := newLog(j.dir, epoch)
	if err != nil {
		j.err = err
		return false
	}
	if _, err := endLog(j.file, j.off, lsn, epoch); err != nil {
		f.Close()
		j.err = fmt.Errorf("ending %s: %w", j.name(), err)
		return false
	}
	j.file.Close()
	j.file, j.epoch, j.off = f, epoch, wal.HeaderSize
	j.syncedOff.Store(wal.HeaderSize)
	j.rotated.Store(epoch)
	j.logs.Store(wal.HeaderSize)
	return true
}

// sync makes what was written durable. Call with fmu held.
func (j *journal) sync() {
	if j.err != nil {
		return
	}
	upto, lsn := j.written.Load(), j.wlsn
	if j.unsync {
		j.smu.Lock()
		err := j.serr
		if err == nil {
			err = j.file.Sync()
		}
		j.smu.Unlock()
		if err != nil {
			j.err = fmt.Errorf("syncing %s: %w", j.name(), err)
			return
		}
		j.unsync = false
		j.syncedOff.Store(j.off)
	}
	if !j.linked() {
		return
	}
	if j.policy == SyncAlways {
		j.show(lsn) // before synced moves, as in flush
	}
	j.synced.Store(upto)
}

// linked reports whether the log still has a name; when it has none, the
// journal fails. Its directory removed under it (rm -rf), the log takes
// writes and syncs as before, but a reopen finds none of them: nothing may
// be acknowledged after. It costs an fstat(2), once a sync. Call with fmu
// held.
func (j *journal) linked() bool {
	if j.file == nil {
		return true
	}
	ok, err := j.file.Linked()
	if err == nil && !ok {
		err = fmt.Errorf("the file was removed, alone or with its directory, while the collection had it open, and what is written to it is out of reach of a reopen: %w", fs.ErrNotExist)
	}
	if err != nil {
		j.err = fmt.Errorf("%s: %w", j.name(), err)
		return false
	}
	return true
}

// failure returns the journal's failure, if it has failed.
func (j *journal) failure() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	return j.err
}

// show lets the feed show the changes up to lsn, now that they are
// durable as the policy wants.
func (j *journal) show(lsn uint64) {
	if lsn > j.visible.Load() {
		j.visible.Store(lsn)
		j.wake()
	}
}

// name is the current log's path.
func (j *journal) name() string { return inDir(j.dir, LogName(j.epoch)) }

// run writes what is pending and syncs, as the policy says, every
// second, and calls check, which may start a compaction.
func (j *journal) run(stop <-chan struct{}, check func()) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		switch j.policy {
		case SyncEverySecond:
			j.syncBehind()
		default:
			j.fmu.Lock()
			j.flush()
			if j.policy != SyncNever {
				j.sync()
			}
			j.fmu.Unlock()
		}
		check()
	}
}

// close writes and syncs what is pending, whatever the policy, and closes
// the log and the lock. It returns the first failure, if any. The last
// group it writes is empty, and says that the log is synced up to it: damage
// anywhere before is then told from a torn tail (internal/wal).
func (j *journal) close() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	j.flush()
	j.sync()
	if j.err == nil && j.file != nil {
		j.write(wal.AppendCommit(nil, 0, j.wlsn, j.off))
		j.sync()
	}
	err := j.err
	if j.file != nil {
		if cerr := j.file.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}
	if j.err == nil {
		j.err = errJournalClosed
	}
	if lerr := j.lock.Close(); err == nil && lerr != nil {
		err = lerr
	}
	if derr := j.dir.Close(); err == nil && derr != nil {
		err = derr
	}
	return err
}

// The files of a durable collection are numbered by epoch: a compaction
// starts a new epoch with a new log and writes the snapshot of the
// collection as it was when that log began. The newest snapshot and the
// logs of its epoch and after hold the collection.
