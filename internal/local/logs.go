package local

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// What the collection logs, through Config.Logger (R17), when it has one:
//
//   - Info: an open (in memory, or what recovery found in a directory: the
//     snapshot and its documents, the logs and changes replayed, a torn
//     tail cut, the last LSN, the time it took), and each compaction's
//     start and end (the files' sizes before and after, the time).
//   - Warn: the sweeper falling behind (see behindAfter), at most once per
//     behindEvery.
//   - Error: a failing disk (a write or sync of the log that failed, which
//     closes the collection; a compaction that could not write its
//     snapshot).
//
//   - Warn: a memory quota reached (a write refused, or documents
//     evicted), at most once per quotaEvery.
//
// Every record has the attribute collection (its name), and never a
// document's content.

// behindAfter is when the sweeper is behind: between two of its batches,
// the oldest expired document not yet swept expired this long ago or more
// (by the collection's clock). A sweep that keeps up deletes a document in
// the second it expires.
const behindAfter = 10 * time.Second

// behindEvery is the least time between two warnings that the sweeper is
// behind, by the collection's clock.
const behindEvery = time.Minute

// quotaEvery is the least time between two warnings that the memory
// quota is reached, by the collection's clock.
const quotaEvery = time.Minute

// every lets an event be logged at most once per interval, by the
// collection's clock (Unix seconds): its zero value lets the first one.
type every struct{ last atomic.Int64 } // the instant last let, plus 1; 0: never

// due reports whether an event at now would be let, and the state take
// is to find.
func (e *every) due(now int64, interval time.Duration) (last int64, ok bool) {
	last = e.last.Load()
	return last, last == 0 || now-(last-1) >= int64(interval/time.Second)
}

// take lets the event at now that due let, unless another was let since:
// of two callers at once, one.
func (e *every) take(last, now int64) bool { return e.last.CompareAndSwap(last, now+1) }

// logOpen logs an open that took took.
func (c *collection) logOpen(cfg *Config, took time.Duration) {
	if c.logger == nil {
		return
	}
	if cfg.Dir == "" {
		c.logger.LogAttrs(context.Background(), slog.LevelInfo, "ttldb: collection opened in memory",
			slog.String("collection", c.name))
		return
	}
	r := &c.recovery
	attrs := []slog.Attr{
		slog.String("collection", c.name), slog.String("dir", cfg.Dir), slog.Bool("read_only", cfg.ReadOnly),
		slog.String("snapshot", r.Snapshot), slog.Int("documents", r.Documents),
		slog.Int("logs", r.Logs), slog.Int("changes", r.Changes),
		slog.Uint64("last_lsn", r.LastLSN), slog.Duration("took", took),
	}
	if r.Truncated != "" {
		attrs = append(attrs, slog.String("torn_tail", r.Truncated), slog.Int64("torn_bytes", r.Dropped), slog.String("torn_reason", r.Reason))
	}
	for _, ch := range r.Changed {
		attrs = append(attrs, slog.String("changed", ch.String()))
	}
	c.logger.LogAttrs(context.Background(), slog.LevelInfo, "ttldb: collection opened from its directory", attrs...)
}

// checkBehind logs, at most once per behindEvery, that the background
// sweeper is behind: called between two of its batches. It costs a look at
// an atomic, and, once the interval has passed, a read lock of O(log b + k)
// (k the seconds of backlog) to measure it.
func (c *collection) checkBehind() {
	if c.logger == nil || c.wake == nil {
		return
	}
	now := c.now()
	last, ok := c.behind.due(now, behindEvery)
	if !ok {
		return
	}
	c.mu.RLock()
	due, backlog := int64(0), 0
	if !c.unusable() {
		due = c.exp.oldestDue(now)
		backlog = c.exp.countExpired(c.exp.limits(now))
	}
	c.mu.RUnlock()
	if due == 0 || now-due < int64(behindAfter/time.Second) || !c.behind.take(last, now) {
		return
	}
	c.logger.LogAttrs(context.Background(), slog.LevelWarn, "ttldb: the sweeper is behind",
		slog.String("collection", c.name), slog.Int("backlog", backlog),
		slog.Duration("behind", time.Duration(now-due)*time.Second),
		slog.Time("oldest_due", time.Unix(due, 0)), slog.Uint64("swept", c.swept.Load()))
}

// logFailure logs the failure of the collection's files, which closes it.
func (c *collection) logFailure(err error) {
	if c.logger == nil {
		return
	}
	c.logger.LogAttrs(context.Background(), slog.LevelError, "ttldb: the collection's files failed; it is closed",
		slog.String("collection", c.name), slog.String("dir", c.dir), slog.Any("error", err))
}

// logCompaction logs a compaction's start (before: the files' size, live:
// the documents' size, about) or, with took, its end; a failure at Error.
func (c *collection) logCompaction(start bool, before, live, after int64, took time.Duration, err error) {
	if c.logger == nil {
		return
	}
	ctx := context.Background()
	switch {
	case start:
		c.logger.LogAttrs(ctx, slog.LevelInfo, "ttldb: compaction started",
			slog.String("collection", c.name), slog.Int64("files_bytes", before), slog.Int64("live_bytes", live))
	case err != nil:
		c.logger.LogAttrs(ctx, slog.LevelError, "ttldb: compaction failed",
			slog.String("collection", c.name), slog.Duration("took", took), slog.Any("error", err))
	default:
		c.logger.LogAttrs(ctx, slog.LevelInfo, "ttldb: compaction done",
			slog.String("collection", c.name), slog.Int64("files_bytes_before", before),
			slog.Int64("files_bytes", after), slog.Duration("took", took))
	}
}

// logQuota logs, at most once per quotaEvery, that the quota is reached at
// now: a write refused, or (refused false) documents evicted to make room.
// Call with mu held (the record is made under the lock, once a minute at
// most); it costs a look at an atomic otherwise.
func (c *collection) logQuota(now int64, refused bool) {
	if c.logger == nil {
		return
	}
	last, ok := c.quotaWarn.due(now, quotaEvery)
	if !ok || !c.quotaWarn.take(last, now) {
		return
	}
	msg := "ttldb: the memory quota is reached: evicting the documents that expire soonest"
	if refused {
		msg = "ttldb: the memory quota is reached: a write was refused"
	}
	q := &c.quota
	c.logger.LogAttrs(context.Background(), slog.LevelWarn, msg,
		slog.String("collection", c.name), slog.Int64("quota_bytes", q.Bytes), slog.Int64("quota_documents", q.Docs),
		slog.Int64("bytes", c.used()), slog.Int("documents", c.prim.len()), slog.Uint64("evicted", q.evicted.Load()))
}
