package ttldb

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// distinctResult is a result of SELECT DISTINCT: the first of the equal
// ones in the query's order, its sort key, and its distinct key.
type distinctResult struct {
	sk, key, res []byte
}

// distinct gives fn the results of a SELECT DISTINCT query, within OFFSET
// and remaining (-1: no bound): of the results equal as = compares them,
// the first in ORDER BY's order; in ORDER BY's order, and among results
// of one sort key (all of them without ORDER BY) in the order of their
// distinct keys (query.AppendDistinctKey: scalars as ORDER BY sorts them,
// then arrays, then objects). It reads every row, and holds every distinct
// result: O(n) for n rows, O(m log m) to sort the m distinct results. The
// token resumes after the last result fn took, by its sort and distinct
// keys, so that a later page in a new snapshot leaves out the results
// before it even when the collection changed in between; a result whose
// first row moved after that point (a write between pages) shows again.
func (r *queryRun) distinct(offset, remaining int, fn func(res []byte) bool) (string, error) {
	seen := map[string]int{}
	var all []distinctResult
	var dk []byte
	resume := r.resume
	r.resume = false // every row, for each result's first
	err := r.rows(func(d *engine.Doc, sk []byte) bool {
		if r.s.Expired(d) {
			return true
		}
		return r.results(d, func(_ int, res []byte) bool {
			dk = query.AppendDistinctKey(dk[:0], res)
			if i, ok := seen[string(dk)]; ok {
				if bytes.Compare(sk, all[i].sk) < 0 { // rows unsorted: keep the first in ORDER BY's order
					all[i].sk, all[i].res = bytes.Clone(sk), bytes.Clone(res)
				}
				return true
			}
			seen[string(dk)] = len(all)
			all = append(all, distinctResult{bytes.Clone(sk), bytes.Clone(dk), bytes.Clone(res)})
			return true
		})
	})
	r.resume = resume
	if err == nil {
		err = r.err
	}
	if err != nil {
		return "", r.stopped(err)
	}
	slices.SortFunc(all, func(a, b distinctResult) int {
		return cmp.Or(bytes.Compare(a.sk, b.sk), bytes.Compare(a.key, b.key))
	})
	var after []byte // the distinct key of the result it resumes after
	if r.resume {
		after = []byte(r.afterKey[len(r.prefix):])
	}
	accepted := 0
	last := &distinctResult{sk: r.afterSort, key: after}
	for i := range all {
		x := &all[i]
		if r.resume && cmp.Or(bytes.Compare(x.sk, r.afterSort), bytes.Compare(x.key, after)) <= 0 {
			continue
		}
		switch {
		case offset > 0:
			offset--
			continue
		case !fn(x.res):
			return r.token(r.emitted+accepted, last.sk, r.prefix+string(last.key), 0), nil
		}
		accepted++
		last = x
		if remaining > 0 {
			remaining--
		}
		if remaining == 0 {
			break
		}
	}
	return "", nil
}
