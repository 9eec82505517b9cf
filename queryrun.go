package ttldb

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// queryRun is one query at work on a snapshot: its bound query, where it
// resumes, and how it reads the collection (runState), and the room it
// keeps from one query to the next.
type queryRun struct {
	runState
	room runRoom
}

// runState is a queryRun's state, which each query sets anew.
type runState struct {
	c      *Collection
	op     string
	b      *query.Bound // &room.bound
	s      engine.Snapshot
	prefix string        // the partition's key prefix; empty: all
	text   string        // the query's text,
	params []query.Param // its parameters' values, as JSON,
	scope  tokenScope    // and the scope of its tokens, once needed

	resume    bool   // after a continuation token:
	emitted   int    // the results the earlier pages returned
	afterSort []byte // and the last one's sort key
	afterKey  string // and document key
	afterOrd  int    // and, with joins, its row's place in the document's product (from 1)
	err       error  // the error that stopped the rows, if any: a product too large

	index    string        // the path of the index read; empty: a scan
	ranges   []query.Range // the ranges of it to read; nil: all of it
	ordered  bool          // it gives ORDER BY's order
	point    bool          // its ranges hold one value at most: its items are in key order
	exact    bool          // its items in ranges are the rows the WHERE clause keeps (query.Bound.Exact)
	minMax   bool          // it answers MIN or MAX from its ends (queryminmax.go)
	groupIdx bool          // it feeds GROUP BY's groups in order (querygroup.go)
	desc     bool          // ties in ORDER BY go by key, descending
	cursor   bool          // a Cursor reads it, judging expiry anew at each page
	plan     QueryPlan

	ctx      pageContext // the context of the call reading: a cursor's, its page's
	tag      [engine.ETagLen]byte
	budget   query.Budget // the document's being read (row)
	out      []byte
	page     pageState // run's
	maxItems int       // Query's MaxItems

	// The callbacks run, rows and indexRows were given, which those they
	// give on (room's method values) call.
	onResult func(res []byte) bool
	onRow    func(d *engine.Doc, sk []byte) bool
	onDoc    func(d *engine.Doc) bool
}

// pageContext is the context a query's reads look at: the call's, or for a
// cursor the current page's, which Next sets before it reads (R16).
type pageContext struct{ context.Context }

// startQuery checks q, takes a snapshot, and picks how to read it. The
// caller releases r.s.
func (c *Collection) startQuery(ctx context.Context, op string, q SQL) (*queryRun, error) {
	if c.unusable() {
		return nil, c.errClosed(op)
	}
	if q.MaxItems < 0 {
		return nil, errorf(ErrInvalidOption, "MaxItems %d is negative", q.MaxItems)
	}
	r := runs.Get().(*queryRun)
	r.runState = runState{c: c, op: op, b: &r.room.bound, text: q.Text, out: r.out[:0], page: pageState{lastSort: r.page.lastSort[:0]}}
	params, err := q.bind(r.b, r.room.params, c.clock())
	if err != nil {
		r.free()
		return nil, err
	}
	r.params, r.room.params = params, params
	b := r.b
	if q.Prepared != nil {
		r.text = q.Prepared.Text()
	}
	if q.Partition != nil {
		if err := q.Partition.validate(); err != nil {
			r.free()
			return nil, err
		}
		r.prefix = string(q.Partition.appendEncoded(nil))
	}
	if order := b.OrderBy(); len(order) > 0 {
		r.desc = order[0].Desc
	}
	if q.Continuation != "" {
		if err := r.openToken(q.Continuation); err != nil {
			r.free()
			return nil, err
		}
	}
	filt, ord := r.candidates(c.eng.Settings().Indexes)
	var room [3]string
	want := room[:0]
	if filt.path != "" {
		want = append(want, filt.path)
	}
	if ord.path != "" && ord.path != filt.path {
		want = append(want, ord.path)
	}
	mm := r.minMaxIndex(c.eng.Settings().Indexes, filt)
	if mm != "" && !slices.Contains(want, mm) {
		want = append(want, mm)
	}
	gp := r.groupIndex(c.eng.Settings().Indexes, filt)
	if gp != "" && !slices.Contains(want, gp) {
		want = append(want, gp)
	}
	r.ctx.Context = ctx
	s, err := c.snapshot(ctx, want)
	if err != nil {
		r.free()
		return nil, c.stopped(ctx, err, op)
	}
	r.s = s
	if len(s.Indexes()) != len(want) { // one was dropped meanwhile: choose among the others
		filt, ord = r.candidates(s.Indexes())
		mm, gp = r.minMaxIndex(s.Indexes(), filt), r.groupIndex(s.Indexes(), filt)
	}
	r.choose(filt, ord)
	r.chooseMinMax(mm, filt)
	r.chooseGroup(gp, filt)
	return r, nil
}

// tokenScope returns the scope of the query's tokens: the collection, the
// partition, and the FNV-1a hashes of the query's text and of its
// parameters (each name, a 0x00 byte, its value as JSON, a 0x00 byte, in
// the order of the names).
func (r *queryRun) tokenScope() tokenScope {
	if r.scope.read == 0 {
		r.scope = scopeOf(r.c, readQuery, r.prefix != "", r.prefix)
		h := fnv.New64a()
		h.Write([]byte(r.text))
		r.scope.text = h.Sum64()
		params := slices.SortedFunc(slices.Values(r.params), func(a, b query.Param) int { return strings.Compare(a.Name, b.Name) })
		h.Reset()
		for _, p := range params {
			if p.IsStr { // its JSON: Str in quotes (plainJSON)
				h.Write([]byte(p.Name + "\x00\"" + p.Str + "\"\x00"))
			} else {
				h.Write([]byte(p.Name + "\x00" + p.JSON + "\x00"))
			}
		}
		r.scope.params = h.Sum64()
	}
	return r.scope
}

// openToken reads where a continuation token resumes.
func (r *queryRun) openToken(tok string) error {
	pos, err := openToken(tok, r.tokenScope(), r.c.name)
	if err != nil {
		return err
	}
	b := []byte(pos)
	emitted, n := binary.Uvarint(b)
	if n <= 0 || emitted > 1<<31 {
		return errorf(ErrInvalidContinuation, "token %.40q holds no position", tok)
	}
	b = b[n:]
	if r.b.Joined() {
		ord, n := binary.Uvarint(b)
		if n <= 0 || ord > 1<<31 {
			return errorf(ErrInvalidContinuation, "token %.40q holds no position", tok)
		}
		b, r.afterOrd = b[n:], int(ord)
	}
	skLen, n := binary.Uvarint(b)
	if n <= 0 || skLen > uint64(len(b)-n) {
		return errorf(ErrInvalidContinuation, "token %.40q holds no position", tok)
	}
	b = b[n:]
	r.resume, r.emitted = true, int(emitted)
	r.afterSort, r.afterKey = b[:skLen], string(b[skLen:])
	if !strings.HasPrefix(r.afterKey, r.prefix) {
		return errorf(ErrInvalidContinuation, "token %.40q belongs to another partition", tok)
	}
	return nil
}

// token returns the token of a page whose last result is the emitted-th,
// with sort key sk and document key key, and with joins the ord-th row of
// that document's product.
func (r *queryRun) token(emitted int, sk []byte, key string, ord int) string {
	b := binary.AppendUvarint(nil, uint64(emitted))
	if r.b.Joined() {
		b = binary.AppendUvarint(b, uint64(ord))
	}
	b = binary.AppendUvarint(b, uint64(len(sk)))
	b = append(append(b, sk...), key...)
	return sealToken(r.tokenScope(), string(b))
}
