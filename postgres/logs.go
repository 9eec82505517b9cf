package postgres

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// What a handle logs, through ttldb.Options.Logger (R17), when it has one
// (nil logs nothing, at no cost), as the in-process engine does where the
// same events exist:
//
//   - Info: the open (the collection made or adopted, the PostgreSQL
//     schema, the last LSN, how long it took); the background goroutine's
//     rounds working again after rounds that failed.
//   - Warn: the sweepers falling behind: at a round of the background
//     goroutine, the oldest expired document not yet swept expired
//     behindAfter ago or more, by the collection's now (every process's
//     sweepers share the backlog, so each process that logs may say so),
//     at most once per behindEvery; a round of the background goroutine
//     that failed (the server down or refusing: its sweeps and passes
//     wait for the next round; or its reading of the metrics failed), at
//     most once per behindEvery, with the number of rounds failed in a
//     row. Not while the DefaultTTL is off: no sweep deletes then (R5), so
//     documents that expired before stay unswept, and no sweeper is late.
//
// Every record has the attribute collection (its name), and never a
// document's content. The background goroutine alone logs after the
// open, so its state needs no lock.

// behindAfter is when the sweepers are behind: the oldest expired
// document not yet swept expired this long ago or more. A round every
// second deletes a document in the second or two after it expires.
const behindAfter = 10 * time.Second

// behindEvery is the least time between two warnings of one kind, by the
// handle's clock.
const behindEvery = time.Minute

// logState is what the background goroutine remembers of what it logged.
type logState struct {
	checked  int64 // when the backlog was last checked (Unix seconds); 0: never
	behind   int64 // when the sweepers being behind was last logged, plus 1; 0: never
	warned   int64 // when a failed round was last logged, plus 1; 0: never
	failures int   // the rounds failed in a row
}

// clockNow returns the handle's clock in Unix seconds: Options.Now's, or
// this machine's. For the pacing of log records, not for expiry.
func (e *Engine) clockNow() int64 {
	if e.clock != nil {
		return e.clock().Unix()
	}
	return time.Now().Unix()
}

// logOpen logs an open that took took.
func (e *Engine) logOpen(st stored, took time.Duration) {
	if e.logger == nil {
		return
	}
	how := "adopted"
	if st.made {
		how = "made"
	}
	e.logger.LogAttrs(context.Background(), slog.LevelInfo, "ttldb: collection opened on PostgreSQL",
		slog.String("collection", st.settings.Name), slog.String("schema", strings.Trim(e.schema, `"`)),
		slog.String("collection_was", how), slog.Int64("last_lsn", st.lsn), slog.Duration("took", took))
}

// logRound logs the outcome of a round of the background goroutine: a
// failure at most once per behindEvery, and the first success after
// failures. A round ended by Close is no failure.
func (e *Engine) logRound(ctx context.Context, err error) {
	s := &e.logs
	if e.logger == nil || ctx.Err() != nil {
		return
	}
	if err == nil {
		if s.failures > 0 {
			e.logger.LogAttrs(ctx, slog.LevelInfo, "ttldb: the background rounds work again",
				slog.String("collection", e.Settings().Name), slog.Int("rounds_failed", s.failures))
		}
		s.failures = 0
		return
	}
	s.failures++
	now := e.clockNow()
	if s.warned != 0 && now-(s.warned-1) < int64(behindEvery/time.Second) {
		return
	}
	s.warned = now + 1
	e.logger.LogAttrs(ctx, slog.LevelWarn, "ttldb: a background round failed (its sweep, its pass or its reading of the metrics); it tries again at the next",
		slog.String("collection", e.Settings().Name), slog.Int("rounds_failed", s.failures), slog.String("error", err.Error()))
}

// checkBehind, when a Logger is set and behindAfter has passed since the
// last check, reads the backlog (backlogSQL: index scans, no read of the
// table) and warns when the oldest expired document not yet swept expired
// behindAfter ago or more, at most once per behindEvery. It costs one
// statement per behindAfter; nothing without a Logger.
func (e *Engine) checkBehind(ctx context.Context) error {
	s := &e.logs
	if e.logger == nil {
		return nil
	}
	at := e.clockNow()
	if s.checked != 0 && at-s.checked < int64(behindAfter/time.Second) {
		return nil
	}
	s.checked = at
	g, now, err := e.readBacklog(ctx, false)
	if err != nil {
		return err
	}
	lag := now - g.oldestDue
	if g.backlog == 0 || !g.sweeps || lag < int64(behindAfter/time.Second) {
		return nil // nothing late; or the DefaultTTL off, which sweeps nothing (R5, R7): no sweeper to be behind
	}
	if s.behind != 0 && now-(s.behind-1) < int64(behindEvery/time.Second) {
		return nil
	}
	s.behind = now + 1
	e.logger.LogAttrs(ctx, slog.LevelWarn, "ttldb: the sweepers are behind",
		slog.String("collection", e.Settings().Name), slog.Int64("backlog", g.backlog),
		slog.Time("oldest_due", time.Unix(g.oldestDue, 0).UTC()), slog.Duration("lag", time.Duration(lag)*time.Second))
	return nil
}
