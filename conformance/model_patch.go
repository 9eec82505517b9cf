package conformance

// Patch and ExecuteBatch (R14) in the model-based test of model_test.go.
//
// The model predicts a patch with the reference implementation of
// internal/ref (ref.RefPatch), applied to the text of the model's
// document: success and the patched members, or the sentinel, in the order
// the library checks (the operations alone, then the key, the document's
// presence and etag, then the operations on the document, then the result
// as a written document, R2 and R10). A patch is a write (R4, R6): the
// document gets the second of the step as its _ts, a new etag, and the feed
// a replace (R11).
//
// A batch is predicted operation by operation, each on what the ones
// before it left: the model runs it on a scratch copy of the documents of
// its partition key, and only if every operation succeeds applies it to
// the model for real, one operation after the other, comparing each
// Document the library returned for it. A failed batch must change nothing,
// which checkInvariants and the feed's checks see after the step.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttldb/ttldb/internal/ref"

	"github.com/ttldb/ttldb"
)

// body is the document's text as the library stores it: its members, in
// order, compact.
func (d *mDoc) body() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range d.members {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(m.name)
		if err != nil {
			panic(err)
		}
		b.Write(name)
		b.WriteByte(':')
		b.WriteString(m.raw)
	}
	b.WriteByte('}')
	return b.String()
}

// docOfBody is the model's document of a patched body: its members, and
// its ttl as R2 reads it.
func docOfBody(body string) *mDoc {
	ms, err := jsonMembers(body)
	if err != nil {
		panic(fmt.Sprintf("the reference's body %q: %v", body, err))
	}
	d := &mDoc{members: ms, ttl: mTTL{kind: ttlAbsent}}
	for _, m := range ms {
		if m.name != "ttl" {
			continue
		}
		n, ok := ref.RefTTL(m.raw)
		switch {
		case !ok:
			panic(fmt.Sprintf("the reference accepts the ttl %s", m.raw))
		case m.raw == "null":
			d.ttl = mTTL{kind: ttlNull, lit: m.raw}
		case n == -1:
			d.ttl = mTTL{kind: ttlNever, n: -1, lit: m.raw}
		default:
			d.ttl = mTTL{kind: ttlSeconds, n: n, lit: m.raw}
		}
	}
	return d
}

// refFault is the error class of each fault the reference names.
var refFault = map[ref.Fault]string{
	ref.PreconditionFailed: classPrecondition, ref.InvalidTTL: classInvalidTTL, ref.InvalidID: classInvalidID,
	ref.InvalidPartitionKey: classInvalidPK, ref.InvalidDocument: classInvalidDoc,
	ref.TooLarge: classTooLarge, ref.InvalidPatch: classInvalidPatch,
}

// refLib makes the library's operations of the reference's.
var refLib = ref.Builders[ttldb.PatchOp]{
	Add: ttldb.PatchAdd, Set: ttldb.PatchSet, Replace: ttldb.PatchReplace, Remove: ttldb.PatchRemove,
	Increment: ttldb.PatchIncrement, IncrementFloat: ttldb.PatchIncrementFloat, Move: ttldb.PatchMove,
}

// faultClasses names the sentinels of a reference's failure.
func faultClasses(res ref.RefPatchResult) []string {
	var out []string
	for _, f := range res.Faults {
		out = append(out, refFault[f])
	}
	return out
}

// patch predicts Patch(k, ops) with an if-match etag when cond is not nil;
// class is the error of a bad partition key or id, else okClass. It
// returns the error classes one of which the library must return, or
// okClass alone, and then has applied the patch.
func (m *model) patch(pkPath string, k mKey, class string, ops []ref.RefPatchOp, cond *string) []string {
	d := m.docs[k]
	body := "{}"
	if d != nil {
		body = d.body()
	}
	res := ref.RefPatch(body, pkPath, ops)
	switch {
	case m.closed:
		return []string{classClosed} // every call after Close, whatever its input
	case res.Stage == ref.RefCompile:
		return []string{classInvalidPatch} // R14: bad in itself, whatever the document
	case class != okClass:
		return []string{class}
	case d == nil:
		return []string{classNotFound} // R4: expired is not found
	case cond != nil && *cond != d.etag:
		return []string{classPrecondition} // R10
	case res.Stage != ref.RefOK:
		return faultClasses(res)
	}
	nd := docOfBody(res.Body)
	nd.ts = m.now // R6: a patch is a write
	m.docs[k] = nd
	m.hist.change(ttldb.OpReplace, k, m.now, nd) // R11: a patch is a replace
	return []string{okClass}
}

// checkErrIn compares an error with the classes the model allows.
func (h *modelHarness) checkErrIn(op string, err error, want []string, msg string) error {
	got, e := errClass(err)
	if e != nil {
		return fmt.Errorf("%s: %v", op, e)
	}
	if !slices.Contains(want, got) {
		ws := make([]string, len(want))
		for i, w := range want {
			ws[i] = orOK(w)
		}
		return fmt.Errorf("%s: library says %s (%v), model says %s", op, orOK(got), err, strings.Join(ws, " or "))
	}
	if err != nil && msg != "" && !strings.Contains(err.Error(), msg) {
		return fmt.Errorf("%s: error %q does not name %q", op, err, msg)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Drawing patches.

// modelPatchPaths are paths drawn besides those of the document: members
// the generated documents have or not, array positions, escapes, and the
// paths a patch may not touch (R14).
var modelPatchPaths = []string{
	"/v", "/v", "/w", "/n", "/f", "/ttl", "/ttl", "/ttl", "/sub", "/sub/x", "/sub/x/1", "/sub/x/-",
	"/sub/x/2", "/sub/x/0", "/sub/ttl", "/sub/x/1/ttl", "/sub/id", "/sub/_ts", "/sub/pk/0", "/arr",
	"/arr/0", "/arr/-", "/arr/1", "/a~1b", "/m~0n", "/", "/t/x", "/t/y", "/pk", "/pk/0", "/ttl/x",
	"/v/0", "/sub/x/01", "/sub/x/9",
	// Refused whatever the document.
	"/t/pk", "/t", "/id", "/_ts", "/_etag", "/id/x", "", "v", "/v~2", "/v~",
}

// modelPatchValues are JSON values of add, set and replace.
var modelPatchValues = []string{
	"0", "7", "-3", "9223372036854775807", "-9223372036854775808", "1e2", "2.5", "-0", "10.0",
	`"s"`, `"\u00e9"`, `"é"`, "true", "false", "null", `{"x":1,"y":[1,2]}`, "[1,2,3]", "[]", "{}",
	`{"ttl":0,"id":"z","pk":[]}`, ` [ 1 , { "a" : 2 } ] `, "[[[]]]", "99999999999999999999",
	`{"d":1,"d":[2]}`, // a member twice: a path through it is ambiguous (R14)
}

// patchPath draws a path: one of the document's values, a new member or
// position under one of its objects or arrays, or one of modelPatchPaths.
func (h *modelHarness) patchPath(paths []ref.RefPath) string {
	r := h.r
	switch n := r.IntN(10); {
	case n < 4 && len(paths) > 0:
		return pick(r, paths).Pointer
	case n < 6 && len(paths) > 0:
		var cs []ref.RefPath
		for _, p := range paths {
			if p.Kind == 'o' || p.Kind == 'a' {
				cs = append(cs, p)
			}
		}
		if len(cs) == 0 {
			break
		}
		c := pick(r, cs)
		tok := pick(r, []string{"new", "x", "-", "0", "01", strconv.Itoa(c.Len), strconv.Itoa(c.Len + 1), strconv.Itoa(max(c.Len-1, 0))})
		return c.Pointer + "/" + tok
	}
	return pick(r, modelPatchPaths)
}

// patchValue draws the value of an add, a set or a replace at path: JSON
// text mostly, sometimes a Go value, sometimes one that is not JSON.
func (h *modelHarness) patchValue(path string) any {
	r := h.r
	var lit string
	switch n := r.IntN(100); {
	case strings.HasSuffix(path, "ttl") && n < 60:
		if t := h.genTTL(); t.kind != ttlAbsent && n < 45 {
			lit = t.lit
		} else {
			lit = pick(r, modelBadTTLs) // R2, for /ttl; just data deeper down
		}
	case n < 3: // R10: too deep
		lit = strings.Repeat("[", ttldb.MaxDepth) + strings.Repeat("]", ttldb.MaxDepth)
	case n < 5: // not JSON: refused before the document is looked up
		lit = pick(r, []string{`{"a":`, "tru", "", "[1,]", `"a`})
	case n < 12: // a Go value, which encoding/json encodes
		return pick(r, []any{"str", 42, 2.5, map[string]any{"k": 1}, []int{1, 2}, nil, true,
			math.NaN(), // does not encode: refused
		})
	case n == 12 && r.IntN(8) == 0: // R10: too large
		lit = `"` + strings.Repeat("x", ttldb.MaxDocumentSize) + `"`
	default:
		lit = pick(r, modelPatchValues)
	}
	if r.IntN(4) == 0 {
		return []byte(lit)
	}
	return json.RawMessage(lit)
}

// genPatchOps draws 1 to most operations on the document d (nil when there
// is none): mostly plausible ones, which apply to d when they come first;
// sometimes wild ones, on any path, which seldom do; sometimes none, or
// more than MaxPatchOperations.
func (h *modelHarness) genPatchOps(d *mDoc, most int, wild bool) []ref.RefPatchOp {
	r := h.r
	var paths []ref.RefPath
	if d != nil {
		paths = ref.RefPaths(d.body())
	}
	n := 1 + r.IntN(most)
	switch r.IntN(60) {
	case 0:
		n = 0
	case 1:
		n = ttldb.MaxPatchOperations + 1 + r.IntN(2)
	case 2:
		n = ttldb.MaxPatchOperations
	}
	ops := make([]ref.RefPatchOp, n)
	for i := range ops {
		if wild {
			ops[i] = h.wildPatchOp(paths)
		} else {
			ops[i] = h.plausiblePatchOp(paths)
		}
	}
	return ops
}

// wildPatchOp draws an operation of any kind on any path.
func (h *modelHarness) wildPatchOp(paths []ref.RefPath) ref.RefPatchOp {
	r := h.r
	o := ref.RefPatchOp{Path: h.patchPath(paths)}
	switch k := r.IntN(100); {
	case k < 18:
		o.Kind, o.Value = "add", h.patchValue(o.Path)
	case k < 38:
		o.Kind, o.Value = "set", h.patchValue(o.Path)
	case k < 50:
		o.Kind, o.Value = "replace", h.patchValue(o.Path)
	case k < 62:
		o.Kind = "remove"
	case k < 80:
		o.Kind = "incr"
		if r.IntN(4) == 0 {
			o.Float, o.ByFloat = true, pick(r, []float64{0.5, -2.25, 0.1, 1e300, 3, 1e20, 1e-5, math.NaN(), math.Inf(-1)})
		} else {
			o.By = pick(r, []int64{1, 1, -1, 0, 5, 1000, math.MaxInt64, math.MinInt64})
		}
	case k < 99:
		o.Kind, o.From = "move", h.patchPath(paths)
	}
	return o
}

// patchable reports whether a patch may touch the path p (R14): not the
// id, and not the partition key, its parents or what lies inside it.
func (h *modelHarness) patchable(p string) bool {
	in := func(p, prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }
	return !in(p, "/id") && !in(p, h.path) && !in(h.path, p)
}

// plausiblePatchOp draws an operation that applies to the document of
// paths, if the operations before it have left that document as it was:
// on its values, new members of its objects, positions of its arrays, and
// often its ttl (R6: a patch of /ttl changes the document's life).
func (h *modelHarness) plausiblePatchOp(paths []ref.RefPath) ref.RefPatchOp {
	r := h.r
	var vals, nums, objs, arrs []ref.RefPath
	for _, p := range paths {
		if !h.patchable(p.Pointer) {
			continue
		}
		vals = append(vals, p)
		switch p.Kind {
		case 'n':
			nums = append(nums, p)
		case 'o':
			objs = append(objs, p)
		case 'a':
			arrs = append(arrs, p)
		}
	}
	objs = append(objs, ref.RefPath{Pointer: "", Kind: 'o'}) // the document
	// fresh draws a member that may be new, or a position in an array.
	fresh := func() string {
		if len(arrs) > 0 && r.IntN(3) == 0 {
			a := pick(r, arrs)
			return a.Pointer + "/" + pick(r, []string{"-", strconv.Itoa(r.IntN(a.Len + 1))})
		}
		return pick(r, objs).Pointer + "/" + pick(r, []string{"w", "n", "f", "arr", "a~1b", "m~0n", "o", ""})
	}
	value := func() any {
		if r.IntN(4) == 0 {
			return []byte(pick(r, modelPatchValues))
		}
		return json.RawMessage(pick(r, modelPatchValues))
	}
	var o ref.RefPatchOp
	switch k := r.IntN(100); {
	case k < 15: // R6: the document's own ttl
		t := h.genTTL()
		switch {
		case t.kind == ttlAbsent:
			o = ref.RefPatchOp{Kind: "remove", Path: "/ttl"}
		case t.kind == ttlSeconds && r.IntN(3) == 0:
			o = ref.RefPatchOp{Kind: "incr", Path: "/ttl", By: t.n}
		default:
			o = ref.RefPatchOp{Kind: pick(r, []string{"set", "add", "replace"}), Path: "/ttl", Value: json.RawMessage(t.lit)}
		}
	case k < 30:
		o = ref.RefPatchOp{Kind: pick(r, []string{"add", "set"}), Path: fresh(), Value: value()}
	case k < 40 && len(vals) > 0:
		o = ref.RefPatchOp{Kind: pick(r, []string{"add", "set", "replace"}), Path: pick(r, vals).Pointer, Value: value()}
	case k < 50 && len(vals) > 0:
		o = ref.RefPatchOp{Kind: "remove", Path: pick(r, vals).Pointer}
	case k < 70 && len(nums) > 0:
		o = ref.RefPatchOp{Kind: "incr", Path: pick(r, nums).Pointer, By: pick(r, []int64{1, -1, 7})}
		if r.IntN(4) == 0 {
			o.Float, o.ByFloat = true, pick(r, []float64{0.5, -2.25, 0.1, 1e20, 1e-5, 123456789.25})
		}
	case k < 80:
		o = ref.RefPatchOp{Kind: "incr", Path: fresh(), By: 1}
	case k < 92 && len(vals) > 0:
		o = ref.RefPatchOp{Kind: "move", From: pick(r, vals).Pointer, Path: fresh()}
		if r.IntN(4) == 0 {
			o.Path = o.From
		}
	default:
		o = h.wildPatchOp(paths)
	}
	return o
}

func describePatch(ops []ref.RefPatchOp) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = o.String()
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// genPatch is a Patch of a key, sometimes a bad one (R10), with operations
// drawn on its document (R14).
func (h *modelHarness) genPatch() modelStep {
	k := h.pickKey()
	if live := h.m.list(nil, nil, nil); len(live) > 0 && h.r.IntN(3) == 0 {
		k = pick(h.r, live)
	}
	drawn := k
	k, pk, id, class := h.nameKey(drawn, false, 4)
	ops := h.genPatchOps(h.m.docs[drawn], 4, h.r.IntN(4) == 0)
	opts, cond, condDesc := h.genIfMatch(drawn)
	desc := fmt.Sprintf("Patch(%.40v, %.40q, %s)%s", pk, id, describePatch(ops), condDesc)
	return modelStep{desc, func() (string, error) {
		got, err := h.c.Patch(bg, pk, id, refLib.Ops(ops), opts...)
		want := h.m.patch(h.path, k, class, ops, cond)
		msg := ""
		if len(want) == 1 && (want[0] == classNotFound || want[0] == classPrecondition) {
			msg = strconv.Quote(id)
		}
		if e := h.checkErrIn("Patch", err, want, msg); e != nil || err != nil {
			return orOK(want[0]), e
		}
		return fmt.Sprintf("ok _ts=%d %.200s", got.TS(), got.Body()), h.written("Patch", k, got)
	}}
}

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

// ---------------------------------------------------------------------------
// Patch after Close.

// checkPatchAfterClose: every call after Close returns ErrClosed
// (Collection.Close), whatever its input, and so does every method of the
// zero Collection. (Patch once checked its operations first, and reported
// ErrInvalidPatch for bad ones after Close, and for every patch of the zero
// Collection, whose partition-key path is empty.) R14, R12.
func checkPatchAfterClose(t *testing.T, eng Harness) {
	c, err := eng.Open(t, "c", "/pk", &ttldb.Options{ManualSweep: true, Now: newClock(time.Unix(1_700_000_000, 0)).Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(bg, []byte(`{"id":"a","pk":"p"}`)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ops := range [][]ttldb.PatchOp{
		{ttldb.PatchSet("/x", 1)},
		nil,
		{{}},
		{ttldb.PatchSet("/id", 1)},
		{ttldb.PatchSet("/x", json.RawMessage("{"))},
	} {
		if _, err := c.Patch(bg, ttldb.StringKey("p"), "a", ops); !errors.Is(err, ttldb.ErrClosed) {
			t.Errorf("Patch(%v) after Close: %v, want ErrClosed", ops, err)
		}
		b := ttldb.NewBatch(ttldb.StringKey("p"))
		b.Patch("a", ops)
		if _, err := c.ExecuteBatch(bg, b); !errors.Is(err, ttldb.ErrClosed) {
			t.Errorf("ExecuteBatch of Patch(%v) after Close: %v, want ErrClosed", ops, err)
		}
	}
	var zero ttldb.Collection
	if _, err := zero.Patch(bg, ttldb.NoPartitionKey(), "a", []ttldb.PatchOp{ttldb.PatchSet("/x", 1)}); !errors.Is(err, ttldb.ErrClosed) {
		t.Errorf("Patch of the zero Collection: %v, want ErrClosed", err)
	}
}
