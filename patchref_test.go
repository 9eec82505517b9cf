package ttldb

// The root package's side of the reference patch of R14 (internal/ref, the
// oracle of FuzzPatch and of the conformance suite's model): the library's
// constructors it makes operations with, and tests of the reference
// itself against answers written out by hand.

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ttldb/ttldb/internal/ref"
)

// refLib makes the library's operations of the reference's.
var refLib = ref.Builders[PatchOp]{
	Add: PatchAdd, Set: PatchSet, Replace: PatchReplace, Remove: PatchRemove,
	Increment: PatchIncrement, IncrementFloat: PatchIncrementFloat, Move: PatchMove,
}

// fzAllows reports whether err matches one of the faults of res.
func fzAllows(res ref.RefPatchResult, err error) bool {
	for _, f := range res.Faults {
		if errors.Is(err, fzFault[f]) {
			return true
		}
	}
	return false
}

// TestReferenceLimits checks that the oracles' copy of R10's and R14's
// limits is the library's, and that each of its faults names a sentinel.
// R10, R14.
func TestReferenceLimits(t *testing.T) {
	if ref.MaxDocumentSize != MaxDocumentSize || ref.MaxDepth != MaxDepth || ref.MaxPatchOperations != MaxPatchOperations {
		t.Fatalf("internal/ref's limits %d, %d, %d are not the library's %d, %d, %d",
			ref.MaxDocumentSize, ref.MaxDepth, ref.MaxPatchOperations, MaxDocumentSize, MaxDepth, MaxPatchOperations)
	}
	for _, f := range ref.Faults {
		if fzFault[f] == nil {
			t.Fatalf("fault %q of internal/ref has no sentinel in fzFault", f)
		}
	}
}

// TestPatchReferenceKnownAnswers checks the reference, and the library,
// against results written out by hand from the semantics of R14, so that
// the reference is not only as right as the library it is compared with
// elsewhere. R14.
func TestPatchReferenceKnownAnswers(t *testing.T) {
	const doc = `{"id":"a","pk":"p","n":1,"arr":[1,2,3],"o":{"k":"v"}}`
	with := func(s string) string { return strings.Replace(doc, `,"o":{"k":"v"}}`, s, 1) }
	arr := func(s string) string { return strings.Replace(doc, `[1,2,3]`, s, 1) }
	add := func(p string, v string) ref.RefPatchOp {
		return ref.RefPatchOp{Kind: "add", Path: p, Value: json.RawMessage(v)}
	}
	set := func(p string, v string) ref.RefPatchOp {
		return ref.RefPatchOp{Kind: "set", Path: p, Value: json.RawMessage(v)}
	}
	rep := func(p string, v string) ref.RefPatchOp {
		return ref.RefPatchOp{Kind: "replace", Path: p, Value: json.RawMessage(v)}
	}
	rem := func(p string) ref.RefPatchOp { return ref.RefPatchOp{Kind: "remove", Path: p} }
	incr := func(p string, by int64) ref.RefPatchOp { return ref.RefPatchOp{Kind: "incr", Path: p, By: by} }
	move := func(from, p string) ref.RefPatchOp { return ref.RefPatchOp{Kind: "move", From: from, Path: p} }
	bad := ErrInvalidPatch.Error()
	cases := []struct {
		doc  string
		ops  []ref.RefPatchOp
		want string // the body, or the error text of the sentinel
	}{
		{doc, []ref.RefPatchOp{add("/x", "5")}, with(`,"o":{"k":"v"},"x":5}`)},
		{doc, []ref.RefPatchOp{add("/n", " [ 5 ] ")}, strings.Replace(doc, `"n":1`, `"n":[5]`, 1)},
		{doc, []ref.RefPatchOp{add("/arr/1", "9")}, arr("[1,9,2,3]")},
		{doc, []ref.RefPatchOp{add("/arr/0", "9")}, arr("[9,1,2,3]")},
		{doc, []ref.RefPatchOp{add("/arr/3", "9")}, arr("[1,2,3,9]")},
		{doc, []ref.RefPatchOp{add("/arr/-", "9")}, arr("[1,2,3,9]")},
		{doc, []ref.RefPatchOp{add("/arr/4", "9")}, bad},
		{doc, []ref.RefPatchOp{add("/arr/01", "9")}, bad},
		{doc, []ref.RefPatchOp{set("/arr/1", "9")}, arr("[1,9,3]")},
		{doc, []ref.RefPatchOp{set("/arr/3", "9")}, arr("[1,2,3,9]")},
		{doc, []ref.RefPatchOp{set("/arr/-", "9")}, arr("[1,2,3,9]")},
		{doc, []ref.RefPatchOp{set("/arr/4", "9")}, bad},
		{doc, []ref.RefPatchOp{set("/o/k", `"\u0077"`)}, with(`,"o":{"k":"\u0077"}}`)},
		{doc, []ref.RefPatchOp{rep("/arr/1", "9")}, arr("[1,9,3]")},
		{doc, []ref.RefPatchOp{rep("/arr/3", "9")}, bad},
		{doc, []ref.RefPatchOp{rep("/arr/-", "9")}, bad},
		{doc, []ref.RefPatchOp{rep("/x", "9")}, bad},
		{doc, []ref.RefPatchOp{rep("/o", "null")}, with(`,"o":null}`)},
		{doc, []ref.RefPatchOp{rem("/arr/0")}, arr("[2,3]")},
		{doc, []ref.RefPatchOp{rem("/arr/3")}, bad},
		{doc, []ref.RefPatchOp{rem("/arr/-")}, bad},
		{doc, []ref.RefPatchOp{rem("/x")}, bad},
		{doc, []ref.RefPatchOp{rem("/o/k"), rem("/n")}, `{"id":"a","pk":"p","arr":[1,2,3],"o":{}}`},
		{doc, []ref.RefPatchOp{incr("/n", 2)}, strings.Replace(doc, `"n":1`, `"n":3`, 1)},
		{doc, []ref.RefPatchOp{incr("/n", -3)}, strings.Replace(doc, `"n":1`, `"n":-2`, 1)},
		{doc, []ref.RefPatchOp{{Kind: "incr", Path: "/n", ByFloat: 0.5, Float: true}}, strings.Replace(doc, `"n":1`, `"n":1.5`, 1)},
		{doc, []ref.RefPatchOp{set("/n", "2.5"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":3.5`, 1)},
		{doc, []ref.RefPatchOp{set("/n", "1e2"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":101`, 1)},
		{doc, []ref.RefPatchOp{set("/n", "9007199254740993"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":9007199254740994`, 1)},
		{doc, []ref.RefPatchOp{set("/n", "9223372036854775806"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":9223372036854775807`, 1)},
		{doc, []ref.RefPatchOp{incr("/n", math.MaxInt64)}, bad},
		{doc, []ref.RefPatchOp{set("/n", "-9223372036854775807"), incr("/n", -2)}, bad},
		{doc, []ref.RefPatchOp{{Kind: "incr", Path: "/n", ByFloat: math.Inf(1), Float: true}}, bad},
		{doc, []ref.RefPatchOp{set("/n", "1e308"), {Kind: "incr", Path: "/n", ByFloat: 1e308, Float: true}}, bad},
		{doc, []ref.RefPatchOp{incr("/x", 4)}, with(`,"o":{"k":"v"},"x":4}`)},
		{doc, []ref.RefPatchOp{{Kind: "incr", Path: "/x", ByFloat: 1e21, Float: true}}, with(`,"o":{"k":"v"},"x":1e+21}`)},
		{doc, []ref.RefPatchOp{incr("/arr/0", 1)}, arr("[2,2,3]")},
		{doc, []ref.RefPatchOp{incr("/arr/3", 1)}, bad},
		{doc, []ref.RefPatchOp{incr("/o", 1)}, bad},
		{doc, []ref.RefPatchOp{incr("/o/k", 1)}, bad},
		{doc, []ref.RefPatchOp{move("/n", "/o/n")}, `{"id":"a","pk":"p","arr":[1,2,3],"o":{"k":"v","n":1}}`},
		{doc, []ref.RefPatchOp{move("/n", "/n")}, doc},
		{doc, []ref.RefPatchOp{move("/x", "/x")}, bad},
		{doc, []ref.RefPatchOp{move("/n", "/arr")}, `{"id":"a","pk":"p","arr":1,"o":{"k":"v"}}`},
		{doc, []ref.RefPatchOp{move("/o", "/o/x")}, bad},
		{doc, []ref.RefPatchOp{move("/o/k", "/o")}, `{"id":"a","pk":"p","n":1,"arr":[1,2,3],"o":"v"}`},
		{doc, []ref.RefPatchOp{move("/arr/0", "/arr/-")}, arr("[2,3,1]")},
		{doc, []ref.RefPatchOp{move("/arr/0", "/arr/2")}, arr("[2,3,1]")},
		{doc, []ref.RefPatchOp{move("/arr/2", "/arr/0")}, arr("[3,1,2]")},
		{doc, []ref.RefPatchOp{add("/o/k/x", "1")}, bad},
		{doc, []ref.RefPatchOp{add("/q/x", "1")}, bad},
		{doc, []ref.RefPatchOp{add("/arr/x", "1")}, bad},
		{doc, []ref.RefPatchOp{add("/a~1b", "1"), add("/m~0n", "2"), add("/", "3")}, with(`,"o":{"k":"v"},"a/b":1,"m~n":2,"":3}`)},
		{doc, []ref.RefPatchOp{add("/id", `"b"`)}, bad},
		{doc, []ref.RefPatchOp{add("/pk", `"q"`)}, bad},
		{doc, []ref.RefPatchOp{rem("/pk")}, bad},
		{doc, []ref.RefPatchOp{add("/_ts", "1")}, bad},
		{doc, []ref.RefPatchOp{add("/_etag", `"x"`)}, bad},
		{doc, []ref.RefPatchOp{add("", "1")}, bad},
		{doc, []ref.RefPatchOp{add("x", "1")}, bad},
		{doc, []ref.RefPatchOp{add("/x~2", "1")}, bad},
		{doc, []ref.RefPatchOp{add("/x", "{")}, bad},
		{doc, []ref.RefPatchOp{{}}, bad},
		{doc, nil, bad},
		{doc, slices.Repeat([]ref.RefPatchOp{incr("/n", 1)}, MaxPatchOperations), strings.Replace(doc, `"n":1`, `"n":11`, 1)},
		{doc, slices.Repeat([]ref.RefPatchOp{incr("/n", 1)}, MaxPatchOperations+1), bad},
		{doc, []ref.RefPatchOp{set("/n", "2"), rep("/missing", "1")}, bad},
		{doc, []ref.RefPatchOp{set("/ttl", "5")}, with(`,"o":{"k":"v"},"ttl":5}`)},
		{doc, []ref.RefPatchOp{set("/ttl", "10.0"), incr("/ttl", -5)}, with(`,"o":{"k":"v"},"ttl":5}`)},
		{doc, []ref.RefPatchOp{set("/ttl", "10.0")}, with(`,"o":{"k":"v"},"ttl":10.0}`)},
		{doc, []ref.RefPatchOp{set("/ttl", "0")}, ErrInvalidTTL.Error()},
		{doc, []ref.RefPatchOp{set("/ttl", `"5"`)}, ErrInvalidTTL.Error()},
		{doc, []ref.RefPatchOp{incr("/ttl", -1)}, with(`,"o":{"k":"v"},"ttl":-1}`)},
		{doc, []ref.RefPatchOp{add("/deep", strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth))}, ErrInvalidDocument.Error()},
		{`{"id":"a","pk":"p","d":1,"d":2}`, []ref.RefPatchOp{add("/d", "3")}, bad},
		{`{"id":"a","pk":"p","d":1,"d":2}`, []ref.RefPatchOp{add("/e", "3")}, `{"id":"a","pk":"p","d":1,"d":2,"e":3}`},
		{`{"id":"a","pk":"p","\u0064":1}`, []ref.RefPatchOp{incr("/d", 1)}, `{"id":"a","pk":"p","\u0064":2}`},
	}
	for i, tc := range cases {
		res := ref.RefPatch(tc.doc, "/pk", tc.ops)
		got := res.Body
		if res.Stage != ref.RefOK {
			got = fzFault[res.Faults[0]].Error()
		}
		if got != tc.want {
			t.Errorf("case %d %v: the reference says %s, want %s", i, tc.ops, got, tc.want)
		}
		c := fzCollection(t, "/pk", TTLNoDefault())
		created, err := c.CreateJSON(bg, []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.Patch(bg, StringKey("p"), "a", refLib.Ops(tc.ops))
		got = d.Body()
		if err != nil {
			got = fzPatchSentinel(t, "Patch", err).Error()
			if now, _ := c.Get(bg, StringKey("p"), "a"); now.JSON() != created.JSON() {
				t.Errorf("case %d %v: Patch failed, but the document changed to %s", i, tc.ops, now.JSON())
			}
		}
		if got != tc.want {
			t.Errorf("case %d %v: Patch gives %s (%v), want %s", i, tc.ops, got, err, tc.want)
		}
		c.Close()
	}
}

// TestPatchIncrementNeverRoundsAnInteger: docs/SPEC.md (R14's decisions)
// says that "two integers add exactly, and a sum outside int64 is refused
// rather than rounded". A JSON integer beyond int64, incremented by an
// integer, is added as float64 instead, and its digits are rounded away:
// 12345678901234567890 + 1 is stored as 12345678901234567000, and even
// + 0 changes the number. This test fails while the library does so. (The
// reference, internal/ref's refIncr, follows the library, so that FuzzPatch and the
// model check everything else; change it with the library.) R14.
func TestPatchIncrementNeverRoundsAnInteger(t *testing.T) {
	for _, by := range []int64{1, 0, -1} {
		c := fzCollection(t, "/pk", TTLOff())
		if _, err := c.CreateJSON(bg, []byte(`{"id":"a","n":12345678901234567890}`)); err != nil {
			t.Fatal(err)
		}
		d, err := c.Patch(bg, NoPartitionKey(), "a", []PatchOp{PatchIncrement("/n", by)})
		switch {
		case errors.Is(err, ErrInvalidPatch):
		case err != nil:
			t.Errorf("12345678901234567890 + %d: %v, want ErrInvalidPatch (out of int64)", by, err)
		default:
			t.Errorf("12345678901234567890 + %d gives %s: the integer is rounded, want ErrInvalidPatch (R14: refused rather than rounded)", by, d.Body())
		}
		c.Close()
	}
}
