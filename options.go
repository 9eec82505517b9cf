package ttldb

import (
	"strconv"
	"time"
)

// Options configures a collection. The zero value of every field means its
// default, so a nil *[Options] is a collection with TTL off, consistent
// indexing, the wall clock and a background sweeper.
type Options struct {
	// DefaultTTL is the collection's TTL setting (R1). Zero: off.
	DefaultTTL DefaultTTL

	// Indexing is the indexing mode (R8). Zero: [IndexingConsistent].
	Indexing IndexingMode

	// Now is the clock. Zero: time.Now. A collection never lets its "now" go
	// backward, whatever the clock does (R4).
	//
	// Now is called concurrently: by every goroutine that calls the
	// collection, and by the sweeper, often with the collection's lock held
	// (Get, [Stats] and ExpiresAt hold it shared, so several calls run at
	// once). It must be safe for concurrent use, fast, and must not call the
	// collection. A simulated clock guards its time with an atomic or a
	// mutex. The background sweeper sleeps on the runtime's timers, so with
	// a simulated clock set ManualSweep and call Sweep. Times more than 2^62
	// seconds (146 billion years) from 1970 count as that bound, so that
	// _ts + ttl never overflows.
	Now func() time.Time

	// ManualSweep turns the background sweeper off: expired documents are
	// still hidden at once (R4), and are deleted only by Sweep. Zero: the
	// sweeper runs.
	ManualSweep bool

	// SweepBatch is the most documents deleted under one hold of the lock,
	// which bounds how long a foreground call waits for the sweeper (R5): a
	// larger batch sweeps a backlog with less overhead and makes callers
	// wait longer. Whatever the batch, a hold also ends after [MaxSweepHold].
	// Zero: [DefaultSweepBatch].
	SweepBatch int
}

// IndexingMode is a collection's indexing mode (R8). The zero value is
// [IndexingConsistent].
type IndexingMode uint8

const (
	// IndexingConsistent keeps every index up to date with every write; the
	// next call sees each change. It is the default and TTL needs it.
	IndexingConsistent IndexingMode = iota
	// IndexingNone is for a plain key-value collection. Like Cosmos DB, a
	// collection in this mode cannot have TTL: [DefaultTTL] must be off (R8).
	// The expiry index is still kept, so that switching back to
	// [IndexingConsistent] and turning TTL on cost O(1).
	IndexingNone
)

// String returns "consistent" or "none".
func (m IndexingMode) String() string {
	switch m {
	case IndexingConsistent:
		return "consistent"
	case IndexingNone:
		return "none"
	}
	return "IndexingMode(" + strconv.Itoa(int(m)) + ")"
}

func (m IndexingMode) validate() error {
	if m > IndexingNone {
		return errorf(ErrInvalidOption, "indexing mode %d: allowed are IndexingConsistent and IndexingNone (R8)", m)
	}
	return nil
}

// ttlNeedsIndexing is rule R8.
func ttlNeedsIndexing(def DefaultTTL, mode IndexingMode) error {
	if def.on && mode == IndexingNone {
		return errorf(ErrInvalidOption, "DefaultTTL %v needs indexing mode consistent, and the mode is none (R8)", def)
	}
	return nil
}

// DefaultSweepBatch is the number of documents the sweeper deletes while it
// holds the collection's lock, when [Options.SweepBatch] is zero.
const DefaultSweepBatch = 256

// MaxSweepHold is about the longest the sweeper holds the collection's lock
// at once: a batch ends early when it has taken this long, so that on a
// slow or busy machine foreground calls still wait no longer (R5).
const MaxSweepHold = 100 * time.Microsecond
