package postgres

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// Secondary indexes (R13), first version (DESIGN.md, "Snapshot"): an
// index is a path recorded in the collection's row (indexes), and nothing
// more on the server. A snapshot reads an index by reading every document
// it holds, expired or not, computing each item's key in Go as
// internal/local does (query.AppendKey of the value at the path, then the
// document's key), keeping the items in the ranges and past the seek,
// and sorting them: correct, and O(n log n) per read for n documents,
// with the kept items in memory. Expression indexes pushed down to the
// server, where their order is exactly query.AppendKey's, are to come.

// item is an item of an index as a snapshot reads it: its key and the
// document, as of the snapshot.
type item struct {
	k string
	d *engine.Doc
}

// everything are limits under which every document is live: a read of an
// index, which gives expired documents too.
var everything = limits{own: math.MinInt64, inherit: math.MinInt64}

// items returns the items of the index on path whose keys lie in ranges
// and, when seek is set, after seek (before it, if desc), sorted.
func (s *snapshot) items(ctx context.Context, path string, ranges []engine.Range, desc bool, seek string) ([]item, error) {
	if !slices.Contains(s.paths, path) {
		return nil, errorf(engine.ErrInvalidOption, "a read of index %s, which the snapshot does not hold", path)
	}
	p, err := query.ParsePointer(path)
	if err != nil {
		return nil, errorf(engine.ErrInvalidOption, "index path %q: %v", path, err)
	}
	var its []item
	var kb []byte
	var tag [engine.ETagLen]byte
	var from []byte
	lo := []byte{}
	for {
		page, err := s.page(ctx, s.e.sql(scanSQL), everything.own, everything.inherit, lo, nil, []byte{}, from, pageSize)
		if err != nil {
			return nil, err
		}
		for _, d := range page {
			kb = query.AppendKey(kb[:0], query.RowOf(d, tag[:]).Value(p))
			kb = append(kb, d.Key()...)
			if inRanges(kb, ranges) && (seek == "" || !desc && string(kb) > seek || desc && string(kb) < seek) {
				its = append(its, item{string(kb), d})
			}
		}
		if len(page) < pageSize {
			break
		}
		from = []byte(page[len(page)-1].Key())
		lo = from[:min(len(from), 1024)]
	}
	slices.SortFunc(its, func(a, b item) int { return strings.Compare(a.k, b.k) })
	if desc {
		slices.Reverse(its)
	}
	return its, nil
}

// inRanges reports whether k lies in one of the ranges.
func inRanges(k []byte, ranges []engine.Range) bool {
	for _, r := range ranges {
		if string(k) >= string(r.From) && (r.To == nil || string(k) < string(r.To)) {
			return true
		}
	}
	return false
}

// Index implements [engine.Snapshot]: the items of the index on path in
// the ranges, in order (descending if desc), after the item seek (before
// it if desc) when seek is set, until fn returns false; each document as
// of the snapshot, expired or not. It reads every document of the
// snapshot, in pages of pageSize, and sorts the items kept: O(n log n)
// for n documents, n/pageSize round trips, the kept items in memory.
//
// Errors: ErrInvalidOption for a path the snapshot does not hold;
// ErrClosed after Release or Close; ErrCorrupt; ctx's; the server's.
func (s *snapshot) Index(ctx context.Context, path string, ranges []engine.Range, desc bool, seek string, fn func(d *engine.Doc, item string) bool) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	its, err := s.items(ctx, path, ranges, desc, seek)
	if err != nil {
		return err
	}
	for i, it := range its {
		if i%pageSize == pageSize-1 && ctx.Err() != nil {
			return engine.ContextError(ctx, "Query")
		}
		if !fn(it.d, it.k) {
			return nil
		}
	}
	return nil
}

// Count implements [engine.Snapshot]: how many items of the index on path
// lie in the ranges, up to most. Having no context, it reads with the
// context of the snapshot's last read (or of its opening); when that read
// fails it returns most, the answer that makes a planner read no further
// on its word. It costs what Index does.
func (s *snapshot) Count(path string, ranges []engine.Range, most int) int {
	if s.usable(s.ctx) != nil {
		return most
	}
	its, err := s.items(s.ctx, path, ranges, false, "")
	if err != nil {
		return most
	}
	return min(len(its), most)
}

// settingsLockSQL locks and reads the collection's row for a change of its
// indexing mode or indexes.
const settingsLockSQL = `SELECT indexing, def_on, indexes FROM {s}.ttldb_collections WHERE no = $1 FOR NO KEY UPDATE`

// settingsSetSQL stores the indexing mode and the indexes.
const settingsSetSQL = `UPDATE {s}.ttldb_collections SET indexing = $2, indexes = $3 WHERE no = $1`

// changeIndexing changes the collection's indexing mode and indexes, in
// one transaction holding its row: change gets them as stored (and
// whether a DefaultTTL is on) and changes them, or refuses.
func (e *Engine) changeIndexing(ctx context.Context, op string, change func(mode *engine.Indexing, ttlOn bool, idx *[]string) error) error {
	if err := e.usable(ctx, op); err != nil {
		return err
	}
	// A lost connection before the COMMIT: again (failure.go).
	return e.retry(ctx, func() error { return e.changeIndexingOnce(ctx, op, change) })
}

// changeIndexingOnce is one attempt of changeIndexing.
func (e *Engine) changeIndexingOnce(ctx context.Context, op string, change func(mode *engine.Indexing, ttlOn bool, idx *[]string) error) error {
	tx, err := e.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return e.serverError(op, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, syncOnSQL); err != nil { // failure.go
		return e.serverError(op, err)
	}
	var m int16
	var on bool
	var idx []string
	if err := tx.QueryRow(ctx, e.sql(settingsLockSQL), e.no).Scan(&m, &on, &idx); err != nil {
		return e.serverError(op+": reading the collection's row", err)
	}
	mode := engine.Indexing(m)
	if err := change(&mode, on, &idx); err != nil {
		return err
	}
	if idx == nil {
		idx = []string{} // the column is NOT NULL
	}
	if _, err := tx.Exec(ctx, e.sql(settingsSetSQL), e.no, int16(mode), idx); err != nil {
		return e.serverError(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return e.commitError(op, err, 0)
	}
	e.setIndexes(mode, idx)
	return nil
}

// SetIndexing implements [engine.Engine]: it changes the indexing mode
// (R8). It costs one transaction of two statements holding the
// collection's row.
//
// Errors: ErrInvalidOption for a mode that is neither Consistent nor
// None, and for None while a DefaultTTL is on or the collection has
// secondary indexes (R8); ErrClosed; ctx's; the server's.
func (e *Engine) SetIndexing(ctx context.Context, m engine.Indexing) error {
	if m != engine.Consistent && m != engine.None {
		return errorf(engine.ErrInvalidOption, "indexing mode %v: the modes are consistent and none", m)
	}
	return e.changeIndexing(ctx, "SetIndexingMode", func(mode *engine.Indexing, ttlOn bool, idx *[]string) error {
		switch {
		case m == engine.None && ttlOn:
			return errorf(engine.ErrInvalidOption, "indexing mode none with a DefaultTTL on: TTL needs indexing mode consistent; turn the DefaultTTL off first (R8)")
		case m == engine.None && len(*idx) > 0:
			return errorf(engine.ErrInvalidOption, "indexing mode none keeps no index, and the collection has the secondary indexes %q: drop them first (R8)", *idx)
		}
		*mode = m
		return nil
	})
}

// CreateIndex implements [engine.Engine]: it records the index on path in
// the collection's row, which every snapshot opened after reads (R13).
// Nothing is built: a snapshot reads an index from the documents (see
// Index). It costs one transaction of two statements holding the
// collection's row.
//
// Errors: ErrInvalidOption for a path that is not a JSON Pointer of
// member names, an index on path that exists, indexing mode none (R8);
// ErrClosed; ctx's; the server's.
func (e *Engine) CreateIndex(ctx context.Context, path string) error {
	if _, err := query.ParsePointer(path); err != nil {
		return errorf(engine.ErrInvalidOption, "index path %q: %v", path, err)
	}
	return e.changeIndexing(ctx, "CreateIndex", func(mode *engine.Indexing, _ bool, idx *[]string) error {
		switch {
		case *mode == engine.None:
			return errorf(engine.ErrInvalidOption, "index on %s: indexing mode none keeps no index (R8)", path)
		case slices.Contains(*idx, path):
			return errorf(engine.ErrInvalidOption, "an index on %s exists already", path)
		}
		*idx = append(*idx, path)
		return nil
	})
}

// DropIndex implements [engine.Engine]: it removes the index on path from
// the collection's row; snapshots already open keep reading it. It costs
// one transaction of two statements holding the collection's row.
//
// Errors: ErrNotFound when the collection has no index on path;
// ErrClosed; ctx's; the server's.
func (e *Engine) DropIndex(ctx context.Context, path string) error {
	return e.changeIndexing(ctx, "DropIndex", func(_ *engine.Indexing, _ bool, idx *[]string) error {
		i := slices.Index(*idx, path)
		if i < 0 {
			return engine.ErrNotFound
		}
		*idx = slices.Delete(*idx, i, i+1)
		return nil
	})
}

// setIndexes records in the handle's settings the indexing mode and
// indexes read from, or written to, the collection's row: a new slice, as
// Settings gives the handle's own to its callers.
func (e *Engine) setIndexes(m engine.Indexing, idx []string) {
	if s := e.settings.Load(); s == nil || s.Indexing == m && slices.Equal(s.Indexes, idx) {
		return // as held: no copy
	}
	e.updateSettings(func(s *engine.Settings) {
		if s.Indexing != m || !slices.Equal(s.Indexes, idx) {
			s.Indexing, s.Indexes = m, slices.Clip(slices.Clone(idx))
		}
	})
}

// updateSettings changes the handle's settings with change, on a copy
// swapped in atomically, again if another change came first.
func (e *Engine) updateSettings(change func(*engine.Settings)) {
	for {
		old := e.settings.Load()
		if old == nil {
			return
		}
		c := *old
		change(&c)
		if e.settings.CompareAndSwap(old, &c) {
			return
		}
	}
}
