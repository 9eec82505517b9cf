// Package wal is the format of ttldb's write-ahead log: records framed
// with their length and a CRC-32C, gathered in groups that a commit frame
// closes. A group is written with one write and is whole or absent after
// a crash: recovery (Scan) keeps every group up to the last whole one,
// reports a torn tail it cuts off, and refuses other damage, naming the
// offset.
//
// A log file is a header, then frames:
//
//	header   16 bytes: "ttldbwal", version (uint32), CRC-32C of the 12 before
//	frame    length (uint32, of the payload), CRC-32C (uint32, of the type
//	         and the payload), type (1 byte), payload
//
// A record frame (type 1) carries a record; a commit frame (type 2) closes
// the group of the records since the previous commit, and carries their
// count (uint32), a tag the writer chose (uint64: ttldb's last LSN), and the
// length of the log that was synced when the group was made (uint64): the
// part of the log that was whole on stable storage then. Numbers are
// big-endian.
//
// Recovery tells a torn tail from damage by that length. A crash tears
// only what was not synced, and not always at its start: the pages of one
// write reach the disk in any order, and a copy into a mapped file is made
// in any order too. So bad bytes followed by whole groups are a torn tail
// when no later group says the log was synced beyond them; they are
// damage, which must not be cut silently, when one does.
//
// The package knows nothing of what records mean, of files or of syncing:
// it writes to an io.Writer and reads from an io.ReaderAt.
package wal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
)

// Magic opens every log file.
const Magic = "ttldbwal"

// Version is the version of the format the package writes and reads.
const Version = 1

// HeaderSize is the size of the header.
const HeaderSize = 16

// frameHeader is the size of a frame's header: length, CRC, type.
const frameHeader = 9

// commitPayload is the size of a commit frame's payload: count, tag and
// synced length.
const commitPayload = 20

// MaxRecord is the largest record: a larger length in a frame is damage,
// never an allocation.
const MaxRecord = 64 << 20

const (
	typeRecord = 1
	typeCommit = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrTooLarge: a record larger than [MaxRecord].
var ErrTooLarge = errors.New("wal: record too large")

// Header returns the header of a new log.
func Header() []byte {
	b := append([]byte(Magic), 0, 0, 0, Version)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// appendFrame appends a frame of type typ around payload to b.
func appendFrame(b []byte, typ byte, payload []byte) []byte {
	crc := crc32.Update(crc32.Checksum([]byte{typ}, castagnoli), castagnoli, payload)
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.BigEndian.AppendUint32(b, crc)
	b = append(b, typ)
	return append(b, payload...)
}

// Writer appends groups of records to a log. It is not safe for
// concurrent use. The zero Writer is not usable: make one with NewWriter.
type Writer struct {
	w      io.Writer
	buf    []byte // the pending group's frames
	n      uint32 // the pending group's records
	off    int64  // the log's size once what was written is on it
	synced int64  // the length of the log known synced
	err    error  // the first write error: the log's end is unknown after it
}

// Synced tells the Writer that the first off bytes of the log are synced:
// the groups it commits from now on say so.
func (w *Writer) Synced(off int64) { w.synced = off }

// NewWriter returns a Writer that appends to w, whose end is at offset off
// (HeaderSize after writing a new log's Header).
func NewWriter(w io.Writer, off int64) *Writer { return &Writer{w: w, off: off} }

// Add adds a record to the pending group. It copies the record.
//
// Errors: [ErrTooLarge]; an earlier write error.
func (w *Writer) Add(record []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(record) > MaxRecord {
		return ErrTooLarge
	}
	w.buf = appendFrame(w.buf, typeRecord, record)
	w.n++
	return nil
}

// Pending returns the number of records added since the last Commit.
func (w *Writer) Pending() int { return int(w.n) }

// Commit closes the pending group with a commit frame carrying tag and
// writes it with one Write. It returns the log's size after the group.
// After a write error every call returns it: what reached the log is
// unknown, and only a recovery (Scan) can tell.
func (w *Writer) Commit(tag uint64) (int64, error) {
	if w.err != nil {
		return w.off, w.err
	}
	w.buf = AppendCommit(w.buf, w.n, tag, w.synced)
	n, err := w.w.Write(w.buf)
	if err == nil && n < len(w.buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
		return w.off, err
	}
	w.off += int64(n)
	w.buf, w.n = w.buf[:0], 0
	return w.off, nil
}

// Begin starts a record frame at the end of b, for the caller to append
// the record's payload to; End finishes it. With them a caller encodes a
// record in place, into the buffer of a group it writes itself, without
// the copy Add makes: b, mark := Begin(b); b = append(b, ...); b = End(b,
// mark).
func Begin(b []byte) ([]byte, int) {
	mark := len(b)
	return append(b, 0, 0, 0, 0, 0, 0, 0, 0, typeRecord), mark
}

// End finishes the record frame Begin started at mark: it fills in the
// payload's length and CRC. A payload larger than [MaxRecord] makes a frame
// that Scan reports as damage: the caller must keep records smaller.
func End(b []byte, mark int) []byte {
	payload := b[mark+frameHeader:]
	crc := crc32.Update(crc32.Checksum(b[mark+8:mark+9], castagnoli), castagnoli, payload)
	binary.BigEndian.PutUint32(b[mark:], uint32(len(payload)))
	binary.BigEndian.PutUint32(b[mark+4:], crc)
	return b
}

// AppendCommit appends the commit frame that closes a group of count
// records with tag, made when the first synced bytes of the log were
// synced (0 when unknown: less than the truth is safe, more is not).
func AppendCommit(b []byte, count uint32, tag uint64, synced int64) []byte {
	mark := len(b)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0, typeCommit) // in place, as Begin and End do: no allocation
	b = binary.BigEndian.AppendUint32(b, count)
	b = binary.BigEndian.AppendUint64(b, tag)
	b = binary.BigEndian.AppendUint64(b, uint64(max(synced, 0)))
	return End(b, mark)
}
