package ttldb

import "github.com/ttldb/ttldb/engine"

// run gives fn the query's results in order, after the position it resumes
// from, within OFFSET, LIMIT and TOP, until fn refuses one: it returns the
// token that resumes at that one, or an empty token when the results ran
// out. A result is valid until fn returns.
func (r *queryRun) run(fn func(res []byte) bool) (token string, err error) {
	b := r.b
	offset, remaining := b.Offset(), b.Top()
	if l := b.Limit(); l >= 0 {
		remaining = l
	}
	if r.resume {
		offset = 0
		if remaining >= 0 {
			remaining = max(0, remaining-r.emitted)
		}
	}
	if remaining == 0 {
		return "", nil
	}
	if !b.Reads() {
		r.single(offset, fn)
		return "", nil
	}
	if b.Aggregate() {
		return "", r.aggregate(offset, fn)
	}
	if b.Grouped() {
		return r.grouped(offset, remaining, fn)
	}
	if b.Distinct() {
		return r.distinct(offset, remaining, fn)
	}
	accepted := 0
	lastSort, lastKey, lastOrd := append([]byte(nil), r.afterSort...), r.afterKey, r.afterOrd
	err = r.rows(func(d *engine.Doc, sk []byte) bool {
		if r.s.Expired(d) { // sorted at an earlier page of a Cursor, expired since (R4)
			return true
		}
		return r.results(d, func(ord int, res []byte) bool {
			switch {
			case offset > 0:
				offset--
				return true
			case !fn(res):
				token = r.token(r.emitted+accepted, lastSort, lastKey, lastOrd)
				return false
			}
			accepted++
			lastSort, lastKey, lastOrd = append(lastSort[:0], sk...), d.Key(), ord
			if remaining > 0 {
				remaining--
			}
			return remaining != 0
		})
	})
	if err == nil {
		err = r.err
	}
	if err != nil {
		return "", r.stopped(err)
	}
	return token, nil
}
