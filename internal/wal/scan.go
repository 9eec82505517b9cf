package wal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// ErrCorrupt: a log damaged otherwise than by a torn tail. The error is a
// [*CorruptError], which names the offset.
var ErrCorrupt = errors.New("wal: log damaged")

// CorruptError is damage that recovery must not cut off silently: a bad
// header, or a bad frame in a part of the log that a later group says was
// synced. Truncating the log at Offset repairs it, losing what follows.
type CorruptError struct {
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%v at offset %d: %s", ErrCorrupt, e.Offset, e.Reason)
}

// Unwrap returns [ErrCorrupt].
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Group is a committed group of records, as Scan found it.
type Group struct {
	// Records are the group's records, in order. They are views of a
	// buffer Scan reuses: copy what you keep.
	Records [][]byte
	// Tag is the tag its commit carries.
	Tag uint64
	// End is the offset just after the group.
	End int64
}

// Result is what Scan found.
type Result struct {
	// Groups is the number of whole groups.
	Groups int
	// End is the offset after the last whole group (HeaderSize when there
	// is none; 0 when not even the header is whole): the log's valid length.
	End int64
	// Dropped is the size of the torn tail after End, which the caller
	// cuts off: a group whose write a crash interrupted.
	Dropped int64
	// Reason says why the tail was dropped; empty when nothing was.
	Reason string
}

// Scan reads the log of size bytes in r and calls fn with each whole
// group, in order. A tail that is not a whole group (a torn write, or
// garbage and zeros after the last one) is reported in the Result, not as
// an error. Damage followed by whole groups is a [*CorruptError], as is a
// header that is not a ttldb log's. An error of fn ends the scan and is
// returned. Scan never panics and allocates no more than the largest
// group, whatever the bytes.
func Scan(r io.ReaderAt, size int64, fn func(Group) error) (Result, error) {
	var res Result
	head := make([]byte, HeaderSize)
	n, _ := r.ReadAt(head, 0)
	want := Header()
	switch {
	case size == 0:
		return res, nil // a new log: the header is yet to write
	case n < HeaderSize && bytes.HasPrefix(want, head[:n]):
		res.Dropped, res.Reason = size, "the header is incomplete: the log's creation was interrupted"
		return res, nil
	case allZeros(r, size):
		// A file grown ahead in zeros (ttldb's logs are) before its header
		// reached it: its creation was interrupted.
		res.Dropped, res.Reason = size, "the log holds only zeros: its creation was interrupted"
		return res, nil
	case n < HeaderSize || string(head[:len(Magic)]) != Magic:
		return res, &CorruptError{0, "not a ttldb log: it does not begin with " + Magic}
	case !bytes.Equal(head, want):
		return res, &CorruptError{0, fmt.Sprintf("header %x: a version other than %d, or damaged", head, Version)}
	}
	res.End = HeaderSize
	s := &scanner{r: bufio.NewReaderSize(io.NewSectionReader(r, HeaderSize, size-HeaderSize), 1<<20), off: HeaderSize, size: size}
	for {
		g, reason, err := s.group()
		if err != nil {
			return res, err
		}
		if g.End == 0 && reason == "" {
			return res, nil // the end, between groups
		}
		if reason != "" {
			if res.End < size {
				if err := classify(r, s.bad, size, reason); err != nil {
					return res, err
				}
				res.Dropped, res.Reason = size-res.End, reason
			}
			return res, nil
		}
		if err := fn(g); err != nil {
			return res, err
		}
		res.Groups, res.End = res.Groups+1, g.End
	}
}

// scanner reads frames in order.
type scanner struct {
	r       *bufio.Reader
	off     int64 // of the next frame
	size    int64
	bad     int64 // where the damage is, once reason is set
	buf     []byte
	records [][]byte
	ends    []int // where each record of the group in progress ends in buf
	h       [frameHeader]byte
}

// group reads the next whole group; reason says why there is none. At the
// end of the log, between groups, it returns a zero Group and no reason.
func (s *scanner) group() (g Group, reason string, err error) {
	s.buf, s.records, s.ends = s.buf[:0], s.records[:0], s.ends[:0]
	start := s.off
	for {
		if s.off == s.size {
			if s.off == start {
				return g, "", nil // the end, between groups
			}
			s.bad = s.off
			return g, fmt.Sprintf("the log ends inside a group of %d records, without its commit", len(s.ends)), nil
		}
		at := s.off
		h := s.h[:] // the scanner's: an array of its own would escape to the heap, a frame at a time
		if _, err := io.ReadFull(s.r, h); err != nil {
			s.bad = at
			return g, fmt.Sprintf("a frame header at offset %d is cut short", at), nil
		}
		length, crc, typ := binary.BigEndian.Uint32(h[:]), binary.BigEndian.Uint32(h[4:]), h[8]
		switch {
		case typ != typeRecord && typ != typeCommit:
			s.bad = at
			return g, fmt.Sprintf("the frame at offset %d has type %d", at, typ), nil
		case typ == typeCommit && length != commitPayload, length > MaxRecord:
			s.bad = at
			return g, fmt.Sprintf("the frame at offset %d has length %d", at, length), nil
		case int64(length) > s.size-at-frameHeader:
			s.bad = at
			return g, fmt.Sprintf("the frame at offset %d, of %d bytes, runs past the end", at, length), nil
		}
		from := len(s.buf)
		s.buf = slices.Grow(s.buf, int(length))[:from+int(length)]
		payload := s.buf[from:]
		if _, err := io.ReadFull(s.r, payload); err != nil {
			return g, "", err // the size said it was there: a read error
		}
		if crc32.Update(crc32.Checksum(h[8:9], castagnoli), castagnoli, payload) != crc { // the type, then the payload
			s.bad = at
			return g, fmt.Sprintf("the frame at offset %d fails its checksum", at), nil
		}
		s.off = at + frameHeader + int64(length)
		if typ == typeRecord {
			s.ends = append(s.ends, len(s.buf))
			continue
		}
		count := binary.BigEndian.Uint32(payload)
		if int(count) != len(s.ends) {
			s.bad = at
			return g, fmt.Sprintf("the commit at offset %d closes %d records, and its group has %d", at, count, len(s.ends)), nil
		}
		prev := 0
		for _, end := range s.ends {
			s.records = append(s.records, s.buf[prev:end])
			prev = end
		}
		return Group{Records: s.records, Tag: binary.BigEndian.Uint64(payload[4:]), End: s.off}, "", nil
	}
}

// classify tells a torn tail from damage: the tail from bad on is torn
// unless a whole commit frame after bad says the log was synced beyond
// bad: that part was whole on stable storage once, and a crash cannot tear
// it. It returns the [*CorruptError], or nil for a torn tail.
func classify(r io.ReaderAt, bad, size int64, reason string) error {
	const window = 1 << 20
	const commitFrame = frameHeader + commitPayload
	buf := make([]byte, window+commitFrame)
	for from := bad + 1; from+commitFrame <= size; from += window {
		n, _ := r.ReadAt(buf[:min(int64(len(buf)), size-from)], from)
		for i := 0; i+commitFrame <= n; i++ {
			if c := buf[i : i+commitFrame]; isCommit(c) && int64(binary.BigEndian.Uint64(c[frameHeader+12:])) > bad {
				return &CorruptError{bad, reason + ", and a later group says the log was synced beyond it: truncate the log at this offset to keep what precedes"}
			}
		}
	}
	return nil
}

// allZeros reports whether the size bytes of r are all zero.
func allZeros(r io.ReaderAt, size int64) bool {
	buf := make([]byte, min(size, 64<<10))
	for off := int64(0); off < size; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n == 0 || !bytes.Equal(buf[:n], make([]byte, n)) {
			return false
		}
		if err != nil && off+int64(n) < size {
			return false
		}
		off += int64(n)
	}
	return true
}

// isCommit reports whether b is a whole commit frame.
func isCommit(b []byte) bool {
	return binary.BigEndian.Uint32(b) == commitPayload && b[8] == typeCommit &&
		crc32.Update(crc32.Checksum(b[8:9], castagnoli), castagnoli, b[frameHeader:]) == binary.BigEndian.Uint32(b[4:])
}
