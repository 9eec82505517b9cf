package ttldb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/patch"
)

// MaxPatchOperations is the most operations one patch may hold, as in
// Cosmos DB.
const MaxPatchOperations = 10

// PatchOp is one operation of a partial document update (R14), made by
// [PatchAdd], [PatchSet], [PatchReplace], [PatchRemove], [PatchIncrement],
// [PatchIncrementFloat] or [PatchMove], or read from Cosmos DB's JSON form,
// [{"op":"incr","path":"/n","value":1}], by [ParsePatch] (a whole patch)
// or UnmarshalJSON (one operation); MarshalJSON writes that form. The
// zero PatchOp is no operation: a patch that holds one is refused with
// [ErrInvalidPatch].
//
// A path is a JSON Pointer (RFC 6901): "/status", "/address/city",
// "/tags/0" for an element of an array, "/tags/-" for the end of one; in a
// member name, '~' is written ~0 and '/' ~1. A path's last token is
// created by add, set, incr and move when it does not exist; every token
// before it must exist, and must be an object or an array.
type PatchOp struct {
	kind  patch.Kind
	path  string
	from  string
	value any
	by    patch.Number
}

// PatchAdd sets the member at path to value, whether it exists or not; at
// an index of an array it inserts value there, shifting the elements
// after it; at "-", or at the array's length, it appends.
//
// value is JSON text when it is a json.RawMessage or a []byte, and is
// encoded with encoding/json otherwise (a string, a number, a map, a
// struct...).
func PatchAdd(path string, value any) PatchOp {
	return PatchOp{kind: patch.Add, path: path, value: value}
}

// PatchSet is [PatchAdd], but at an existing index of an array it replaces
// the element.
func PatchSet(path string, value any) PatchOp {
	return PatchOp{kind: patch.Set, path: path, value: value}
}

// PatchReplace replaces the member or element at path, which must exist.
func PatchReplace(path string, value any) PatchOp {
	return PatchOp{kind: patch.Replace, path: path, value: value}
}

// PatchRemove removes the member or element at path, which must exist;
// the elements after a removed one shift down.
func PatchRemove(path string) PatchOp { return PatchOp{kind: patch.Remove, path: path} }

// PatchIncrement adds by (negative to subtract) to the number at path, or
// creates it with the value by when it does not exist. An integer stays an
// integer, and an integer or a sum beyond the range of int64 is refused,
// never rounded; a number with a fraction or an exponent adds as float64.
func PatchIncrement(path string, by int64) PatchOp {
	return PatchOp{kind: patch.Incr, path: path, by: patch.Number{Int: by}}
}

// PatchIncrementFloat is [PatchIncrement] with a float64, which must be
// finite; the sum is a float64.
func PatchIncrementFloat(path string, by float64) PatchOp {
	return PatchOp{kind: patch.Incr, path: path, by: patch.Number{Float: by, IsFloat: true}}
}

// PatchMove removes the value at from, which must exist, and adds it at
// path as [PatchAdd] would. path must not lie inside from.
func PatchMove(from, path string) PatchOp {
	return PatchOp{kind: patch.Move, path: path, from: from}
}

// String describes the operation, as "set /status" or "move /a to /b".
func (op PatchOp) String() string {
	if op.kind == patch.Move {
		return "move " + op.from + " to " + op.path
	}
	if op.kind == 0 {
		return "no operation"
	}
	return op.kind.String() + " " + op.path
}

// compilePatch checks ops, a patch of the document id, and turns them into
// the operations of internal/patch: paths split, values encoded, the paths
// a patch may not touch refused. Errors wrap [ErrInvalidPatch].
func (c *Collection) compilePatch(ops []PatchOp, id string) ([]patch.Op, error) {
	switch {
	case len(ops) == 0:
		return nil, errorf(ErrInvalidPatch, "the patch of document %q holds no operation", id)
	case len(ops) > MaxPatchOperations:
		return nil, errorf(ErrInvalidPatch, "the patch of document %q holds %d operations, at most %d are allowed (as in Cosmos DB): split it into several patches, or a Batch to apply them together", id, len(ops), MaxPatchOperations)
	}
	out := make([]patch.Op, len(ops))
	for i, op := range ops {
		p, err := c.compileOp(op)
		if err != nil {
			return nil, errorf(ErrInvalidPatch, "document %q: operation %d of %d (%v): %v", id, i+1, len(ops), op, err)
		}
		out[i] = p
	}
	return out, nil
}

// compileOp compiles one operation.
func (c *Collection) compileOp(op PatchOp) (p patch.Op, err error) {
	if op.kind == 0 {
		return p, errors.New("the zero PatchOp: make operations with PatchAdd, PatchSet and the others")
	}
	p.Kind, p.By = op.kind, op.by
	if p.Path, err = c.patchPath(op.path); err != nil {
		return p, err
	}
	switch op.kind {
	case patch.Move:
		if p.From, err = c.patchPath(op.from); err != nil {
			return p, err
		}
	case patch.Incr:
		if op.by.IsFloat && (math.IsInf(op.by.Float, 0) || math.IsNaN(op.by.Float)) {
			return p, fmt.Errorf("%v is not a finite number", op.by.Float)
		}
	case patch.Add, patch.Set, patch.Replace:
		if p.Value, err = encodeValue(op.value); err != nil {
			return p, err
		}
	}
	return p, nil
}

// patchPath splits path, and refuses the paths of the id, the system
// properties and the partition key: a patch changes neither the document's
// identity nor what the library writes itself.
func (c *Collection) patchPath(path string) ([]string, error) {
	toks, err := patch.Pointer(path)
	if err != nil {
		return nil, err
	}
	switch toks[0] {
	case "id":
		return nil, fmt.Errorf("path %q is the document's id, which a patch cannot change: create a new document and delete this one", path)
	case "_ts", "_etag":
		return nil, fmt.Errorf("path %q is a system property, which the library writes itself", path)
	}
	if patch.HasPrefix(c.pkPath, toks) || patch.HasPrefix(toks, c.pkPath) {
		return nil, fmt.Errorf("path %q holds the partition key (%s), which a patch cannot change: create a new document and delete this one", path, c.path)
	}
	return toks, nil
}

// encodeValue turns a patch operation's value into compact JSON text.
func encodeValue(v any) ([]byte, error) {
	var src []byte
	switch x := v.(type) {
	case json.RawMessage:
		src = x
	case []byte:
		src = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("value of type %T does not encode to JSON: %v", v, err)
		}
		return b, nil
	}
	var out bytes.Buffer
	if err := json.Compact(&out, src); err != nil {
		return nil, fmt.Errorf("value %q is not valid JSON: %v", clip(src), err)
	}
	if !utf8.Valid(out.Bytes()) {
		return nil, fmt.Errorf("value %q is not valid UTF-8, which JSON text must be", clip(src))
	}
	return out.Bytes(), nil
}

// applyPatch applies ops to old's body and parses the result as a new
// document of old's key, not yet stamped. Errors: [ErrInvalidPatch] for an
// operation that does not apply to this document; those of parsing a
// document (R2, R10) for a result that breaks a rule.
func (c *Collection) applyPatch(old *engine.Doc, ops []patch.Op) (*engine.Doc, error) {
	body, err := patch.Apply([]byte(old.Body()), ops)
	if err != nil {
		return nil, errorf(ErrInvalidPatch, "document %q: %v", old.ID(), err)
	}
	bufp := intakeBuffers.Get().(*[]byte)
	defer func() {
		if cap(*bufp) <= 64<<10 {
			intakeBuffers.Put(bufp)
		}
	}()
	var kb keyBuffer
	in, key, err := parseDocument(*bufp, kb[:0], body, c.pkPath)
	*bufp = in.out[:0]
	if err != nil {
		return nil, fmt.Errorf("%w (in document %q as the patch would leave it: %.80s)", err, old.ID(), body)
	}
	if string(key) != old.Key() { // the paths above keep it; this is a last guard
		return nil, errorf(ErrInvalidPatch, "document %q: the patch changes its id or partition key", old.ID())
	}
	return engine.NewDoc(key, in.at, in.out, in.ttl, 0, 0), nil
}

// Patch applies ops, at most [MaxPatchOperations], to the live document
// with partition key pk and id id: all of them, in order, or none (R14).
// A patch is a write: the document gets a new _ts, which restarts its
// countdown (R6), and a new _etag; the change feed shows it as a replace
// (R11). Patching /ttl changes the document's life, validated as any ttl
// (R2). With [IfMatch] the patch applies only to that version. Patch
// returns the document as stored. It takes O(log n + size of the
// document), under the collection's lock.
//
// Errors: [ErrInvalidPatch] for a malformed operation, a path of id, _ts,
// _etag or the partition key, or an operation that does not apply to the
// document (a missing member to replace or remove, a path through a
// string, an incr of a non-number...); [ErrInvalidTTL], [ErrTooLarge] or
// [ErrInvalidDocument] for a result that breaks R2 or R10; and the errors
// of Delete. An error changes nothing.
func (c *Collection) Patch(ctx context.Context, pk PartitionKey, id string, ops []PatchOp, opts ...WriteOption) (Document, error) {
	return c.patch(ctx, pk, id, ops, opts, nil)
}

// patch is Patch, refusing a patched document that fits does not accept
// (for [Typed.Patch]: one that does not decode into its type).
func (c *Collection) patch(ctx context.Context, pk PartitionKey, id string, ops []PatchOp, opts []WriteOption, fits func(*engine.Doc) error) (Document, error) {
	if !ctxLive(ctx) { // before the patch is compiled; modify looks again
		return Document{}, contextError(ctx, "Patch")
	}
	if c.unusable() {
		return Document{}, c.errClosed("Patch")
	}
	compiled, err := c.compilePatch(ops, id)
	if err != nil {
		return Document{}, err
	}
	return c.modify(ctx, engine.Modify, pk, id, opts, func(old *engine.Doc, _ int64) (*engine.Doc, error) {
		d, err := c.applyPatch(old, compiled)
		if err != nil {
			return nil, err
		}
		if fits != nil {
			if err := fits(d); err != nil {
				return nil, err
			}
		}
		return d, nil
	})
}
