package engine

import (
	"context"
	"errors"
	"fmt"
)

// The sentinel errors of ttldb, made here so that an engine returns the
// values the API's callers match with errors.Is: package ttldb exports
// each under the same name, where each is documented. An engine returns
// the refusals of a write (ErrNotFound, ErrConflict, ErrPreconditionFailed
// as an *ETagMismatch), ErrClosed, and, for what it alone can check,
// ErrInvalidOption, ErrCorrupt and ErrQuotaExceeded, wrapped with a
// message or bare; the API
// words the refusals of a write itself, naming the key.
var (
	ErrNotFound            = errors.New("ttldb: not found")
	ErrConflict            = errors.New("ttldb: conflict")
	ErrPreconditionFailed  = errors.New("ttldb: precondition failed")
	ErrInvalidTTL          = errors.New("ttldb: invalid TTL")
	ErrInvalidID           = errors.New("ttldb: invalid id")
	ErrInvalidPartitionKey = errors.New("ttldb: invalid partition key")
	ErrInvalidDocument     = errors.New("ttldb: invalid document")
	ErrTooLarge            = errors.New("ttldb: document too large")
	ErrInvalidPatch        = errors.New("ttldb: invalid patch")
	ErrInvalidBatch        = errors.New("ttldb: invalid batch")
	ErrInvalidQuery        = errors.New("ttldb: invalid query")
	ErrInvalidOption       = errors.New("ttldb: invalid option")
	ErrInvalidContinuation = errors.New("ttldb: invalid continuation token")
	ErrFeedTrimmed         = errors.New("ttldb: change feed trimmed")
	ErrClosed              = errors.New("ttldb: collection closed")
	ErrLocked              = errors.New("ttldb: directory in use")
	ErrCorrupt             = errors.New("ttldb: files damaged")
	ErrQuotaExceeded       = errors.New("ttldb: quota exceeded")
)

// ETagMismatch is the refusal of a write whose IfMatch etag is not the live
// document's (R10). It wraps ErrPreconditionFailed.
type ETagMismatch struct {
	// Current is the live document's etag.
	Current string
}

func (e *ETagMismatch) Error() string {
	return fmt.Sprintf("%v: the etag is %q", ErrPreconditionFailed, e.Current)
}

// Unwrap returns ErrPreconditionFailed.
func (e *ETagMismatch) Unwrap() error { return ErrPreconditionFailed }

// ContextError returns the error of op (a method's name, such as "Get")
// called with a ctx that is nil or done: [ErrInvalidOption] for a nil ctx
// (as net/http refuses a nil context), and ctx's error wrapped with op's
// name for one that is done. Every engine method that takes a context
// returns it when the context ends before the call starts or while it
// waits. It is kept out of line, off the path of a call that starts.
//
//go:noinline
func ContextError(ctx context.Context, op string) error {
	if ctx == nil {
		return fmt.Errorf("%w: %s with a nil context.Context: pass context.Background() (or context.TODO()) for none", ErrInvalidOption, op)
	}
	return fmt.Errorf("ttldb: %s: %w", op, ctx.Err())
}
