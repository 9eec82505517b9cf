// Package engine is what a storage engine of ttldb implements (R16): the
// interface the API calls, and the types in which documents, writes and
// errors pass between them.
//
// ttldb's public API (package ttldb) holds the contract, rules R1-R15:
// validation, the TTL rules, the partition-key encoding, the query
// language, patch, batches and continuation tokens, the same for every
// engine. An engine stores one collection's documents and answers for
// them: it judges expiry by its clock (R4), applies each write atomically
// under its condition, numbers the writes (R11) and deletes what expired
// (R5). The in-process engine, in memory or on a directory, is the first;
// one on PostgreSQL, in a module of its own, shared by many processes, is
// the second.
//
// The API builds every key and document before it calls an engine, so an
// engine never parses JSON or validates input; it returns its refusals as
// the sentinels and error types of this package (errors.go, feed.go),
// which the API words with a message that names the key. It plans queries
// too, from Settings.Indexes, and rechecks every document a Snapshot
// gives it, so an engine's index may give more than the ranges hold, never
// fewer.
//
// To write an engine: implement [Engine] (and [Snapshot]), and the
// optional interfaces it can ([Compacter], [Backuper], [Recoverer]); make
// a collection over it with ttldb.FromEngine; and run the suite of package
// github.com/ttldb/ttldb/conformance in its tests, which checks rules
// R1-R16 through the public API. The in-process engine passes it through
// this interface alone (conformance_test.go, "Interface").
package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Engine is one collection's storage. Its methods are safe for concurrent
// use. Each that takes a context returns an error wrapping the context's
// (errors.Is) when it is done before the call begins to change anything,
// and stops a long wait or read when it ends; a change that has begun is
// finished. Those without a context (Settings, ExpiresAt, LastLSN,
// FeedChanged) do not wait: an engine on a server answers them from what
// it last read. After Close, every call returns an error wrapping
// ErrClosed.
type Engine interface {
	// Get returns the live document with the key (R4), or ErrNotFound.
	Get(ctx context.Context, key []byte) (*Doc, error)

	// Write applies w to the document with the key atomically, stamping
	// the document it stores with the instant (_ts) and the etag of the
	// write, and returns it (nil for a delete). The key is Doc.Key for a
	// Create, Replace or Upsert. The engine keeps w.Doc, and neither the
	// key nor anything else of w.
	Write(ctx context.Context, key []byte, w Write) (*Doc, error)

	// Batch applies the steps, in order, as one write (R14): all or none,
	// at one instant, each seeing what the steps before it did; readers
	// see all of it or none. It returns a Doc per step: the one stored,
	// the one a Read found, nil for a Delete. A refused step refuses the
	// batch, which then changes nothing, with a *StepError.
	Batch(ctx context.Context, steps []Step) ([]*Doc, error)

	// Snapshot opens a snapshot that reads the indexes on the paths the
	// collection has, and, if it has none of them or keys is set, the
	// documents in key order (which may first wait for the engine to build
	// that order).
	Snapshot(ctx context.Context, paths []string, keys bool) (Snapshot, error)

	// Settings returns the collection's settings as the engine holds them
	// now.
	Settings() Settings

	// SetDefaultTTL changes the DefaultTTL, at once for every document,
	// in O(1) (R7). SetIndexing changes the indexing mode. Both are
	// checked by the API first: an engine refuses only what it alone can
	// know (ErrInvalidOption: indexing mode none with secondary indexes).
	SetDefaultTTL(ctx context.Context, d DefaultTTL) error
	SetIndexing(ctx context.Context, m Indexing) error

	// Sweep deletes every document expired now (R5), in batches that
	// hold no other call for more than one, and returns how many it
	// deleted, durable as the engine's writes are. When ctx ends it stops
	// between two batches and returns those with an error wrapping ctx's.
	Sweep(ctx context.Context) (int, error)

	// Stats returns the collection's counts, at one instant.
	Stats(ctx context.Context) (Stats, error)

	// ExpiresAt returns the Unix second at which d, a document of the
	// collection, expires or expired under the DefaultTTL (R3, R7); ok is
	// false when it does not expire, or the engine is closed.
	ExpiresAt(d *Doc) (at int64, ok bool)

	// LastLSN returns the LSN of the last change the feed shows (R11).
	LastLSN() uint64

	// ReadFeed reads a page of the change feed into buf's room (R11).
	// Refusals: *FeedBeyond, *FeedTrimmed, ErrInvalidOption when the
	// feed is off. FeedStats returns the feed's counts. FeedChanged
	// returns a channel closed at the next change (or, for an engine that
	// cannot tell, after a while), and when the engine closes, whatever
	// closes it: a watcher takes it before it reads, and waits on it once
	// it has read all there was.
	ReadFeed(ctx context.Context, r FeedRead, buf []Change) (FeedPage, error)
	FeedStats(ctx context.Context) (FeedStats, error)
	FeedChanged() <-chan struct{}

	// CreateIndex builds a secondary index on path, a JSON Pointer of
	// member names the API has checked, while writes go on (R13), and
	// DropIndex drops it, or stops its build (ErrNotFound for none). Both
	// refuse, with ErrInvalidOption, what only the engine can know: an
	// index that exists, indexing mode none (R8).
	CreateIndex(ctx context.Context, path string) error
	DropIndex(ctx context.Context, path string) error

	// Close releases the engine. It is idempotent; a second call returns
	// what the first did.
	Close() error
}

// Compacter is an Engine that rewrites its files when asked
// (ttldb.Collection.Compact): the in-process engine, which refuses with
// ErrInvalidOption when it has no directory. An engine without it
// compacts by itself, or has nothing to compact: ttldb's Compact then
// returns nil.
type Compacter interface {
	Compact(ctx context.Context) error
}

// Op is what a [Write] does.
type Op uint8

// The writes. Create, Replace and Upsert store Write.Doc under its key
// with R10's conditions; Delete removes the live document; Touch stores it
// again unchanged, renewing _ts and _etag (R6); Modify stores what
// Write.Change makes of it (a patch, R14); Read, only in a batch, changes
// nothing and returns the live document (ErrNotFound without one).
const (
	Create Op = iota
	Replace
	Upsert
	Delete
	Touch
	Modify
	Read
)

// String returns the name of the API's call: "Create", "Delete"...
func (op Op) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return "Op(?)"
}

var opNames = [...]string{"Create", "Replace", "Upsert", "Delete", "Touch", "Patch", "Read"}

// Write is one write: what it does to which key, under which condition.
// Its refusals are ErrConflict (a Create over a live document),
// ErrNotFound (any other but Upsert without IfMatch, when no document is
// live), and *ETagMismatch (IfMatch given and not the live document's).
type Write struct {
	Op Op
	// Doc is the document to store for a Create, Replace or Upsert, made
	// by NewDoc and not yet shared: the engine stamps TS and Tag.
	Doc *Doc
	// IfMatch, when HasIfMatch, is the etag the live document must have
	// (R10). An Upsert with it acts as a Replace.
	IfMatch    string
	HasIfMatch bool
	// Change makes, for Op Modify, the document to store from the live
	// one, old, at the instant now (Unix seconds); it must not keep old
	// and must not stamp what it returns. An error it returns refuses the
	// write and is returned as it is. An engine may call it more than once
	// (one that retries a conditional write does), always on a live
	// document.
	Change func(old *Doc, now int64) (*Doc, error)
}

// Step is one step of a batch: a write of the document with the key (any
// Op but Touch; Read only here), or the input fault the API found in it,
// Fault, which refuses the batch at this step unless a step before it was
// refused first. Write.IfMatch on a document the batch wrote earlier fails
// with an *ETagMismatch whose Current is empty: its etag is not known
// before the batch commits.
type Step struct {
	Key string
	Write
	Fault error
}

// StepError is the refusal of a batch at the step Index: Err is the
// step's Fault, its refusal (as a Write's), or what its Change returned.
type StepError struct {
	Index int
	Err   error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %d: %v", e.Index, e.Err) }

// Unwrap returns Err.
func (e *StepError) Unwrap() error { return e.Err }

// Stats are a collection's counts at one instant: as ttldb.Stats says.
type Stats struct {
	Live      int
	Expired   int
	Swept     uint64
	LastSweep time.Duration
	// Evicted counts the documents a memory quota evicted (R17), as
	// Swept counts those the sweeper deleted.
	Evicted uint64
	// QuotaBytes is what the collection counts against a memory quota in
	// bytes, 0 without one.
	QuotaBytes int64
}

// Settings are a collection's identity and settings (R1, R8, R13).
type Settings struct {
	// Name and PartitionKeyPath are the collection's, fixed for its life.
	Name             string
	PartitionKeyPath string
	// ID is a number drawn at random when the collection was made, fixed
	// for its life: the continuation tokens the API issues are bound to
	// it, so every handle on the collection takes them, and no other
	// collection does.
	ID uint64
	// ETagBase is what a document's etag number exceeds its LSN by, fixed
	// for the collection's life: Doc.Tag = ETagBase + LSN (R11).
	ETagBase uint64

	DefaultTTL DefaultTTL
	Indexing   Indexing
	// Feed is set when the collection keeps its change feed (R11).
	Feed bool
	// Indexes are the paths of the secondary indexes a query may read,
	// in the order they were made. The slice may be the engine's own:
	// read it, never write to it.
	Indexes []string
}

// DefaultTTL is a collection's DefaultTTL (R1): off when On is false;
// otherwise Seconds, -1 for "no default" or a number of seconds from 1 to
// MaxTTL. The API validates what it is given; an engine checks what it
// reads back from storage with Valid. The zero value is off.
type DefaultTTL struct {
	On      bool
	Seconds int64
}

// MaxTTL is the largest number of seconds a DefaultTTL or a document's
// ttl may hold (R1, R2): 2^31-1, about 68 years.
const MaxTTL = 2147483647

// Valid reports whether d is one of R1's three states: off (with Seconds
// 0), on with no default (-1), or on with 1 to MaxTTL seconds.
func (d DefaultTTL) Valid() bool {
	if !d.On {
		return d.Seconds == 0
	}
	return d.Seconds == -1 || d.Seconds >= 1 && d.Seconds <= MaxTTL
}

// Expiry is rule R3: the number of seconds after _ts at which a document
// whose own ttl is ttl (TTLInherit, TTLNever or 1 to MaxTTL) expires
// under d, and whether it expires at all.
//
//	                 | DefaultTTL off | DefaultTTL -1 | DefaultTTL n
//	ttl absent/null  | never          | never         | after n
//	ttl -1           | never          | never         | never
//	ttl m            | never          | after m       | after m
func (d DefaultTTL) Expiry(ttl int32) (seconds int64, expires bool) {
	switch {
	case !d.On, ttl == TTLNever:
		return 0, false
	case ttl > 0:
		return int64(ttl), true
	case d.Seconds > 0: // ttl inherits
		return d.Seconds, true
	default:
		return 0, false
	}
}

// String returns "off", or the number of seconds ("-1" for no default).
func (d DefaultTTL) String() string {
	if !d.On {
		return "off"
	}
	return strconv.FormatInt(d.Seconds, 10)
}

// Indexing is a collection's indexing mode (R8): Consistent or None. The
// zero value is Consistent.
type Indexing uint8

// The indexing modes, in the numbering of ttldb.IndexingMode.
const (
	Consistent Indexing = iota
	None
)

// String returns "consistent" or "none".
func (m Indexing) String() string {
	switch m {
	case Consistent:
		return "consistent"
	case None:
		return "none"
	}
	return "Indexing(" + strconv.Itoa(int(m)) + ")"
}

// Allows is rule R8: whether the mode allows the DefaultTTL d. Mode None
// keeps no index, and expiry needs one: TTL must be off.
func (m Indexing) Allows(d DefaultTTL) bool { return !d.On || m != None }
