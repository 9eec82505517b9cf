package ttldb

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// stopped returns the error of a read that could not go on, err, named by
// the query's call: its context's, or ErrClosed.
func (r *queryRun) stopped(err error) error { return r.c.stopped(r.ctx.Context, err, r.op) }

// aggregate gives fn the one result of an aggregate, unless OFFSET skips
// it or it is undefined.
func (r *queryRun) aggregate(offset int, fn func(res []byte) bool) error {
	var a query.Aggregation
	if err := r.rows(func(d *engine.Doc, _ []byte) bool {
		return r.each(d, func(x query.Row) { r.b.Accumulate(&a, x) })
	}); err != nil || r.err != nil {
		return r.stopped(cmp.Or(err, r.err))
	}
	if offset == 0 && !r.resume {
		if res, ok := r.b.AppendAggregate(r.out[:0], &a); ok {
			fn(res)
		}
	}
	return nil
}

// grouped gives fn the results of a GROUP BY query, one a group, in the
// order of the groups' keys, after the group the query resumes after,
// within OFFSET and remaining (-1: no bound); the token resumes after the
// last group fn took. With SELECT DISTINCT, a group whose result equals an
// earlier group's (on this page or an earlier one) gives none.
func (r *queryRun) grouped(offset, remaining int, fn func(res []byte) bool) (string, error) {
	var g query.Groups
	resume := r.resume
	r.resume = false // every row, for whole groups: the token resumes by the group's key, which is no row's sort key
	err := r.rows(func(d *engine.Doc, _ []byte) bool {
		return r.each(d, func(x query.Row) { r.b.AddToGroup(&g, x) })
	})
	if r.resume = resume; err != nil || r.err != nil {
		return "", r.stopped(cmp.Or(err, r.err))
	}
	accepted := 0
	last := ""
	var seen map[string]bool // SELECT DISTINCT: the results of the groups so far, earlier pages' included
	if r.b.Distinct() {
		seen = map[string]bool{}
	}
	var dk []byte
	for _, key := range g.Keys() {
		if r.resume && key <= string(r.afterSort) && seen == nil {
			continue
		}
		res, ok := r.b.AppendGroup(r.out[:0], &g, key)
		if ok && seen != nil {
			if dk = query.AppendDistinctKey(dk[:0], res); seen[string(dk)] {
				continue
			}
			seen[string(dk)] = true
		}
		switch {
		case !ok:
			continue
		case r.resume && key <= string(r.afterSort):
			continue
		case offset > 0:
			offset--
			continue
		case !fn(res):
			return r.token(r.emitted+accepted, []byte(last), r.prefix, 0), nil
		}
		accepted++
		last = key
		if remaining > 0 {
			remaining--
		}
		if remaining == 0 {
			break
		}
	}
	return "", nil
}

// single gives fn the one result of a query without FROM, computed from
// no document, unless its WHERE clause is not true (an aggregate then
// aggregates no row), OFFSET skips it, or an earlier page gave it.
func (r *queryRun) single(offset int, fn func(res []byte) bool) {
	var row query.Row
	switch {
	case offset > 0 || r.resume:
	case r.b.Aggregate():
		var a query.Aggregation
		if r.b.Match(row) {
			r.b.Accumulate(&a, row)
		}
		if res, ok := r.b.AppendAggregate(r.out[:0], &a); ok {
			fn(res)
		}
	case !r.b.Match(row):
	default:
		if res, ok := r.b.AppendResult(r.out[:0], row); ok {
			fn(res)
		}
	}
}

// keep reports whether d, read as of the snapshot, is a row of the query:
// live (R4), in the partition, and kept by the WHERE clause (which an
// exact plan's index has checked already: r.exact).
func (r *queryRun) keep(d *engine.Doc) bool {
	r.plan.Examined++
	if r.s.Expired(d) || !strings.HasPrefix(d.Key(), r.prefix) {
		return false
	}
	if r.exact {
		r.plan.Matched++
		return true
	}
	if row := r.row(d); !r.b.Match(row) {
		r.fail(d, row.Err())
		return false
	}
	r.plan.Matched++
	return true
}

// rows calls fn for each row of the query after the position it resumes
// from, in the query's order, with its sort key, until fn returns false.
// It returns the error of a read of the snapshot that could not go on.
func (r *queryRun) rows(fn func(d *engine.Doc, sk []byte) bool) error {
	if r.b.Whole() {
		return r.wholeRows(fn)
	}
	sorted := len(r.b.OrderBy()) > 0 && !r.b.Aggregate()
	switch {
	case r.ordered:
		return r.orderedRows(fn)
	case r.index == "" && !sorted:
		after := r.afterKey
		if r.resume && r.b.Joined() { // the document it resumes in, again
			after = justBefore(after)
		}
		r.onRow = fn
		return r.s.Scan(&r.ctx, r.prefix, after, r.resume, r.room.keptDoc)
	case r.b.Aggregate() || !sorted && r.point:
		// A count needs no order; one value's items are in key order.
		r.onRow = fn
		return r.indexRows(r.room.keptDoc)
	}
	type found struct {
		d  *engine.Doc
		sk []byte
	}
	var rows []found
	add := func(d *engine.Doc) bool {
		if r.keep(d) {
			var sk []byte
			if sorted {
				sk = r.b.AppendSortKey(nil, r.row(d))
			}
			rows = append(rows, found{d, sk})
		}
		return r.err == nil
	}
	var err error
	if r.index == "" {
		err = r.s.Scan(&r.ctx, r.prefix, "", false, add)
	} else {
		err = r.indexRows(add)
	}
	if err != nil || r.err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b found) int { return r.compare(a.sk, a.d.Key(), b.sk, b.d.Key()) })
	for _, row := range rows {
		if c := r.compare(row.sk, row.d.Key(), r.afterSort, r.afterKey); r.resume && (c < 0 || c == 0 && !r.b.Joined()) {
			continue
		}
		if !fn(row.d, row.sk) {
			break
		}
	}
	return nil
}

// compare orders two rows by their sort keys, then by their document keys,
// in the direction of the first ORDER BY item.
func (r *queryRun) compare(ska []byte, keya string, skb []byte, keyb string) int {
	if c := bytes.Compare(ska, skb); c != 0 {
		return c
	}
	c := strings.Compare(keya, keyb)
	if r.desc {
		c = -c
	}
	return c
}

// indexRows calls fn with the documents of the index's ranges, as of the
// snapshot, until fn returns false.
func (r *queryRun) indexRows(fn func(d *engine.Doc) bool) error {
	r.onDoc = fn
	return r.s.Index(&r.ctx, r.index, r.ranges, false, "", r.room.indexItem)
}

// indexItem is indexRows' callback for the snapshot's Index: it gives d to
// indexRows' callback, onDoc.
func (r *queryRun) indexItem(d *engine.Doc, _ string) bool { return r.onDoc(d) }

// keptDoc is rows' callback for the documents in key order: it gives
// rows' callback, onRow, d if it is a row after the position the query
// resumes from.
func (r *queryRun) keptDoc(d *engine.Doc) bool {
	return (r.before(d.Key()) || !r.keep(d) || r.onRow(d, nil)) && r.err == nil
}

// orderedRows calls fn for the rows in the order of the index on the ORDER
// BY path, descending for DESC, from the position it resumes at.
func (r *queryRun) orderedRows(fn func(d *engine.Doc, sk []byte) bool) error {
	var seek string // the item the query resumes after
	if r.resume {
		vk := r.afterSort
		if r.desc {
			vk = complement(vk)
		}
		seek = string(vk) + r.afterKey
	}
	from := seek // with joins, the item it resumes in, again
	if r.resume && r.b.Joined() {
		if r.desc {
			seek += "\x00"
		} else {
			seek = justBefore(seek)
		}
	}
	var sk []byte
	return r.s.Index(&r.ctx, r.index, r.ranges, r.desc, seek, func(d *engine.Doc, it string) bool {
		if from != seek && !r.desc && it < from || !r.keep(d) {
			return r.err == nil
		}
		// The item's key is the value's key, then d's: the sort key of the
		// one ORDER BY item, complemented for DESC.
		sk = append(sk[:0], it[:len(it)-len(d.Key())]...)
		if r.desc {
			for i := range sk {
				sk[i] = ^sk[i]
			}
		}
		return fn(d, sk)
	})
}

func complement(b []byte) []byte {
	c := make([]byte, len(b))
	for i, x := range b {
		c[i] = ^x
	}
	return c
}

// before reports whether the document of key comes before the position
// the query resumes from: at or before it, or with joins (which resume
// inside the document) before it.
func (r *queryRun) before(key string) bool {
	if !r.resume {
		return false
	}
	if r.b.Joined() {
		return key < r.afterKey
	}
	return key <= r.afterKey
}

// justBefore returns a string before s that no key between it and s
// follows but those that start with it: s less its last byte, less one.
func justBefore(s string) string {
	if s == "" {
		return ""
	}
	if last := s[len(s)-1]; last > 0 {
		return s[:len(s)-1] + string([]byte{last - 1})
	}
	return s[:len(s)-1]
}
