package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// A write (DESIGN.md, "LSNs") is two transactions. The first locks the
// document's row, reads the collection's row without a lock (the setting,
// the cut-offs and now), decides as R4 and R10 say, and writes the
// document and its feed record(s), each with a seq and no LSN; it commits.
// The second is the pass (sequence.go), which gives the write its LSN, and
// so its etag: Doc.Tag = ETagBase + LSN.

// lockSQL locks and reads the row of the document with the key $1.
const lockSQL = `SELECT pk_end, id_at, id_end, body, ts, ttl, seq, lsn FROM {s}.ttldb_docs_{n} WHERE h = sha256($1) AND key = $1 FOR UPDATE`

// limitsSQL reads, after the lock, the collection's row: now, the two
// limits, the setting and cut-offs (for ExpiresAt), the last LSN, and the
// indexes whose items writers keep (items.go).
const limitsSQL = `SELECT t.now, ` + ownLimSQL + `, ` + inhLimSQL + `, c.def_on, c.def_n, c.own_cut, c.inherit_cuts, c.lsn,
	c.ix_ids, c.ix_paths
FROM {s}.ttldb_collections c CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t WHERE c.no = $1`

// expiredSQL records the delete of the expired version of the document
// with the key $1, flagged expired (R11), at now $2, before a write over
// it, with the version's LSN (prev).
const expiredSQL = `INSERT INTO {s}.ttldb_feed_{n} (op, key, pk_end, id_at, id_end, body, ts, ttl, expired, at, prev)
SELECT 3, key, pk_end, id_at, id_end, body, ts, ttl, true, $2, lsn FROM {s}.ttldb_docs_{n} WHERE h = sha256($1) AND key = $1`

// insertSQL stores a document whose key had no row, and its feed record
// of op $8; it returns no row when another write made the row meanwhile.
const insertSQL = `WITH d AS (
	INSERT INTO {s}.ttldb_docs_{n} (key, pk_end, id_at, id_end, body, ts, ttl) VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT DO NOTHING RETURNING seq, key, pk_end, id_at, id_end, body, ts, ttl)
INSERT INTO {s}.ttldb_feed_{n} (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
SELECT seq, $8, key, pk_end, id_at, id_end, body, ts, ttl FROM d RETURNING seq, txid_current()`

// updateSQL stores a document over the version of seq $9, which the
// transaction has locked, with a new seq, and its feed record of op $8.
const updateSQL = `WITH d AS (
	UPDATE {s}.ttldb_docs_{n} SET pk_end = $2, id_at = $3, id_end = $4, body = $5, ts = $6, ttl = $7,
		seq = nextval('{s}.ttldb_seq_{n}'), lsn = NULL
	WHERE h = sha256($1) AND key = $1 AND seq = $9 RETURNING seq, key, pk_end, id_at, id_end, body, ts, ttl)
INSERT INTO {s}.ttldb_feed_{n} (seq, op, key, pk_end, id_at, id_end, body, ts, ttl)
SELECT seq, $8, key, pk_end, id_at, id_end, body, ts, ttl FROM d RETURNING seq, txid_current()`

// deleteSQL deletes the version of seq $2 of the document with the key $1
// and records the delete, at now $3, with the version's LSN (prev).
const deleteSQL = `WITH d AS (
	DELETE FROM {s}.ttldb_docs_{n} WHERE h = sha256($1) AND key = $1 AND seq = $2 RETURNING key, pk_end, id_at, id_end, body, ts, ttl, lsn)
INSERT INTO {s}.ttldb_feed_{n} (op, key, pk_end, id_at, id_end, body, ts, ttl, at, prev)
SELECT 3, key, pk_end, id_at, id_end, body, ts, ttl, $3, lsn FROM d RETURNING seq, txid_current()`

// Why a write's first transaction starts again: errRetry when another
// write made the document's row after this one found none; errUnsequenced
// when it needs the etag of a version that has no LSN yet (IfMatch,
// Modify), which a pass gives, run without the row's lock.
var (
	errRetry       = errors.New("the document's row changed: again")
	errUnsequenced = errors.New("the live version has no LSN yet: a pass, then again")
	// errSkipped is what a write returns, committed, when a test set
	// skipPass.
	errSkipped = errors.New("ttldb: test hook: the write committed and skipped its pass")
)

// maxAttempts bounds the first transactions of one write: each retry
// follows another write's progress, so more means a fault.
const maxAttempts = 100

// Write implements [engine.Engine]: w applied to the document with the
// key (R4, R6, R10, R11), as internal/local's Write decides, and the
// document stored, stamped with now (_ts) and its etag, returned (nil for
// a Delete). A Create or Upsert over an expired document first records
// its delete, flagged expired (R11). A Modify calls w.Change in Go on the
// live version, under its row's lock, and writes on that version; it may
// call Change again when it must start again. Once the first transaction
// has committed, the write finishes its pass whatever ctx says, for at
// most passGrace after ctx ends. A connection lost before the COMMIT
// starts it again; a COMMIT whose answer is lost is resolved by asking
// the server (failure.go).
//
// It costs two transactions: the first of three round trips (four over an
// expired document), which holds the document's row from its first; the
// pass, one round trip, shared with the writes that committed meanwhile
// (passes.go, sequence.go).
//
// Errors: ErrConflict, ErrNotFound, *engine.ETagMismatch (R10), what
// w.Change returns; ErrInvalidOption for Op Read (a batch's only), a
// Write without its Doc or Change, or a Doc (or Change's) of another key;
// ErrClosed; ErrCorrupt; ctx's; the server's, and when the server cannot
// be reached, one that says whether the write may have committed (its
// COMMIT's answer lost) or did commit (its pass failed: the next pass of
// any handle numbers it).
func (e *Engine) Write(ctx context.Context, key []byte, w engine.Write) (*engine.Doc, error) {
	if err := e.usable(ctx, w.Op.String()); err != nil {
		return nil, err
	}
	switch {
	case w.Op > engine.Modify:
		return nil, errorf(engine.ErrInvalidOption, "a Write of Op %v: Read is a batch's step only", w.Op)
	case w.Op <= engine.Upsert && w.Doc == nil:
		return nil, errorf(engine.ErrInvalidOption, "a %v without its Doc", w.Op)
	case w.Op == engine.Modify && w.Change == nil:
		return nil, errorf(engine.ErrInvalidOption, "a Patch without its Change")
	case w.Op <= engine.Upsert && w.Doc.Key() != string(key):
		return nil, errorf(engine.ErrInvalidOption, "a %v of key %q with a Doc of key %q: the key is Doc.Key", w.Op, key, w.Doc.Key())
	}
	var d *engine.Doc
	seq, err := e.commitFirst(ctx, w.Op.String(), "the document changed", func() (seq int64, err error) {
		d, seq, err = e.writeTx(ctx, key, &w)
		return seq, err
	})
	switch {
	case err != nil:
		return nil, err
	case e.skipPass.Load():
		return nil, errSkipped
	}
	lsn, err := e.passAfterCommit(ctx, w.Op.String(), seq)
	if d == nil && errors.Is(err, errLSNGone) {
		return nil, nil // a Delete committed: it returns no etag
	}
	if err != nil {
		return nil, err
	}
	if d != nil {
		d.Tag = e.Settings().ETagBase + uint64(lsn)
	}
	return d, nil
}

// commitFirst runs tx, a write's or a batch's first transaction, until it
// commits, and returns the seq of its last record: again when its row
// changed under it (errRetry), when it met a version another writer left
// unnumbered (after a pass, errUnsequenced), and when a lost connection
// stopped it before its COMMIT; a COMMIT whose answer was lost is
// resolved (failure.go). op names the call, and changed what made the
// last of maxAttempts attempts fail.
func (e *Engine) commitFirst(ctx context.Context, op, changed string, tx func() (int64, error)) (int64, error) {
	lost := 0
	for range maxAttempts {
		seq, err := tx()
		if committed, known := e.resolve(ctx, err); known { // a lost COMMIT (failure.go)
			if !committed {
				continue
			}
			err = nil
		}
		switch {
		case errors.Is(err, errRetry), e.again(ctx, err, &lost): // failure.go
			continue
		case errors.Is(err, errUnsequenced):
			if _, err := e.sequence(ctx, 0); err != nil {
				return 0, err
			}
			continue
		}
		return seq, err
	}
	return 0, e.serverError(op, fmt.Errorf("%s under %d attempts in a row", changed, maxAttempts))
}

// writeTx is a write's first transaction: it returns the document stored
// (nil for a delete), not yet tagged, and the seq of its last record.
func (e *Engine) writeTx(ctx context.Context, key []byte, w *engine.Write) (_ *engine.Doc, seq int64, err error) {
	// One round trip: BEGIN, the shared lock that a CreateIndex waits on
	// (items.go), the row's lock, then, in a statement of its own (a
	// snapshot taken once the lock is held), the collection's row.
	var b pgx.Batch
	b.BeginTx(pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	b.Queue(maintainLockSQL, e.schema, e.no)
	b.Queue(e.sql(lockSQL), key)
	b.Queue(e.sql(limitsSQL), e.no, e.clockParam())
	br := e.pool.SendBatch(ctx, &b)
	tx := br.Tx()
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, 0, e.serverError(w.Op.String(), err)
	}
	if _, err := br.Exec(); err != nil {
		_ = br.Close()
		return nil, 0, e.serverError("locking a document", err)
	}
	var old row
	found := true
	err = br.QueryRow().Scan(&old.pkEnd, &old.idAt, &old.idEnd, &old.body, &old.ts, &old.ttl, &old.seq, &old.lsn)
	if errors.Is(err, pgx.ErrNoRows) {
		found = false
	} else if err != nil {
		_ = br.Close()
		return nil, 0, e.serverError("locking a document", err)
	}
	now, l, defs, err := e.readLimits(br.QueryRow())
	if cerr := br.Close(); err == nil && cerr != nil {
		err = e.serverError("locking a document", cerr)
	}
	if err != nil {
		return nil, 0, err
	}
	if h := e.writeHold.Load(); h != nil {
		(*h)()
	}
	live := found && l.live(old.ts, old.ttl)
	switch {
	case w.Op == engine.Create && live:
		return nil, 0, engine.ErrConflict
	case !live && (w.Op != engine.Create && w.Op != engine.Upsert || w.HasIfMatch):
		return nil, 0, engine.ErrNotFound
	case (w.HasIfMatch || w.Op == engine.Modify) && old.lsn == nil:
		return nil, 0, errUnsequenced // no caller was given its etag
	case found && old.lsn == nil && (w.Op == engine.Delete || !live):
		return nil, 0, errUnsequenced // its delete's record names its LSN (prev)
	}
	var prev *engine.Doc
	if live && old.lsn != nil {
		if prev, err = e.doc(key, &old); err != nil {
			return nil, 0, err
		}
	}
	if w.HasIfMatch && !prev.HasETag(w.IfMatch) {
		return nil, 0, &engine.ETagMismatch{Current: prev.ETag()}
	}
	op := engine.OpReplace
	if !live {
		op = engine.OpCreate
	}
	var d *engine.Doc
	switch w.Op {
	case engine.Create, engine.Replace, engine.Upsert:
		d = w.Doc
	case engine.Touch: // R6: stored again, unchanged
		d = engine.NewDoc(key, engine.Layout{PK: uint16(old.pkEnd), IDAt: uint16(old.idAt), IDEnd: uint16(old.idEnd)}, old.body, old.ttl, 0, 0)
	case engine.Modify:
		if d, err = w.Change(prev, now); err != nil {
			return nil, 0, err
		}
		if d == nil || d.Key() != string(key) {
			return nil, 0, errorf(engine.ErrInvalidOption, "a Patch of key %q whose Change returned no document of that key", key)
		}
	}
	if found && !live { // R11: the expired version's delete first
		if _, err := tx.Exec(ctx, e.sql(expiredSQL), key, now); err != nil {
			return nil, 0, e.serverError("recording the delete of an expired document", err)
		}
	}
	var xid int64 // the transaction's, for resolve (failure.go)
	if d == nil { // Delete; its items go with its row (ON DELETE CASCADE)
		err = tx.QueryRow(ctx, e.sql(deleteSQL), key, old.seq, now).Scan(&seq, &xid)
	} else {
		d.TS = now
		seq, xid, err = e.store(ctx, tx, key, d, op, found, &old, defs)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, errRetry
	}
	if err != nil {
		return nil, 0, e.serverError("writing a document", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return d, seq, e.commitError("a write", err, xid)
	}
	return d, seq, nil
}

// store writes d over the version old of the row of key (found), or in a
// new row, with its feed record of op and its items that changed, in one
// round trip, and returns the record's seq and the transaction's id
// (for resolve, failure.go); pgx.ErrNoRows when the row changed meanwhile
// (errRetry).
func (e *Engine) store(ctx context.Context, tx pgx.Tx, key []byte, d *engine.Doc, op uint8, found bool, old *row, defs []ixDef) (seq, xid int64, err error) {
	args := []any{key, int32(d.Layout.PK), int32(d.Layout.IDAt), int32(d.Layout.IDEnd), d.Body(), d.TS, d.TTL, int16(op)}
	var prev *engine.Doc
	if found {
		prev = oldDoc(key, old)
	}
	ids, items := changes(defs, prev, d)
	if len(ids) == 0 {
		if found {
			err = tx.QueryRow(ctx, e.sql(updateSQL), append(args, old.seq)...).Scan(&seq, &xid)
		} else {
			err = tx.QueryRow(ctx, e.sql(insertSQL), args...).Scan(&seq, &xid)
		}
		return seq, xid, err
	}
	var b pgx.Batch
	if found {
		b.Queue(e.sql(updateSQL), append(args, old.seq)...)
	} else {
		b.Queue(e.sql(insertSQL), args...)
	}
	b.Queue(e.sql(itemsSQL), key, ids, items)
	br := tx.SendBatch(ctx, &b)
	defer func() { _ = br.Close() }()
	if err := br.QueryRow().Scan(&seq, &xid); err != nil {
		return 0, 0, err // ErrNoRows: the items' statement is not read; the transaction rolls back
	}
	if _, err := br.Exec(); err != nil {
		return 0, 0, err
	}
	return seq, xid, br.Close()
}

// readLimits reads the answer of limitsSQL: now and the limits at now,
// and the indexes whose items writers keep; it keeps the setting and
// cut-offs for ExpiresAt.
func (e *Engine) readLimits(q pgx.Row) (now int64, l limits, defs []ixDef, err error) {
	var r rules
	var cuts []int64
	var last int64
	var ids []int64
	var paths []string
	err = q.Scan(&now, &l.own, &l.inherit, &r.def.On, &r.def.Seconds, &r.ownCut, &cuts, &last, &ids, &paths)
	if err != nil {
		return 0, limits{}, nil, e.serverError("reading the collection's settings", err)
	}
	var ok bool
	if r.cuts, ok = pairs(cuts); !ok || !r.def.Valid() {
		return 0, limits{}, nil, e.corrupt("its row of ttldb_collections holds DefaultTTL %v and inherit_cuts %v, which no ttldb writes", r.def, cuts)
	}
	if defs, err = e.ixDefs(ids, paths); err != nil {
		return 0, limits{}, nil, err
	}
	e.seen(last, now)
	e.setRules(r)
	return now, l, defs, nil
}
