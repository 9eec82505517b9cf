package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// stored is a collection's row of ttldb_collections: its identity and its
// settings, as a process reads them.
type stored struct {
	no       int64 // names the collection's tables
	settings engine.Settings
	keep     retention
	hwm      int64 // the "now" high-water mark (R4)
	rules    rules // the DefaultTTL and R7's cut-offs
	cutsOK   bool  // inherit_cuts held pairs in ascending order
	lsn      int64 // the last LSN given out (R11)
	made     bool  // this open made the collection (for its log record)
}

// retention bounds the all-versions feed (R11, R15): the records, bytes and
// seconds of age kept, 0 for no bound (Bytes is never 0 when asked: the
// API's default applies).
type retention struct{ records, bytes, age int64 }

// wanted is what an open asks of a collection: the settings to make it with,
// and, for an existing one, the settings it must have. A field whose
// flag in set is false was not given (its zero value in the options): it
// takes the stored setting.
type wanted struct {
	path string // "": open an existing collection, with its stored path
	def  engine.DefaultTTL
	mode engine.Indexing
	feed bool
	keep retention
	idx  []string
	set  struct{ def, mode, feed, idx bool }
}

// columns are the columns of ttldb_collections that a read takes, in the
// order scanRow reads them.
const columns = `no, name, pk_path, token_id, etag_base, def_on, def_n, indexing, now_hwm, feed, keep_records, keep_bytes, keep_age, indexes, own_cut, inherit_cuts, lsn`

// readCollection reads the row of the collection named name, or returns
// found false when there is none.
func readCollection(ctx context.Context, tx pgx.Tx, q, name string) (st stored, found bool, err error) {
	rows, err := tx.Query(ctx, ddl(`SELECT `+columns+` FROM {s}.ttldb_collections WHERE name = $1`, q, 0), name)
	if err != nil {
		return stored{}, false, fmt.Errorf("ttldb: reading collection %q: %w", name, err)
	}
	st, err = pgx.CollectExactlyOneRow(rows, scanRow)
	if errors.Is(err, pgx.ErrNoRows) {
		return stored{}, false, nil
	}
	if err != nil {
		return stored{}, false, fmt.Errorf("ttldb: reading collection %q: %w", name, err)
	}
	return st, true, st.check()
}

// scanRow reads a row of the columns.
func scanRow(row pgx.CollectableRow) (stored, error) {
	var st stored
	s := &st.settings
	var id, base int64
	var mode int16
	var cuts []int64
	err := row.Scan(&st.no, &s.Name, &s.PartitionKeyPath, &id, &base, &s.DefaultTTL.On, &s.DefaultTTL.Seconds,
		&mode, &st.hwm, &s.Feed, &st.keep.records, &st.keep.bytes, &st.keep.age, &s.Indexes,
		&st.rules.ownCut, &cuts, &st.lsn)
	s.ID, s.ETagBase, s.Indexing = uint64(id), uint64(base), engine.Indexing(mode)
	st.rules.def = s.DefaultTTL
	st.rules.cuts, st.cutsOK = pairs(cuts)
	return st, err
}

// check refuses a row no ttldb writes, which the table's constraints
// should have kept out: its tables' number and its settings.
func (st *stored) check() error {
	s := &st.settings
	switch {
	case st.no < 1:
		return fmt.Errorf("%w: collection %q has the number %d in ttldb_collections; ttldb gives numbers from 1", engine.ErrCorrupt, s.Name, st.no)
	case !s.DefaultTTL.Valid():
		return fmt.Errorf("%w: collection %q has the DefaultTTL on=%t, seconds=%d in ttldb_collections, which R1 does not allow", engine.ErrCorrupt, s.Name, s.DefaultTTL.On, s.DefaultTTL.Seconds)
	case !st.cutsOK:
		return fmt.Errorf("%w: collection %q has inherit_cuts in ttldb_collections that are not (up_to, ttl) pairs in ascending order", engine.ErrCorrupt, s.Name)
	case st.lsn < 0:
		return fmt.Errorf("%w: collection %q has the LSN %d in ttldb_collections; LSNs start at 1", engine.ErrCorrupt, s.Name, st.lsn)
	case s.Indexing != engine.Consistent && s.Indexing != engine.None:
		return fmt.Errorf("%w: collection %q has the indexing mode %d in ttldb_collections; there are 0 and 1", engine.ErrCorrupt, s.Name, s.Indexing)
	}
	return nil
}

// createCollection makes the collection name with the settings w asks
// for, its row and its tables, in tx, with the schema's lock held; now is
// the clock's reading (nil: the server's), which starts the high-water
// mark. Its ID and ETagBase are drawn at random, as the in-process
// engine's are.
func createCollection(ctx context.Context, tx pgx.Tx, q, name string, w *wanted, now *int64) (stored, error) {
	idx := w.idx
	if idx == nil {
		idx = []string{} // the column is NOT NULL
	}
	rows, err := tx.Query(ctx, ddl(`
		INSERT INTO {s}.ttldb_collections (name, pk_path, token_id, etag_base, def_on, def_n, indexing,
			now_hwm, feed, keep_records, keep_bytes, keep_age, indexes, ix_paths, ix_ids, ix_next)
		VALUES ($1, $2, $3, $4, $5, $6, $7, {s}.ttldb_now($8, -9223372036854775808), $9, $10, $11, $12, $13,
			$13, ARRAY (SELECT generate_series(1, cardinality($13::text[])))::bigint[], cardinality($13::text[]))
		RETURNING `+columns, q, 0),
		name, w.path, int64(rand.Uint64()), int64(rand.Uint64()), w.def.On, w.def.Seconds, int16(w.mode),
		now, w.feed, w.keep.records, w.keep.bytes, w.keep.age, idx)
	if err != nil {
		return stored{}, fmt.Errorf("ttldb: making collection %q: %w", name, err)
	}
	st, err := pgx.CollectExactlyOneRow(rows, scanRow)
	if err != nil {
		return stored{}, fmt.Errorf("ttldb: making collection %q: %w", name, err)
	}
	if _, err := tx.Exec(ctx, ddl(collectionDDL, q, st.no)); err != nil {
		return stored{}, fmt.Errorf("ttldb: making the tables of collection %q: %w", name, err)
	}
	return st, st.check()
}

// adopt checks that the stored collection st is the one w asks for: the
// same partition-key path, and each setting w gives the stored one.
// Errors: ErrInvalidOption naming both values.
func (w *wanted) adopt(st *stored) error {
	s := &st.settings
	var diff []string
	if w.path != "" && w.path != s.PartitionKeyPath { // "": the stored one
		return fmt.Errorf("%w: collection %q exists with the partition-key path %q, not %q: the path is fixed for a collection's life; open it with %q, or choose another name", engine.ErrInvalidOption, s.Name, s.PartitionKeyPath, w.path, s.PartitionKeyPath)
	}
	if w.set.def && w.def != s.DefaultTTL {
		diff = append(diff, fmt.Sprintf("DefaultTTL %s, not %s", s.DefaultTTL, w.def))
	}
	if w.set.mode && w.mode != s.Indexing {
		diff = append(diff, fmt.Sprintf("indexing mode %s, not %s", s.Indexing, w.mode))
	}
	if w.set.feed && (w.feed != s.Feed || w.keep != st.keep) {
		diff = append(diff, fmt.Sprintf("change feed %s, not %s", feedString(s.Feed, st.keep), feedString(w.feed, w.keep)))
	}
	if w.set.idx && !sameSet(w.idx, s.Indexes) {
		diff = append(diff, fmt.Sprintf("indexes %q, not %q", s.Indexes, w.idx))
	}
	if diff != nil {
		return fmt.Errorf("%w: collection %q exists with %s: every process that opens it shares its settings: open it with zero options to take them as stored", engine.ErrInvalidOption, s.Name, strings.Join(diff, ", "))
	}
	return nil
}

// feedString describes a feed's setting for a message.
func feedString(on bool, r retention) string {
	if !on {
		return "off"
	}
	return fmt.Sprintf("on (MaxRecords %d, MaxBytes %d, MaxAge %ds)", r.records, r.bytes, r.age)
}

// sameSet reports whether a and b hold the same paths, in any order.
func sameSet(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(p string) bool { return !slices.Contains(b, p) })
}
