package ttldb

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// GROUP BY an indexed path (R13): SELECT c.user, COUNT(1) AS n FROM c
// GROUP BY c.user reads the index on /user in its order, so that a group's
// rows come together and each group is given as soon as its rows end,
// rather than reading every document into a table of groups first. A page
// so reads the groups it gives and stops; the next starts in the index
// after the last group given (its value's key, the token's sort key), not
// at the first document. The groups come in the order of their keys, as
// from the table: an index holds one key for all arrays and one for all
// objects, whose groups (one per text) are made of all the rows of their
// kind, then given in their keys' order.

// groupedByIndex is grouped for a query whose groups the index r.index
// feeds: it gives fn the results of the groups after the one the query
// resumes after, in the order of their keys, within OFFSET and remaining
// (-1: no bound), and returns the token that resumes after the last group
// fn took, or an empty one when the groups ran out or LIMIT was reached.
func (r *queryRun) groupedByIndex(offset, remaining int, fn func(res []byte) bool) (string, error) {
	var from []byte // the value keys from which the groups come
	arrays, _ := query.KindKey(query.Array)
	if sk := r.afterSort; r.resume && len(sk) > 0 {
		if sk[0] >= arrays[0] {
			from = sk[:1] // the arrays' (or objects') rows again: their groups are made of them all
		} else {
			from = query.PrefixEnd(sk)
		}
	}
	var g query.Groups
	var run string // the value key of g's rows: one value's, or an array's or an object's
	accepted, last, token, done := 0, "", "", false
	// give gives g's groups, and reports whether more may follow.
	give := func() bool {
		for _, key := range g.Keys() {
			if r.resume && key <= string(r.afterSort) {
				continue
			}
			res, ok := r.b.AppendGroup(r.out[:0], &g, key)
			switch {
			case !ok:
				continue
			case offset > 0:
				offset--
				continue
			case !fn(res):
				token = r.token(r.emitted+accepted, []byte(last), r.prefix, 0)
				return false
			}
			accepted++
			last = key
			if remaining > 0 {
				if remaining--; remaining == 0 {
					return false
				}
			}
		}
		g = query.Groups{}
		return true
	}
	ranges := []query.Range{{From: from}}
	if r.ranges != nil {
		ranges = rangesFrom(r.ranges, from)
	}
	err := r.s.Index(&r.ctx, r.index, ranges, false, "", func(d *engine.Doc, it string) bool {
		vk := it[:len(it)-len(d.Key())]
		if vk != run {
			if run != "" && !give() {
				done = true
				return false
			}
			run = strings.Clone(vk)
		}
		if r.keep(d) {
			r.each(d, func(x query.Row) { r.b.AddToGroup(&g, x) })
		}
		return r.err == nil
	})
	if err != nil || r.err != nil {
		return "", r.stopped(cmp.Or(err, r.err))
	}
	if !done {
		give()
	}
	return token, nil
}

// rangesFrom returns the parts of the sorted, disjoint ranges rs at or
// after the value key from (nil: all of them), in their order.
func rangesFrom(rs []query.Range, from []byte) []query.Range {
	out := make([]query.Range, 0, len(rs))
	for _, rg := range rs {
		if rg.To != nil && bytes.Compare(rg.To, from) <= 0 {
			continue // wholly before from
		}
		if bytes.Compare(rg.From, from) < 0 {
			rg.From = from
		}
		out = append(out, rg)
	}
	return out
}
