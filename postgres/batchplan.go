package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb/engine"
)

// slot is what a key holds at a point of a batch, as internal/local's
// pending: d, live, or nil.
type slot struct {
	d       *engine.Doc // the live version, nil for none
	fresh   bool        // d was written by the batch (not stamped yet)
	unseq   bool        // d is the version found, which has no LSN yet
	old     *row        // the key's row when the batch began, nil for none
	oldDoc  *engine.Doc // old as a Doc (its Tag 0 when unseq)
	owed    bool        // old is expired, and its delete not yet recorded (R11)
	changed bool        // a step wrote the key
	seq     int64       // the seq of the key's last record
	rec     int         // with fresh, the index in the plan's records of the record that wrote d
}

// record is one feed record a batch makes: the change of step (-1 for
// the delete of an expired document) of op, on d, at _ts ts. A delete
// names the version it deleted, prev (feed.go): its LSN, or, for a
// version the batch wrote, minus how many records before it that
// version's record is (the batch's records have consecutive LSNs).
type record struct {
	step    int
	op      uint8
	d       *engine.Doc
	ts      int64
	expired bool
	prev    int64
}

// plan is what a batch decided: a Doc per step, its records in order,
// and the keys (in the order of their hashes) with what each holds at the
// end.
type plan struct {
	docs  []*engine.Doc
	recs  []record
	keys  [][]byte
	slots map[string]*slot
}

// stepFault returns why the step s is refused whatever the documents:
// its Fault, or a shape no API makes.
func stepFault(s *engine.Step) error {
	switch {
	case s.Fault != nil:
		return s.Fault
	case s.Op == engine.Touch || s.Op > engine.Read:
		return errorf(engine.ErrInvalidOption, "a batch step of Op %v: a batch has no Touch", s.Op)
	case s.Op <= engine.Upsert && s.Doc == nil:
		return errorf(engine.ErrInvalidOption, "a batch step %v without its Doc", s.Op)
	case s.Op <= engine.Upsert && s.Doc.Key() != s.Key:
		return errorf(engine.ErrInvalidOption, "a batch step %v of key %q with a Doc of key %q: the key is Doc.Key", s.Op, s.Key, s.Doc.Key())
	case s.Op == engine.Modify && s.Change == nil:
		return errorf(engine.ErrInvalidOption, "a batch step Patch without its Change")
	}
	return nil
}

// decide checks every step, in order, for its fault, then against what
// the steps before it leave of the rows found (locked) under the limits
// at now, and readies the documents and the feed records; it changes
// nothing. A refusal is an *engine.StepError; errUnsequenced says that a
// step needs the etag of a version found without an LSN yet.
func (e *Engine) decide(steps []engine.Step, rows map[string]*row, keys [][]byte, l limits, now int64) (*plan, error) {
	p := &plan{docs: make([]*engine.Doc, len(steps)), keys: keys, slots: make(map[string]*slot, len(keys))}
	refuse := func(i int, err error) (*plan, error) {
		return nil, &engine.StepError{Index: i, Err: err}
	}
	for i := range steps {
		s := &steps[i]
		if err := stepFault(s); err != nil {
			return refuse(i, err)
		}
		st := p.slots[s.Key]
		if st == nil {
			var err error
			if st, err = e.slotOf(s.Key, rows[s.Key], l); err != nil {
				return nil, err
			}
			p.slots[s.Key] = st
		}
		switch {
		case s.Op == engine.Create && st.d != nil:
			return refuse(i, engine.ErrConflict)
		case (s.Op != engine.Create && s.Op != engine.Upsert || s.HasIfMatch) && st.d == nil:
			return refuse(i, engine.ErrNotFound)
		case s.HasIfMatch && st.fresh:
			return refuse(i, &engine.ETagMismatch{}) // its etag is not known yet
		case (s.HasIfMatch || s.Op == engine.Modify || s.Op == engine.Read || s.Op == engine.Delete) && st.unseq:
			return nil, errUnsequenced // no caller was given its etag; a delete's record names its LSN
		case s.HasIfMatch && !st.d.HasETag(s.IfMatch):
			return refuse(i, &engine.ETagMismatch{Current: st.d.ETag()})
		}
		op := engine.OpReplace
		if st.d == nil {
			op = engine.OpCreate
		}
		switch s.Op {
		case engine.Read:
			p.docs[i] = st.d
			continue
		case engine.Delete:
			ts, prev := st.d.TS, int64(st.d.Tag-e.Settings().ETagBase)
			if st.fresh {
				ts, prev = now, -int64(len(p.recs)-st.rec)
			}
			p.recs = append(p.recs, record{step: i, op: engine.OpDelete, d: st.d, ts: ts, prev: prev})
			st.d, st.fresh, st.unseq, st.changed = nil, false, false, true
			continue
		case engine.Modify:
			d, err := s.Change(st.d, now)
			if err != nil {
				return refuse(i, err)
			}
			if d == nil || d.Key() != s.Key {
				return refuse(i, errorf(engine.ErrInvalidOption, "a batch step Patch of key %q whose Change returned no document of that key", s.Key))
			}
			p.docs[i] = d
		default: // Create, Replace, Upsert
			p.docs[i] = s.Doc
		}
		if st.owed { // R11: the expired version's delete first
			if st.old.lsn == nil {
				return nil, errUnsequenced // its delete's record names its LSN
			}
			p.recs = append(p.recs, record{step: -1, op: engine.OpDelete, d: st.oldDoc, ts: st.old.ts, expired: true, prev: *st.old.lsn})
			st.owed = false
		}
		p.recs = append(p.recs, record{step: i, op: op, d: p.docs[i], ts: now})
		st.d, st.fresh, st.unseq, st.changed, st.rec = p.docs[i], true, false, true, len(p.recs)-1
	}
	return p, nil
}

// slotOf returns what the key holds when the batch begins, from its row r
// (nil for none), under the limits l.
func (e *Engine) slotOf(key string, r *row, l limits) (*slot, error) {
	st := &slot{old: r}
	if r == nil {
		return st, nil
	}
	tmp := *r
	if r.lsn == nil { // validated as a Doc with an LSN, then untagged
		one := int64(1)
		tmp.lsn = &one
	}
	d, err := e.doc([]byte(key), &tmp)
	if err != nil {
		return nil, err
	}
	if r.lsn == nil {
		d.Tag = 0
	}
	st.oldDoc = d
	if l.live(r.ts, r.ttl) {
		st.d, st.unseq = d, r.lsn == nil
	} else {
		st.owed = true
	}
	return st, nil
}

// apply writes what p decided in tx: the documents of its write steps
// stamped with now, its records with the seqs of the block from block, in
// order, and each changed key's last version. It fills b's seqs.
//
// Errors: errRetry when another write made a key's row meanwhile;
// ErrCorrupt; the server's.
func (e *Engine) apply(ctx context.Context, tx pgx.Tx, p *plan, block int64, now int64, b *batched, defs []ixDef) error {
	n := len(p.recs)
	var (
		seqs               = make([]int64, n)
		ops                = make([]int16, n)
		keys               = make([][]byte, n)
		pkEnd, idAt, idEnd = make([]int32, n), make([]int32, n), make([]int32, n)
		bodies             = make([]string, n)
		ts                 = make([]int64, n)
		ttls               = make([]int32, n)
		expired            = make([]bool, n)
		at, prev           = make([]*int64, n), make([]*int64, n)
	)
	for j, r := range p.recs {
		seq := block + int64(j)
		if r.step >= 0 {
			b.seqs[r.step] = seq
			if r.op != engine.OpDelete {
				r.d.TS = now
			}
		}
		p.slots[r.d.Key()].seq = seq
		seqs[j], ops[j], keys[j] = seq, int16(r.op), []byte(r.d.Key())
		pkEnd[j], idAt[j], idEnd[j] = int32(r.d.Layout.PK), int32(r.d.Layout.IDAt), int32(r.d.Layout.IDEnd)
		bodies[j], ts[j], ttls[j], expired[j] = r.d.Body(), r.ts, r.d.TTL, r.expired
		if r.op == engine.OpDelete {
			at[j], prev[j] = &now, &p.recs[j].prev
		}
	}
	b.last = block + int64(n) - 1
	var q pgx.Batch
	q.Queue(e.sql(feedManySQL), seqs, ops, keys, pkEnd, idAt, idEnd, bodies, ts, ttls, expired, at, prev)
	var del, delH [][]byte
	var up, in versions
	var its itemRows
	for _, k := range p.keys { // in the order of their hashes
		st := p.slots[string(k)]
		switch {
		case st == nil || !st.changed:
		case st.d == nil && st.old != nil: // its items go with it (ON DELETE CASCADE)
			del = append(del, k)
			delH = append(delH, hashOf(k))
		case st.d != nil && st.old != nil:
			up.add(st.d, st.seq)
			its.add(defs, oldDoc(k, st.old), st.d)
		case st.d != nil:
			in.add(st.d, st.seq)
			its.add(defs, nil, st.d)
		}
	}
	if len(del) > 0 {
		q.Queue(e.sql(deleteManySQL), delH, del)
	}
	if len(up.keys) > 0 {
		q.Queue(e.sql(updateManySQL), up.args()...)
	}
	if len(in.keys) > 0 {
		q.Queue(e.sql(insertManySQL), in.args()...)
	}
	if len(its.keys) > 0 { // read last: after errRetry, never
		q.Queue(e.sql(itemsManySQL), its.keys, its.ids, its.items)
	}
	br := tx.SendBatch(ctx, &q)
	defer func() { _ = br.Close() }()
	if _, err := br.Exec(); err != nil {
		return e.serverError("recording the batch's changes", err)
	}
	for _, want := range []int{len(del), len(up.keys)} {
		if want == 0 {
			continue
		}
		tag, err := br.Exec()
		if err != nil {
			return e.serverError("writing the batch's documents", err)
		}
		if tag.RowsAffected() != int64(want) {
			return e.corrupt("a batch changed %d of the %d rows it had locked", tag.RowsAffected(), want)
		}
	}
	if len(in.keys) > 0 {
		tag, err := br.Exec()
		if err != nil {
			return e.serverError("writing the batch's documents", err)
		}
		if tag.RowsAffected() != int64(len(in.keys)) {
			return errRetry // another write made one of the rows meanwhile
		}
	}
	if len(its.keys) > 0 {
		if _, err := br.Exec(); err != nil {
			return e.serverError("writing the batch's index items", err)
		}
	}
	if err := br.Close(); err != nil {
		return e.serverError("writing the batch's documents", err)
	}
	return nil
}

// versions are documents to store, as the columns of updateManySQL and
// insertManySQL.
type versions struct {
	keys               [][]byte
	pkEnd, idAt, idEnd []int32
	bodies             []string
	ts                 []int64
	ttls               []int32
	seqs               []int64
}

func (v *versions) add(d *engine.Doc, seq int64) {
	v.keys = append(v.keys, []byte(d.Key()))
	v.pkEnd = append(v.pkEnd, int32(d.Layout.PK))
	v.idAt = append(v.idAt, int32(d.Layout.IDAt))
	v.idEnd = append(v.idEnd, int32(d.Layout.IDEnd))
	v.bodies = append(v.bodies, d.Body())
	v.ts = append(v.ts, d.TS)
	v.ttls = append(v.ttls, d.TTL)
	v.seqs = append(v.seqs, seq)
}

func (v *versions) args() []any {
	return []any{v.keys, v.pkEnd, v.idAt, v.idEnd, v.bodies, v.ts, v.ttls, v.seqs}
}
