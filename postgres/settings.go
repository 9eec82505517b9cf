package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// setLockSQL locks and reads the collection's row for a change of the
// DefaultTTL: now, the setting and R7's cut-offs, the indexing mode.
const setLockSQL = `SELECT t.now, c.def_on, c.def_n, c.own_cut, c.inherit_cuts, c.indexing
FROM {s}.ttldb_collections c CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t WHERE c.no = $1 FOR NO KEY UPDATE OF c`

// setSQL stores the new setting and cut-offs, and raises the high-water
// mark of now to the now the change was judged at.
const setSQL = `UPDATE {s}.ttldb_collections SET def_on = $2, def_n = $3, own_cut = $4, inherit_cut = $5, inherit_cuts = $6,
	now_hwm = greatest(now_hwm, $7) WHERE no = $1`

// SetDefaultTTL implements [engine.Engine]: it changes the DefaultTTL at
// once for every document (R7), as internal/local's setDefault does: what
// is expired under the old setting stays expired, by cut-offs frozen at
// now, and the inherit cut is appended to inherit_cuts with the setting
// it was made under, for ExpiresAt. Every process's next statement judges
// by it. It costs one transaction of two statements, which holds the
// collection's row (writes do not wait for it: they read it without a
// lock), whatever the number of documents: O(1), plus the row's array of
// cuts, which grows by one pair per change of the setting's value at most.
//
// Errors: ErrInvalidOption for a DefaultTTL that R1 does not allow, or
// one that is on in indexing mode none (R8); ErrClosed; ctx's; the
// server's.
func (e *Engine) SetDefaultTTL(ctx context.Context, d engine.DefaultTTL) error {
	if err := e.usable(ctx, "SetDefaultTTL"); err != nil {
		return err
	}
	if !d.Valid() {
		return errorf(engine.ErrInvalidOption, "DefaultTTL on=%t seconds=%d is none of R1's states (off; -1; 1 to %d seconds)", d.On, d.Seconds, engine.MaxTTL)
	}
	// Setting a DefaultTTL twice changes nothing more than once: a lost
	// connection, even at the COMMIT, starts it again (failure.go).
	return e.retry(ctx, func() error { return e.setDefaultTTL(ctx, d) })
}

// setDefaultTTL is one attempt of SetDefaultTTL, once d is checked.
func (e *Engine) setDefaultTTL(ctx context.Context, d engine.DefaultTTL) error {
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return e.serverError("SetDefaultTTL", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, syncOnSQL); err != nil { // failure.go
		return e.serverError("SetDefaultTTL", err)
	}
	var r rules
	var now int64
	var cuts []int64
	var mode int16
	err = tx.QueryRow(ctx, e.sql(setLockSQL), e.no, e.clockParam()).Scan(&now, &r.def.On, &r.def.Seconds, &r.ownCut, &cuts, &mode)
	if err != nil {
		return e.serverError("SetDefaultTTL: reading the collection's row", err)
	}
	var ok bool
	if r.cuts, ok = pairs(cuts); !ok || !r.def.Valid() {
		return e.corrupt("its row of ttldb_collections holds DefaultTTL %v and inherit_cuts %v, which no ttldb writes", r.def, cuts)
	}
	if !engine.Indexing(mode).Allows(d) {
		return errorf(engine.ErrInvalidOption, "DefaultTTL %v needs indexing mode consistent, and the mode is none (R8)", d)
	}
	next := r.setDefault(d, now)
	_, err = tx.Exec(ctx, e.sql(setSQL), e.no, d.On, d.Seconds, next.ownCut, next.inheritCut(), flat(next.cuts), now)
	if err != nil {
		return e.serverError("SetDefaultTTL", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return e.serverError("SetDefaultTTL: committing", err)
	}
	e.seen(0, now)
	e.setRules(next)
	return nil
}
