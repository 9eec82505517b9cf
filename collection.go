package ttldb

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/local"
)

// Collection is a named set of JSON documents that expire like Cosmos DB's
// time to live, with a change feed, in memory or also on disk (see the
// package documentation and the rules R1-R12).
//
// Make a [Collection] with [Open] (by URL, on any engine), [NewCollection]
// (the in-process engine) or [FromEngine] (an engine of another package):
// the zero [Collection] is not usable, and its methods report [ErrClosed].
//
// A [Collection] is safe for concurrent use by multiple goroutines. Point
// reads take no lock; writes, and each batch of the sweeper, hold the
// collection's lock for at most O(log n) per document; listings and queries work
// on a copy-on-write snapshot and hold no lock while they iterate. Close
// stops the sweeper and waits for it.
//
// Every method that can wait on a disk (or, on a server engine, on the
// network) takes a [context.Context] first (R16). A call given a context
// that is already done does nothing and returns its error, wrapped with the
// method's name (errors.Is(err, context.Canceled)); a nil context is an
// [ErrInvalidOption]. Reads that step over many documents look at the
// context every 256 of them and stop with its error; waits for a build of
// the key order or of an index, Sweep between two batches, Compact and
// WatchFeed stop at once. A write that has begun is finished, its sync
// under [SyncAlways] included: stopping it halfway would leave its outcome
// unknown. Checking a context costs a call that does not wait a
// comparison and a call of its Err method. The "Errors:" lists of the
// methods below leave the context's errors implicit: every method that
// takes one may return them.
//
// The order of keys that listings read costs each create and removal most
// of its time in a large collection, so a collection keeps it only once
// something has needed it: the first listing, query that reads no index or
// CreateIndex builds it (a compaction does not), in O(n log n) (about half
// a second for a million documents), without holding the lock but to read
// the key map (O(n)) and to apply the writes made meanwhile; calls that
// need it meanwhile wait for that build. A collection used as a cache, by key
// alone, never builds it: its creates and removals take O(1).
type Collection struct {
	// What every call reads: set when the collection is made.
	eng      engine.Engine
	fast     *local.Engine // eng, when it is the in-process engine: see calls.go
	name     string
	path     string
	pkPath   []string
	byID     bool             // the path is /id: see keyFor
	tokenID  uint64           // binds the continuation tokens the collection issues to it
	etagBase uint64           // a document's LSN is its etag's number less this
	clock    func() time.Time // Options.Now, or time.Now: what a query's GetCurrentDateTime reads
	closed   atomic.Bool
	stop     chan struct{} // closed by Close: WatchFeed stops waiting
	m        counters      // the API's counters (metrics.go)
}

// NewCollection returns an empty collection named name whose documents carry
// their partition key at partitionKeyPath ("/customerId", or a nested path
// such as "/tenant/id"). A nil opts means all defaults. Unless
// opts.ManualSweep is set it starts the sweeper goroutine, which Close
// stops. With opts.Dir it opens the directory (R12): a new one gets the
// collection as made; an existing one, which must hold a collection of this
// name and partition-key path, gives it its documents, then gets the
// settings of opts (see [Options]: unlike [Open], which keeps the stored
// settings), and [Collection.Recovery] says what the open found and
// changed. It then starts the log's goroutine and the compactor, which
// Close stops too. Opening a directory takes O(n) for the n changes it
// holds.
//
// Errors: [ErrInvalidOption] for a name that is empty, longer than
// [MaxNameLength] or holds '/', '\', '?', '#' or a control character, a path
// that is not of the form /a/b, an Options.Name or PartitionKeyPath that is
// not empty and differs from the argument, an unknown indexing mode or sync
// policy, a negative SweepBatch, TTL or Options.Indexes with indexing mode none (R8),
// an index path that is not a JSON Pointer of member names or is listed
// twice, and for a directory that cannot be made or read, or holds another
// collection (another name or partition-key path), or secondary indexes
// when opts asks for indexing mode none; an open refused changes nothing
// in the directory;
// [ErrInvalidTTL] for a [DefaultTTL] outside R1; [ErrLocked] for a directory
// another collection has open; [ErrCorrupt] for damaged files.
func NewCollection(name, partitionKeyPath string, opts *Options) (*Collection, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name != "" && o.Name != name {
		return nil, errorf(ErrInvalidOption, "NewCollection(%q, ...) with Options.Name %q: the name is NewCollection's argument; leave Options.Name empty, or make it the same (it is for Open)", name, o.Name)
	}
	if o.PartitionKeyPath != "" && o.PartitionKeyPath != partitionKeyPath {
		return nil, errorf(ErrInvalidOption, "NewCollection(..., %q, ...) with Options.PartitionKeyPath %q: the partition-key path is NewCollection's argument; leave Options.PartitionKeyPath empty, or make it the same (it is for Open)", partitionKeyPath, o.PartitionKeyPath)
	}
	return newCollection(name, partitionKeyPath, o)
}

// newCollection is NewCollection once its arguments agree with its
// options, and Open's for its two built-in engines. With o.asStored and
// o.Dir, an empty name or partition-key path is the directory's.
func newCollection(name, partitionKeyPath string, o Options) (*Collection, error) {
	keep, err := checkCollection(name, partitionKeyPath, &o)
	if err != nil {
		return nil, err
	}
	if o.SweepBatch == 0 {
		o.SweepBatch = DefaultSweepBatch
	}
	if o.ReadOnly && o.Dir == "" {
		return nil, errorf(ErrInvalidOption, "collection %q: Options.ReadOnly without Options.Dir: a read-only open reads a durable collection's directory", name)
	}
	l, err := local.Open(local.Config{
		Name: name, Path: partitionKeyPath, Documents: documents,
		Now: o.Now, SweepBatch: o.SweepBatch, ManualSweep: o.ManualSweep,
		DefaultTTL: o.DefaultTTL.engine(), Indexing: engine.Indexing(o.Indexing), Indexes: o.Indexes,
		Feed: !o.Feed.Off, Keep: keep,
		Dir: o.Dir, Sync: local.Sync(o.Sync), AsStored: o.asStored, KeepSettings: o.keepSettings,
		FS: o.fs, CompactAt: o.compactAt, ReadOnly: o.ReadOnly, Logger: o.Logger, Quota: o.Quota.local(),
	})
	if err != nil {
		return nil, err
	}
	c := &Collection{eng: l, fast: l, stop: make(chan struct{}), clock: o.Now}
	if c.clock == nil {
		c.clock = time.Now
	}
	// The identity, from the directory if it held one. local.Open checked
	// what the directory holds (its name against the one asked for, its
	// path with the API's parser) before it wrote anything: identify, which
	// checks them again for any engine, does not refuse what it accepted.
	if err := c.identify(c.eng.Settings()); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// CheckCollection reports whether [NewCollection] would accept a collection
// of this name, partition-key path and options, with the error it would
// return, and makes nothing. It is for an engine that makes its collections
// elsewhere (on a database server): it refuses what the API refuses, in
// the same words, before it touches its storage. A nil opts is the zero
// [Options]. Options.Dir, which only the in-process engine reads, is
// checked as NewCollection checks it, without looking at the directory.
// It costs O(the index paths).
//
// Errors: those of NewCollection's arguments and options ([ErrInvalidOption],
// [ErrInvalidTTL], [ErrInvalidPartitionKey] for a bad path).
func CheckCollection(name, partitionKeyPath string, opts *Options) error {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.asStored = false
	_, err := checkCollection(name, partitionKeyPath, &o)
	return err
}

// checkCollection is NewCollection's and Open's validation of a
// collection's identity and options (R1, R8, R10, R11, R12): with
// o.asStored and o.Dir, an empty name or partition-key path is the
// directory's. It returns the feed's retention.
func checkCollection(name, partitionKeyPath string, o *Options) (local.Retention, error) {
	adopt := o.asStored && o.Dir != ""
	if p := nameProblem(name, MaxNameLength); p != "" && !(adopt && name == "") {
		return local.Retention{}, errorf(ErrInvalidOption, "collection name %q %s", name, p)
	}
	if !(adopt && partitionKeyPath == "") {
		if _, err := parsePath(partitionKeyPath); err != nil {
			return local.Retention{}, err
		}
	}
	if err := o.DefaultTTL.validate(); err != nil {
		return local.Retention{}, err
	}
	if err := o.Indexing.validate(); err != nil {
		return local.Retention{}, err
	}
	if err := ttlNeedsIndexing(o.DefaultTTL, o.Indexing); err != nil {
		return local.Retention{}, err
	}
	keep, err := o.Feed.retention()
	if err != nil {
		return local.Retention{}, err
	}
	if err := o.Sync.validate(); err != nil {
		return local.Retention{}, err
	}
	if err := o.Quota.validate(); err != nil {
		return local.Retention{}, err
	}
	if len(o.Indexes) > 0 && o.Indexing == IndexingNone {
		return local.Retention{}, errorf(ErrInvalidOption, "Options.Indexes %q with indexing mode none, which keeps no index (R8)", o.Indexes)
	}
	for i, ptr := range o.Indexes {
		if _, err := indexPath(ptr); err != nil {
			return local.Retention{}, err
		}
		if slices.Contains(o.Indexes[:i], ptr) {
			return local.Retention{}, errorf(ErrInvalidOption, "index path %s is listed twice", ptr)
		}
	}
	if o.SweepBatch < 0 {
		return local.Retention{}, errorf(ErrInvalidOption, "SweepBatch %d is negative", o.SweepBatch)
	}
	return keep, nil
}

// documents returns the parser of the documents of a collection
// partitioned by path: the in-process engine reads its files with it.
func documents(path string) (local.Parser, error) {
	segs, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	return func(buf, keyBuf, body []byte) (local.Parsed, error) {
		in, key, err := parseDocument(buf, keyBuf, body, segs)
		return local.Parsed{Key: key, Body: in.out, At: in.at, TTL: in.ttl}, err
	}, nil
}

// Name returns the collection's name.
func (c *Collection) Name() string { return c.name }

// PartitionKeyPath returns the collection's partition-key path.
func (c *Collection) PartitionKeyPath() string { return c.path }

// SetDefaultTTL changes the collection's [DefaultTTL]. The change applies at
// once to every document, written before or after (R7), and costs O(1)
// whatever the number of documents: nothing is rebuilt. A document that had
// already expired stays gone, even if the new setting would keep it (R7).
//
// Errors: [ErrInvalidTTL] for a value outside R1; [ErrInvalidOption] when the
// indexing mode is none and d is not off (R8); [ErrClosed]. An error changes
// nothing.
func (c *Collection) SetDefaultTTL(ctx context.Context, d DefaultTTL) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "SetDefaultTTL")
	}
	if c.unusable() {
		return c.errClosed("SetDefaultTTL")
	}
	if err := d.validate(); err != nil {
		return err
	}
	return c.eng.SetDefaultTTL(ctx, d.engine())
}

// DefaultTTL returns the collection's [DefaultTTL].
func (c *Collection) DefaultTTL() DefaultTTL {
	if c.eng == nil {
		return DefaultTTL{}
	}
	return defaultTTLOf(c.eng.Settings().DefaultTTL)
}

// SetIndexingMode changes the indexing mode in O(1).
//
// Errors: [ErrInvalidOption] for an unknown mode, or for [IndexingNone] while
// [DefaultTTL] is not off (R8), or while the collection has secondary
// indexes; [ErrClosed]. An error changes nothing.
func (c *Collection) SetIndexingMode(ctx context.Context, m IndexingMode) error {
	if !ctxLive(ctx) {
		return contextError(ctx, "SetIndexingMode")
	}
	if c.unusable() {
		return c.errClosed("SetIndexingMode")
	}
	if err := m.validate(); err != nil {
		return err
	}
	return c.eng.SetIndexing(ctx, engine.Indexing(m))
}

// IndexingMode returns the collection's indexing mode.
func (c *Collection) IndexingMode() IndexingMode {
	if c.eng == nil {
		return IndexingConsistent
	}
	return IndexingMode(c.eng.Settings().Indexing)
}

// Close stops the sweeper, waits for it to return, and releases the
// documents. Every later call returns [ErrClosed] (LastLSN still answers);
// an iteration of All in progress, and every WatchFeed, waiting or not,
// ends with [ErrClosed]. A durable collection also stops its log's
// goroutine and a compaction in progress, waits for them, writes and syncs
// what is pending (whatever the policy), and releases its directory; its
// Close reports [ErrClosed] wrapping the failure if writing or syncing
// failed, now or earlier. Close is idempotent and safe to call from
// several goroutines at once: each call returns the same result once the
// collection is closed.
func (c *Collection) Close() error {
	if c.eng == nil {
		return nil // not made by NewCollection: nothing to stop
	}
	if c.closed.CompareAndSwap(false, true) {
		close(c.stop)
	}
	return c.eng.Close()
}
