package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// A batch (R14; DESIGN.md, "Batch") is, like a write, two transactions.
// The first locks the rows of the batch's keys that exist, in the order
// of their key hash, reads the collection's row (now, the limits) and
// takes a block of seqs; it decides every step in Go as internal/local's
// decide does, on what the steps before it left; then it writes the feed
// records in step order and each key's last version, and commits: readers
// see all of it or none, and every statement of it has one now, so one
// _ts. The second is one pass (sequence.go), which numbers its records
// with consecutive LSNs: the seqs of a block are the batch's alone (the
// sequence steps by seqBlock), and one pass sees all of a commit's.
//
// Deadlocks: a batch holds several row locks, and waits for others. It
// takes the locks of existing rows in one order, by key hash, as the pass
// does (passSQL), before it waits for anything else; it inserts its new
// rows in that order too; a single write holds one row and waits for
// nothing more; and the batch runs its pass after its commit, holding no
// row. So no two of them wait for each other in a cycle.

// seqBlock is how many seqs each nextval of a collection's sequence
// reserves (its INCREMENT BY, schema.go): a batch takes one nextval and
// numbers its records with the block's seqs, so that no other write's
// record comes between two of its own.
const seqBlock = 256

// MaxBatchSteps is the most steps a batch may hold: two records per step
// at most (a write's, and the delete of the expired document it writes
// over) must fit in one block of seqs. The API's bound (100) is below it.
const MaxBatchSteps = seqBlock / 2

// lockManySQL locks and reads the rows of the keys $2, whose hashes are
// $1, in the order of their hashes.
const lockManySQL = `SELECT d.key, d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl, d.seq, d.lsn
FROM {s}.ttldb_docs_{n} d WHERE d.h = ANY($1::bytea[]) AND d.key = ANY($2::bytea[]) ORDER BY d.h FOR UPDATE`

// blockSQL takes a block of seqBlock seqs, from the one it returns.
const blockSQL = `SELECT nextval('{s}.ttldb_seq_{n}')`

// feedManySQL inserts the batch's feed records, one per element.
const feedManySQL = `INSERT INTO {s}.ttldb_feed_{n} (seq, op, key, pk_end, id_at, id_end, body, ts, ttl, expired, at, prev)
SELECT * FROM unnest($1::bigint[], $2::smallint[], $3::bytea[], $4::integer[], $5::integer[], $6::integer[], $7::text[], $8::bigint[], $9::integer[], $10::boolean[], $11::bigint[], $12::bigint[])`

// deleteManySQL deletes the rows of the keys $2 (hashes $1), which the
// transaction has locked.
const deleteManySQL = `DELETE FROM {s}.ttldb_docs_{n} WHERE h = ANY($1::bytea[]) AND key = ANY($2::bytea[])`

// updateManySQL stores the last versions of keys whose rows the
// transaction has locked.
const updateManySQL = `UPDATE {s}.ttldb_docs_{n} d SET pk_end = u.pk_end, id_at = u.id_at, id_end = u.id_end,
	body = u.body, ts = u.ts, ttl = u.ttl, seq = u.seq, lsn = NULL
FROM unnest($1::bytea[], $2::integer[], $3::integer[], $4::integer[], $5::text[], $6::bigint[], $7::integer[], $8::bigint[])
	AS u(key, pk_end, id_at, id_end, body, ts, ttl, seq)
WHERE d.h = sha256(u.key) AND d.key = u.key`

// insertManySQL stores the last versions of keys that had no row, in the
// order given (of their hashes); a key whose row another write made
// meanwhile is left out, which the batch sees in the count.
const insertManySQL = `INSERT INTO {s}.ttldb_docs_{n} (key, pk_end, id_at, id_end, body, ts, ttl, seq)
SELECT * FROM unnest($1::bytea[], $2::integer[], $3::integer[], $4::integer[], $5::text[], $6::bigint[], $7::integer[], $8::bigint[])
ON CONFLICT DO NOTHING`

// Batch implements [engine.Engine]: the steps applied in order as one
// write (R14), as internal/local's Batch decides them, all or none, at
// one now (_ts), each seeing what the steps before it did; readers see
// all of it or none. It returns a Doc per step: the one stored, stamped
// with now and its etag (ETagBase + its LSN; the batch's records have
// consecutive LSNs), the one a Read found, nil for a Delete. A Create or
// Upsert over an expired document first records its delete, flagged
// expired (R11). A batch of Reads alone, or refused, changes nothing and
// takes no LSN. A Modify's Change may be called more than once, when the
// batch must start again. Once the first transaction has committed, the
// batch finishes its pass whatever ctx says, for at most passGrace after
// ctx ends; lost connections are met as a Write meets them (failure.go).
//
// It costs two transactions: the first of three round trips, which holds
// the rows of the batch's keys from its first; the pass, one round trip,
// shared with the writes that committed meanwhile.
//
// Errors: a *engine.StepError naming the first step refused: its Fault,
// ErrConflict, ErrNotFound, *engine.ETagMismatch (with Current empty for
// a document the batch wrote), what its Change returned, or
// ErrInvalidOption for a step of Op Touch, without its Doc or Change, or
// with a Doc (or a Change's) of another key; ErrInvalidBatch for more
// than MaxBatchSteps steps; ErrClosed; ErrCorrupt; ctx's; the server's,
// as a Write's.
func (e *Engine) Batch(ctx context.Context, steps []engine.Step) ([]*engine.Doc, error) {
	if err := e.usable(ctx, "ExecuteBatch"); err != nil {
		return nil, err
	}
	if len(steps) > MaxBatchSteps {
		return nil, errorf(engine.ErrInvalidBatch, "a batch of %d steps: this engine takes %d at most", len(steps), MaxBatchSteps)
	}
	switch {
	case len(steps) == 0:
		return []*engine.Doc{}, nil
	case steps[0].Fault != nil: // refused before any round trip
		return nil, &engine.StepError{Index: 0, Err: steps[0].Fault}
	}
	var b *batched
	_, err := e.commitFirst(ctx, "ExecuteBatch", "the documents changed", func() (int64, error) {
		var err error
		b, err = e.batchTx(ctx, steps)
		if err != nil {
			return 0, err
		}
		return b.last, nil
	})
	switch {
	case err != nil:
		return nil, err
	case b.last == 0: // nothing written
		return b.docs, nil
	case e.skipPass.Load():
		return nil, errSkipped
	}
	lsn, err := e.passAfterCommit(ctx, "ExecuteBatch", b.last)
	if err != nil {
		return nil, err
	}
	base := e.Settings().ETagBase
	for i, seq := range b.seqs {
		if seq != 0 && b.docs[i] != nil {
			b.docs[i].Tag = base + uint64(lsn-(b.last-seq))
		}
	}
	return b.docs, nil
}

// batched is what a batch's first transaction did: a Doc per step, the
// seq of each write step's record (0 for a Read), and the last seq of
// its records (0 for none).
type batched struct {
	docs []*engine.Doc
	seqs []int64
	last int64
}

// batchTx is a batch's first transaction.
func (e *Engine) batchTx(ctx context.Context, steps []engine.Step) (*batched, error) {
	hashes, keys, writes := batchKeys(steps)
	// One round trip: BEGIN, the rows' locks, then the collection's row,
	// then (for a batch that may write) a block of seqs, taken once the
	// locks are held, so that a key's later versions have larger seqs.
	var q pgx.Batch
	q.BeginTx(pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if writes {
		q.Queue(maintainLockSQL, e.schema, e.no) // before any row's lock (items.go)
	}
	q.Queue(e.sql(lockManySQL), hashes, keys)
	q.Queue(e.sql(limitsSQL), e.no, e.clockParam())
	if writes {
		q.Queue(e.sql(blockSQL))
		q.Queue(`SELECT txid_current()`) // the transaction's, for resolve (failure.go)
	}
	br := e.pool.SendBatch(ctx, &q)
	tx := br.Tx()
	defer func() { _ = tx.Rollback(ctx) }()
	_, err0 := br.Exec()
	if err0 != nil {
		err0 = e.serverError("ExecuteBatch", err0)
	} else if writes {
		if _, err0 = br.Exec(); err0 != nil {
			err0 = e.serverError("locking the batch's documents", err0)
		}
	}
	var rows map[string]*row
	err := err0
	if err == nil {
		rows, err = e.readRows(br)
	}
	var now int64
	var l limits
	var defs []ixDef
	if err == nil {
		now, l, defs, err = e.readLimits(br.QueryRow())
	}
	var block, xid int64
	if err == nil && writes {
		if err = br.QueryRow().Scan(&block); err != nil {
			err = e.serverError("taking the batch's seqs", err)
		} else if err = br.QueryRow().Scan(&xid); err != nil {
			err = e.serverError("ExecuteBatch", err)
		}
	}
	if cerr := br.Close(); err == nil && cerr != nil {
		err = e.serverError("locking the batch's documents", cerr)
	}
	if err != nil {
		return nil, err
	}
	p, err := e.decide(steps, rows, keys, l, now)
	if err != nil {
		return nil, err
	}
	b := &batched{docs: p.docs, seqs: make([]int64, len(steps))}
	if len(p.recs) == 0 {
		return b, nil // it changed nothing: rolled back
	}
	if err := e.apply(ctx, tx, p, block, now, b, defs); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return b, e.commitError("a batch", err, xid)
	}
	return b, nil
}

// batchKeys returns the distinct keys of the steps that have no Fault,
// in the order of their hashes, with the hashes, and whether a step
// writes.
func batchKeys(steps []engine.Step) (hashes, keys [][]byte, writes bool) {
	type hk struct{ h, k []byte }
	seen := make(map[string]bool, len(steps))
	var all []hk
	for i := range steps {
		s := &steps[i]
		writes = writes || s.Op != engine.Read
		if s.Fault != nil || seen[s.Key] {
			continue
		}
		seen[s.Key] = true
		all = append(all, hk{hashOf([]byte(s.Key)), []byte(s.Key)})
	}
	slices.SortFunc(all, func(a, b hk) int { return bytes.Compare(a.h, b.h) })
	for _, x := range all {
		hashes, keys = append(hashes, x.h), append(keys, x.k)
	}
	return hashes, keys, writes
}

// hashOf returns the hash of key, as the column h of a document's row.
func hashOf(key []byte) []byte {
	h := sha256.Sum256(key)
	return h[:]
}

// readRows reads the answer of lockManySQL: the rows found, by key.
func (e *Engine) readRows(br pgx.BatchResults) (map[string]*row, error) {
	rs, err := br.Query()
	if err != nil {
		return nil, e.serverError("locking the batch's documents", err)
	}
	defer rs.Close()
	found := make(map[string]*row)
	for rs.Next() {
		var key []byte
		r := new(row)
		if err := rs.Scan(&key, &r.pkEnd, &r.idAt, &r.idEnd, &r.body, &r.ts, &r.ttl, &r.seq, &r.lsn); err != nil {
			return nil, e.serverError("reading the batch's documents", err)
		}
		found[string(key)] = r
	}
	if err := rs.Err(); err != nil {
		return nil, e.serverError("locking the batch's documents", err)
	}
	return found, nil
}
