package ttldb

import (
	"bytes"
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
	if r.maxItems > 0 && len(r.room.pageEnds) == r.maxItems {
		return false
	}
	r.room.pageBytes = append(r.room.pageBytes, res...)
	r.room.pageEnds = append(r.room.pageEnds, len(r.room.pageBytes))
	return true
}

// pageResults returns the results addResult added, in a copy of their own
// (two allocations, of the size they need): the queryRun's room is reused.
func (r *queryRun) pageResults() []json.RawMessage {
	if len(r.room.pageEnds) == 0 {
		return []json.RawMessage{}
	}
	buf := bytes.Clone(r.room.pageBytes)
	list := make([]json.RawMessage, len(r.room.pageEnds))
	from := 0
	for i, end := range r.room.pageEnds {
		list[i], from = buf[from:end:end], end
	}
	return list
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
