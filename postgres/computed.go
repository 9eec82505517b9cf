package postgres

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// A snapshot reads an index from its items on the server (items.go,
// index.go), but for an index on /_etag, whose items cannot be computed
// when a document is written (its etag comes from the pass after): that
// one it reads as the first version did, from every document it holds,
// expired or not, computing each item's key in Go as internal/local does,
// keeping the items in the ranges and past the seek, and sorting them:
// O(n log n) per read for n documents, the kept items in memory.

// item is an item of an index as a snapshot reads it: its key and the
// document, as of the snapshot.
type item struct {
	k string
	d *engine.Doc
}

// everything are limits under which every document is live: a read of an
// index, which gives expired documents too.
var everything = limits{own: math.MinInt64, inherit: math.MinInt64}

// computedItems returns the items of the index on path whose keys lie in
// ranges and, when seek is set, after seek (before it, if desc), sorted,
// computed from every document of the snapshot.
func (s *snapshot) computedItems(ctx context.Context, path string, ranges []engine.Range, desc bool, seek string) ([]item, error) {
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
