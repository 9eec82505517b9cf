package ttldb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ttldb/ttldb/engine"
)

// MaxBatchOperations is the most operations a [Batch] may hold, as in
// Cosmos DB.
const MaxBatchOperations = 100

// Batch is a transactional batch (R14): operations on the documents of one
// partition key that [Collection.ExecuteBatch] applies all together or not
// at all. Make one with [NewBatch] and add operations with its methods;
// they only record what to do, and every error is reported by
// ExecuteBatch, naming the operation. The zero Batch is an empty batch of
// the "none" partition. A Batch may be executed several times, and is not
// safe for use by several goroutines at once while operations are added.
type Batch struct {
	pk   PartitionKey
	ops  []batchOp
	text []byte // the chunk the JSON text of the documents is copied into
}

// batchOp is one operation of a batch, as recorded.
type batchOp struct {
	kind  batchKind
	src   []byte // the document, for the writes
	err   error  // a document that did not encode
	id    string // for patch, delete and read
	patch []PatchOp
	opts  []WriteOption
}

type batchKind uint8

const (
	batchCreate batchKind = iota
	batchReplace
	batchUpsert
	batchPatch
	batchDelete
	batchRead
)

func (k batchKind) String() string {
	return [...]string{"Create", "Replace", "Upsert", "Patch", "Delete", "Read"}[k]
}

// NewBatch returns an empty batch of the documents with partition key pk.
func NewBatch(pk PartitionKey) *Batch { return &Batch{pk: pk} }

// PartitionKey returns the batch's partition key.
func (b *Batch) PartitionKey() PartitionKey { return b.pk }

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Create adds the creation of doc, as [Collection.Create] takes it; doc
// must have the batch's partition key. JSON text ([]byte or
// json.RawMessage) is copied, so the caller may reuse it at once.
func (b *Batch) Create(doc any) { b.addDoc(batchCreate, doc, nil) }

// Replace adds the replacement of a live document by doc, as
// [Collection.Replace] does it.
func (b *Batch) Replace(doc any, opts ...WriteOption) { b.addDoc(batchReplace, doc, opts) }

// Upsert adds the upsert of doc, as [Collection.Upsert] does it.
func (b *Batch) Upsert(doc any, opts ...WriteOption) { b.addDoc(batchUpsert, doc, opts) }

// Patch adds a patch of the live document id, as [Collection.Patch] does
// it. The operations are copied, and so are values of JSON text; other
// values are encoded when the batch executes.
func (b *Batch) Patch(id string, ops []PatchOp, opts ...WriteOption) {
	kept := make([]PatchOp, len(ops))
	for i, op := range ops {
		switch v := op.value.(type) { // JSON text is copied, as Create's
		case []byte:
			op.value = b.keep(v)
		case json.RawMessage:
			op.value = json.RawMessage(b.keep(v))
		}
		kept[i] = op
	}
	b.ops = append(b.ops, batchOp{kind: batchPatch, id: id, patch: kept, opts: opts})
}

// Delete adds the deletion of the live document id, as
// [Collection.Delete] does it.
func (b *Batch) Delete(id string, opts ...WriteOption) {
	b.ops = append(b.ops, batchOp{kind: batchDelete, id: id, opts: opts})
}

// Read adds a read of the live document id: its result is the document as
// the batch's earlier operations left it. A read of a document that is not
// there fails the batch, as in Cosmos DB.
func (b *Batch) Read(id string) { b.ops = append(b.ops, batchOp{kind: batchRead, id: id}) }

// addDoc records a write of doc.
func (b *Batch) addDoc(kind batchKind, doc any, opts []WriteOption) {
	op := batchOp{kind: kind, opts: opts}
	switch x := doc.(type) {
	case []byte:
		op.src = b.keep(x)
	case json.RawMessage:
		op.src = b.keep(x)
	default:
		op.src, op.err = encodeInput(doc)
	}
	b.ops = append(b.ops, op)
}

// keep copies src into b.text and returns the copy. The text is kept in
// chunks of 8 KiB or more: a chunk that is full is left to the copies it
// holds, never copied again.
func (b *Batch) keep(src []byte) []byte {
	if cap(b.text)-len(b.text) < len(src) {
		b.text = make([]byte, 0, max(8<<10, len(src)))
	}
	n := len(b.text)
	b.text = append(b.text, src...)
	return b.text[n:len(b.text):len(b.text)]
}

// BatchError is the error of a batch that failed because one of its
// operations did: the batch changed nothing. Err says why, and wraps the
// sentinel that operation alone would have returned ([ErrConflict],
// [ErrNotFound], [ErrPreconditionFailed], [ErrInvalidTTL]...), so
// errors.Is sees through a BatchError to it.
type BatchError struct {
	Index int    // the failed operation's position in the batch, from 0
	Len   int    // the number of operations in the batch
	Op    string // its kind: "Create", "Replace", "Upsert", "Patch", "Delete" or "Read"
	ID    string // the id of its document, when it has one
	Err   error
}

// Error says which operation failed, counting from 1, and why.
func (e *BatchError) Error() string {
	id := ""
	if e.ID != "" {
		id = fmt.Sprintf(" of %q", e.ID)
	}
	return fmt.Sprintf("ttldb: batch failed and changed nothing: operation %d of %d (%s%s): %v", e.Index+1, e.Len, e.Op, id, e.Err)
}

// Unwrap returns Err.
func (e *BatchError) Unwrap() error { return e.Err }

// step is what the API keeps of a batch's operation, to word its refusal.
type step struct {
	kind batchKind
	id   string // the document's id, for messages
}

// The engine's op of each kind of a batch's operation.
var batchOps = [...]engine.Op{batchCreate: engine.Create, batchReplace: engine.Replace, batchUpsert: engine.Upsert, batchPatch: engine.Modify, batchDelete: engine.Delete, batchRead: engine.Read}

// prepare checks the operations that need no engine and readies their
// documents: parsed, with their keys, not yet stamped. A fault of an
// operation's own input goes to its step's Fault, which the engine
// reports in its turn.
func (c *Collection) prepare(b *Batch) ([]engine.Step, []step, error) {
	switch {
	case b == nil:
		return nil, nil, errorf(ErrInvalidBatch, "the batch is nil: make one with NewBatch")
	case len(b.ops) == 0:
		return nil, nil, errorf(ErrInvalidBatch, "the batch holds no operation")
	case len(b.ops) > MaxBatchOperations:
		return nil, nil, errorf(ErrInvalidBatch, "the batch holds %d operations, at most %d are allowed (as in Cosmos DB): split it, knowing that each part is then atomic alone", len(b.ops), MaxBatchOperations)
	}
	if err := b.pk.validate(); err != nil {
		return nil, nil, err
	}
	enc := b.pk.appendEncoded(nil) // every key of the batch starts with it: see keyFor
	steps, about := make([]engine.Step, len(b.ops)), make([]step, len(b.ops))
	bufp := intakeBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bufp) <= 64<<10 {
			intakeBuffers.Put(bufp)
		}
	}()
	for i := range b.ops {
		steps[i], about[i] = c.prepareStep(b.pk, enc, &b.ops[i], bufp)
	}
	return steps, about, nil
}

// prepareStep readies op, of a batch of the partition key pk, whose
// encoding is enc, parsing a document into *buf.
func (c *Collection) prepareStep(pk PartitionKey, enc []byte, op *batchOp, buf *[]byte) (s engine.Step, a step) {
	a.kind, a.id = op.kind, op.id
	s.Op = batchOps[op.kind]
	s.IfMatch, s.HasIfMatch = condition(op.opts)
	switch op.kind {
	case batchCreate, batchReplace, batchUpsert:
		if s.Fault = op.err; s.Fault != nil {
			return s, a
		}
		var kb keyBuffer
		in, key, err := parseDocument(*buf, kb[:0], op.src, c.pkPath)
		*buf = in.out[:0]
		if s.Fault = err; err != nil {
			return s, a
		}
		a.id = string(key[in.at.IDAt:in.at.IDEnd])
		if !bytes.Equal(key[:in.at.PK], enc) {
			got, _ := decodePartitionKey(string(key[:in.at.PK]))
			s.Fault = errorf(ErrInvalidPartitionKey, "document %q has partition key %v, not the batch's %v: a batch holds the documents of one partition key", a.id, got, pk)
			return s, a
		}
		s.Doc = engine.NewDoc(key, in.at, in.out, in.ttl, 0, 0)
		s.Key = s.Doc.Key() // the document's own copy
		return s, a
	case batchPatch:
		ops, err := c.compilePatch(op.patch, op.id)
		if s.Fault = err; err != nil {
			return s, a
		}
		s.Change = func(old *engine.Doc, _ int64) (*engine.Doc, error) { return c.applyPatch(old, ops) }
	}
	var kb keyBuffer
	key, err := c.lookupKey(kb[:0], pk, op.id)
	s.Key, s.Fault = string(key), err
	return s, a
}

// ExecuteBatch executes the operations of b, in order, as one write (R14):
// either all of them succeed, or the batch changes nothing. Each obeys the
// rules it obeys alone, and sees what the operations before it did. Every
// document the batch writes gets the same _ts; readers, Get included, see
// all of its changes or none; the change feed shows them in order, with
// consecutive LSNs; a durable collection logs them as one group, so that
// after a crash they are all there or none is (R12).
//
// ExecuteBatch returns a [Document] per operation: the document written,
// patched or read, and the zero [Document] for a delete. It holds the
// collection's lock once, for O(k log n + size of the documents) for k
// operations; a Get waits while the batch applies its changes.
//
// Errors: a [*BatchError] naming the first operation, in the batch's
// order, that failed and why
// (it wraps the sentinel that operation alone would return: [ErrConflict],
// [ErrNotFound], [ErrPreconditionFailed], [ErrInvalidPatch],
// [ErrInvalidTTL], [ErrInvalidPartitionKey] for a document of another
// partition key...); [ErrInvalidBatch] for a batch of no operation or more
// than [MaxBatchOperations]; [ErrInvalidPartitionKey] for a bad partition
// key of the batch; [ErrClosed]. An error changes nothing. A condition
// ([IfMatch]) on a document the same batch wrote earlier fails: its etag is
// not known before the batch commits. A nil b is an [ErrInvalidBatch].
func (c *Collection) ExecuteBatch(ctx context.Context, b *Batch) ([]Document, error) {
	if !ctxLive(ctx) {
		return nil, contextError(ctx, "ExecuteBatch")
	}
	if c.unusable() {
		return nil, c.errClosed("ExecuteBatch")
	}
	steps, about, err := c.prepare(b)
	if err != nil {
		return nil, err
	}
	docs, err := c.eng.Batch(ctx, steps)
	if err != nil {
		return nil, stepRefusal(err, b.pk, steps, about)
	}
	c.m.writes[batchSlot].Add(1)
	out := make([]Document, len(steps))
	for i, d := range docs {
		if d != nil {
			out[i] = c.document(d)
		}
	}
	return out, nil
}

// stepRefusal returns the [*BatchError] of the engine's refusal of a
// step; any other error passes as it is.
func stepRefusal(err error, pk PartitionKey, steps []engine.Step, about []step) error {
	var se *engine.StepError
	if !errors.As(err, &se) || se.Index < 0 || se.Index >= len(steps) {
		return err
	}
	a := about[se.Index]
	return &BatchError{Index: se.Index, Len: len(steps), Op: a.kind.String(), ID: a.id, Err: batchRefusal(se.Err, pk, a.id, steps[se.Index].IfMatch)}
}

// batchRefusal words the engine's refusal of a batch's operation on the
// document id of partition pk; any other error passes as it is.
func batchRefusal(err error, pk PartitionKey, id, ifMatch string) error {
	var m *engine.ETagMismatch
	switch {
	case errors.As(err, &m) && m.Current == "":
		return errorf(ErrPreconditionFailed, "document %q in partition %v was written earlier in this batch: its etag is not known before the batch commits, so no etag matches it", id, pk)
	case errors.As(err, &m):
		return errorf(ErrPreconditionFailed, "document %q in partition %v has etag %q, not %q", id, pk, m.Current, ifMatch)
	case errors.Is(err, engine.ErrConflict):
		return errorf(ErrConflict, "document %q in partition %v exists", id, pk)
	case errors.Is(err, engine.ErrNotFound):
		return errorf(ErrNotFound, "document %q in partition %v is not there or has expired", id, pk)
	}
	return err
}
