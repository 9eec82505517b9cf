package postgres

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// Secondary indexes on the server (R13; DESIGN.md, "Indexes on the
// server"). An index has a number, given when CreateIndex records it, and
// an item per document in ttldb_items_N: the item's key, exactly
// internal/local's (query.AppendKey of the value at the path, then the
// document's key), computed in Go by whoever writes the document, in the
// document's transaction. bytea compares as memcmp, then by length: as Go
// compares strings, so the server's order of items is query.AppendKey's,
// exact by construction, with no expression of ours in SQL. A btree item
// holds 2704 bytes at most, and an item may be longer (a long string, a
// long key): the btree is on the item's first 1024 bytes (pfx), and reads
// order by (pfx, item) and bound item itself (pfx's bounds narrow the
// scan; item's are exact).
//
// The collection's row lists every index writers keep (ix_paths, ix_ids),
// being built or ready, and, in indexes, the paths of those ready, which
// snapshots read. Items go with their document: ON DELETE CASCADE (a
// delete, a batch's, a sweep's); a write whose item did not change (a
// Touch, a change elsewhere in the body) writes none.

// itemsDDL makes the items of collection {n}'s secondary indexes (schema
// version 2).
const itemsDDL = `
CREATE TABLE {s}.ttldb_items_{n} (
	h    bytea NOT NULL REFERENCES {s}.ttldb_docs_{n} (h) ON DELETE CASCADE,
	ix   bigint NOT NULL,  -- the index's number (ttldb_collections.ix_ids)
	item bytea NOT NULL,   -- query.AppendKey of the value at the path, then the document's key
	pfx  bytea GENERATED ALWAYS AS (substring(item FROM 1 FOR 1024)) STORED,
	PRIMARY KEY (h, ix)
);
CREATE INDEX ttldb_items_{n}_order ON {s}.ttldb_items_{n} (ix, pfx);
`

// maintainLockSQL is a writer's first statement: the shared side of the
// lock that a CreateIndex takes alone for an instant, after it recorded
// its index, so as to wait for every writer that may have read the
// collection's row before (build.go). Writers never wait for each other
// on it. It makes the writer's commit synchronous too (syncOn,
// failure.go), whatever the connection's synchronous_commit says.
const maintainLockSQL = `SELECT ` + syncOn + `, pg_advisory_xact_lock_shared(hashtextextended('ttldb items ' || $1 || ' ' || $2::bigint::text, 0))`

// maintainWaitSQL takes that lock alone, and so waits for the writers
// that hold it.
const maintainWaitSQL = `SELECT pg_advisory_xact_lock(hashtextextended('ttldb items ' || $1 || ' ' || $2::bigint::text, 0))`

// itemsSQL stores the items $3 of the indexes $2 of the document with the
// key $1, over those it had.
const itemsSQL = `INSERT INTO {s}.ttldb_items_{n} (h, ix, item)
SELECT sha256($1::bytea), u.ix, u.item FROM unnest($2::bigint[], $3::bytea[]) AS u(ix, item)
ON CONFLICT (h, ix) DO UPDATE SET item = excluded.item`

// itemsManySQL stores the items $3 of the indexes $2 of the documents
// with the keys $1, over those they had.
const itemsManySQL = `INSERT INTO {s}.ttldb_items_{n} (h, ix, item)
SELECT sha256(u.key), u.ix, u.item FROM unnest($1::bytea[], $2::bigint[], $3::bytea[]) AS u(key, ix, item)
ON CONFLICT (h, ix) DO UPDATE SET item = excluded.item`

// ixDef is an index writers keep: its number and its path.
type ixDef struct {
	id   int64
	ptr  string
	path query.Path
}

// ixDefs returns the indexes of the row's ix_ids and ix_paths that have
// items: all but one on /_etag, whose value (the etag) is known only
// after the write's pass, and which a snapshot computes as it reads.
//
// Errors: ErrCorrupt for arrays no ttldb writes.
func (e *Engine) ixDefs(ids []int64, paths []string) ([]ixDef, error) {
	if len(ids) != len(paths) {
		return nil, e.corrupt("its row of ttldb_collections holds %d index numbers for %d paths", len(ids), len(paths))
	}
	defs := make([]ixDef, 0, len(ids))
	for i, ptr := range paths {
		if !pushed(ptr) {
			continue
		}
		p, err := query.ParsePointer(ptr)
		if err != nil {
			return nil, e.corrupt("its row of ttldb_collections holds the index path %q: %v", ptr, err)
		}
		defs = append(defs, ixDef{ids[i], ptr, p})
	}
	return defs, nil
}

// pushed reports whether the index on ptr has items on the server: every
// path but /_etag.
func pushed(ptr string) bool { return ptr != "/_etag" }

// appendItem appends the key of d's item in the index x, as
// internal/local's appendItemKey: d's value at the path (d.TS for /_ts),
// then its key.
func (x *ixDef) appendItem(dst []byte, d *engine.Doc) []byte {
	var tag [engine.ETagLen]byte
	dst = query.AppendKey(dst, query.RowOf(d, tag[:]).Value(x.path))
	return append(dst, d.Key()...)
}

// changes returns the items of d (stored at now) that differ from those
// of old (nil for none: a new row), by index: the numbers and the keys
// to store.
func changes(defs []ixDef, old, d *engine.Doc) (ids []int64, items [][]byte) {
	var a []byte
	for i := range defs {
		b := defs[i].appendItem(nil, d)
		if old != nil {
			a = defs[i].appendItem(a[:0], old)
			if string(a) == string(b) {
				continue
			}
		}
		ids, items = append(ids, defs[i].id), append(items, b)
	}
	return ids, items
}

// oldDoc returns the version r of the row of key as a Doc for its items:
// its body, ts and layout (its etag does not count).
func oldDoc(key []byte, r *row) *engine.Doc {
	return engine.NewDoc(key, engine.Layout{PK: uint16(r.pkEnd), IDAt: uint16(r.idAt), IDEnd: uint16(r.idEnd)}, r.body, r.ttl, r.ts, 0)
}

// itemRows gathers the items of a batch's documents for itemsManySQL.
type itemRows struct {
	keys  [][]byte
	ids   []int64
	items [][]byte
}

// add adds the changed items of d (over old, nil for none).
func (r *itemRows) add(defs []ixDef, old, d *engine.Doc) {
	ids, items := changes(defs, old, d)
	for i := range ids {
		r.keys = append(r.keys, []byte(d.Key()))
		r.ids, r.items = append(r.ids, ids[i]), append(r.items, items[i])
	}
}

// ixState is what the collection's row says of an index: its number, and
// whether it is ready (in indexes) or being built.
type ixState struct {
	id    int64
	ready bool
}

// ixRow is the part of the collection's row that CreateIndex and
// DropIndex change.
type ixRow struct {
	mode    engine.Indexing
	ttlOn   bool
	ready   []string // indexes
	paths   []string // ix_paths
	ids     []int64  // ix_ids
	next    int64    // ix_next
	changed bool
}

// find returns the state of the index on ptr, and false for none.
func (r *ixRow) find(ptr string) (ixState, bool) {
	i := slices.Index(r.paths, ptr)
	if i < 0 || i >= len(r.ids) {
		return ixState{}, false
	}
	return ixState{r.ids[i], slices.Contains(r.ready, ptr)}, true
}

// remove removes the index on ptr.
func (r *ixRow) remove(ptr string) {
	if i := slices.Index(r.paths, ptr); i >= 0 && i < len(r.ids) {
		r.paths = slices.Delete(slices.Clone(r.paths), i, i+1)
		r.ids = slices.Delete(slices.Clone(r.ids), i, i+1)
	}
	r.ready = slices.DeleteFunc(slices.Clone(r.ready), func(p string) bool { return p == ptr })
	r.changed = true
}

// ixLockSQL locks and reads the collection's row for a change of its
// indexing mode or indexes.
const ixLockSQL = `SELECT indexing, def_on, indexes, ix_paths, ix_ids, ix_next FROM {s}.ttldb_collections WHERE no = $1 FOR NO KEY UPDATE`

// ixSetSQL stores the indexing mode and the indexes.
const ixSetSQL = `UPDATE {s}.ttldb_collections SET indexing = $2, indexes = $3, ix_paths = $4, ix_ids = $5, ix_next = $6 WHERE no = $1`

// txBeginner begins a transaction: the pool, or a connection of it.
type txBeginner interface {
	BeginTx(ctx context.Context, o pgx.TxOptions) (pgx.Tx, error)
}

// changeIx changes the collection's indexing mode and indexes in one
// transaction on on, holding its row: change gets them as stored, and
// changes them (setting changed), or refuses; it may run statements of
// its own in the transaction. On the pool, a lost connection before the
// COMMIT starts it again on another (failure.go); on a connection held,
// the caller's, it does not. Its commit is synchronous whatever the
// connection's synchronous_commit (syncOn, failure.go): no pass follows it.
func (e *Engine) changeIx(ctx context.Context, on txBeginner, op string, change func(tx pgx.Tx, r *ixRow) error) error {
	if err := e.usable(ctx, op); err != nil {
		return err
	}
	if on == txBeginner(e.pool) {
		return e.retry(ctx, func() error { return e.changeIxOnce(ctx, on, op, change) })
	}
	return e.changeIxOnce(ctx, on, op, change)
}

// changeIxOnce is one attempt of changeIx.
func (e *Engine) changeIxOnce(ctx context.Context, on txBeginner, op string, change func(tx pgx.Tx, r *ixRow) error) error {
	tx, err := on.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return e.serverError(op, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, syncOnSQL); err != nil {
		return e.serverError(op, err)
	}
	var r ixRow
	var m int16
	if err := tx.QueryRow(ctx, e.sql(ixLockSQL), e.no).Scan(&m, &r.ttlOn, &r.ready, &r.paths, &r.ids, &r.next); err != nil {
		return e.serverError(op+": reading the collection's row", err)
	}
	if len(r.paths) != len(r.ids) {
		return e.corrupt("its row of ttldb_collections holds %d index numbers for %d paths", len(r.ids), len(r.paths))
	}
	r.mode = engine.Indexing(m)
	if err := change(tx, &r); err != nil {
		return err
	}
	if !r.changed {
		return nil
	}
	for _, a := range []*[]string{&r.ready, &r.paths} {
		if *a == nil {
			*a = []string{} // the columns are NOT NULL
		}
	}
	if r.ids == nil {
		r.ids = []int64{}
	}
	if _, err := tx.Exec(ctx, e.sql(ixSetSQL), e.no, int16(r.mode), r.ready, r.paths, r.ids, r.next); err != nil {
		return e.serverError(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return e.commitError(op, err, 0)
	}
	e.setIndexes(r.mode, r.ready)
	return nil
}
