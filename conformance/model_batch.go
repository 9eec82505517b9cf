package conformance

// ExecuteBatch (R14) in the model: batches drawn at random, predicted
// operation by operation on a scratch copy of a partition, and run.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ttldb/ttldb/internal/ref"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// Batches.

// mBatchOp is an operation of a batch, as drawn.
type mBatchOp struct {
	kind    string // "Create", "Replace", "Upsert", "Patch", "Delete" or "Read"
	k       mKey
	in      docInput // the document of a write
	foreign bool     // the write's document has another partition key than the batch
	id      string   // the id given to Patch, Delete and Read
	idClass string   // classInvalidID for a bad one
	ops     []ref.RefPatchOp
	opts    []ttldb.WriteOption
	cond    *string
	desc    string
}

// errID is the id a BatchError of the operation names: the document's,
// the one given, or none for a document that does not parse.
func (op *mBatchOp) errID() string {
	switch {
	case op.kind == "Patch" || op.kind == "Delete" || op.kind == "Read":
		return op.id
	case op.in.doc == nil:
		return ""
	}
	return op.k.id
}

// mPending is what a key holds at a point of a batch: d, or nil; fresh
// when the batch wrote it.
type mPending struct {
	d     *mDoc
	fresh bool
}

// genBatch draws a batch of 1 to 8 operations on one partition key
// (sometimes none, more than MaxBatchOperations, or a bad partition key).
func (h *modelHarness) genBatch() modelStep {
	r := h.r
	live := h.m.list(nil, nil, nil)
	var p mPK
	switch {
	case len(live) > 0 && r.IntN(4) > 0:
		p = pick(r, live).pk
	case h.idPath:
		p = idKey(pick(r, h.ids).id).pk
	default:
		p = pick(r, h.parts).pk
	}
	pk, pkClass := h.pkGo(p), okClass
	if r.IntN(40) == 0 {
		pk, pkClass = pick(r, modelBadPKs), classInvalidPK
	}
	// The ids: with the path /id, the one of the partition; else those of
	// the sequence, drawn so that most operations find what they need:
	// present records which ids the batch leaves with a document so far.
	ids := []string{p.str}
	if !h.idPath {
		ids = nil
		for _, x := range h.ids {
			ids = append(ids, x.id)
		}
	}
	present := map[string]bool{}
	for _, k := range live {
		if k.pk == p {
			present[k.id] = true
		}
	}
	n := 1 + r.IntN(8)
	switch r.IntN(80) {
	case 0:
		n = 0
	case 1:
		n = ttldb.MaxBatchOperations + 1
	}
	ops := make([]mBatchOp, n)
	var descs []string
	for i := range ops {
		op := &ops[i]
		switch k := r.IntN(16); {
		case k < 3:
			op.kind = "Create"
		case k < 5:
			op.kind = "Replace"
		case k < 8:
			op.kind = "Upsert"
		case k < 11:
			op.kind = "Patch"
		case k < 13:
			op.kind = "Delete"
		default:
			op.kind = "Read"
		}
		has := func(kind string) (want []string) { // ids with a document for all but Create, without one for Create
			for _, id := range ids {
				if present[id] == (kind != "Create") {
					want = append(want, id)
				}
			}
			return want
		}
		want := has(op.kind)
		if len(want) == 0 && op.kind != "Create" && op.kind != "Upsert" && r.IntN(4) > 0 {
			op.kind = "Upsert" // nothing there to change
			want = has(op.kind)
		}
		op.id = pick(r, ids)
		if len(want) > 0 && r.IntN(5) > 0 {
			op.id = pick(r, want)
		}
		op.k = mKey{p, op.id}
		switch op.kind {
		case "Delete":
			delete(present, op.id)
		case "Create", "Upsert":
			present[op.id] = true
		}
		if (op.kind == "Patch" || op.kind == "Delete" || op.kind == "Read") && r.IntN(60) == 0 {
			op.id, op.idClass = pick(r, modelBadIDs), classInvalidID
		}
		switch op.kind {
		case "Create", "Replace", "Upsert":
			if r.IntN(50) == 0 { // a document of another partition key (R14)
				other := h.otherPartition(p)
				if other != nil {
					op.foreign, op.k = true, *other
					op.in = h.genDoc(*other, true)
					break
				}
			}
			op.in = h.genDoc(op.k, r.IntN(40) > 0)
		case "Patch":
			op.ops = h.genPatchOps(h.m.docs[op.k], 2, r.IntN(8) == 0)
		}
		if op.kind != "Create" && op.kind != "Read" && r.IntN(3) == 0 {
			op.opts, op.cond, op.desc = h.genIfMatch(op.k)
		}
		switch op.kind {
		case "Create", "Replace", "Upsert":
			op.desc = fmt.Sprintf("%s %.120s%s", op.kind, op.in.text, op.desc)
		case "Patch":
			op.desc = fmt.Sprintf("Patch(%.40q, %s)%s", op.id, describePatch(op.ops), op.desc)
		default:
			op.desc = fmt.Sprintf("%s(%.40q)%s", op.kind, op.id, op.desc)
		}
		descs = append(descs, op.desc)
	}
	if len(descs) > 10 {
		descs = append(descs[:10], fmt.Sprintf("... %d more", len(descs)-10))
	}
	desc := fmt.Sprintf("ExecuteBatch(%.40v: %s)", pk, strings.Join(descs, "; "))
	return modelStep{desc, func() (string, error) { return h.runBatch(pk, pkClass, ops) }}
}

// otherPartition returns a key of another partition than p for a document
// of a foreign write, or nil when the sequence has none.
func (h *modelHarness) otherPartition(p mPK) *mKey {
	if h.idPath {
		for _, x := range h.ids {
			if k := idKey(x.id); k.pk != p {
				return &k
			}
		}
		return nil
	}
	for _, q := range h.parts {
		if q.pk != p {
			return &mKey{q.pk, pick(h.r, h.ids).id}
		}
	}
	return nil
}

// predictBatch returns the index of the operation that fails the batch and
// the error classes it may fail with, or -1 when the batch succeeds; whole
// is true when the failure is the batch's own, not an operation's (no
// BatchError). The operations are checked in order, each first for its own
// input (its document, its patch, its id), then on what the ones before it
// left: the first that fails, fails the batch.
func (h *modelHarness) predictBatch(pkClass string, ops []mBatchOp) (at int, classes []string, whole bool) {
	switch {
	case h.m.closed:
		return 0, []string{classClosed}, true
	case len(ops) == 0 || len(ops) > ttldb.MaxBatchOperations:
		return 0, []string{classInvalidBatch}, true
	case pkClass != okClass:
		return 0, []string{pkClass}, true
	}
	// The input's faults of an operation (R2, R10, R14).
	inputFault := func(op mBatchOp) []string {
		switch {
		case op.in.doc == nil && op.in.class != okClass:
			return []string{op.in.class}
		case op.foreign:
			return []string{classInvalidPK}
		case op.kind == "Patch" && ref.RefPatch("{}", h.path, op.ops).Stage == ref.RefCompile:
			return []string{classInvalidPatch}
		case op.idClass != okClass:
			return []string{op.idClass}
		}
		return nil
	}
	// Then in order, each on what the ones before it left.
	seen := map[mKey]mPending{}
	for i, op := range ops {
		if fault := inputFault(op); fault != nil {
			return i, fault, false
		}
		cur, ok := seen[op.k]
		if !ok {
			cur = mPending{d: h.m.docs[op.k]}
		}
		switch {
		case op.kind == "Create" && cur.d != nil:
			return i, []string{classConflict}, false
		case (op.kind != "Create" && op.kind != "Upsert" || op.cond != nil) && cur.d == nil:
			return i, []string{classNotFound}, false
		case op.cond != nil && (cur.fresh || *op.cond != cur.d.etag):
			return i, []string{classPrecondition}, false
		}
		switch op.kind {
		case "Read":
			continue
		case "Delete":
			seen[op.k] = mPending{}
			continue
		case "Patch":
			res := ref.RefPatch(cur.d.body(), h.path, op.ops)
			if res.Stage != ref.RefOK {
				return i, faultClasses(res), false
			}
			seen[op.k] = mPending{d: docOfBody(res.Body), fresh: true}
		default:
			seen[op.k] = mPending{d: op.in.doc, fresh: true}
		}
	}
	return -1, nil, false
}

// runBatch executes the batch and compares the outcome with the model's.
func (h *modelHarness) runBatch(pk ttldb.PartitionKey, pkClass string, ops []mBatchOp) (string, error) {
	b := ttldb.NewBatch(pk)
	for _, op := range ops {
		switch op.kind {
		case "Create":
			b.Create(op.in.payload)
		case "Replace":
			b.Replace(op.in.payload, op.opts...)
		case "Upsert":
			b.Upsert(op.in.payload, op.opts...)
		case "Patch":
			b.Patch(op.id, refLib.Ops(op.ops), op.opts...)
		case "Delete":
			b.Delete(op.id, op.opts...)
		case "Read":
			b.Read(op.id)
		}
	}
	if b.Len() != len(ops) || b.PartitionKey().String() != pk.String() { // (NaN is no PartitionKey equal to itself)
		return "", fmt.Errorf("NewBatch: Len %d, PartitionKey %v; added %d operations to %v", b.Len(), b.PartitionKey(), len(ops), pk)
	}
	out, err := h.c.ExecuteBatch(bg, b)
	at, classes, whole := h.predictBatch(pkClass, ops)
	if at >= 0 {
		var be *ttldb.BatchError
		isBatchErr := errors.As(err, &be)
		switch {
		case err == nil:
			return "", fmt.Errorf("ExecuteBatch succeeded; the model says operation %d fails with %v", at, classes)
		case whole && isBatchErr:
			return "", fmt.Errorf("ExecuteBatch: %v; the model says %v for the whole batch, not a BatchError", err, classes)
		case !whole && (!isBatchErr || be.Index != at || be.Len != len(ops) || be.Op != ops[at].kind):
			return "", fmt.Errorf("ExecuteBatch: %v (%+v); the model says operation %d of %d (%s) fails with %v", err, be, at, len(ops), ops[at].kind, classes)
		case !whole && be.ID != ops[at].errID():
			return "", fmt.Errorf("ExecuteBatch: %v names the id %q, want %q", err, be.ID, ops[at].errID())
		case out != nil:
			return "", fmt.Errorf("ExecuteBatch failed (%v) but returned %d documents", err, len(out))
		}
		return fmt.Sprintf("%v at %d", classes, at), h.checkErrIn("ExecuteBatch", err, classes, "")
	}
	if err != nil {
		return "", fmt.Errorf("ExecuteBatch: %v; the model says it succeeds", err)
	}
	if len(out) != len(ops) {
		return "", fmt.Errorf("ExecuteBatch returned %d documents for %d operations", len(out), len(ops))
	}
	// Apply it to the model, operation by operation, and check what the
	// library returned for each: one _ts for all (R14), LSNs in the
	// batch's order (R11). That they are consecutive, and that the feed
	// shows each change in order, written() checks with ManualSweep (each
	// takes the model's next LSN, which checkInvariants's read of the feed
	// checks too).
	var lsn uint64
	for i, op := range ops {
		what := fmt.Sprintf("ExecuteBatch operation %d (%s)", i, op.kind)
		var class string
		switch op.kind {
		case "Create", "Replace", "Upsert":
			class = h.m.write(op.kind, op.k, *op.in.doc, op.cond)
		case "Patch":
			class = h.m.patch(h.path, op.k, okClass, op.ops, op.cond)[0]
		case "Delete":
			class = h.m.remove(op.k, op.cond)
		case "Read":
			_, class = h.m.lookup(op.k, nil)
		}
		if class != okClass {
			panic(fmt.Sprintf("%s: the model predicted success, then says %s", what, class))
		}
		got := out[i]
		switch op.kind {
		case "Delete":
			if got.LSN() != 0 || got.JSON() != "" {
				return "", fmt.Errorf("%s: returned %s, want the zero Document", what, got.JSON())
			}
			continue
		case "Read":
			if err := h.checkDoc(what, got, op.k, h.m.docs[op.k]); err != nil {
				return "", err
			}
			continue
		}
		if got.TS() != h.m.now {
			return "", fmt.Errorf("%s: _ts %d, want %d: every write of a batch has the batch's _ts (R14)", what, got.TS(), h.m.now)
		}
		if got.LSN() <= lsn {
			return "", fmt.Errorf("%s: LSN %d after LSN %d", what, got.LSN(), lsn)
		}
		lsn = got.LSN()
		if err := h.written(what, op.k, got); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("ok %d operations", len(ops)), nil
}
