package ttldb

import (
	"sync"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// runRoom is what a queryRun keeps from one query to the next (see runs):
// its binding, with the room it has grown, and its method values that it
// gives as callbacks, each made once (a method value made at each call
// would be an allocation).
type runRoom struct {
	bound  query.Bound
	params []query.Param
	// Query's page as it fills: its results' bytes, one after the other,
	// and where each ends (see addResult)
	pageBytes []byte
	pageEnds  []int

	indexItem func(d *engine.Doc, item string) bool // indexItem
	keptDoc   func(d *engine.Doc) bool              // keptDoc
	pageRow   func(d *engine.Doc, sk []byte) bool   // pageRow
	addResult func(res []byte) bool                 // addResult
}

// runs are queryRuns that calls done with them gave back (free), with
// their buffers: a query of a page allocates neither again.
var runs = sync.Pool{New: func() any {
	r := new(queryRun)
	r.room.indexItem, r.room.keptDoc, r.room.pageRow, r.room.addResult = r.indexItem, r.keptDoc, r.pageRow, r.addResult
	return r
}}

// maxKeptOut is the most room of a result's buffer that free keeps.
const maxKeptOut = 64 << 10

// free gives r back to be reused, once its call is done with it, its
// snapshot released and none of its results or buffers held by anyone.
func (r *queryRun) free() {
	out, last := r.out[:0], r.page.lastSort[:0]
	if cap(out) > maxKeptOut {
		out = nil
	}
	if cap(r.room.pageBytes) > maxKeptOut {
		r.room.pageBytes, r.room.pageEnds = nil, nil
	}
	r.runState = runState{out: out, page: pageState{lastSort: last}}
	runs.Put(r)
}
