package postgres

import (
	"bytes"
	"context"
	"slices"

	"github.com/ttldb/ttldb/engine"
)

// A snapshot reads an index's items (items.go) in its transaction, joined
// to their documents, in pages (indexRange) in the order of the btree on
// (ix, pfx), then item: each range a scan of the btree between its
// bounds, cut to 1024 bytes for pfx, and exact on item. The next page
// starts past the last item read: item >= last||0x00 (the least key
// greater than last) going up, item < last going down. A document that
// has no item (a write that met no index) is never read.

// firstPage is how many items the first page of a range reads.
const firstPage = 32

// pfxLen is how many bytes of an item the btree holds (itemsDDL).
const pfxLen = 1024

// itemPageSQL returns the read of a page of items of index $1 from $2
// (pfx from $2's first 1024 bytes, item from $3), below $5 (pfx at or
// below $4) when bounded, in the order of desc, at most $6 (or $4 when
// not bounded).
func itemPageSQL(desc, bounded bool) string {
	q := `SELECT i.item, d.key, d.pk_end, d.id_at, d.id_end, d.body, d.ts, d.ttl, d.seq, d.lsn
FROM {s}.ttldb_items_{n} i JOIN {s}.ttldb_docs_{n} d ON d.h = i.h
WHERE i.ix = $1 AND i.pfx >= $2::bytea AND i.item >= $3::bytea`
	limit := `$4`
	if bounded {
		q += ` AND i.pfx <= $4::bytea AND i.item < $5::bytea`
		limit = `$6`
	}
	if desc {
		return q + ` ORDER BY i.pfx DESC, i.item DESC LIMIT ` + limit
	}
	return q + ` ORDER BY i.pfx, i.item LIMIT ` + limit
}

var itemPages = [2][2]string{
	{itemPageSQL(false, false), itemPageSQL(false, true)},
	{itemPageSQL(true, false), itemPageSQL(true, true)},
}

// countSQL counts the items of index $1 in the ranges [$2[i], $3[i])
// (NULL: no end), at most $5 of each; $4[i] bounds pfx from above, and is
// never NULL (noEnd for no end), so that both bounds of the btree's scan
// are its index conditions, whatever the plan.
const countSQL = `SELECT coalesce(sum(c.n), 0) FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]) AS r(lo, hi, hp)
CROSS JOIN LATERAL (SELECT count(*) AS n FROM (SELECT 1 FROM {s}.ttldb_items_{n} i
	WHERE i.ix = $1 AND i.pfx >= substring(r.lo FROM 1 FOR 1024) AND i.pfx <= r.hp
		AND i.item >= r.lo AND (r.hi IS NULL OR i.item < r.hi)
	LIMIT $5) x) c`

// noEnd is above every pfx, which holds pfxLen bytes at most.
var noEnd = bytes.Repeat([]byte{0xFF}, pfxLen+1)

// pfxOf returns b's first pfxLen bytes: a bound on pfx for a bound b on
// items.
func pfxOf(b []byte) []byte { return b[:min(len(b), pfxLen)] }

// ixOf returns the number of the index on path the snapshot holds, and
// false for a path it does not hold.
func (s *snapshot) ixOf(path string) (int64, bool) {
	i := slices.Index(s.paths, path)
	if i < 0 {
		return 0, false
	}
	return s.ids[i], true
}

// Index implements [engine.Snapshot]: the items of the index on path in
// the ranges, in order (descending if desc), after the item seek (before
// it if desc) when seek is set, until fn returns false; each document as
// of the snapshot, expired or not. It reads pages of items joined to
// their documents (firstPage, then twice the last, up to pageSize), by
// the items' btree, one round trip each, and looks at ctx between two:
// O(log n) per page plus the items read.
// An index on /_etag is read as computed.go says: O(n log n).
//
// Errors: ErrInvalidOption for a path the snapshot does not hold;
// ErrClosed after Release or Close; ErrCorrupt; ctx's; the server's.
func (s *snapshot) Index(ctx context.Context, path string, ranges []engine.Range, desc bool, seek string, fn func(d *engine.Doc, item string) bool) error {
	if err := s.usable(ctx); err != nil {
		return err
	}
	ix, ok := s.ixOf(path)
	if !ok {
		return errorf(engine.ErrInvalidOption, "a read of index %s, which the snapshot does not hold", path)
	}
	if !pushed(path) {
		return s.indexComputed(ctx, path, ranges, desc, seek, fn)
	}
	for i := range ranges {
		r := ranges[i]
		if desc {
			r = ranges[len(ranges)-1-i]
		}
		lo, hi := r.From, r.To
		if lo == nil {
			lo = []byte{}
		}
		if seek != "" { // the range's part past seek, in the direction read
			if !desc && string(lo) <= seek {
				lo = append([]byte(seek), 0)
			}
			if desc && (hi == nil || seek < string(hi)) {
				hi = []byte(seek)
			}
		}
		goOn, err := s.indexRange(ctx, ix, lo, hi, desc, fn)
		if err != nil || !goOn {
			return err
		}
	}
	return nil
}

// indexRange calls fn with the items of index ix in [lo, hi) (nil hi: no
// end), in the order of desc, and returns false when fn did.
func (s *snapshot) indexRange(ctx context.Context, ix int64, lo, hi []byte, desc bool, fn func(d *engine.Doc, item string) bool) (bool, error) {
	d := 0
	if desc {
		d = 1
	}
	// The first page is small, for a caller that wants a few (TOP, a
	// cursor's page); each next one twice the last, up to pageSize.
	limit := firstPage
	for hi == nil || bytes.Compare(lo, hi) < 0 {
		var items [][]byte
		var docs []*engine.Doc
		var err error
		if hi == nil {
			items, docs, err = s.pageOf(ctx, true, s.e.sql(itemPages[d][0]), ix, pfxOf(lo), lo, limit)
		} else {
			items, docs, err = s.pageOf(ctx, true, s.e.sql(itemPages[d][1]), ix, pfxOf(lo), lo, pfxOf(hi), hi, limit)
		}
		if err != nil {
			return false, err
		}
		for i, it := range items {
			if bytes.Compare(it, lo) < 0 || hi != nil && bytes.Compare(it, hi) >= 0 || !bytes.HasSuffix(it, []byte(docs[i].Key())) {
				return false, s.e.corrupt("a read of index %d in [%q, %q) met the item %q of the key %q", ix, lo, hi, it, docs[i].Key())
			}
			if !fn(docs[i], string(it)) {
				return false, nil
			}
		}
		if len(items) < limit {
			return true, nil
		}
		limit = min(2*limit, pageSize)
		last := items[len(items)-1]
		if desc {
			hi = last
		} else {
			lo = append(last, 0)
		}
	}
	return true, nil
}

// indexComputed is Index for an index without items (computed.go).
func (s *snapshot) indexComputed(ctx context.Context, path string, ranges []engine.Range, desc bool, seek string, fn func(d *engine.Doc, item string) bool) error {
	its, err := s.computedItems(ctx, path, ranges, desc, seek)
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
// lie in the ranges, up to most, read with ctx. When the read fails (ctx
// ended, the server's error) it returns most, the answer that makes a
// planner read no further on its word; the query's next read reports the
// error. It is one statement, which reads at most most items of each
// range from the btree, without their documents.
func (s *snapshot) Count(ctx context.Context, path string, ranges []engine.Range, most int) int {
	ix, ok := s.ixOf(path)
	if !ok || s.usable(ctx) != nil || most <= 0 {
		return most
	}
	if !pushed(path) {
		its, err := s.computedItems(ctx, path, ranges, false, "")
		if err != nil {
			return most
		}
		return min(len(its), most)
	}
	los, his, hps := make([][]byte, len(ranges)), make([][]byte, len(ranges)), make([][]byte, len(ranges))
	for i, r := range ranges {
		los[i], his[i], hps[i] = r.From, r.To, noEnd
		if los[i] == nil {
			los[i] = []byte{}
		}
		if r.To != nil {
			hps[i] = pfxOf(r.To)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.usable(ctx) != nil {
		return most
	}
	var n int64
	if err := s.tx.QueryRow(ctx, s.e.sql(countSQL), ix, los, his, hps, most).Scan(&n); err != nil {
		return most
	}
	return int(min(n, int64(most)))
}
