package ttldb

import (
	"context"
	"fmt"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/jsontext"
)

// The sentinel errors. Every error a [Collection] returns wraps exactly one of
// them, so callers match with errors.Is; the wrapping text names the value at
// fault and the rule of the specification it breaks.
var (
	// ErrNotFound: no live document has the key. Expired documents are not
	// found even before the sweeper deletes them (R4).
	ErrNotFound = engine.ErrNotFound

	// ErrConflict: Create found a live document with the same key (R10).
	ErrConflict = engine.ErrConflict

	// ErrPreconditionFailed: the etag given to [IfMatch] is not the document's
	// current etag (R10).
	ErrPreconditionFailed = engine.ErrPreconditionFailed

	// ErrInvalidTTL: a [DefaultTTL] (R1) or a document ttl (R2) outside the
	// allowed values.
	ErrInvalidTTL = engine.ErrInvalidTTL

	// ErrInvalidID: a document id that is missing, not a string, empty, too
	// long or holds a forbidden character (R10).
	ErrInvalidID = engine.ErrInvalidID

	// ErrInvalidPartitionKey: a partition-key value of the wrong type or too
	// long (R10).
	ErrInvalidPartitionKey = engine.ErrInvalidPartitionKey

	// ErrInvalidDocument: the input is not a JSON object, is not valid JSON,
	// or is nested too deeply (R10).
	ErrInvalidDocument = engine.ErrInvalidDocument

	// ErrTooLarge: the document is larger than [MaxDocumentSize] (R10).
	ErrTooLarge = engine.ErrTooLarge

	// ErrInvalidPatch: a patch operation that is malformed, names a path a
	// patch may not change (id, _ts, _etag, the partition key), or does not
	// apply to the document: a missing member to replace or remove, a path
	// through a string, an incr of a non-number (R14).
	ErrInvalidPatch = engine.ErrInvalidPatch

	// ErrInvalidBatch: a transactional batch that is nil, holds no
	// operation, or more than [MaxBatchOperations] (R14). An operation that
	// fails is a [*BatchError] instead, which wraps its own sentinel.
	ErrInvalidBatch = engine.ErrInvalidBatch

	// ErrInvalidQuery: a query (R13) that does not parse, as a
	// [*QueryError] that gives the position and what was expected there,
	// or one that uses a part of Cosmos SQL ttldb does not support; or
	// parameters that do not fit the query.
	ErrInvalidQuery = engine.ErrInvalidQuery

	// ErrInvalidOption: a collection setting that is not allowed: a bad name,
	// partition-key path, indexing mode or batch size, or TTL together with
	// indexing mode none (R8); or a call's option that is: such as a nil
	// context.Context, where context.Background() was meant.
	ErrInvalidOption = engine.ErrInvalidOption

	// ErrInvalidContinuation: a continuation token that is damaged, of an
	// earlier version, or that the collection did not issue for this read.
	// The message says what differs: another collection (of the same name:
	// another instance, in another directory or made again, with both
	// ids), another kind of read or feed mode, another partition (or all
	// partitions), another query text, other parameter values.
	ErrInvalidContinuation = engine.ErrInvalidContinuation

	// ErrFeedTrimmed: a read of the all-versions-and-deletes feed resumes
	// after a change older than the oldest record its retention keeps
	// (R11): changes between were dropped; or a read of either feed at a
	// restored collection resumes after an LSN in the jump of its LSNs,
	// which only the collection backed up gave out (R17, see [Restore]).
	// The error is a [*TrimmedError], which says where to resume.
	ErrFeedTrimmed = engine.ErrFeedTrimmed

	// ErrClosed: the collection has been closed, by Close or, for a
	// durable collection, because writing or syncing its files failed, or
	// its log lost its name (its directory removed: the error then wraps
	// [io/fs.ErrNotExist]); the error then wraps the failure too: reopen the
	// directory to recover what reached it.
	ErrClosed = engine.ErrClosed

	// ErrLocked: the directory of a durable collection is in use by
	// another collection, of this process or another (R12), even when its
	// LOCK file was removed: the lock is the directory's own.
	ErrLocked = engine.ErrLocked

	// ErrCorrupt: a durable collection's files are damaged otherwise than
	// by a write a crash interrupted, which opening repairs by itself
	// (R12). Opening reports it as a [*CorruptError], which names the file
	// and the offset. [Collection.Compact] reports it, as a plain error,
	// when its walk of the collection finds fewer documents than the
	// collection held: only a bug can cause that, and Compact then writes
	// nothing, so that the files stay whole.
	ErrCorrupt = engine.ErrCorrupt

	// ErrQuotaExceeded: a write would take the collection beyond its
	// memory quota ([Options.Quota], R17), and the quota's policy refuses
	// it ([QuotaRefuse]), or evicting can free no more room
	// ([QuotaEvictSoonest], when the documents left never expire). The
	// message names the quota, what the collection holds and what the
	// write would add. The refused write changes nothing; what made room
	// before it was refused stays done: expired documents deleted, and
	// under QuotaEvictSoonest the documents evicted before none was left.
	ErrQuotaExceeded = engine.ErrQuotaExceeded
)

// CorruptError is damage found while opening a durable collection: in
// File, at byte Offset, with Reason (see [engine.CorruptError]). It wraps
// [ErrCorrupt]; get it with [errors.As].
type CorruptError = engine.CorruptError

// contextError is [engine.ContextError]: a nil ctx is [ErrInvalidOption],
// a done one its error, wrapped with op's name.
func contextError(ctx context.Context, op string) error { return engine.ContextError(ctx, op) }

// ctxLive reports whether ctx lets a call start (R16): it is not nil and
// not done. It inlines, and costs a comparison and a call of ctx.Err, which
// is all the context costs a call that does not wait; when it is false, the
// call returns contextError's error and does nothing.
func ctxLive(ctx context.Context) bool { return ctx != nil && ctx.Err() == nil }

// errorf wraps sentinel with a message that names the value at fault.
// The sentinel's own text comes first, so messages read
// "ttldb: invalid id: id "a/b" holds '/' ...".
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// clip shortens a value for an error message.
func clip(b []byte) string { return jsontext.Clip(b) }

// TrimmedError is the error of a read of the all-versions-and-deletes feed
// that resumes after a change the retention no longer keeps, or of a read
// of either feed at a restored collection that resumes after an LSN in the
// jump of its LSNs (its Oldest is then the copy's first own LSN, and the
// reader, which applied changes the copy lacks, must read again from the
// beginning). It wraps [ErrFeedTrimmed]; get it with [errors.As].
type TrimmedError struct {
	// After is the LSN the read was to resume after.
	After uint64
	// Oldest is the LSN of the oldest change kept: the changes After+1 to
	// Oldest-1 are lost to this reader.
	Oldest uint64
	// Continuation resumes the same query at Oldest.
	Continuation string

	gap string // why, for a position in a restored collection's gap
}

// Error says what was lost and how to go on.
func (e *TrimmedError) Error() string {
	if e.gap != "" {
		return fmt.Sprintf("%v: %s", ErrFeedTrimmed, e.gap)
	}
	return fmt.Sprintf("%v: the read resumes after LSN %d, but the oldest change kept is LSN %d, so changes %d to %d are gone: resume from TrimmedError.Continuation, which reads from LSN %d, and keep a longer retention (FeedOptions) if this reader must not miss changes",
		ErrFeedTrimmed, e.After, e.Oldest, e.After+1, e.Oldest-1, e.Oldest)
}

// Unwrap returns [ErrFeedTrimmed].
func (e *TrimmedError) Unwrap() error { return ErrFeedTrimmed }
