package ttldb

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// Options configures a collection. The zero value of every field means its
// default, so a nil *[Options] is a collection with TTL off, consistent
// indexing, the wall clock and a background sweeper.
//
// The settings fields, DefaultTTL, Indexing and Indexes, mean one thing to
// [Open] and another to [NewCollection] when [Options.Dir] (or Open's file
// URL) holds a collection already:
//
//   - [Open] keeps the stored settings: it is for a program that did not
//     make the collection and must not silently change it. The settings
//     fields are those of a collection it creates; on an existing one a
//     zero field means "as stored", and a non-zero field that differs from
//     the stored value refuses the open with [ErrInvalidOption] naming both
//     and the setter to call once it is open. As TTLOff is the zero
//     DefaultTTL and IndexingConsistent the zero Indexing, neither asks
//     Open for anything on an existing collection: to turn TTL off, call
//     SetDefaultTTL(ctx, TTLOff()) on the open collection; to go back to
//     consistent indexing, SetIndexingMode(ctx, IndexingConsistent).
//     Recovery().Changed stays empty.
//   - [NewCollection] applies them, as options that describe the collection
//     the program wants at every open: it gives the collection the settings
//     that can change on a live collection as if their setters were called
//     right after the open: DefaultTTL (SetDefaultTTL, with R7's cut-offs at
//     the open's instant), Indexing (SetIndexingMode), Indexes (CreateIndex
//     of those it lacks; it keeps the others: DropIndex drops one). Each
//     change is logged, so that the next open finds it, and listed in
//     [Recovery].Changed, such as "DefaultTTL: 3600 → 7200"; options equal
//     to what the directory holds change and log nothing.
//
// Either way, the handle's own options (Now, ManualSweep, SweepBatch, Feed,
// Sync), which are not stored, apply at every open. What cannot change, the
// collection's name and partition-key path, and a change its setter would
// refuse (Indexing none where the directory has secondary indexes, R8),
// refuse the open with [ErrInvalidOption] naming both values, and the
// refused open changes nothing in the directory (R12).
type Options struct {
	// Name is the collection's name, for [Open]: required to make a
	// collection (mem:, or a directory that holds none); for an existing
	// directory, empty means the stored name, and another name is refused.
	// [NewCollection] takes the name as its argument: there, Name must be
	// empty or equal to it, else [ErrInvalidOption]. Zero: none.
	Name string

	// PartitionKeyPath is the collection's partition-key path, such as
	// "/customerId", for [Open], as Name is: required to make a
	// collection, empty for an existing directory's stored path, and
	// refused when it differs from that. [NewCollection] takes it as its
	// argument: there, it must be empty or equal to it, else
	// [ErrInvalidOption]. Zero: none.
	PartitionKeyPath string

	// DefaultTTL is the collection's TTL setting (R1). Zero: off; except
	// for [Open] of an existing collection, where zero (TTLOff) means the
	// stored setting: see [Options]. NewCollection applies it at a reopen.
	DefaultTTL DefaultTTL

	// Indexing is the indexing mode (R8). Zero: [IndexingConsistent];
	// except for [Open] of an existing collection, where zero means the
	// stored mode. NewCollection applies it at a reopen.
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

	// Feed sets how much of the change feed's history is kept, or turns
	// the feed off (R11). It is not stored: each open of a directory
	// keeps the feed these options say. Zero: on, keeping
	// [DefaultFeedBytes] of records.
	Feed FeedOptions

	// Dir is the directory a durable collection lives in (R12): a log of
	// its changes and a snapshot, compacted in the background. A directory
	// that does not exist is created with the collection; an existing one
	// is loaded, with its stored settings ([Open]) or given the settings of
	// these options ([NewCollection]; see [Options]). One collection at a
	// time uses a directory. With Open, a file URL names the directory:
	// Dir must then be empty or the same. Zero: the collection lives in
	// memory only.
	Dir string

	// ReadOnly opens Dir's collection as it is, without its lock, so that
	// a tool can read a directory another process has open (R17): the
	// collection as of the open, which later changes of that process do
	// not reach; with its stored settings (DefaultTTL, Indexing and
	// Indexes are not applied); no sweeper runs (ManualSweep), and every
	// call that writes (writes, batches, setters, indexes, Sweep, Compact)
	// is refused with [ErrInvalidOption]. Nothing is written to Dir, not
	// even the cut of a torn tail, which is left out and named in
	// [Collection.Recovery]. The open costs what an open costs; a file
	// the other process's compaction removes meanwhile makes it read the
	// directory again (five readings in all at most). Requires Dir; the
	// directory must hold a collection. Zero: a read-write open, which
	// locks Dir.
	ReadOnly bool

	// Indexes are the paths of secondary indexes to have (R13), JSON
	// Pointers of member names as [Collection.CreateIndex] takes them. A
	// durable collection keeps the indexes it had, and NewCollection adds
	// these; Open of an existing collection refuses a list that is not
	// the stored one, in any order (see [Options]). Zero: none beyond
	// those.
	Indexes []string

	// Sync is when a durable collection's writes reach stable storage.
	// Zero: [SyncEverySecond]. Ignored without Dir.
	Sync SyncPolicy

	// Logger is where the collection logs what an operator wants to know
	// (R17), with the attribute collection (its name) and never a
	// document's content: at Info, each open (for a directory, what
	// recovery found: the snapshot and its documents, the logs and changes
	// replayed, a torn tail cut, the last LSN, how long it took) and each
	// compaction's start and end (the files' sizes, how long); at Warn,
	// the background sweeper falling behind, when the oldest expired
	// document not yet swept expired 10 s or more ago, at most once a
	// minute (both by the collection's clock), and a memory quota reached
	// (a write refused, or documents evicted), at most once a minute; at
	// Error, a disk failing (a
	// write or sync of the log, which closes the collection, or a
	// compaction that could not write its snapshot). Records are few: none
	// is made on the path of a read or a write. Zero (nil): nothing is
	// logged, at no cost. The PostgreSQL engine logs its own events
	// (its opens, its sweepers behind, its background rounds failing: see
	// its package's logs).
	Logger *slog.Logger

	// Quota bounds the collection's memory, in bytes or documents, with a
	// policy for the writes beyond it: refuse them, or evict the documents
	// that expire soonest (R17); see [QuotaOptions] for what is counted
	// and where it is checked. It is not stored: each open applies its
	// own. The PostgreSQL engine, whose server holds the data, refuses it.
	// Ignored with ReadOnly. Zero: no quota.
	Quota QuotaOptions

	fs        vfs.FS // the filesystem, for tests; nil: the operating system's
	compactAt int64  // the slack before compaction; 0: defaultCompactSlack
	// keepSettings, for tests that compare a collection reopened after a
	// crash with what was acknowledged: the open keeps the directory's
	// DefaultTTL and indexing mode, whatever these options say.
	keepSettings bool
	// asStored is set by Open: an existing directory keeps its stored
	// settings, refusing options that differ, and gives its name and
	// partition-key path where these are empty.
	asStored bool
}

// SyncPolicy says when a durable collection's writes reach stable storage
// (R12). Under every policy a call that changes the collection returns
// once its change is written to the operating system: a killed process
// loses no acknowledged change. The policies differ on a power failure.
// The zero value is [SyncEverySecond].
type SyncPolicy uint8

const (
	// SyncEverySecond syncs the log once a second: a power failure loses
	// the last second of changes at most.
	SyncEverySecond SyncPolicy = iota
	// SyncAlways returns from a change only once it is synced: a power
	// failure loses no acknowledged change. Concurrent writers share one
	// sync.
	SyncAlways
	// SyncNever leaves syncing to the operating system (and to Close).
	SyncNever
)

// String returns "every second", "always" or "never".
func (p SyncPolicy) String() string {
	switch p {
	case SyncEverySecond:
		return "every second"
	case SyncAlways:
		return "always"
	case SyncNever:
		return "never"
	}
	return "SyncPolicy(" + strconv.Itoa(int(p)) + ")"
}

func (p SyncPolicy) validate() error {
	if p > SyncNever {
		return errorf(ErrInvalidOption, "sync policy %d: allowed are SyncEverySecond, SyncAlways and SyncNever (R12)", p)
	}
	return nil
}

// FeedOptions configures the change feed (R11). The latest-version feed
// reads the live documents themselves and needs no retention; the
// all-versions-and-deletes feed reads records kept for the changes, from
// the newest back as far as the retention allows: the oldest record goes
// once any bound is exceeded. The zero value keeps [DefaultFeedBytes] of
// records.
type FeedOptions struct {
	// Off turns the feed off: writes do none of its work, and reading it
	// reports [ErrInvalidOption]. Documents still get LSNs and etags.
	Off bool

	// MaxRecords is the most records kept. Zero: no bound by count.
	MaxRecords int64

	// MaxBytes is the most bytes of records kept, each counted as its
	// document (header and text: of a delete, the document deleted) plus
	// 24 bytes: at least [MinFeedBytes], so that the largest document fits.
	// Zero: [DefaultFeedBytes]. The bound always holds: a count or an age
	// adds a bound, it lifts none.
	MaxBytes int64

	// MaxAge drops records whose _ts is MaxAge or more in the past, as
	// changes come (up to 64 at each): whole seconds. Zero: no bound by age.
	MaxAge time.Duration
}

// DefaultFeedBytes is the size of the records the all-versions feed keeps
// when [FeedOptions] sets no MaxBytes: 64 MiB, about 250,000 changes of
// 200-byte documents. Under overwrites the records keep as many older
// versions alive: a small collection may use up to this much more memory.
const DefaultFeedBytes = 64 << 20

// MinFeedBytes is the smallest MaxBytes: twice the largest document, so
// that no record is dropped as soon as it is made.
const MinFeedBytes = 2 * (MaxDocumentSize + 4096)

// The largest retention bounds: beyond them a value is a mistake (a
// duration in nanoseconds given as a count, say), not a wish.
const (
	maxFeedRecords = 1 << 40
	maxFeedBytes   = 1 << 50
	maxFeedAge     = 100 * 365 * 24 * time.Hour
)

// retention validates the options and returns the bounds they set.
func (o FeedOptions) retention() (local.Retention, error) {
	switch {
	case o.Off && (o.MaxRecords != 0 || o.MaxBytes != 0 || o.MaxAge != 0):
		return local.Retention{}, errorf(ErrInvalidOption, "FeedOptions %+v: Off, and a retention: choose one", o)
	case o.MaxRecords < 0 || o.MaxRecords > maxFeedRecords:
		return local.Retention{}, errorf(ErrInvalidOption, "FeedOptions.MaxRecords %d: allowed are 1 to %d, or 0 for no bound by count", o.MaxRecords, int64(maxFeedRecords))
	case o.MaxBytes != 0 && (o.MaxBytes < MinFeedBytes || o.MaxBytes > maxFeedBytes):
		return local.Retention{}, errorf(ErrInvalidOption, "FeedOptions.MaxBytes %d: allowed are %d (MinFeedBytes) to %d (1 PiB), or 0 for DefaultFeedBytes", o.MaxBytes, MinFeedBytes, int64(maxFeedBytes))
	case o.MaxAge < 0 || o.MaxAge > maxFeedAge:
		return local.Retention{}, errorf(ErrInvalidOption, "FeedOptions.MaxAge %v: allowed are 1s to %v, or 0 for no bound by age", o.MaxAge, maxFeedAge)
	case o.MaxAge%time.Second != 0:
		return local.Retention{}, errorf(ErrInvalidOption, "FeedOptions.MaxAge %v is not whole seconds, the unit of _ts", o.MaxAge)
	}
	r := local.Retention{Records: o.MaxRecords, Bytes: o.MaxBytes, Age: int64(o.MaxAge / time.Second)}
	if r.Bytes == 0 {
		r.Bytes = DefaultFeedBytes
	}
	return r, nil
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
const DefaultSweepBatch = local.DefaultSweepBatch

// MaxSweepHold is about the longest the sweeper holds the collection's lock
// at once: a batch ends early when it has taken this long, so that on a
// slow or busy machine foreground calls still wait no longer (R5).
const MaxSweepHold = local.MaxSweepHold
