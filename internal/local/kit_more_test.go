package local

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/patch"
	"github.com/ttldb/ttldb/internal/vfs"
)

// More of the stand-in for the API (kit_test.go): the feed, patches,
// batches, and the helpers of the tests.

// FeedQuery reads the latest-version feed: after AfterLSN, or after the
// Continuation of a page, Limit changes at most (100 for 0).
type FeedQuery struct {
	AfterLSN            uint64
	Limit               int
	Continuation        string
	FromNow, FromOldest bool
}

// Change is a change of the feed; FeedPage a page of them.
type Change struct {
	ID  string
	LSN uint64
}
type FeedPage struct {
	Changes      []Change
	Continuation string
	More         bool
}

// ReadFeed reads a page of the latest-version feed.
func (c *Collection) ReadFeed(ctx context.Context, q FeedQuery) (FeedPage, error) {
	r := engine.FeedRead{Latest: true, After: q.AfterLSN, Limit: q.Limit}
	if q.Continuation != "" {
		n, err := strconv.ParseUint(q.Continuation, 10, 64)
		if err != nil {
			return FeedPage{}, err
		}
		r.After = n
	}
	if r.Limit == 0 {
		r.Limit = 100
	}
	switch {
	case q.FromNow:
		r.From = engine.FromNow
	case q.FromOldest:
		r.From = engine.FromOldest
	}
	p, err := c.x.ReadFeed(ctx, r, nil)
	if err != nil {
		return FeedPage{}, err
	}
	page := FeedPage{Continuation: strconv.FormatUint(p.End, 10), More: p.More}
	for _, ch := range p.Changes {
		page.Changes = append(page.Changes, Change{ID: ch.Doc.ID(), LSN: ch.LSN})
	}
	return page, nil
}

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (f *fakeClock) Now() time.Time          { return f.t }
func (f *fakeClock) Advance(d time.Duration) { f.t = f.t.Add(d) }

// newTestCollection opens a collection in memory on a fake clock at
// 1,000,000 s, without a background sweeper, closed when t ends.
func newTestCollection(t testing.TB, path string, def DefaultTTL) (*Collection, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", path, &Options{DefaultTTL: def, Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, clk
}

func mustCreate(t testing.TB, c *Collection, doc string) Document {
	t.Helper()
	d, err := c.Create(bg, []byte(doc))
	require.NoError(t, err, doc)
	return d
}

func mustGet(t *testing.T, c *Collection, pk PartitionKey, id string) Document {
	t.Helper()
	d, err := c.Get(bg, pk, id)
	require.NoError(t, err, "Get(%v, %q)", pk, id)
	return d
}

// openDurable opens the collection "test", partitioned by /pk, in dir of
// fsys (nil: the operating system's), on clk, without a background
// sweeper.
func openDurable(t *testing.T, fsys vfs.FS, dir string, clk *fakeClock, o Options) (*Collection, error) {
	t.Helper()
	o.Dir, o.fs, o.Now, o.ManualSweep = dir, fsys, clk.Now, true
	return NewCollection("test", "/pk", &o)
}

// sameOptions returns options that reopen c's directory as c is: with its
// DefaultTTL and indexing mode, which a reopen would otherwise change.
func sameOptions(c *Collection) Options {
	return Options{DefaultTTL: c.DefaultTTL(), Indexing: c.IndexingMode()}
}

// durableState is everything of a collection that survives a reopen
// (R12): Engine.Dump.
func durableState(c *Collection) string { return c.x.Dump() }

// PatchOp is an operation of a patch (R14); PatchSet sets a member.
type PatchOp = patch.Op

func PatchSet(path string, v any) PatchOp {
	p, err := patch.Pointer(path)
	if err != nil {
		panic(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return PatchOp{Kind: patch.Set, Path: p, Value: b}
}

// Patch applies ops to the live document, as a conditional write.
func (c *Collection) Patch(ctx context.Context, pk PartitionKey, id string, ops []PatchOp) (Document, error) {
	d, err := c.x.Write(ctx, keyOf(pk, id), engine.Write{Op: engine.Modify, Change: c.patcher(ops)})
	return Document{d}, err
}

// patcher returns the change that applies ops to a document.
func (c *Collection) patcher(ops []PatchOp) func(old *engine.Doc, _ int64) (*engine.Doc, error) {
	return func(old *engine.Doc, _ int64) (*engine.Doc, error) {
		body, err := patch.Apply([]byte(old.Body()), ops)
		if err != nil {
			return nil, err
		}
		return c.doc(body)
	}
}

// Batch is a transactional batch of one partition's writes (R14).
type Batch struct {
	pk    PartitionKey
	steps []engine.Step
}

// BatchError is the refusal of a batch at one of its steps.
type BatchError = engine.StepError

func NewBatch(pk PartitionKey) *Batch { return &Batch{pk: pk} }

func (b *Batch) add(op engine.Op, body []byte, id string, opts []WriteOption) {
	var d *engine.Doc
	key := string(keyOf(b.pk, id))
	if body != nil {
		var err error
		if d, err = parseBatchDoc(body); err != nil {
			b.steps = append(b.steps, engine.Step{Key: key, Fault: err})
			return
		}
		key = d.Key()
	}
	b.steps = append(b.steps, engine.Step{Key: key, Write: write(op, d, opts)})
}

func (b *Batch) Create(doc []byte, opts ...WriteOption)  { b.add(engine.Create, doc, "", opts) }
func (b *Batch) Upsert(doc []byte, opts ...WriteOption)  { b.add(engine.Upsert, doc, "", opts) }
func (b *Batch) Replace(doc []byte, opts ...WriteOption) { b.add(engine.Replace, doc, "", opts) }
func (b *Batch) Delete(id string, opts ...WriteOption)   { b.add(engine.Delete, nil, id, opts) }
func (b *Batch) Read(id string)                          { b.add(engine.Read, nil, id, nil) }

// parseBatchDoc parses a batch's document as a collection partitioned by
// /pk does: the tests' batches are all on such collections.
func parseBatchDoc(body []byte) (*engine.Doc, error) {
	in, err := parseTestDoc("pk", nil, nil, body)
	if err != nil {
		return nil, err
	}
	return engine.NewDoc(in.Key, in.At, in.Body, in.TTL, 0, 0), nil
}

// ExecuteBatch applies the batch, all or nothing.
func (c *Collection) ExecuteBatch(ctx context.Context, b *Batch) ([]Document, error) {
	ds, err := c.x.Batch(ctx, b.steps)
	if err != nil {
		return nil, err
	}
	out := make([]Document, len(ds))
	for i, d := range ds {
		out[i] = Document{d}
	}
	return out, nil
}
