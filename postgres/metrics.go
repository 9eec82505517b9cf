package postgres

import (
	"context"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// Metrics (R17; engine.Meter). A metrics system reads them often and at
// every collection, and must never wait on the server: Metrics answers
// from memory. Its counters are this handle's own (Swept); its gauges
// (Backlog, OldestDue, Documents, Bytes, LastLSN, FeedOldest) describe the
// collection as every process shares it, and come from one statement,
// gaugesSQL, that the handle's background goroutine runs when Metrics
// found them older than gaugesMaxAge, or missing: so a collection whose
// metrics nobody reads costs the server nothing, and one read every 15
// seconds costs it one statement each time, never more than one per
// gaugesMaxAge.

// gaugesMaxAge is the age at which Metrics asks the background goroutine
// to read the gauges again: the most they lag behind the server when
// metrics are read at least that often.
const gaugesMaxAge = 10 * time.Second

// gauges are the collection's gauges at one instant, as gaugesSQL read
// them, and when (this machine's clock: the age is about cost, not
// expiry).
type gauges struct {
	backlog, oldestDue  int64
	documents, bytes    int64
	lastLSN, feedOldest uint64
	at                  time.Time
	sweeps              bool // the DefaultTTL is on: sweeps delete the backlog (R5)
}

// backlogSQL reads, in one statement, at one instant: the collection's
// row (whether found, now, the DefaultTTL and R7's cut-offs, the last LSN
// given out), the backlog (the documents expired and not yet swept, by
// the live predicate's limits, as statsSQL counts them), the instant the
// oldest of those of an own ttl expired, the _ts of the oldest of those
// that inherit (rules.expiresAt makes its expiry), and the oldest LSN the
// feed holds (none with the feed off: a delete's record kept for offGrace
// then is no feed). Each figure but the count is the first entry of an index
// (O(log n)); the count reads the backlog's entries, few while the
// sweepers keep up. $1 is the collection's number, $2 the handle's clock.
const backlogSQL = `
WITH c AS (
	SELECT t.now, c.lsn, c.def_on, c.def_n, c.own_cut, c.inherit_cuts, c.feed, ` + ownLimSQL + ` AS own, ` + inhLimSQL + ` AS inh
	FROM {s}.ttldb_collections c CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t WHERE c.no = $1)
SELECT c.now, c.lsn, c.def_on, c.def_n, c.own_cut, c.inherit_cuts, c.feed,
	(SELECT count(*) FROM {s}.ttldb_docs_{n} d WHERE d.ttl > 0 AND d.ts + d.ttl <= (SELECT own FROM c))
	+ (SELECT count(*) FROM {s}.ttldb_docs_{n} d WHERE d.ttl = 0 AND d.ts <= (SELECT inh FROM c)),
	(SELECT min(d.ts + d.ttl) FROM {s}.ttldb_docs_{n} d WHERE d.ttl > 0 AND d.ts + d.ttl <= (SELECT own FROM c)),
	(SELECT min(d.ts) FROM {s}.ttldb_docs_{n} d WHERE d.ttl = 0 AND d.ts <= (SELECT inh FROM c)),
	CASE WHEN c.feed THEN (SELECT min(f.lsn) FROM {s}.ttldb_feed_{n} f WHERE f.lsn IS NOT NULL) END`

// gaugesSQL is backlogSQL with every document counted and measured: a
// read of the whole table (PostgreSQL keeps no count), about 100 ms of
// the server's time per million documents.
const gaugesSQL = backlogSQL + `,
	a.n, a.bytes
FROM c CROSS JOIN (SELECT count(*) AS n, coalesce(sum(octet_length(body)), 0) AS bytes FROM {s}.ttldb_docs_{n}) a`

// readBacklog runs backlogSQL (whole: with all, gaugesSQL) and returns the
// gauges it read, and now.
func (e *Engine) readBacklog(ctx context.Context, all bool) (gauges, int64, error) {
	text := backlogSQL + ` FROM c`
	if all {
		text = gaugesSQL
	}
	var g gauges
	var now, lsn int64
	var r rules
	var cuts []int64
	var oldOwn, oldInherit, feedOldest *int64
	var feed bool
	err := e.retry(ctx, func() error { // a lost connection: again (failure.go)
		dest := []any{&now, &lsn, &r.def.On, &r.def.Seconds, &r.ownCut, &cuts, &feed, &g.backlog, &oldOwn, &oldInherit, &feedOldest}
		if all {
			dest = append(dest, &g.documents, &g.bytes)
		}
		return e.pool.QueryRow(ctx, e.sql(text), e.no, e.clockParam()).Scan(dest...)
	})
	if err != nil {
		if ctx.Err() != nil {
			return gauges{}, 0, engine.ContextError(ctx, "reading the metrics")
		}
		return gauges{}, 0, e.serverError("reading the metrics", err) // no row: the collection dropped, ErrClosed
	}
	var ok bool
	if r.cuts, ok = pairs(cuts); !ok || !r.def.Valid() {
		return gauges{}, 0, e.corrupt("its row of ttldb_collections holds DefaultTTL %v and inherit_cuts %v, which no ttldb writes", r.def, cuts)
	}
	e.seen(0, now)
	g.sweeps = r.def.On
	if all {
		g.documents -= g.backlog // the live ones; without all, none were counted
	}
	g.lastLSN = uint64(max(lsn, 0))
	if feedOldest != nil {
		g.feedOldest = uint64(max(*feedOldest, 0))
	}
	if oldOwn != nil {
		g.oldestDue = *oldOwn
	}
	if oldInherit != nil {
		if due, _ := r.expiresAt(&engine.Doc{TS: *oldInherit, TTL: engine.TTLInherit}, now); g.oldestDue == 0 || due < g.oldestDue {
			g.oldestDue = due
		}
	}
	g.at = time.Now()
	return g, now, nil
}

// refreshGauges reads the gauges and keeps them for Metrics.
func (e *Engine) refreshGauges(ctx context.Context) error {
	if err := e.usable(ctx, "reading the metrics"); err != nil {
		return err
	}
	g, _, err := e.readBacklog(ctx, true)
	if err != nil {
		return err
	}
	e.gauges.Store(&g)
	return nil
}

// Metrics implements [engine.Meter]: this handle's counter of the
// documents its sweeps deleted (Swept, as Stats), and the collection's
// gauges as the handle last read them from the server, at most about
// gaugesMaxAge old when metrics are read that often and the server
// answers (a reading that fails leaves the last one): Backlog and
// OldestDue (the sweepers' lag, every process's), Documents (the live
// ones), Bytes (the documents' JSON as stored, without _ts and _etag,
// expired-not-swept ones included), LastLSN and FeedOldest. It never
// waits: when the gauges it holds are older than gaugesMaxAge, or it holds
// none (the first call after Open answers with zero gauges), it asks the
// background goroutine to read them again, for a later call. Expired and
// Evicted are 0: a read filters expired documents on the server, which
// does not say how many it left out, and a collection on PostgreSQL has
// no memory quota. After Close, the counter as it stood and zero gauges.
// It costs two atomic loads and a clock read.
func (e *Engine) Metrics() engine.Metrics {
	m := engine.Metrics{Swept: e.swept.Load()}
	if e.closed.Load() || e.pool == nil {
		return m
	}
	g := e.gauges.Load()
	if g == nil || time.Since(g.at) >= gaugesMaxAge {
		e.askGauges()
	}
	if g != nil {
		m.Backlog, m.OldestDue = g.backlog, g.oldestDue
		m.Documents, m.Bytes = g.documents, g.bytes
		m.LastLSN, m.FeedOldest = g.lastLSN, g.feedOldest
	}
	return m
}

// askGauges asks the background goroutine for a reading of the gauges,
// unless one is asked already. It does not wait.
func (e *Engine) askGauges() {
	if e.bg == nil {
		return
	}
	select {
	case e.bg.gauges <- struct{}{}:
	default:
	}
}
