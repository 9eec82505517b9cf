package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// Building an index (DESIGN.md, "Indexes on the server"):
//
//  1. CreateIndex records the index, with a new number, in ix_paths and
//     ix_ids (not yet in indexes: snapshots do not read it) and commits;
//     from then, every writer that reads the collection's row keeps its
//     items. It holds, on a connection of its own, a session-level
//     advisory lock named by the index's number for the whole build: the
//     mark of a build in progress.
//  2. It takes alone the lock every writer holds shared from its first
//     statement (maintainLockSQL), for an instant: so it waits for every
//     writer that may have read the collection's row before step 1, and
//     so kept no item (a new document's, which no lock of a row shows).
//  3. It backfills: batches of buildBatch documents in the order of their
//     key hash, each in a transaction that locks them FOR SHARE (a writer
//     of one waits; a version it reads is the latest committed) and
//     inserts their items, leaving those a writer already stored (ON
//     CONFLICT DO NOTHING: a writer's item is of the latest version).
//  4. It adds the path to indexes, the ready ones, unless the index was
//     dropped meanwhile (its number gone).
//
// A CreateIndex of a path being built whose lock another session holds is
// refused, as internal/local refuses one of a path it is building; one
// whose lock no session holds (its builder died, or its connection did)
// takes the build over from step 2. A DropIndex during a build removes
// the index and its items; the builder finds it gone at its next batch,
// deletes the items it inserted meanwhile, and returns an error. A build
// stopped by its context removes its index, as internal/local's does.

// buildBatch is how many documents a batch of a backfill reads and locks.
const buildBatch = 500

// buildLockSQL takes the lock that marks the build of index $3 in
// progress, and says whether it got it (another session holds it).
const buildLockSQL = `SELECT pg_try_advisory_lock(hashtextextended('ttldb build ' || $1 || ' ' || $2::bigint::text || ' ' || $3::bigint::text, 0))`

// buildUnlockSQL lets go of it.
const buildUnlockSQL = `SELECT pg_advisory_unlock(hashtextextended('ttldb build ' || $1 || ' ' || $2::bigint::text || ' ' || $3::bigint::text, 0))`

// buildListedSQL says whether index $2 is still kept.
const buildListedSQL = `SELECT $2::bigint = ANY (ix_ids) FROM {s}.ttldb_collections WHERE no = $1`

// buildReadSQL locks and reads the documents after the hash $1, at most
// $2, in the order of their hashes.
const buildReadSQL = `SELECT h, key, pk_end, id_at, id_end, body, ts, ttl FROM {s}.ttldb_docs_{n}
WHERE h > $1::bytea ORDER BY h LIMIT $2 FOR SHARE`

// buildItemsSQL inserts the items $3 of index $1 of the documents of the
// keys $2 that have none.
const buildItemsSQL = `INSERT INTO {s}.ttldb_items_{n} (h, ix, item)
SELECT sha256(u.key), $1, u.item FROM unnest($2::bytea[], $3::bytea[]) AS u(key, item)
ON CONFLICT DO NOTHING`

// dropItemsSQL deletes the items of index $1.
const dropItemsSQL = `DELETE FROM {s}.ttldb_items_{n} WHERE ix = $1`

// errDropped is what a build returns when its index was dropped.
var errDropped = errors.New("dropped")

// CreateIndex implements [engine.Engine]: it records the index on path
// and builds its items (R13) while writers go on, then makes it one that
// snapshots read. It holds a connection of the pool for the build. It
// costs a transaction holding the collection's row, a wait for the
// writers in progress, a transaction per buildBatch documents, each
// locking them FOR SHARE (a writer of one waits for that batch), and a
// last transaction holding the collection's row: O(n) for n documents.
//
// Errors: ErrInvalidOption for a path that is not a JSON Pointer of
// member names (or holds a 0x00 byte), an index on path that exists or is
// being built by another process, indexing mode none (R8), and an index
// dropped while it was built; ErrClosed; ctx's (the build is then
// removed); the server's.
func (e *Engine) CreateIndex(ctx context.Context, path string) error {
	p, err := query.ParsePointer(path)
	if err != nil {
		return errorf(engine.ErrInvalidOption, "index path %q: %v", path, err)
	}
	if strings.IndexByte(path, 0) >= 0 {
		return errorf(engine.ErrInvalidOption, "index path %q holds a 0x00 byte, which PostgreSQL's text cannot hold", path)
	}
	if err := e.usable(ctx, "CreateIndex"); err != nil {
		return err
	}
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return e.readError(ctx, "CreateIndex", err)
	}
	defer conn.Release()
	x := ixDef{ptr: path, path: p}
	held := false
	err = e.changeIx(ctx, conn, "CreateIndex", func(tx pgx.Tx, r *ixRow) error {
		st, ok := r.find(path)
		switch {
		case r.mode == engine.None:
			return errorf(engine.ErrInvalidOption, "index on %s: indexing mode none keeps no index (R8)", path)
		case ok && st.ready:
			return errorf(engine.ErrInvalidOption, "an index on %s exists already", path)
		case !ok:
			r.next++
			st.id = r.next
			r.paths, r.ids, r.changed = append(slices.Clone(r.paths), path), append(slices.Clone(r.ids), st.id), true
		}
		x.id = st.id
		if err := tx.QueryRow(ctx, buildLockSQL, e.schema, e.no, x.id).Scan(&held); err != nil {
			return e.serverError("CreateIndex: taking the build's lock", err)
		}
		if !held {
			return errorf(engine.ErrInvalidOption, "an index on %s exists already: another process is building it", path)
		}
		return nil
	})
	if held { // a connection that cannot let go of it is closed, not given back holding it
		defer func() {
			c, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
			defer cancel()
			var ok bool
			if err := conn.QueryRow(c, buildUnlockSQL, e.schema, e.no, x.id).Scan(&ok); err != nil || !ok {
				_ = conn.Conn().Close(c)
			}
		}()
	}
	if err != nil {
		return err
	}
	err = e.build(ctx, conn, &x)
	switch {
	case errors.Is(err, errDropped): // the items a batch stored after the drop's delete go too
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
		_, _ = e.pool.Exec(c, e.sql(dropItemsSQL), x.id)
		cancel()
		return errorf(engine.ErrInvalidOption, "the index on %s was dropped while it was built", path)
	case err != nil:
		e.abandon(ctx, &x)
		return err
	}
	return nil
}

// build runs steps 2 to 4 of the build of index x on conn.
func (e *Engine) build(ctx context.Context, conn *pgxpool.Conn, x *ixDef) error {
	if _, err := conn.Exec(ctx, maintainWaitSQL, e.schema, e.no); err != nil {
		return e.readError(ctx, "CreateIndex: waiting for the writers", err)
	}
	if pushed(x.ptr) {
		after, done := []byte{}, 0
		for {
			n, last, err := e.backfill(ctx, conn, x, after)
			if err != nil {
				return err
			}
			done += n
			if h := e.buildHook.Load(); h != nil {
				(*h)(done)
			}
			if n < buildBatch {
				break
			}
			after = last
		}
	}
	return e.changeIx(ctx, conn, "CreateIndex", func(_ pgx.Tx, r *ixRow) error {
		if st, ok := r.find(x.ptr); !ok || st.id != x.id {
			return errDropped
		}
		r.ready, r.changed = append(slices.Clone(r.ready), x.ptr), true
		return nil
	})
}

// backfill stores the items of index x of the documents after the hash
// after, at most buildBatch, in one transaction that locks them; it
// returns how many it read and the last one's hash. errDropped when x is
// no longer kept.
func (e *Engine) backfill(ctx context.Context, conn *pgxpool.Conn, x *ixDef, after []byte) (n int, last []byte, err error) {
	if err := e.usable(ctx, "CreateIndex"); err != nil {
		return 0, nil, err
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return 0, nil, e.readError(ctx, "CreateIndex", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var listed bool
	if err := tx.QueryRow(ctx, e.sql(buildListedSQL), e.no, x.id).Scan(&listed); err != nil {
		return 0, nil, e.readError(ctx, "CreateIndex: reading the collection's row", err)
	}
	if !listed {
		return 0, nil, errDropped
	}
	n, last, err = fillBatch(ctx, tx, e.schema, e.no, x, after)
	if err != nil {
		return 0, nil, e.readError(ctx, "CreateIndex", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, nil, e.readError(ctx, "CreateIndex: committing a batch", err)
	}
	return n, last, nil
}

// fillBatch stores, in tx, the items of index x of the documents of
// collection no (in the schema q) after the hash after, at most
// buildBatch, which it locks FOR SHARE; it returns how many it read and
// the last one's hash.
func fillBatch(ctx context.Context, tx pgx.Tx, q string, no int64, x *ixDef, after []byte) (n int, last []byte, err error) {
	rows, err := tx.Query(ctx, ddl(buildReadSQL, q, no), after, buildBatch)
	if err != nil {
		return 0, nil, fmt.Errorf("reading documents: %w", err)
	}
	var keys, items [][]byte
	for rows.Next() {
		var k []byte
		var r row
		if err := rows.Scan(&last, &k, &r.pkEnd, &r.idAt, &r.idEnd, &r.body, &r.ts, &r.ttl); err != nil {
			rows.Close()
			return 0, nil, fmt.Errorf("reading documents: %w", err)
		}
		keys, items = append(keys, k), append(items, x.appendItem(nil, oldDoc(k, &r)))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("reading documents: %w", err)
	}
	if len(keys) > 0 {
		if _, err := tx.Exec(ctx, ddl(buildItemsSQL, q, no), x.id, keys, items); err != nil {
			return 0, nil, fmt.Errorf("storing items: %w", err)
		}
	}
	return len(keys), last, nil
}

// abandon removes the index x that a build stopped by an error leaves,
// unless it was made ready or dropped, and its items: as internal/local
// does for a build stopped by its context. It runs on another connection
// of the pool (a context that ended during a statement closed the
// build's), and waits releaseTimeout at most, whatever ctx says; it may
// fail (the server is gone, the handle closed), leaving an index that a
// later CreateIndex takes over, or DropIndex removes.
func (e *Engine) abandon(ctx context.Context, x *ixDef) {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	_ = e.changeIx(c, e.pool, "CreateIndex", func(tx pgx.Tx, r *ixRow) error {
		if st, ok := r.find(x.ptr); !ok || st.id != x.id || st.ready {
			return nil
		}
		r.remove(x.ptr)
		_, err := tx.Exec(c, e.sql(dropItemsSQL), x.id)
		return err
	})
}

// DropIndex implements [engine.Engine]: it removes the index on path,
// ready or being built, and deletes its items; snapshots already open
// keep reading it. It costs one transaction holding the collection's row,
// whose delete of the items is O(n) for n documents.
//
// Errors: ErrNotFound when the collection has no index on path;
// ErrClosed; ctx's; the server's.
func (e *Engine) DropIndex(ctx context.Context, path string) error {
	return e.changeIx(ctx, e.pool, "DropIndex", func(tx pgx.Tx, r *ixRow) error {
		st, ok := r.find(path)
		if !ok {
			return engine.ErrNotFound
		}
		r.remove(path)
		if _, err := tx.Exec(ctx, e.sql(dropItemsSQL), st.id); err != nil {
			return e.serverError("DropIndex: deleting its items", err)
		}
		return nil
	})
}

// SetIndexing implements [engine.Engine]: it changes the indexing mode
// (R8). It costs one transaction of two statements holding the
// collection's row.
//
// Errors: ErrInvalidOption for a mode that is neither Consistent nor
// None, and for None while a DefaultTTL is on or the collection has
// secondary indexes, ready or being built (R8); ErrClosed; ctx's; the
// server's.
func (e *Engine) SetIndexing(ctx context.Context, m engine.Indexing) error {
	if m != engine.Consistent && m != engine.None {
		return errorf(engine.ErrInvalidOption, "indexing mode %v: the modes are consistent and none", m)
	}
	return e.changeIx(ctx, e.pool, "SetIndexingMode", func(_ pgx.Tx, r *ixRow) error {
		switch {
		case m == engine.None && r.ttlOn:
			return errorf(engine.ErrInvalidOption, "indexing mode none with a DefaultTTL on: TTL needs indexing mode consistent; turn the DefaultTTL off first (R8)")
		case m == engine.None && len(r.paths) > 0:
			return errorf(engine.ErrInvalidOption, "indexing mode none keeps no index, and the collection has the secondary indexes %q: drop them first (R8)", r.paths)
		}
		r.mode, r.changed = m, true
		return nil
	})
}
