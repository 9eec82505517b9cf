package local

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// The records of a durable collection's files (R12), inside the frames of
// internal/wal. A log holds the changes, one group per call that made
// them; a snapshot holds a state record, then every document in the order
// of its last write, then an end record. Numbers are big-endian.
//
//	put         kind 1, op (1: create, 2: replace), LSN (8), _ts (8), body
//	delete      kind 2, how (1: 0 asked, 1 expired, 2 evicted by a quota),
//	            LSN (8), the instant (8), key
//	default     kind 3, on (1), seconds (8), the instant (8)
//	indexing    kind 4, mode (1)
//	state       kind 5: see appendState
//	end         kind 6, documents (8)
//	clock       kind 7, the instant (8)
//	index       kind 8, made (1: made, 0: dropped), the path of a secondary index
//	next        kind 9, the epoch of the log that follows (8): the last
//	            group of a log that a rotation ended (logchain.go)
//
// A put keeps the body as stored (compact, without _ts and _etag): replay
// parses it again, which recomputes its key, partition key and ttl, and
// refuses a body that is not a valid document; nothing on disk is trusted
// beyond its checksum. A delete names its key; the etag of a put is that of
// its LSN.
const (
	recPut      = 1
	recDelete   = 2
	recDefault  = 3
	recIndexing = 4
	recState    = 5
	recEnd      = 6
	recClock    = 7
	recIndex    = 8
	recNext     = 9
)

// appendPut appends the record of the write of d, stamped, as op.
func appendPut(b []byte, d *engine.Doc, lsn uint64, op uint8) []byte {
	b = append(b, recPut, byte(op))
	b = binary.BigEndian.AppendUint64(b, lsn)
	b = binary.BigEndian.AppendUint64(b, uint64(d.TS))
	return append(b, d.Body()...)
}

// appendDelete appends the record of the deletion of key, at now, with the
// LSN lsn; expired says the sweeper deleted it.
func appendDelete(b []byte, key string, lsn uint64, now int64, expired bool) []byte {
	x := byte(delAsked)
	if expired {
		x = delExpired
	}
	return appendDeleteAs(b, key, lsn, now, x)
}

// The flag of a delete record: who deleted the document. A log written
// before quotas holds only the first two, which every later version reads.
const (
	delAsked   = 0 // a caller
	delExpired = 1 // the sweeper, or a write over an expired document (R5)
	delEvicted = 2 // a memory quota (quota.go, R17)
)

// appendDeleteAs is appendDelete with the record's flag, how.
func appendDeleteAs(b []byte, key string, lsn uint64, now int64, how byte) []byte {
	b = append(b, recDelete, how)
	b = binary.BigEndian.AppendUint64(b, lsn)
	b = binary.BigEndian.AppendUint64(b, uint64(now))
	return append(b, key...)
}

// appendDefault appends the record of a change of the [engine.DefaultTTL] to def
// at now, which R7's cut-offs depend on.
func appendDefault(b []byte, def engine.DefaultTTL, now int64) []byte {
	b = append(b, recDefault, boolByte(def.On))
	b = binary.BigEndian.AppendUint64(b, uint64(def.Seconds))
	return binary.BigEndian.AppendUint64(b, uint64(now))
}

// appendIndexing appends the record of a change of the indexing mode.
func appendIndexing(b []byte, m engine.Indexing) []byte { return append(b, recIndexing, byte(m)) }

// appendIndex appends the record of a secondary index on ptr made, or
// dropped.
func appendIndex(b []byte, made bool, ptr string) []byte {
	return append(append(b, recIndex, boolByte(made)), ptr...)
}

// appendClock appends the record of the collection's latest "now", which
// reads may have moved past every instant of the other records: a reopen
// must not let it go back (R4), or an expired document would come back.
func appendClock(b []byte, now int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, recClock), uint64(now))
}

// appendNext appends the record that ends a log: the log of epoch follows
// it, and exists.
func appendNext(b []byte, epoch uint64) []byte {
	return binary.BigEndian.AppendUint64(append(b, recNext), epoch)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// savedState is what a snapshot holds beside the documents: the collection's
// identity and settings, R7's cut-offs, and where its LSNs and its clock
// are.
type savedState struct {
	name, path        string
	etagBase, tokenID uint64
	seq               uint64 // the last LSN
	last              int64  // the latest "now"
	mode              engine.Indexing
	def               engine.DefaultTTL
	ownCut            int64
	cuts              []inheritCut
	docs              uint64   // in the snapshot, to size the maps that load them
	indexes           []string // the paths of the secondary indexes
	gaps              []lsnGap // the LSNs restores skipped (restore.go), oldest first
}

// appendState appends a state record: kind 5, then the name and the
// partition-key path (each a length (2) and its bytes), the etag base, the
// token id, the last LSN, the latest now (8 each), the indexing mode (1),
// the DefaultTTL (on (1), seconds (8)), the own cut (8), and the inherit
// cuts (a count (4), then upTo and ttl (8 each) of each), the number
// of documents that follow (8), and the paths of the secondary indexes (a
// count (2), then each as a length (2) and its bytes), which snapshots
// written before indexes existed lack; then, only in a collection made by a
// restore, the LSN gaps of its restores (a count (2), then from and to (8
// each) of each), so that other collections' snapshots stay readable by
// versions of ttldb that know no gaps.
func appendState(b []byte, s savedState) []byte {
	b = append(b, recState)
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.name)))
	b = append(b, s.name...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.path)))
	b = append(b, s.path...)
	for _, v := range []uint64{s.etagBase, s.tokenID, s.seq, uint64(s.last)} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	b = append(b, byte(s.mode), boolByte(s.def.On))
	b = binary.BigEndian.AppendUint64(b, uint64(s.def.Seconds))
	b = binary.BigEndian.AppendUint64(b, uint64(s.ownCut))
	b = binary.BigEndian.AppendUint32(b, uint32(len(s.cuts)))
	for _, c := range s.cuts {
		b = binary.BigEndian.AppendUint64(b, uint64(c.upTo))
		b = binary.BigEndian.AppendUint64(b, uint64(c.ttl))
	}
	b = binary.BigEndian.AppendUint64(b, s.docs)
	b = binary.BigEndian.AppendUint16(b, uint16(len(s.indexes)))
	for _, p := range s.indexes {
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
		b = append(b, p...)
	}
	if len(s.gaps) > 0 {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s.gaps)))
		for _, g := range s.gaps {
			b = binary.BigEndian.AppendUint64(b, g.from)
			b = binary.BigEndian.AppendUint64(b, g.to)
		}
	}
	return b
}

// appendEnd appends the record that ends a snapshot of n documents.
func appendEnd(b []byte, n uint64) []byte {
	return binary.BigEndian.AppendUint64(append(b, recEnd), n)
}

// fields reads a record's fields, remembering the first that is missing.
type fields struct {
	b   []byte
	bad bool
}

func (f *fields) bytes(n int) []byte {
	if f.bad || n > len(f.b) {
		f.bad = true
		return nil
	}
	v := f.b[:n]
	f.b = f.b[n:]
	return v
}

func (f *fields) u8() byte {
	if v := f.bytes(1); v != nil {
		return v[0]
	}
	return 0
}

func (f *fields) flag() bool {
	v := f.u8()
	if v > 1 {
		f.bad = true
	}
	return v == 1
}

func (f *fields) u16() int {
	if v := f.bytes(2); v != nil {
		return int(binary.BigEndian.Uint16(v))
	}
	return 0
}

func (f *fields) u32() uint32 {
	if v := f.bytes(4); v != nil {
		return binary.BigEndian.Uint32(v)
	}
	return 0
}

func (f *fields) u64() uint64 {
	if v := f.bytes(8); v != nil {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

func (f *fields) i64() int64 { return int64(f.u64()) }

// rest returns what is left of the record.
func (f *fields) rest() []byte {
	v := f.b
	f.b = nil
	return v
}

// readState decodes a state record, without its kind, and checks that its
// values are ones a collection can have.
func readState(b []byte) (savedState, error) {
	f := fields{b: b}
	var s savedState
	s.name = string(f.bytes(f.u16()))
	s.path = string(f.bytes(f.u16()))
	s.etagBase, s.tokenID, s.seq, s.last = f.u64(), f.u64(), f.u64(), f.i64()
	s.mode = engine.Indexing(f.u8())
	s.def = engine.DefaultTTL{On: f.flag(), Seconds: f.i64()}
	s.ownCut = f.i64()
	n := f.u32()
	if int64(n) > int64(len(f.b)/16) || n > 1<<20 {
		return s, fmt.Errorf("a state record counts %d cut-offs in %d bytes", n, len(f.b))
	}
	s.cuts = make([]inheritCut, n)
	for i := range s.cuts {
		s.cuts[i] = inheritCut{upTo: f.i64(), ttl: f.i64()}
	}
	if len(f.b) > 0 { // written by snapshots from the first of them on but one: absent, no size is known
		s.docs = f.u64()
	}
	if len(f.b) > 0 { // written since secondary indexes exist
		n := int(f.u16())
		for range min(n, len(f.b)/2) {
			p := string(f.bytes(f.u16()))
			if _, err := query.ParsePointer(p); err != nil || slices.Contains(s.indexes, p) {
				return s, fmt.Errorf("a state record holds the index path %.40q", p)
			}
			s.indexes = append(s.indexes, p)
		}
		if len(s.indexes) != n {
			f.bad = true
		}
	}
	if len(f.b) > 0 { // written by a restore's snapshot and those after it
		n := f.u16()
		if n == 0 || n > len(f.b)/16 {
			return s, fmt.Errorf("a state record counts %d LSN gaps in %d bytes", n, len(f.b))
		}
		prev := uint64(0)
		for range n {
			g := lsnGap{from: f.u64(), to: f.u64()}
			if g.from < prev || g.to <= g.from || g.to > s.seq {
				return s, fmt.Errorf("a state record holds the LSN gap %d-%d after %d, with last LSN %d", g.from, g.to, prev, s.seq)
			}
			s.gaps, prev = append(s.gaps, g), g.to
		}
	}
	switch {
	case f.bad || len(f.b) != 0:
		return s, fmt.Errorf("a state record of %d bytes is malformed", len(b)+1)
	case s.mode > engine.None:
		return s, fmt.Errorf("a state record holds indexing mode %d", s.mode)
	case !s.def.Valid():
		return s, fmt.Errorf("a state record holds DefaultTTL %+v", s.def)
	case !s.mode.Allows(s.def):
		return s, fmt.Errorf("a state record holds DefaultTTL %v with indexing mode none", s.def)
	case s.last < -maxClock || s.last > maxClock:
		return s, fmt.Errorf("a state record holds the instant %d", s.last)
	}
	prev := int64(math.MinInt64)
	for _, c := range s.cuts {
		if c.upTo <= prev {
			return s, fmt.Errorf("a state record holds cut-offs out of order")
		}
		prev = c.upTo
	}
	return s, nil
}
