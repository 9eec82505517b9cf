package ttldb

import (
	"strings"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// MIN and MAX of an indexed path (R13): SELECT VALUE MIN(c.total) FROM c
// reads the index on /total from its low end and stops at the first row
// the query keeps whose value there is defined, rather than reading every
// document; MAX reads from the high end. The result is the aggregate's
// over all the rows, as the index orders values as MIN and MAX compare
// them (null < false < true < numbers < strings, strings by their bytes,
// -0 and 0 one number, equal values in key order as a scan meets them),
// with undefined first and arrays and objects last, which make MIN and
// MAX undefined: MAX meets one first; MIN reads the high end too, until
// the first kept row that holds no array or object. Of equal numbers or
// strings written otherwise (-0 and 0, "<" and "\u003c"), the least text,
// as from any order of the rows: the read goes on over the rows of the
// value found.

// minMaxAggregate gives fn the one result of the query's MIN or MAX, read
// from the ends of the index r.index, unless OFFSET skips it, an earlier
// page gave it, or it is undefined.
func (r *queryRun) minMaxAggregate(offset int, fn func(res []byte) bool) error {
	if offset > 0 || r.resume {
		return nil
	}
	p, isMax, _ := r.b.MinMax()
	var a query.Aggregation
	// first reads from one end until a kept row whose value at p is not
	// skipped, and aggregates it unless it is undefined or only ends the
	// read; with ties, the kept rows of an equal value after it too
	// (Accumulate keeps the least text of equal numbers, as from a scan).
	first := func(desc, ties bool, take func(query.Kind) bool) error {
		var vk string // the value's key of the rows taken; "": none yet
		return r.s.Index(&r.ctx, r.index, r.ranges, desc, "", func(d *engine.Doc, it string) bool {
			if vk != "" && it[:len(it)-len(d.Key())] != vk {
				return false
			}
			if !r.keep(d) {
				return r.err == nil
			}
			switch k := r.row(d).Value(p).Kind; {
			case vk != "":
				r.each(d, func(x query.Row) { r.b.Accumulate(&a, x) })
				return true
			case k == query.Undefined && !desc:
				return true // undefined sorts first: the defined values are further on
			case k != query.Undefined && take(k):
				r.each(d, func(x query.Row) { r.b.Accumulate(&a, x) })
				if ties && (k == query.Number || k == query.String) { // equal values may be written otherwise
					vk = strings.Clone(it[:len(it)-len(d.Key())])
					return true
				}
			}
			return false
		})
	}
	any := func(query.Kind) bool { return true }
	var err error
	if isMax {
		err = first(true, true, any)
	} else if err = first(false, true, any); err == nil {
		err = first(true, false, func(k query.Kind) bool { return k == query.Array || k == query.Object })
	}
	if err != nil || r.err != nil {
		if err == nil {
			err = r.err
		}
		return r.stopped(err)
	}
	if res, ok := r.b.AppendAggregate(r.out[:0], &a); ok {
		fn(res)
	}
	return nil
}
