package ttldb

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// Metrics are a collection's counters and gauges, for a metrics system
// (R17): a [Collection.Metrics] call reads them all. Counters count from
// the open (they start at 0 at each open, a durable collection's too) and
// only go up; gauges are the state at the call. The zero value is a
// collection that did nothing.
//
// The API counts the calls, for every engine; the figures below the API
// (Expired and after it) come from the engine: the in-process engine gives
// them all, an engine that keeps none (see [engine.Meter]) leaves them 0.
type Metrics struct {
	// Reads counts the point reads ([Collection.Get], and the typed and
	// JSON forms that call it) that reached the engine: Hits found the
	// document, Misses did not (none, or expired: R4). Reads is Hits plus
	// Misses. A call refused before (a bad key, a done context) is not
	// counted; nor are the reads of a batch, a listing or a query.
	Reads, Hits, Misses uint64

	// Writes counts the writes applied, by kind: a write refused (a
	// conflict, a failed condition, a document not found) is not counted.
	// A batch counts once in Batches, whatever its operations.
	Creates, Replaces, Upserts, Deletes, Patches, Touches, Batches uint64

	// Expired counts the documents a call found expired and not yet swept,
	// and hid (R4): a point read's miss, or a write that found one in its
	// key's place (a create over it succeeds, R4).
	Expired uint64
	// Swept counts the expired documents deleted: by the sweeper, by Sweep
	// and by writes that helped the sweeper (R5). Stats.Swept is the same.
	Swept uint64
	// Evicted counts the documents a memory quota evicted since the open
	// ([QuotaEvictSoonest]); Stats.Evicted is the same.
	Evicted uint64

	// Backlog is the number of expired documents not yet swept (the
	// sweeper's backlog), and OldestDue the instant the oldest of them
	// expired at (the zero time when Backlog is 0): now minus OldestDue is
	// how far the sweeper is behind.
	Backlog   int64
	OldestDue time.Time
	// Documents is the number of live documents; Bytes the size of the
	// documents held, expired-not-swept ones included, as stored (compact
	// JSON without _ts and _etag): about the memory they take, without the
	// indexes' and the feed's.
	Documents int64
	Bytes     int64

	// LastLSN is the LSN of the last change the feed shows, and
	// FeedOldest the LSN of the oldest change the all-versions feed still
	// holds (0 when it holds none, or the feed is off). An embedded
	// collection does not know its feed's readers: a reader's lag is
	// LastLSN minus the LSN it has read up to, which it holds (its
	// continuation); a reader whose position falls below FeedOldest has
	// lost changes (ErrFeedTrimmed). LastLSN - FeedOldest + 1 is how many
	// changes a reader may fall behind before then.
	LastLSN, FeedOldest uint64
}

// counters are the API's counters of a [Collection]: atomics on cache
// lines of their own, apart from the fields every call reads, so that a
// count does not slow the reads of another core. A count costs one atomic
// add, uncontended on the single-goroutine paths (about 1% of a point
// read; see the README's "Operating").
type counters struct {
	_      [64]byte
	hits   atomic.Uint64
	misses atomic.Uint64
	writes [8]atomic.Uint64 // by engine.Op; batches at batchSlot
	_      [64]byte
}

// batchSlot is the slot of counters.writes that counts batches: Read's,
// which is no write.
const batchSlot = int(engine.Read)

// read counts a point read's outcome: err is the engine's. A hit costs
// an atomic add, inlined.
func (m *counters) read(err error) {
	if err == nil {
		m.hits.Add(1)
		return
	}
	m.miss(err)
}

// miss counts a read that found nothing; another error counts nothing.
// It is not inlined, so that read is.
//
//go:noinline
func (m *counters) miss(err error) {
	if err == engine.ErrNotFound || errors.Is(err, engine.ErrNotFound) {
		m.misses.Add(1)
	}
}

// wrote counts a write of op that the engine applied.
func (m *counters) wrote(op engine.Op) { m.writes[op&7].Add(1) }

// Metrics returns the collection's [Metrics]. The API's counters are read
// in O(1) without a lock; the in-process engine reads its gauges under its
// read lock in O(log b + k) for the k seconds at which the expired documents
// not yet swept fell due (b seconds in all): one or two while the sweeper
// keeps up. It waits on no disk or network, and answers after Close (the
// counters as they were, the gauges 0). The zero [Collection] gives the
// zero Metrics.
func (c *Collection) Metrics() Metrics {
	m := Metrics{
		Hits: c.m.hits.Load(), Misses: c.m.misses.Load(),
		Creates: c.m.writes[engine.Create].Load(), Replaces: c.m.writes[engine.Replace].Load(),
		Upserts: c.m.writes[engine.Upsert].Load(), Deletes: c.m.writes[engine.Delete].Load(),
		Patches: c.m.writes[engine.Modify].Load(), Touches: c.m.writes[engine.Touch].Load(),
		Batches: c.m.writes[batchSlot].Load(),
	}
	m.Reads = m.Hits + m.Misses
	var em engine.Metrics
	switch mt, ok := c.eng.(engine.Meter); {
	case c.fast != nil:
		em = c.fast.Metrics()
	case ok:
		em = mt.Metrics()
	}
	m.Expired, m.Swept, m.Evicted = em.Expired, em.Swept, em.Evicted
	m.Backlog, m.Documents, m.Bytes = em.Backlog, em.Documents, em.Bytes
	if em.OldestDue != 0 {
		m.OldestDue = time.Unix(em.OldestDue, 0)
	}
	m.LastLSN, m.FeedOldest = em.LastLSN, em.FeedOldest
	return m
}
