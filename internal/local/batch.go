package local

import (
	"context"
	"unsafe"

	"github.com/ttldb/ttldb/engine"
)

// Batch implements [engine.Engine]: it holds the collection's lock once,
// for O(k log n + size of the documents) for k steps, and a Get waits
// while it applies its changes.
func (x *Engine) Batch(ctx context.Context, steps []engine.Step) (_ []*engine.Doc, err error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return nil, engine.ContextError(ctx, "ExecuteBatch")
	}
	if c.readOnly {
		return nil, c.errReadOnly("ExecuteBatch")
	}
	c.lock()
	defer c.settle(&err)
	if c.unusable() {
		return nil, c.errClosed("ExecuteBatch")
	}
	now := c.now()
	docs, err := c.decide(steps, now)
	if err != nil {
		return nil, err
	}
	if c.quota.on {
		if err := c.fitBatch(steps, docs, now); err != nil {
			return nil, err
		}
	}
	c.commitBatch(steps, docs, now)
	return docs, nil
}

// pending is what a key holds at a point of a batch: d, live, or nil; fresh
// when the batch wrote d, which is not yet stamped.
type pending struct {
	d     *engine.Doc
	fresh bool
}

// keyBytes returns key as bytes, to look it up with: a view of the string,
// which nothing may write to.
func keyBytes(key string) []byte { return unsafe.Slice(unsafe.StringData(key), len(key)) }

// decide checks every step, in order, for the fault the API found in its
// input, then against what the steps before it leave, and readies the
// documents: those the steps write (patches made), those reads find; it
// changes nothing. A refusal is an *engine.StepError. Call with mu held.
func (c *collection) decide(steps []engine.Step, now int64) ([]*engine.Doc, error) {
	lim := c.exp.limits(now)
	seen := make(map[string]pending, len(steps))
	docs := make([]*engine.Doc, len(steps))
	refuse := func(i int, err error) ([]*engine.Doc, error) {
		return nil, &engine.StepError{Index: i, Err: err}
	}
	for i := range steps {
		s := &steps[i]
		if s.Fault != nil {
			return refuse(i, s.Fault)
		}
		cur, ok := seen[s.Key]
		if !ok {
			if e, _ := c.prim.get(keyBytes(s.Key)); e != nil && !lim.expired(e.doc()) {
				cur.d = e.doc()
			}
		}
		switch {
		case s.Op == engine.Create && cur.d != nil:
			return refuse(i, engine.ErrConflict)
		case (s.Op != engine.Create && s.Op != engine.Upsert || s.HasIfMatch) && cur.d == nil:
			return refuse(i, engine.ErrNotFound)
		case s.HasIfMatch && cur.fresh:
			return refuse(i, &engine.ETagMismatch{})
		case s.HasIfMatch && !cur.d.HasETag(s.IfMatch):
			return refuse(i, &engine.ETagMismatch{Current: cur.d.ETag()})
		}
		switch s.Op {
		case engine.Read:
			docs[i] = cur.d
			continue
		case engine.Delete:
			seen[s.Key] = pending{}
			continue
		case engine.Modify:
			d, err := s.Change(cur.d, now)
			if err != nil {
				return refuse(i, err)
			}
			docs[i] = d
		case engine.Create, engine.Replace, engine.Upsert:
			docs[i] = s.Doc
		default:
			return refuse(i, errorf(engine.ErrInvalidOption, "a batch step of op %v", s.Op))
		}
		seen[s.Key] = pending{d: docs[i], fresh: true}
	}
	return docs, nil
}

// commitBatch makes the changes of the steps, which decide has checked and
// whose documents it readied, in order, with the _ts now. Point reads,
// which take no collection lock, wait until it is done (see Get), and the
// sweeper's help comes after the batch, not between its changes: two
// deletions per write, as alone, and none for a batch that only reads or
// deletes. Call with mu held.
func (c *collection) commitBatch(steps []engine.Step, docs []*engine.Doc, now int64) {
	c.batching.Add(1) // odd: a batch is applying its changes
	c.inBatch = true
	lim := c.exp.limits(now)
	writes := 0
	for i, s := range steps {
		switch s.Op {
		case engine.Read:
		case engine.Delete:
			e, _ := c.prim.get(keyBytes(s.Key))
			c.remove(e, now)
		default:
			e, h := c.prim.get(keyBytes(s.Key))
			c.put(e, docs[i], h, now, e != nil && !lim.expired(e.doc()))
			writes++
		}
	}
	c.inBatch = false
	c.batching.Add(1)
	c.help(now, writes) // as much as the writes would have done alone
}
