package local

import "github.com/ttldb/ttldb/engine"

// changeLog keeps the records of the all-versions-and-deletes feed (R11):
// one per LSN, from first to last, as many as the Retention allows. Records
// sit in chunks of logChunk consecutive LSNs, so that finding one is
// arithmetic, appending and dropping the oldest take O(1), and nothing is
// ever copied (only the slice of chunk pointers, 1/512 of their number):
// a log of millions of records never stalls a write to grow. A log whose
// size the Retention holds steady allocates nothing: the chunk it drops is
// the next it fills (spare), so the collector has no chunk to free (a
// write at 1,000,000 allocated 290 bytes, now 263; its time did not move
// measurably).
//
// It is also the log the durability of R12 will write to disk, whose
// records it already is: an operation, its LSN and _ts, and a document as
// written or, for a delete, the document deleted.
//
// Guarded by collection.mu.
type changeLog struct {
	limit  Retention           // validated
	chunks []*[logChunk]record // those kept are chunks[head:]
	head   int                 // the chunks before it are dropped (nil)
	base   uint64              // the LSN of chunks[head][0]
	first  uint64              // the oldest record kept; first == last+1 when none is
	last   uint64              // the newest LSN given out
	bytes  int64               // the size of the records kept (recordSize)
	// spare is the last chunk dropped, all zero, for the next append
	// that needs a chunk; nil when there is none.
	spare *[logChunk]record
}

// logChunk is how many records a chunk holds.
const logChunk = 512

// record is one change: d is the document written (create, replace) or
// deleted, whose key the delete reports, and ts is the change's _ts. Its
// LSN is its place in the log. A delete keeps the document it deleted
// rather than a copy of its key, so that the sweeper allocates nothing: its
// memory is counted in the retention, which bounds it (R15).
type record struct {
	d       *engine.Doc
	ts      int64
	size    uint32 // recordSize, kept so that dropping the record never reads its (cold) document
	op      uint8
	expired bool
	evicted bool // a memory quota's eviction (quota.go)
}

// recordSize is what a record counts against MaxBytes: the record and its
// document, header and text, whether or not the collection still holds
// the document too.
func recordSize(d *engine.Doc) uint32 { return 24 + uint32(d.Size()) }

func newChangeLog(limit Retention) changeLog {
	return changeLog{limit: limit, base: 1, first: 1}
}

// trimAtMost is the most records an append drops for their age; an age
// bound that drops more catches up with later appends. The bounds on count
// and size drop as many as they must, each record once: O(1) amortized.
const trimAtMost = 64

// append adds r, the change of the next LSN, and drops the oldest records
// beyond the Retention at now.
func (l *changeLog) append(r record, lsn uint64, now int64) {
	l.last = lsn
	i := lsn - l.base
	if i/logChunk == uint64(len(l.chunks)-l.head) {
		c := l.spare
		if c == nil {
			c = new([logChunk]record)
		}
		l.chunks, l.spare = append(l.chunks, c), nil
	}
	r.size = recordSize(r.d)
	*l.at(lsn) = r
	l.bytes += int64(r.size)
	l.trim(now)
}

// trim drops the oldest records beyond the Retention at now: every one
// beyond the bounds on count and size, and up to trimAtMost beyond the age.
func (l *changeLog) trim(now int64) {
	for n := 0; l.first <= l.last; n++ {
		r := l.at(l.first)
		over := l.limit.Records > 0 && int64(l.last-l.first+1) > l.limit.Records ||
			l.limit.Bytes > 0 && l.bytes > l.limit.Bytes ||
			n < trimAtMost && l.limit.Age > 0 && r.ts <= now-l.limit.Age
		if !over {
			return
		}
		l.bytes -= int64(r.size)
		*r = record{}
		l.first++
		if l.first-l.base == logChunk {
			l.drop()
		}
	}
}

// drop drops the oldest chunk, each of whose records trim has zeroed: it
// becomes the spare. The slice of chunks is copied down once half of it is
// dropped, so that it neither grows without end (as reslicing it would,
// an append then making it anew) nor is copied at every drop: O(1)
// amortized.
func (l *changeLog) drop() {
	l.spare = l.chunks[l.head]
	l.chunks[l.head] = nil
	l.head++
	l.base += logChunk
	if l.head >= 8 && 2*l.head >= len(l.chunks) {
		n := copy(l.chunks, l.chunks[l.head:])
		clear(l.chunks[n:])
		l.chunks, l.head = l.chunks[:n], 0
	}
}

// at returns the record of lsn, which must be kept (first <= lsn <= last),
// or be the one append is adding.
func (l *changeLog) at(lsn uint64) *record {
	i := lsn - l.base
	return &l.chunks[l.head+int(i/logChunk)][i%logChunk]
}

// clear drops every record and keeps the LSNs given out.
func (l *changeLog) clear() {
	l.chunks, l.head, l.spare, l.bytes = nil, 0, nil, 0
	l.first, l.base = l.last+1, l.last+1
}
