package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// statsSQL counts the collection's documents in one statement, so at one
// instant (one snapshot): whether the collection's row was found, all the
// rows, and the expired ones by the live predicate's limits (expiry.go):
// those of an own ttl whose ts + ttl is at or before the own limit, and
// those that inherit whose ts is at or before the inherit limit, each an
// index scan of its expiry index. Every other row is live: ttl -1, or
// above its limit. $1 is the collection's number, $2 the handle's clock.
//
// For issue 32's operators, the backlog's oldest expiry (how far the
// sweepers lag) could be read the same way, from the first entry of each
// expiry index under its limit, in O(log n):
//
//	SELECT min(d.ts + d.ttl) FROM docs d WHERE d.ttl > 0 AND d.ts + d.ttl <= own_lim
//	SELECT min(d.ts)         FROM docs d WHERE d.ttl = 0 AND d.ts <= inh_lim
//
// The first is the instant the oldest document of an own ttl expired. The
// second is the oldest inheriting document's _ts, which expired at that
// _ts plus the DefaultTTL it expired under: the current one's seconds, or,
// at or before inherit_cut, its cut's (rules.expiresAt). The smaller of
// the two instants is the backlog's oldest expiry; now minus it is the
// sweepers' lag. engine.Stats has no field for it: that is for the API's
// package to add.
const statsSQL = `
WITH c AS (
	SELECT ` + ownLimSQL + ` AS own, ` + inhLimSQL + ` AS inh
	FROM {s}.ttldb_collections c CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t WHERE c.no = $1)
SELECT EXISTS (SELECT 1 FROM c), (SELECT count(*) FROM {s}.ttldb_docs_{n}),
	(SELECT count(*) FROM {s}.ttldb_docs_{n} d WHERE d.ttl > 0 AND d.ts + d.ttl <= (SELECT own FROM c))
	+ (SELECT count(*) FROM {s}.ttldb_docs_{n} d WHERE d.ttl = 0 AND d.ts <= (SELECT inh FROM c))`

// Stats implements [engine.Engine]: the collection's counts at one
// instant, as every process sees them: Live, the documents Get finds
// (R4), and Expired, those expired and not yet deleted by a sweep, by the
// live predicate at now (R7's cut-offs included); and this handle's own:
// Swept, the documents its sweeps (Sweep and its background goroutine)
// deleted, and LastSweep, how long its last complete sweep that deleted
// something took (zero before one): the background goroutine's rounds
// that find nothing, every second, would otherwise make it the time of an
// empty probe.
//
// It costs one statement: a count of all the documents, which reads every
// row (PostgreSQL keeps no count), and an index scan of the expired ones.
//
// Errors: ErrClosed (also for a collection dropped on the server); ctx's;
// the server's.
func (e *Engine) Stats(ctx context.Context) (engine.Stats, error) {
	if err := e.usable(ctx, "Stats"); err != nil {
		return engine.Stats{}, err
	}
	var found bool
	var all, expired int64
	err := e.retry(ctx, func() error { // a lost connection: again (failure.go)
		return e.pool.QueryRow(ctx, e.sql(statsSQL), e.no, e.clockParam()).Scan(&found, &all, &expired)
	})
	if err != nil {
		if ctx.Err() != nil {
			return engine.Stats{}, engine.ContextError(ctx, "Stats")
		}
		return engine.Stats{}, e.serverError("Stats", err)
	}
	if !found {
		return engine.Stats{}, e.serverError("Stats", pgx.ErrNoRows)
	}
	return engine.Stats{
		Live:      int(all - expired),
		Expired:   int(expired),
		Swept:     e.swept.Load(),
		LastSweep: time.Duration(e.lastSweep.Load()),
	}, nil
}
