package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/ttldb/ttldb/engine"
)

// Failures of the server or of the connection to it (DESIGN.md,
// "Failures"). A connection the server ended (a restart, a crash, a
// failover, pg_terminate_backend) or that the network broke fails the
// statement that meets it; the pool then drops it, but may hold others
// that died with it, each of which fails the next statement sent on it.
// So a call that meets a lost connection where nothing it did can have
// committed starts again, on another connection, up to the pool's size
// plus one times, and only while its context lasts: before its
// transaction's COMMIT (the server rolls back a transaction whose
// connection ends), and any read. A COMMIT whose answer is lost is the
// one moment whose outcome the engine does not know: a write or batch
// asks the server what became of its transaction (resolve), and goes on
// as if its COMMIT had answered, or starts again when it did not commit;
// when the server cannot say (still down), the call's error says that the
// outcome is unknown (commitError), and nothing starts it again.
//
// A write or batch that committed runs its pass (sequence.go) even when
// its context ends meanwhile, for at most passGrace beyond: a server gone
// after the commit makes it return an error that says the write committed
// and is numbered by the next pass of any handle (a reader's, or the
// background's), never a hang.

// syncOn makes the commit of the transaction whose statement holds it
// synchronous (SET LOCAL synchronous_commit = on) when the connection's
// setting is off, and leaves a stronger one (local, remote_write, on,
// remote_apply) as it is: the commit returns only once its commit record,
// and so every commit before it, is flushed to the server's disk (and to
// a synchronous standby's, as the setting says), and other sessions see
// it only then.
// The pass runs it (seqLockSQL), since a write is acknowledged after its
// pass, and an LSN seen before a crash must never be given out again
// (R11); so do SetDefaultTTL and the indexing changes, which no pass
// follows; and so does a write's or a batch's first transaction
// (maintainLockSQL, items.go). Not that one's flush left to its pass's:
// the pass may run after a crash or a failover lost the write, on a server
// that gave its seq to another write since (a delayed pass, a pool
// waiting for a connection), and answer that write's LSN as the lost
// one's; and a reader may be shown, or judge by, a version or an absence
// a crash then undoes (a latest-version feed reading past a document
// whose newer version hides it, an index read, an expired version). A
// review found each of these (2026-11-27) in a trial where the first
// commit skipped its flush: postgres/DESIGN.md, "Durability".
// Sweeps commit as the connection says: they delete only expired
// versions, which no reader sees.
const syncOn = `set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on' ELSE current_setting('synchronous_commit') END, true)`

// syncOnSQL is a statement of syncOn alone.
const syncOnSQL = `SELECT ` + syncOn

// passGrace is how long the pass of a write that committed may go on
// after the write's context ended.
const passGrace = 5 * time.Second

// connLost reports whether err is the failure of the connection rather
// than of the statement: the server ended it (SQLSTATE class 57P, but not
// 57014, a statement cancelled or timed out, which leaves the connection
// usable), refused it or broke it (class 08), or the network did.
func connLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "57P") || strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNREFUSED) ||
		strings.Contains(err.Error(), "conn closed")
}

// outcomeUnknown marks the error of a COMMIT whose answer was lost: the
// transaction (xid, 0 for unknown) may have committed or not. It is
// started again only once resolve knows it did not commit.
type outcomeUnknown struct {
	err error
	xid int64
}

func (u *outcomeUnknown) Error() string { return u.err.Error() }
func (u *outcomeUnknown) Unwrap() error { return u.err }

// again reports whether a call that failed with err starts again: err is
// a lost connection, not a COMMIT's, ctx is live, and *tries (which it
// counts) has not reached the pool's size plus one.
func (e *Engine) again(ctx context.Context, err error, tries *int) bool {
	if err == nil || !connLost(err) || ctx.Err() != nil || e.closed.Load() {
		return false // err nil first: errors.As's target escapes, an allocation per call
	}
	var u *outcomeUnknown
	if errors.As(err, &u) {
		return false
	}
	*tries++
	return *tries <= int(e.pool.Config().MaxConns)+1
}

// retry runs f until it succeeds, fails otherwise than by a lost
// connection, or again says no more; f must be safe to run again after a
// lost connection (a read, or a transaction that did not reach COMMIT).
func (e *Engine) retry(ctx context.Context, f func() error) error {
	tries := 0
	for {
		err := f()
		if err == nil || !e.again(ctx, err, &tries) {
			return err
		}
	}
}

// commitError returns the error of the COMMIT of what: when the
// connection was lost, its outcome is unknown, and the error says so
// (R16: a server engine may return an error for a write whose outcome it
// cannot know, and says so). A write or batch resolves it (resolve) before
// it returns it.
// xid is the transaction's id (txid_current), 0 for unknown: resolve asks
// the server what became of it.
func (e *Engine) commitError(what string, err error, xid int64) error {
	if connLost(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &outcomeUnknown{e.serverError("committing "+what+": the connection was lost before the server answered, so it may have committed or not (read it again to know)", err), xid}
	}
	return e.serverError("committing "+what, err)
}

// resolveTries and resolveWait bound resolve's wait for a transaction the
// server still runs: its backend ending after it told the client so.
const (
	resolveTries = 20
	resolveWait  = 10 * time.Millisecond
)

// resolve returns what became of the transaction whose COMMIT failed with
// err, when err is an outcomeUnknown and the server can say: committed,
// or not (known). It asks the server (txid_status: made for this), on a
// new connection, while ctx lasts. A transaction still in progress (the
// backend of the lost connection still ending it, or still running it
// when the network, not the server, failed) is waited for, briefly;
// after that, or when the server cannot be reached, or the transaction
// is too old for the server to know, it is unknown.
func (e *Engine) resolve(ctx context.Context, err error) (committed, known bool) {
	var u *outcomeUnknown
	if !errors.As(err, &u) || u.xid == 0 {
		return false, false
	}
	for range resolveTries {
		var status *string
		err := e.retry(ctx, func() error {
			return e.pool.QueryRow(ctx, `SELECT txid_status($1)`, u.xid).Scan(&status)
		})
		switch {
		case err != nil || status == nil:
			return false, false
		case *status == "committed":
			return true, true
		case *status == "aborted":
			return false, true
		}
		t := time.NewTimer(resolveWait) // in progress
		select {
		case <-ctx.Done():
			t.Stop()
			return false, false
		case <-t.C:
		}
	}
	return false, false
}

// serverError wraps an error of the server met while doing what, naming
// the collection. A collection whose row is gone (dropped by hand) is
// closed for good: ErrClosed.
func (e *Engine) serverError(what string, err error) error {
	name := e.Settings().Name
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: collection %q: its row of %s.ttldb_collections is gone: it was dropped on the server", engine.ErrClosed, name, e.schema)
	}
	if connLost(err) {
		return fmt.Errorf("ttldb: collection %q: %s: the connection to the server failed (the server is down, restarting or unreachable, or it ended the connection): %w", name, what, err)
	}
	return fmt.Errorf("ttldb: collection %q: %s: %w", name, what, err)
}
