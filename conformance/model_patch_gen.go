package conformance

// The model's patches (R14), drawn at random: paths and values the
// document holds or could, plausible and wild operations, and the Patch
// step.

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ttldb/ttldb/internal/ref"

	"github.com/ttldb/ttldb"
)

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
