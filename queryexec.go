package ttldb

import (
	"encoding/json"

	"github.com/ttldb/ttldb/engine"
)

// run gives fn the query's results in order, after the position it resumes
// from, within OFFSET, LIMIT and TOP, until fn refuses one: it returns the
// token that resumes at that one, or an empty token when the results ran
// out. A result is valid until fn returns.
func (r *queryRun) run(fn func(res []byte) bool) (string, error) {
	b := r.b
	p := &r.page // on r, not captured one by one: each would be an allocation
	p.offset, p.remaining = b.Offset(), b.Top()
	if l := b.Limit(); l >= 0 {
		p.remaining = l
	}
	if r.resume {
		p.offset = 0
		if p.remaining >= 0 {
			p.remaining = max(0, p.remaining-r.emitted)
		}
	}
	if p.remaining == 0 {
		return "", nil
	}
	if !b.Reads() {
		r.single(p.offset, fn)
		return "", nil
	}
	if b.Aggregate() && r.minMax {
		return "", r.minMaxAggregate(p.offset, fn)
	}
	if b.Aggregate() {
		return "", r.aggregate(p.offset, fn)
	}
	if b.Grouped() && r.groupIdx {
		return r.groupedByIndex(p.offset, p.remaining, fn)
	}
	if b.Grouped() {
		return r.grouped(p.offset, p.remaining, fn)
	}
	if b.Distinct() {
		return r.distinct(p.offset, p.remaining, fn)
	}
	p.accepted, p.token = 0, ""
	p.lastSort, p.lastKey, p.lastOrd = append(p.lastSort[:0], r.afterSort...), r.afterKey, r.afterOrd
	r.onResult = fn
	err := r.rows(r.room.pageRow)
	if err == nil {
		err = r.err
	}
	if err != nil {
		return "", r.stopped(err)
	}
	return p.token, nil
}

// pageRow is run's callback for rows: it gives run's callback, onResult,
// d's results, within the page's bounds (r.page).
func (r *queryRun) pageRow(d *engine.Doc, sk []byte) bool {
	if r.s.Expired(d) { // sorted at an earlier page of a Cursor, expired since (R4)
		return true
	}
	p := &r.page
	return r.results(d, func(ord int, res []byte) bool {
		switch {
		case p.offset > 0:
			p.offset--
			return true
		case !r.onResult(res):
			p.token = r.token(r.emitted+p.accepted, p.lastSort, p.lastKey, p.lastOrd)
			return false
		}
		p.accepted++
		p.lastSort, p.lastKey, p.lastOrd = append(p.lastSort[:0], sk...), d.Key(), ord
		if p.remaining > 0 {
			p.remaining--
		}
		return p.remaining != 0
	})
}

// addResult is Query's callback for run: it adds res to the page, unless
// the page has MaxItems results already.
func (r *queryRun) addResult(res []byte) bool {
	pg := &r.pageOut
	if r.maxItems > 0 && len(pg.list) == r.maxItems {
		return false
	}
	if pg.buf == nil { // room for a page of results of about this size
		n := r.pageRoom(r.maxItems)
		pg.buf, pg.list = make([]byte, 0, n*len(res)), make([]json.RawMessage, 0, n)
	}
	// A result is its bytes in buf, which a growth of buf leaves where
	// they are: the results before it keep their bytes.
	from := len(pg.buf)
	pg.buf = append(pg.buf, res...)
	pg.list = append(pg.list, pg.buf[from:len(pg.buf):len(pg.buf)])
	return true
}

// pageState is where run is in a page of results: the results OFFSET has
// still to skip and LIMIT or TOP still to give (-1: no bound), those given,
// the token that resumes after them, and the last one's position.
type pageState struct {
	offset, remaining, accepted int
	token                       string
	lastSort                    []byte
	lastKey                     string
	lastOrd                     int
}
