package conformance

// Patch and ExecuteBatch (R14) in the model-based test of model.go.
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
	"fmt"
	"slices"
	"strings"

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
