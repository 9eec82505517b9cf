package ref

// An independent reference implementation of the partial document update
// of R14 (Collection.Patch), written from the text of SPEC.md and of the
// Patch API's documentation, not from internal/patch. It is the oracle of
// the root package's FuzzPatch (fuzz_patch_test.go) and of the Patch and
// ExecuteBatch steps of the conformance suite's model
// (conformance/model_patch.go). (The exported names, RefPatch, RefPatchOp,
// ..., date from when it lived in the root package's tests.)
//
// The document is read with encoding/json's Decoder (UseNumber), token by
// token, into a tree of its own (refNode) that keeps members in order,
// duplicate members, number literals as written, and the literal of every
// string and member name as written (escapes included), so that the
// result can be written back byte for byte as the library stores it (the
// library keeps the text of what a patch does not touch). A result can also
// be written in a canonical form (strings and names decoded and quoted
// again, numbers as written, members in order), which compares documents
// semantically while keeping the order of members.
//
// The semantics, as the reference implements them:
//   - Paths are JSON Pointers (RFC 6901): "" and paths not starting with
//     '/' are refused, '~' must be followed by 0 or 1 (~1 is '/', ~0 is
//     '~'), and (a decision of the library, which the reference adopts)
//     a path holds at most 128 tokens: no valid document is deeper.
//   - A path (and a move's from) starting at /id, /_ts or /_etag, or that is
//     the partition-key path, one of its parents or inside it, is refused.
//   - Every token before the last must exist and name an object or an
//     array; an array is indexed by 0 or digits without a leading zero; a
//     member name an object holds twice is refused wherever a path looks it
//     up.
//   - add: a member is set whether it exists or not (a new one goes last);
//     into an array, an index from 0 to the length inserts, "-" appends.
//     set: as add, but an existing index replaces the element. replace:
//     the member or element must exist. remove: it must exist; elements
//     after it shift down. incr: the target must be a number; two integers
//     (the target an integer literal within int64, the amount an int64) add
//     exactly, a sum outside int64 is refused; anything else adds as
//     float64, written as encoding/json writes a float64, and a sum that is
//     not finite is refused; a missing object member is created with the
//     amount; an array element must exist. move: from must exist; a path
//     inside from is refused; from equal to path changes nothing; otherwise
//     the value is removed from from, then added at path as add does, on
//     the document as the removal left it.
//   - The patched document is then checked as any written document (R2,
//     R10) by ExpectDocument, the independent oracle of FuzzDocument.

import (
	"fmt"
	"strconv"
	"strings"
)

// Where a patch fails, for RefPatchResult.Stage: the library checks the
// operations alone before it looks the document up (so that a bad patch is
// ErrInvalidPatch even of a missing document), then applies them, then
// checks the result as a written document.
const (
	RefOK = iota
	RefCompile
	RefApply
	RefValidate
)

// RefPatchResult is what the reference says of a patch.
type RefPatchResult struct {
	Stage  int     // RefOK, or where it fails
	Faults []Fault // when it fails: the sentinels, one of which the library must return
	Reason string
	Body   string // the patched document as the library stores it (compact, literals as written)
	Canon  string // and in the canonical form of RefCanonical
	// Exact: Body is exactly the library's; else only Canon is
	// comparable: a member the patch added has a name that JSON may
	// escape in several ways (a control character, U+2028, U+2029).
	Exact bool
}

// String describes the outcome, for messages.
func (r RefPatchResult) String() string {
	if r.Stage == RefOK {
		return "ok " + r.Body
	}
	return fmt.Sprintf("%s at stage %d (%s)", r.Faults, r.Stage, r.Reason)
}

// RefPatch applies ops to body, a document's compact text without _ts and
// _etag, in a collection whose partition-key path is pkPath.
func RefPatch(body, pkPath string, ops []RefPatchOp) RefPatchResult {
	pk := strings.Split(pkPath[1:], "/")
	compiled, err := refCompile(ops, pk)
	if err != nil {
		return RefPatchResult{Stage: RefCompile, Faults: []Fault{InvalidPatch}, Reason: err.Error()}
	}
	root, err := refParse([]byte(body))
	if err != nil || root.kind != 'o' {
		panic(fmt.Sprintf("RefPatch of %q, not a JSON object: %v", body, err))
	}
	for i, op := range compiled {
		if err := refApply(root, op); err != nil {
			return RefPatchResult{Stage: RefApply, Faults: []Fault{InvalidPatch}, Reason: fmt.Sprintf("operation %d (%v): %v", i+1, ops[i], err)}
		}
	}
	res := RefPatchResult{Body: string(root.appendTo(nil, false)), Canon: string(root.appendTo(nil, true)), Exact: refExact(root)}
	e := ExpectDocument([]byte(res.Body), pkPath)
	switch {
	case e.ScanErr:
		res.Faults = []Fault{InvalidDocument}
		res.Reason = "the result is not valid UTF-8, or too deep"
		if e.BigInput { // and over R10's size too: either may be reported
			res.Faults = append(res.Faults, TooLarge)
			res.Reason += ", and too large"
		}
	case len(e.Faults) > 0:
		for _, s := range Faults {
			if e.Faults[s] {
				res.Faults = append(res.Faults, s)
			}
		}
		res.Reason = "the result breaks R2 or R10"
	default:
		return res
	}
	res.Stage, res.Body, res.Canon = RefValidate, "", ""
	return res
}

// refExact reports whether every name the reference made is one JSON
// writes in one way only.
func refExact(n *refNode) bool {
	for _, nm := range n.names {
		if nm.raw == "" && strings.ContainsFunc(nm.str, func(r rune) bool { return r < 0x20 || r == '\u2028' || r == '\u2029' }) {
			return false
		}
	}
	for _, kid := range n.kids {
		if !refExact(kid) {
			return false
		}
	}
	return true
}

// RefTTL is R2 for the literal of a document's ttl: null (0, true), or an
// integral number equal to -1 or from 1 to 2147483647; ok is false for any
// other value. (The oracle of FuzzTTLValue, exact on the text.)
func RefTTL(lit string) (int64, bool) { return ttlOracle(lit) }

// RefPath is a value of a document: its JSON Pointer, its kind ('o', 'a',
// 's', 'n', 't', 'f' or 'z') and, for an object or an array, its length.
type RefPath struct {
	Pointer string
	Kind    byte
	Len     int
}

// RefPaths lists every value of the JSON document body but the document
// itself, parents before their members, in order.
func RefPaths(body string) []RefPath {
	root, err := refParse([]byte(body))
	if err != nil {
		panic(fmt.Sprintf("RefPaths of %q: %v", body, err))
	}
	var out []RefPath
	var walk func(n *refNode, at string)
	walk = func(n *refNode, at string) {
		for i, kid := range n.kids {
			tok := strconv.Itoa(i)
			if n.kind == 'o' {
				tok = strings.NewReplacer("~", "~0", "/", "~1").Replace(n.names[i].str)
			}
			p := at + "/" + tok
			out = append(out, RefPath{p, kid.kind, len(kid.kids)})
			walk(kid, p)
		}
	}
	walk(root, "")
	return out
}

// TestPatchReferenceKnownAnswers checks the reference, and the library,
// against results written out by hand from the semantics of R14, so that
// the reference is not only as right as the library it is compared with
// elsewhere. R14.

// Member returns the literal, as written, of the root member name of the
// JSON object doc ("" when it has none); ok is false when doc is not a
// JSON object.
func Member(doc, name string) (lit string, ok bool) {
	n, err := refParse([]byte(doc))
	if err != nil || n.kind != 'o' {
		return "", false
	}
	j, err := n.member(name)
	if err != nil || j < 0 {
		return "", true
	}
	return string(n.kids[j].appendTo(nil, false)), true
}
