package postgres

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/ttldb/ttldb/engine"
)

// getSQL reads the live version of the document with the key $3 (R4), in
// one statement: the collection's row, "now", and the document matched by
// the key's hash $4 and the key whole, under the live predicate. It
// returns no row when there is no live document; a row with a NULL lsn is
// a version not yet sequenced.
//
// The hash is the key's SHA-256 computed in Go (the column h is the
// server's sha256(key), the same bytes): the server's sha256 cost about 5
// µs of its CPU a Get, a tenth of the statement's. Matching the key whole
// keeps the read exact whatever the hash.
const getSQL = `
SELECT d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl, d.lsn, c.lsn, t.now
FROM {s}.ttldb_collections c
CROSS JOIN LATERAL (SELECT ` + nowSQL + ` AS now) t
JOIN {s}.ttldb_docs_{n} d ON d.h = $4 AND d.key = $3
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
	g := getScans.Get().(*getScan)
	defer g.put()
	g.body.key = key
	g.h = sha256.Sum256(key)
	g.args[0], g.args[1], g.args[2] = e.noArg, e.clockParam(), key
	err = e.pool.QueryRow(ctx, e.sql(getSQL), g.args[:]...).Scan(g.dest[:]...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, true, engine.ErrNotFound
	}
	if err != nil {
		return nil, false, e.serverError("reading a document", err)
	}
	e.seen(g.last, g.now)
	if !g.lsn.Valid {
		return nil, false, nil
	}
	if err := e.check(len(key), &g.r, g.lsn.Int64); err != nil {
		return nil, false, err
	}
	d = g.body.d
	d.Layout = engine.Layout{PK: uint16(g.r.pkEnd), IDAt: uint16(g.r.idAt), IDEnd: uint16(g.r.idEnd)}
	d.TS, d.TTL, d.Tag = g.r.ts, g.r.ttl, e.etagBase()+uint64(g.lsn.Int64)
	return d, true, nil
}

// getScan is where a Get scans getSQL's row, kept in getScans between
// Gets: its destinations made once, so that a Get's Scan allocates only
// the Doc, into which the body is read from the connection's buffer.
type getScan struct {
	args      [4]any // getSQL's parameters; args[3] is h[:], boxed once
	h         [sha256.Size]byte
	r         row // but body and lsn
	body      bodyScan
	lsn       pgtype.Int8
	last, now int64
	dest      [9]any
}

// getScans holds the getScans not in use.
var getScans = sync.Pool{New: func() any {
	g := new(getScan)
	g.args[3] = g.h[:]
	g.dest = [9]any{&g.r.pkEnd, &g.r.idAt, &g.r.idEnd, &g.body, &g.r.ts, &g.r.ttl, &g.lsn, &g.last, &g.now}
	return g
}}

// put gives g back to getScans, holding no key and no Doc.
func (g *getScan) put() {
	g.body = bodyScan{}
	g.args[1], g.args[2] = nil, nil
	getScans.Put(g)
}

// bodyScan reads a document's body column into a new Doc of the key, as
// a pgtype.BytesScanner: the body is copied once, from the connection's
// buffer into the Doc (scanned as a string, then copied by NewDoc, it
// was copied twice). The Doc's other fields are set after the Scan.
type bodyScan struct {
	key []byte
	d   *engine.Doc
}

// ScanBytes implements pgtype.BytesScanner; v is the body, valid during
// the call.
//
// Errors: ErrCorrupt for a NULL body (the column is NOT NULL).
func (b *bodyScan) ScanBytes(v []byte) error {
	if v == nil {
		return fmt.Errorf("%w: a document's row holds a NULL body", engine.ErrCorrupt)
	}
	b.d = engine.NewDoc(b.key, engine.Layout{}, v, 0, 0, 0)
	return nil
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
	if err := e.check(len(key), r, *r.lsn); err != nil {
		return nil, err
	}
	at := engine.Layout{PK: uint16(r.pkEnd), IDAt: uint16(r.idAt), IDEnd: uint16(r.idEnd)}
	return engine.NewDoc(key, at, r.body, r.ttl, r.ts, e.etagBase()+uint64(*r.lsn)), nil
}

// check checks the row r of a key of n bytes, at LSN lsn, as doc does.
//
// Errors: ErrCorrupt for a layout outside the key, a ttl below -1 or an LSN
// below 1.
func (e *Engine) check(n int, r *row, lsn int64) error {
	switch {
	case n > 0xffff || r.pkEnd < 0 || r.pkEnd > int32(n) || r.idAt < 0 || r.idAt > r.idEnd || r.idEnd > int32(n):
		return e.corrupt("a document's row holds the layout %d, %d, %d for a key of %d bytes", r.pkEnd, r.idAt, r.idEnd, n)
	case r.ttl < -1:
		return e.corrupt("a document's row holds the ttl %d", r.ttl)
	case lsn < 1:
		return e.corrupt("a document's row holds the LSN %d", lsn)
	}
	return nil
}

// etagBase returns the collection's ETagBase, without copying its
// settings.
func (e *Engine) etagBase() uint64 {
	if s := e.settings.Load(); s != nil {
		return s.ETagBase
	}
	return 0
}
