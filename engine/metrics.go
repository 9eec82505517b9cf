package engine

// Metrics are the counters and gauges an engine keeps of what happens
// beneath the API (R17): what the API cannot see itself, such as the
// sweeper's deletions or a document found expired. The API counts the
// calls (reads, hits, misses, writes by kind) for every engine. The zero
// value is an engine that reports nothing: every figure 0.
type Metrics struct {
	// Expired counts the documents a read or a write found expired and
	// not yet swept, and so hid (R4), since the open.
	Expired uint64
	// Swept counts the expired documents deleted since the open, by the
	// sweeper, Sweep and the writes that help it (R5).
	Swept uint64
	// Evicted counts the documents a memory quota evicted since the open
	// (R17).
	Evicted uint64
	// Backlog is the number of documents expired and not yet swept, and
	// OldestDue the instant, in Unix seconds, the oldest of them expired
	// at (0 when Backlog is 0).
	Backlog   int64
	OldestDue int64
	// Documents is the number of live documents (expired ones left out);
	// Bytes the size of the documents held, expired-not-swept included:
	// their bodies as stored (compact JSON without _ts and _etag).
	Documents int64
	Bytes     int64
	// LastLSN is the LSN of the last change the feed shows; FeedOldest
	// the LSN of the oldest change the all-versions feed still holds (0
	// when it holds none, or the feed is off).
	LastLSN    uint64
	FeedOldest uint64
}

// Meter is the capability of an engine that keeps [Metrics]. Metrics
// must not wait on a disk or the network: it is read by a metrics system
// at each of its collections, and answers from what the engine holds in
// memory, in O(1) or close to it (the engine documents what it costs). It
// is safe for concurrent use and answers after Close (the counters as
// they stood, the gauges 0). An engine without it gives the API's own
// counters alone.
type Meter interface {
	Metrics() Metrics
}
