package ttldb

// The steps of TestQuotaModel (quota_model_test.go): each makes a random
// call, predicts with the model what it does, checks it, and applies it
// to the model.

import (
	"fmt"
	"strings"
	"time"

	"github.com/stretchr/testify/require"
)

// The documents of a sequence: few, so that the quota is reached often.
var (
	qmPartitions = []string{"p", "q"}
	qmIDs        = []string{"a", "b", "c", "d", "e", "f"}
)

// The calls a step makes, alone or in a batch.
type qmOp int

const (
	qmCreate qmOp = iota
	qmUpsert
	qmReplace
	qmPatch
	qmTouch
	qmDelete
	qmRead // in a batch
)

func (o qmOp) String() string {
	return [...]string{"Create", "Upsert", "Replace", "Patch", "Touch", "Delete", "Read"}[o]
}

// step makes one random step, then checks what reads see.
func (h *qHarness) step() {
	switch n := h.r.IntN(100); {
	case n < 14:
		h.moveClock()
	case n < 30:
		h.single(qmCreate)
	case n < 46:
		h.single(qmUpsert)
	case n < 53:
		h.single(qmReplace)
	case n < 61:
		h.single(qmPatch)
	case n < 69:
		h.single(qmDelete)
	case n < 75:
		h.single(qmTouch)
	case n < 94:
		h.batch()
	case n < 96:
		h.setDefault()
	case n < 98:
		h.sweep()
	default:
		h.reopen()
	}
	h.checkReads()
}

// moveClock moves the clock on: by less than a second, a few seconds, or
// past most ttls.
func (h *qHarness) moveClock() {
	var d time.Duration
	switch h.r.IntN(4) {
	case 0:
		d = time.Duration(1+h.r.IntN(999)) * time.Millisecond
	case 1:
		d = time.Duration(1+h.r.IntN(3)) * time.Second
	case 2:
		d = time.Duration(5+h.r.IntN(11)) * time.Second
	default:
		d = time.Duration(20+h.r.IntN(41)) * time.Second
	}
	h.clk.Advance(d)
	h.steps = append(h.steps, fmt.Sprintf("clock +%v: now %d", d, h.now()))
}

// newDoc returns a new document under pk and id, stamped now, with a
// random ttl: none, -1, or seconds.
func (h *qHarness) newDoc(pk, id string) *qmDoc {
	d := &qmDoc{id: id, pk: pk, v: h.r.IntN(1000), ts: h.now()}
	switch n := h.r.IntN(20); {
	case n < 8:
	case n < 11:
		d.ttl = -1
	default:
		d.ttl = 1 + h.r.IntN(30)
	}
	if h.m.maxBytes > 0 || h.r.IntN(2) == 0 {
		d.pad = h.r.IntN(200)
	}
	return d
}

// patched returns a patch of cur (nil: any) and the document it makes:
// a new v, one time in three a new ttl, one in six none.
func (h *qHarness) patched(cur *qmDoc) ([]PatchOp, *qmDoc) {
	d := &qmDoc{}
	if cur != nil {
		*d = *cur
	}
	d.v, d.ts = 1000+h.r.IntN(1000), h.now()
	ops := []PatchOp{PatchSet("/v", d.v)}
	switch h.r.IntN(6) {
	case 0:
		d.ttl = 1 + h.r.IntN(30)
		ops = append(ops, PatchSet("/ttl", d.ttl))
	case 1:
		d.ttl = -1
		ops = append(ops, PatchSet("/ttl", -1))
	case 2:
		if d.ttl != 0 {
			d.ttl = 0
			ops = append(ops, PatchRemove("/ttl"))
		}
	}
	return ops, d
}

// wantPut returns the changes a write under k makes in the feed, where
// the model holds cur (nil for none), live or expired at now.
func (h *qHarness) wantPut(k string, cur *qmDoc, now int64) []want {
	switch {
	case cur == nil:
		return []want{{op: OpCreate, key: k}}
	case h.m.expired(cur, now): // the expired document goes first (R11)
		return []want{{op: OpDelete, key: k, expired: true}, {op: OpCreate, key: k}}
	}
	return []want{{op: OpReplace, key: k}}
}

// refusal is the model's verdict on a write that adds g: refused, and
// then by which bounds, those it would be over even after every deletion
// it may make (it makes none then).
type refusal struct {
	refused, byBytes, byDocs bool
	g                        qmGrowth
}

// refuses returns the model's verdict on a write that adds g.
func (h *qHarness) refuses(g qmGrowth, mine map[string]bool) refusal {
	m := h.m
	used, n := m.used(), len(m.docs)
	for _, d := range m.candidates(h.now(), mine) {
		used, n = used-m.costOf(d), n-1
	}
	return refusal{refused: m.over(used, n, g), byBytes: m.over(used, n, qmGrowth{bytes: g.bytes}), byDocs: m.over(used, n, qmGrowth{docs: g.docs}), g: g}
}

// growth returns what writing the documents after (nil: a delete) under
// their keys adds.
func (h *qHarness) growth(after map[string]*qmDoc) qmGrowth {
	var g qmGrowth
	for k, d := range after {
		if d != nil {
			g.docs++
			g.bytes += h.m.costOf(d)
		}
		if old := h.m.docs[k]; old != nil {
			g.docs--
			g.bytes -= h.m.costOf(old)
		}
	}
	return g
}

// quotaBytes returns Stats.QuotaBytes.
func (h *qHarness) quotaBytes() int64 {
	s, err := h.c.Stats(bg)
	require.NoError(h.t, err)
	return s.QuotaBytes
}

// refused checks a write refused by the quota, as the model predicts
// (v), with a message that names the bound the write cannot fit and the
// figures (what the collection holds, what the write adds, the quota),
// and that it changed nothing: no change in the feed, the same bytes
// counted.
func (h *qHarness) refused(err error, v refusal, bytes int64, what string) bool {
	if !h.isQuota(err, what) {
		require.False(h.t, v.refused, "%s passed, and the quota should have refused it\n%s", what, h.where())
		return false
	}
	require.True(h.t, v.refused, "%s refused by the quota: %v\n%s", what, err, h.where())
	h.seen.refused[h.kind()]++
	m := h.m
	docs := fmt.Sprintf("holds %d documents, the write would add %d, and its quota is %d documents (Quota.MaxDocuments)", len(m.docs), v.g.docs, m.maxDocs)
	size := fmt.Sprintf("holds %d bytes, the write would add %d, and its quota is %d bytes (Quota.MaxBytes)", bytes, v.g.bytes, m.maxBytes)
	named := v.byDocs && strings.Contains(err.Error(), docs) || v.byBytes && strings.Contains(err.Error(), size)
	require.True(h.t, named, "the refusal names a bound the write cannot fit (bytes %v, documents %v), with its figures: %v\n%s", v.byBytes, v.byDocs, err, h.where())
	require.Empty(h.t, h.feedSince(), "a refused write changed the collection\n%s", h.where())
	require.Equal(h.t, bytes, h.quotaBytes(), "a refused write changed the bytes counted\n%s", h.where())
	return true
}

// single makes one write of op on a random key.
func (h *qHarness) single(op qmOp) {
	t, m, now := h.t, h.m, h.now()
	pk, id := qmPartitions[h.r.IntN(len(qmPartitions))], qmIDs[h.r.IntN(len(qmIDs))]
	k := qmKey(pk, id)
	cur, live := m.docs[k], m.live(k, now)
	var wantErr error
	switch {
	case op == qmCreate && live != nil:
		wantErr = ErrConflict
	case op != qmCreate && op != qmUpsert && live == nil:
		wantErr = ErrNotFound
	}
	var d *qmDoc
	var ops []PatchOp
	switch op {
	case qmCreate, qmUpsert, qmReplace:
		d = h.newDoc(pk, id)
	case qmPatch:
		ops, d = h.patched(live)
	case qmTouch:
		if live != nil {
			d = &qmDoc{}
			*d = *live
			d.ts = now
		}
	}
	what := fmt.Sprintf("%v %s", op, k)
	if d != nil {
		what += " " + d.json()
	}
	h.steps = append(h.steps, what)
	bytes := h.quotaBytes()
	var got Document
	var err error
	switch op {
	case qmCreate:
		got, err = h.c.Create(bg, []byte(d.json()))
	case qmUpsert:
		got, err = h.c.Upsert(bg, []byte(d.json()))
	case qmReplace:
		got, err = h.c.Replace(bg, []byte(d.json()))
	case qmPatch:
		got, err = h.c.Patch(bg, StringKey(pk), id, ops)
	case qmTouch:
		got, err = h.c.Touch(bg, StringKey(pk), id)
	case qmDelete:
		err = h.c.Delete(bg, StringKey(pk), id)
	}
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr, "%s\n%s", what, h.where())
		require.Empty(t, h.feedSince(), "a failed write changed the collection\n%s", h.where())
		return
	}
	mine := map[string]bool{k: cur != nil}
	g := h.growth(map[string]*qmDoc{k: d})
	if h.refused(err, h.refuses(g, mine), bytes, what) {
		return
	}
	var own []want
	if op == qmDelete {
		own = []want{{op: OpDelete, key: k}}
	} else {
		own = h.wantPut(k, cur, now)
		require.Equal(t, d.ts, got.TS(), "%s: _ts\n%s", what, h.where())
		require.JSONEq(t, d.json(), got.Body(), "%s\n%s", what, h.where())
	}
	h.checkRemovals(h.feedSince(), own, g, mine)
	if d == nil {
		delete(m.docs, k)
	} else {
		m.docs[k] = d
	}
}

// batch makes a transactional batch of one to four steps in one
// partition, some of them on the same key.
func (h *qHarness) batch() {
	t, m, now := h.t, h.m, h.now()
	pk := qmPartitions[h.r.IntN(len(qmPartitions))]
	b := NewBatch(StringKey(pk))
	seen := map[string]*qmDoc{} // what a key holds after the steps so far, live
	var order []string          // the keys the batch writes, in order
	ops := []qmOp{}
	reads := map[string]bool{}
	var wantErr error
	what := "batch:"
	for range 1 + h.r.IntN(4) {
		id := qmIDs[h.r.IntN(len(qmIDs))]
		k := qmKey(pk, id)
		cur, ok := seen[k]
		if !ok {
			cur = m.live(k, now)
		}
		op := [...]qmOp{qmCreate, qmUpsert, qmReplace, qmPatch, qmDelete, qmRead}[h.r.IntN(6)]
		if s := h.soonestIn(pk, now); op == qmRead && s != nil && h.r.IntN(2) == 0 {
			id, k, cur = s.id, s.key(), s // the first to go, which the read keeps
			if d, ok := seen[k]; ok {
				cur = d
			}
		}
		var d *qmDoc
		switch op {
		case qmCreate, qmUpsert, qmReplace:
			d = h.newDoc(pk, id)
			map[qmOp]func(any){qmCreate: b.Create, qmUpsert: func(v any) { b.Upsert(v) }, qmReplace: func(v any) { b.Replace(v) }}[op]([]byte(d.json()))
		case qmPatch:
			var p []PatchOp
			p, d = h.patched(cur)
			d.id, d.pk = id, pk
			b.Patch(id, p)
		case qmDelete:
			b.Delete(id)
		case qmRead:
			b.Read(id)
		}
		what += fmt.Sprintf(" %v %s", op, k)
		if wantErr != nil {
			continue
		}
		switch {
		case op == qmCreate && cur != nil:
			wantErr = ErrConflict
		case op != qmCreate && op != qmUpsert && cur == nil:
			wantErr = ErrNotFound
		case op == qmRead:
			reads[k] = true
		default:
			seen[k] = d
			order = append(order, k)
			ops = append(ops, op)
		}
	}
	h.steps = append(h.steps, what)
	bytes := h.quotaBytes()
	_, err := h.c.ExecuteBatch(bg, b)
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr, "%s\n%s", what, h.where())
		require.Empty(t, h.feedSince(), "a failed batch changed the collection\n%s", h.where())
		return
	}
	mine := map[string]bool{}
	for k := range reads {
		mine[k] = m.docs[k] != nil
	}
	for k := range seen {
		mine[k] = m.docs[k] != nil
	}
	g := h.growth(seen)
	if h.refused(err, h.refuses(g, mine), bytes, what) {
		return
	}
	var own []want
	state := map[string]*qmDoc{}
	for k := range seen {
		state[k] = m.docs[k]
	}
	for i, k := range order {
		if ops[i] == qmDelete {
			own = append(own, want{op: OpDelete, key: k})
			state[k] = nil
			continue
		}
		own = append(own, h.wantPut(k, state[k], now)...)
		state[k] = &qmDoc{ttl: -1} // written now: live
	}
	h.checkRemovals(h.feedSince(), own, g, mine)
	for k, d := range seen {
		if d == nil {
			delete(m.docs, k)
		} else {
			d.ts = now
			m.docs[k] = d
		}
	}
}

// soonestIn returns the live document of partition pk that expires
// soonest, nil for none.
func (h *qHarness) soonestIn(pk string, now int64) *qmDoc {
	for _, d := range h.m.candidates(now, nil) {
		if d.pk == pk && !h.m.expired(d, now) {
			return d
		}
	}
	return nil
}

// setDefault changes the DefaultTTL (R7), which changes nothing else.
func (h *qHarness) setDefault() {
	def := qmDefault(h.r)
	h.steps = append(h.steps, fmt.Sprintf("SetDefaultTTL %v", def))
	require.NoError(h.t, h.c.SetDefaultTTL(bg, def))
	sec, on := def.Seconds()
	h.m.setDefault(on, sec, h.now())
	require.Empty(h.t, h.feedSince(), "SetDefaultTTL changed documents\n%s", h.where())
}

// sweep calls Sweep, which deletes every expired document.
func (h *qHarness) sweep() {
	t, m, now := h.t, h.m, h.now()
	h.steps = append(h.steps, "Sweep")
	n, err := h.c.Sweep(bg)
	require.NoError(t, err)
	want := map[string]bool{}
	for k, d := range m.docs {
		if m.defOn && m.expired(d, now) { // none while TTL is off (R5)
			want[k] = true
		}
	}
	require.Equal(t, len(want), n, "Sweep's count\n%s", h.where())
	got := map[string]bool{}
	for _, ch := range h.feedSince() {
		require.True(t, ch.Op == OpDelete && ch.TimeToLiveExpired && !ch.Evicted, "Sweep made %+v\n%s", ch, h.where())
		got[qmKey(qmPK(ch.PartitionKey), ch.ID)] = true
	}
	require.Equal(t, want, got, "what Sweep deleted\n%s", h.where())
	for k := range want {
		delete(m.docs, k)
	}
	m.swept += uint64(n)
}
