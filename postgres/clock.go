package postgres

import (
	"context"
	"time"
)

// The engine's clock (R4). "Now" is the server's clock, so that processes
// on machines whose clocks disagree judge expiry alike: SQL function
// ttldb_now(clock, hwm) (schema.go) reads it as the start of the
// transaction, in whole Unix seconds. A handle made with Options.Now passes
// that clock's reading as the parameter clock instead, so that tests move
// time without sleeping; without it, the parameter is NULL.
//
// Now never goes backward: ttldb_now never answers below hwm, the
// collection's high-water mark, stored in its row (now_hwm), which tick
// raises to the now it reads. The bound: the mark is as recent as the last
// tick, so a server clock that steps back by more than the time since the
// last tick judges by the mark, and one that steps back less goes back to
// the mark at most: that long, a document that expired since the mark
// reads live again. The sequencer's pass raises it (sequence.go), as do
// SetDefaultTTL, each round of a handle's background goroutine and its
// Close (storeNow: to the latest now the handle was given, a read's
// included), which keeps that window to a background period
// (background.go) while a process runs, and makes a reopen never judge
// by an earlier now than the handle it replaces. A failover keeps the
// mark: it is a row.

// maxClock is the largest Unix second a clock of Options.Now reads, and
// -maxClock the smallest: 2^62, as the in-process engine bounds it, so
// that _ts + ttl never overflows.
const maxClock = 1 << 62

// clockParam returns the parameter clock of ttldb_now for this handle:
// nil, the server's clock, or the reading of Options.Now in whole Unix
// seconds (floored, as the server's is), within ±maxClock, and never
// before the latest now this handle was given: a clock stepped back does
// not take the handle's reads back, as it does not the in-process
// engine's (R4). It records the reading as a now given: the statement
// judges by it or a later one. (With the server's clock, the stored high-water mark is
// the bound: see above.)
func (e *Engine) clockParam() *int64 {
	if e.clock == nil {
		return nil
	}
	s := e.clock().Unix()
	s = min(max(s, -maxClock), maxClock)
	s = max(s, e.lastNow.Load()) // never before a now this handle was given (R4)
	e.seen(0, s)                 // the server judges by s or later
	return &s
}

// now returns the collection's "now" (R4) in Unix seconds: the clock's,
// never below the stored high-water mark. It leaves the mark as it is. It
// costs a round trip.
//
// Errors: ErrClosed; the server's.
func (e *Engine) now(ctx context.Context) (int64, error) {
	if err := e.usable(ctx, "now"); err != nil {
		return 0, err
	}
	var s int64
	err := e.pool.QueryRow(ctx, e.sql(`SELECT {s}.ttldb_now($2, now_hwm) FROM {s}.ttldb_collections WHERE no = $1`), e.no, e.clockParam()).Scan(&s)
	if err != nil {
		return 0, e.serverError("reading now", err)
	}
	return s, nil
}

// tick raises the collection's high-water mark to its "now", and returns
// it: from then on, no process judges by an earlier now. It costs a round
// trip and a commit, and takes the collection's row for that long.
//
// Errors: ErrClosed; the server's.
func (e *Engine) tick(ctx context.Context) (int64, error) {
	if err := e.usable(ctx, "tick"); err != nil {
		return 0, err
	}
	var s int64
	err := e.pool.QueryRow(ctx, e.sql(`UPDATE {s}.ttldb_collections SET now_hwm = {s}.ttldb_now($2, now_hwm) WHERE no = $1 RETURNING now_hwm`), e.no, e.clockParam()).Scan(&s)
	if err != nil {
		return 0, e.serverError("storing now", err)
	}
	return s, nil
}

// storeNowSQL raises the stored mark to the collection's now ($2 as
// ttldb_now reads it) when it is below, and takes the collection's row
// only then.
const storeNowSQL = `UPDATE {s}.ttldb_collections SET now_hwm = {s}.ttldb_now($2, now_hwm)
	WHERE no = $1 AND now_hwm < {s}.ttldb_now($2, now_hwm)`

// storeNowTimeout bounds Close's storeNow, when the server does not answer
// or the pool has no free connection.
const storeNowTimeout = 2 * time.Second

// storeNow raises the collection's high-water mark to its now: the
// server's clock, or with Options.Now the latest now this handle judged
// by (reads included, those that found nothing too), so that no handle
// opened later judges by an earlier one. It is tick without the row lock
// and commit when the mark is high enough already. It does not check
// that the handle is open: Close calls it.
//
// Errors: the server's.
func (e *Engine) storeNow(ctx context.Context) error {
	err := e.retry(ctx, func() error { // a lost connection: again (failure.go)
		_, err := e.pool.Exec(ctx, e.sql(storeNowSQL), e.no, e.clockParam())
		return err
	})
	if err != nil {
		return e.serverError("storing now", err)
	}
	return nil
}
