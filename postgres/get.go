package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// getSQL reads the live version of the document with the key $3 (R4), in
// one statement: the collection's row, "now", and the document matched by
// the key's hash and the key whole, under the live predicate. It returns
// no row when there is no live document; a row with a NULL lsn is a
// version not yet sequenced.
const getSQL = `
SELECT d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl, d.lsn, c.lsn, t.now
FROM {s}.ttldb_collections c
CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t
JOIN {s}.ttldb_docs_{n} d ON d.h = sha256($3) AND d.key = $3
WHERE c.no = $1 AND ` + liveSQL

// Get implements [engine.Engine]: the live document with the key (R4), or
// ErrNotFound when there is none (as engine.Engine.Get says). It costs one
// statement; when it meets a version committed but not yet numbered (a
// writer between its commit and its pass, or one that died there), it
// runs a pass and reads again, as long as it meets one.
//
// Errors: ErrNotFound; ErrClosed; ErrCorrupt for a row no ttldb writes;
// ctx's; the server's.
func (e *Engine) Get(ctx context.Context, key []byte) (*engine.Doc, error) {
	if err := e.usable(ctx, "Get"); err != nil {
		return nil, err
	}
	// Again after each pass: a version that has no LSN after a pass is
	// another write's, committed meanwhile, so each attempt follows
	// another write's progress.
	lost := 0
	for range maxAttempts {
		d, sequenced, err := e.get(ctx, key)
		if e.again(ctx, err, &lost) { // a lost connection (failure.go)
			continue
		}
		if err != nil || sequenced {
			return d, err
		}
		if _, err := e.sequence(ctx, 0); err != nil {
			return nil, err
		}
	}
	return nil, e.corrupt("the document's version had no LSN after %d passes in a row", maxAttempts)
}

// get reads the live document with the key once; sequenced is false for a
// version without an LSN yet.
func (e *Engine) get(ctx context.Context, key []byte) (d *engine.Doc, sequenced bool, err error) {
	var r row
	var last, now int64
	err = e.pool.QueryRow(ctx, e.sql(getSQL), e.no, e.clockParam(), key).
		Scan(&r.pkEnd, &r.idAt, &r.idEnd, &r.body, &r.ts, &r.ttl, &r.lsn, &last, &now)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, true, engine.ErrNotFound
	}
	if err != nil {
		return nil, false, e.serverError("reading a document", err)
	}
	e.seen(last, now)
	if r.lsn == nil {
		return nil, false, nil
	}
	d, err = e.doc(key, &r)
	return d, err == nil, err
}

// row is a document's row as a statement reads it.
type row struct {
	pkEnd, idAt, idEnd int32
	body               string
	ts                 int64
	ttl                int32
	seq                int64
	lsn                *int64
}

// doc makes the Doc of the row r of the key, whose lsn is set.
//
// Errors: ErrCorrupt for a layout outside the key, a ttl below -1 or an LSN
// below 1.
func (e *Engine) doc(key []byte, r *row) (*engine.Doc, error) {
	n := int32(len(key))
	switch {
	case len(key) > 0xffff || r.pkEnd < 0 || r.pkEnd > n || r.idAt < 0 || r.idAt > r.idEnd || r.idEnd > n:
		return nil, e.corrupt("a document's row holds the layout %d, %d, %d for a key of %d bytes", r.pkEnd, r.idAt, r.idEnd, n)
	case r.ttl < -1:
		return nil, e.corrupt("a document's row holds the ttl %d", r.ttl)
	case *r.lsn < 1:
		return nil, e.corrupt("a document's row holds the LSN %d", *r.lsn)
	}
	at := engine.Layout{PK: uint16(r.pkEnd), IDAt: uint16(r.idAt), IDEnd: uint16(r.idEnd)}
	return engine.NewDoc(key, at, r.body, r.ttl, r.ts, e.Settings().ETagBase+uint64(*r.lsn)), nil
}
