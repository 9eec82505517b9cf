package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// The chain of a durable collection's logs (R12). A missing log is damage
// unless no acknowledged change can have been in it, and the names of the
// files cannot show a log missing at the end of the chain. So the files
// say which logs exist:
//
//   - the log of an epoch is made durable before the snapshot of that epoch
//     (in a new directory too, before its first snapshot): a snapshot
//     without its log lost it;
//   - a rotation makes the next log durable, then ends the log before it
//     with a group that says so (a next record), synced: a last log that
//     says another follows lost it.
//
// A crash between the two steps of a rotation leaves the next log with no
// group (nothing is written to it before the log before it ends), and the
// log before it without its last group, or with that group torn: the open
// cuts the tear and ends that log as the rotation would have. The open ends
// so the log before the last whenever it lacks that group, which also
// brings a directory written before the next record existed into the rule;
// it syncs the last log and its name first, which a killed rotation may
// have left unsynced. A crash that tears that group, where the last log
// holds groups already (such a directory), leaves a tail the open knows
// (endTorn), and cuts.

// endLog ends the log f, whose first off bytes are synced, with the group
// that says the log of epoch follows it, at the LSN seq, and syncs it. It
// returns the log's new size.
func endLog(f vfs.File, off int64, seq, epoch uint64) (int64, error) {
	b := endGroup(off, seq, epoch)
	n, err := f.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	end := off + int64(n)
	if err == nil {
		err = f.Truncate(end) // of the space taken ahead of the writes (internal/vfs)
	}
	if err == nil {
		err = f.Sync()
	}
	return end, err
}

// endGroup is the group endLog writes at the offset off.
func endGroup(off int64, seq, epoch uint64) []byte {
	b, mark := wal.Begin(nil)
	b = wal.End(appendNext(b, epoch), mark)
	return wal.AppendCommit(b, 1, seq, off)
}

// endTorn reports whether the tail of a log that Scan dropped is what a
// crash leaves of the group that ends it at the LSN seq, before the log of
// epoch: each byte that group's or a zero (pages lost), then zeros only
// (the space taken ahead of the writes). The open writes that group into
// the log before the last, where the last may hold groups already (a
// directory of an earlier version), and a crash may tear it there; it
// holds no change, and the open cuts it and writes it again.
func endTorn(f vfs.File, res wal.Result, seq, epoch uint64) bool {
	if res.Dropped == 0 {
		return false
	}
	want := endGroup(res.End, seq, epoch)
	buf := make([]byte, min(res.Dropped, 64<<10))
	for off := int64(0); off < res.Dropped; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), res.Dropped-off)], res.End+off)
		if n == 0 {
			return false
		}
		for i, b := range buf[:n] {
			if at := off + int64(i); b != 0 && (at >= int64(len(want)) || b != want[at]) {
				return false
			}
		}
		if off += int64(n); err != nil && off < res.Dropped {
			return false
		}
	}
	return true
}

// follows reads a next record, and remembers the epoch it names.
func (p *replayer) follows(rec []byte) error {
	f := fields{b: rec[1:]}
	p.next, p.ended = f.u64(), true
	if f.bad || len(f.b) != 0 {
		return errors.New("a malformed next record")
	}
	return nil
}

// errFound ends a scan that found what it looked for.
var errFound = errors.New("found")

// noGroups reports whether the log name holds no whole group, nor damage:
// a log whose creation, or whose first write, a crash interrupted.
func noGroups(dir vfs.Dir, name string) bool {
	f, err := dir.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return false
	}
	res, err := wal.Scan(f, size, func(wal.Group) error { return errFound })
	return err == nil && res.Groups == 0
}

// firstLSN returns the LSN of the first change in the log name, if it can
// read one.
func firstLSN(dir vfs.Dir, name string) (lsn uint64, ok bool) {
	f, err := dir.Open(name)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return 0, false
	}
	wal.Scan(f, size, func(g wal.Group) error {
		for _, r := range g.Records {
			if len(r) >= 10 && (r[0] == recPut || r[0] == recDelete) { // kind, op or expired, LSN
				lsn, ok = binary.BigEndian.Uint64(r[2:10]), true
				return errFound
			}
		}
		return nil
	})
	return lsn, ok
}

// missingLog is the damage of a missing log of epoch in dir, which held the
// changes from the LSN from, up to the LSN before the first change of the
// log of epoch next when that log exists (0: none does). why says how the
// files show that it existed.
func missingLog(dir vfs.Dir, epoch, from, next uint64, why string) *engine.CorruptError {
	held := fmt.Sprintf("the changes from LSN %d on, if any were made", from)
	if next != 0 {
		if to, ok := firstLSN(dir, LogName(next)); ok && to > from {
			held = fmt.Sprintf("the changes of LSN %d to %d", from, to-1)
		}
	}
	return &engine.CorruptError{File: inDir(dir, LogName(epoch)), Offset: -1, Reason: fmt.Sprintf(
		"the log is missing (%s): it held %s; restore it from a backup", why, held)}
}
