package ttldb

import (
	"context"
	"iter"
	"strconv"

	"github.com/ttldb/ttldb/engine"
)

// FeedMode is how the change feed reads (R11). The zero value is
// [LatestVersion].
type FeedMode uint8

const (
	// LatestVersion reads each live document once, at its latest version,
	// in the order of its last write. Deleted and expired documents never
	// appear. It reads the documents themselves, so it reaches back to the
	// collection's first write whatever the retention.
	LatestVersion FeedMode = iota
	// AllVersionsAndDeletes reads every change in LSN order: each create
	// and replace with the document as written, each delete with its id
	// and partition key, as far back as [FeedOptions] keeps them.
	AllVersionsAndDeletes
)

// String returns "LatestVersion" or "AllVersionsAndDeletes".
func (m FeedMode) String() string {
	switch m {
	case LatestVersion:
		return "LatestVersion"
	case AllVersionsAndDeletes:
		return "AllVersionsAndDeletes"
	}
	return "FeedMode(" + strconv.Itoa(int(m)) + ")"
}

// ChangeOp is what a [Change] did. The zero value is [OpLatest].
type ChangeOp uint8

const (
	// OpLatest is a document at its latest version, in [LatestVersion]
	// mode, which does not tell a create from a replace.
	OpLatest ChangeOp = iota
	// OpCreate created the document: Create, or an Upsert that found no
	// live document.
	OpCreate
	// OpReplace replaced a live document: Replace, an Upsert that found
	// one, or Touch.
	OpReplace
	// OpDelete deleted a document: Delete, or the sweeper
	// (TimeToLiveExpired).
	OpDelete
)

// String returns "latest", "create", "replace" or "delete".
func (op ChangeOp) String() string {
	if op <= OpDelete {
		return engine.OpName(uint8(op))
	}
	return "ChangeOp(" + strconv.Itoa(int(op)) + ")"
}

// Change is one entry of the change feed.
type Change struct {
	// Op is what the change did; [OpLatest] in [LatestVersion] mode.
	Op ChangeOp
	// LSN is the change's log sequence number: changes of a collection
	// have increasing LSNs in the order they took effect. A create's or a
	// replace's LSN is its Document's [Document.LSN].
	LSN uint64
	// TS is the change's _ts: the second of the write, or of the delete.
	TS int64
	// ID and PartitionKey name the document, for every Op.
	ID           string
	PartitionKey PartitionKey
	// TimeToLiveExpired is true exactly for the deletes of expired
	// documents (R4, R5): the sweeper's, and the one recorded just before a
	// Create or Upsert that finds an expired document not yet swept (which
	// Stats does not count as swept). A delete asked for by a caller has
	// false.
	TimeToLiveExpired bool
	// Evicted is true exactly for the deletes a memory quota made
	// ([QuotaEvictSoonest], R17): a live document evicted to make room
	// for a write. Such a delete has TimeToLiveExpired false.
	Evicted bool
	// Document is the document as written; the zero [Document] for a
	// delete.
	Document Document
	// Previous is, for a delete, the version it deleted: its LSN is Cosmos
	// DB's previousImageLSN. The zero [Document] for a create or a replace.
	Previous Document
}

// FeedQuery says what a read of the change feed reads. The zero
// [FeedQuery] reads the latest version of every live document from the
// beginning, [DefaultFeedLimit] at a time.
type FeedQuery struct {
	// Mode is [LatestVersion] or [AllVersionsAndDeletes].
	Mode FeedMode

	// Partition restricts the feed to one partition. Nil: all of them.
	// A read of one partition visits the changes of every partition since
	// its start and skips the others': its cost is that of the whole feed.
	Partition *PartitionKey

	// FromNow starts at the present: only changes made after the read
	// appear (with WatchFeed, after its first read). False: from the
	// beginning, the collection's first change; in [AllVersionsAndDeletes]
	// mode a read from the beginning fails with [ErrFeedTrimmed] once the
	// retention has dropped it, and the error says where to resume. Not
	// with a Continuation, AfterLSN or FromOldest.
	//
	// "Now" is the read's, not the open's: the expiries that the sweeper
	// of a reopened durable collection deletes as it opens (what expired
	// while it was closed) come before a WatchFeed started after the open,
	// which misses them. A consumer that must see every change keeps a
	// checkpoint (the LSN of the last change it handled, or a page's LSN)
	// where it keeps its own state, resumes with AfterLSN, and starts with
	// FromOldest when it has none (see examples/expirylog).
	FromNow bool

	// FromOldest starts at the oldest change the feed keeps: in
	// [AllVersionsAndDeletes] mode, after what the retention has dropped,
	// and after the last snapshot of a reopened durable collection, where
	// its records start (R12); it never fails with [ErrFeedTrimmed] at the
	// start ([FeedStats].Oldest says where it is). In [LatestVersion] mode,
	// which keeps no records, it is the beginning. False: from the
	// beginning, or as FromNow, AfterLSN or Continuation say. Not with any
	// of those.
	FromOldest bool

	// AfterLSN, when not zero, starts after the change of that LSN, for a
	// consumer that stores the LSN of the last change it applied: its
	// checkpoint, which survives its restarts and the collection's
	// reopens, and so sees every change once.
	AfterLSN uint64

	// Continuation resumes after the last change of the page that returned
	// it. A token is taken only by the collection that issued it and a
	// query of the same Mode and Partition. Not with AfterLSN.
	Continuation string

	// Limit is the most changes in a page: 1 to [MaxFeedLimit]. Zero:
	// [DefaultFeedLimit].
	Limit int
}

// DefaultFeedLimit is the page size of a [FeedQuery] without a Limit.
const DefaultFeedLimit = 100

// MaxFeedLimit is the largest Limit of a [FeedQuery]: a page is read under
// the collection's read lock, which writers wait for.
const MaxFeedLimit = 10_000

// FeedPage is one page of the change feed.
type FeedPage struct {
	// Changes are the page's changes, in LSN order.
	Changes []Change
	// Continuation resumes after this page: pass it in the next
	// [FeedQuery]. It is never empty: a page with no changes returns where
	// to look again.
	Continuation string
	// LSN is the position Continuation holds: the page read the changes
	// up to it. A consumer may store it and resume with AfterLSN, also
	// after pages that held none of its changes.
	LSN uint64
	// More reports that changes were left for the next page when it was
	// read: read again at once. A page may hold fewer than Limit changes,
	// even none, and still have More: a read visits a bounded number of
	// documents, and skips those of other partitions and the expired.
	More bool
}

// ReadFeed reads one page of the change feed (R11). It takes O(k + Limit)
// for the k changes and documents it visits, at most about 8 Limit + 2048
// of them, under the collection's read lock, and allocates the page. In
// [LatestVersion] mode a read finds where to resume walking back from the
// last document written, or else from the nearest page end the collection
// remembers (of the 256 used last) before it, or else from the first
// document written: a reader far behind, whose page ends were forgotten,
// may get a few empty pages (with More) while it catches up.
//
// Errors: [ErrFeedTrimmed], as a [*TrimmedError] saying where to resume,
// when an [AllVersionsAndDeletes] read resumes before the oldest record
// kept, or when a read of either mode at a restored collection resumes
// after an LSN in the jump of its LSNs (see [Restore]: the reader must read
// again from the beginning); [ErrInvalidContinuation] for a token that is damaged, from another
// collection or another query, or beyond the last change;
// [ErrInvalidOption] for a bad Mode or Limit, an AfterLSN beyond the last
// change, AfterLSN with a Continuation, or a feed that is off;
// [ErrInvalidPartitionKey]; [ErrClosed].
func (c *Collection) ReadFeed(ctx context.Context, q FeedQuery) (FeedPage, error) {
	if !ctxLive(ctx) {
		return FeedPage{}, contextError(ctx, "ReadFeed")
	}
	page, _, err := c.readFeed(ctx, "ReadFeed", q, nil, nil)
	return page, err
}

// WatchFeed returns an iterator over the change feed from q's start, which
// waits for further changes once it has yielded those there are, until ctx
// is done or the collection is closed. It is for a consumer goroutine:
// while it waits, and while the loop body runs, it holds no lock, so a slow
// or stopped consumer never delays a writer. It yields an error once, with
// a zero [Change], and ends: ctx's error (wrapped) when ctx is done, [ErrClosed] at
// Close, or an error of ReadFeed (such as [ErrFeedTrimmed] when it falls
// behind the retention), or [ErrInvalidOption] for a nil ctx. Pages are
// read q.Limit at a time into one buffer.
//
// A watch from now (q.FromNow) started after a durable collection opens
// misses what its sweeper deleted as it opened, the documents that expired
// while it was closed: to see every change across restarts, keep the LSN
// of the last change handled and resume with q.AfterLSN, or start with
// q.FromOldest (see [FeedQuery]).
func (c *Collection) WatchFeed(ctx context.Context, q FeedQuery) iter.Seq2[Change, error] {
	return func(yield func(Change, error) bool) {
		if !ctxLive(ctx) {
			yield(Change{}, contextError(ctx, "WatchFeed"))
			return
		}
		q := q // each iteration from q's start
		var buf []Change
		ebuf := []engine.Change{} // its own room, not the pool's: the first page sizes it
		for {
			if ctx.Err() != nil {
				yield(Change{}, contextError(ctx, "WatchFeed"))
				return
			}
			var next <-chan struct{}
			if !c.unusable() {
				next = c.eng.FeedChanged() // before the read: a change after it closes next
			}
			page, eb, err := c.readFeed(ctx, "WatchFeed", q, buf[:0], ebuf[:0])
			ebuf = eb
			if err != nil {
				yield(Change{}, err)
				return
			}
			buf = page.Changes
			for _, ch := range page.Changes {
				if !yield(ch, nil) {
					return
				}
			}
			q.Continuation, q.AfterLSN, q.FromNow, q.FromOldest = page.Continuation, 0, false, false
			if page.More {
				continue
			}
			select {
			case <-next:
			case <-ctx.Done():
				yield(Change{}, contextError(ctx, "WatchFeed"))
				return
			case <-c.stop: // this handle's Close; the engine's own wakes next
				yield(Change{}, c.errClosed("WatchFeed"))
				return
			}
		}
	}
}

// LastLSN returns the LSN of the collection's last change: 0 before the
// first. For a durable collection, of its last change durable as the sync
// policy says, like the feed (R12). It takes O(1) under the read lock.
func (c *Collection) LastLSN() uint64 {
	if c.eng == nil {
		return 0
	}
	return c.eng.LastLSN()
}

// FeedStats describes the change feed at one instant.
type FeedStats struct {
	// LastLSN is the LSN of the last change.
	LastLSN uint64
	// Oldest is the LSN of the oldest change the all-versions feed keeps:
	// a reader that has read up to Oldest-1 or beyond misses nothing.
	// LastLSN+1 when it keeps none.
	Oldest uint64
	// Records and Bytes are what the all-versions feed keeps, counted as
	// its retention counts them ([FeedOptions]).
	Records int64
	Bytes   int64
}

// FeedStats returns the change feed's statistics, in O(1) under the read
// lock: how far back the all-versions feed reaches, and what it holds.
//
// Errors: [ErrInvalidOption] when the feed is off; [ErrClosed].
func (c *Collection) FeedStats(ctx context.Context) (FeedStats, error) {
	if !ctxLive(ctx) {
		return FeedStats{}, contextError(ctx, "FeedStats")
	}
	if c.unusable() {
		return FeedStats{}, c.errClosed("FeedStats")
	}
	s, err := c.eng.FeedStats(ctx)
	return FeedStats(s), err
}
