package ttldb

// FuzzPatchJSON: any text given to ParsePatch, as a service's request body
// would be (R14).
//
//	go test -run='^$' -fuzz='^FuzzPatchJSON$' -fuzztime=20000x .

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// fzPatchJSONDocs are the documents a parsed patch is applied to.
var fzPatchJSONDocs = []string{
	patchBase,
	`{"id":"p1","pk":"a","n":9223372036854775806,"f":1.5,"big":99999999999999999999,"arr":[1,[2],{"x":3}],"o":{"a~b":{"c/d":[]}},"ttl":10}`,
}

// fzEncodePatch writes ops as encoding/json does, without escaping <, >
// and &, so that values read back byte for byte.
func fzEncodePatch(t *testing.T, ops []PatchOp) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ops); err != nil {
		t.Fatalf("the operations %v that ParsePatch made do not encode: %v", ops, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// fzConstructorOps reads text, which ParsePatch took, leniently with
// encoding/json, and makes its operations with the constructors.
func fzConstructorOps(t *testing.T, text []byte) []PatchOp {
	t.Helper()
	var in []struct {
		Op, Path, From string
		Value          json.RawMessage
	}
	if err := json.Unmarshal(text, &in); err != nil {
		t.Fatalf("ParsePatch took %q, which encoding/json refuses: %v", text, err)
	}
	ops := make([]PatchOp, len(in))
	for i, o := range in {
		var v bytes.Buffer
		if o.Value != nil {
			if err := json.Compact(&v, o.Value); err != nil {
				t.Fatalf("value %q: %v", o.Value, err)
			}
		}
		value := json.RawMessage(v.Bytes())
		switch o.Op {
		case "add":
			ops[i] = PatchAdd(o.Path, value)
		case "set":
			ops[i] = PatchSet(o.Path, value)
		case "replace":
			ops[i] = PatchReplace(o.Path, value)
		case "remove":
			ops[i] = PatchRemove(o.Path)
		case "move":
			ops[i] = PatchMove(o.From, o.Path)
		case "incr":
			s := string(o.Value)
			if strings.ContainsAny(s, ".eE") {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("ParsePatch took the incr by %s: %v", s, err)
				}
				ops[i] = PatchIncrementFloat(o.Path, f)
				break
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("ParsePatch took the incr by %s: %v", s, err)
			}
			ops[i] = PatchIncrement(o.Path, n)
		default:
			t.Fatalf("ParsePatch took the op %q", o.Op)
		}
	}
	return ops
}

// fzApplyPatch applies ops to doc in a new collection, and returns the
// body or the error's sentinel and message.
func fzApplyPatch(t *testing.T, doc string, ops []PatchOp) (string, error) {
	t.Helper()
	var clock atomic.Int64
	c := fzPatchCollection(t, "/pk", TTLNoDefault(), &clock)
	defer c.Close()
	created := mustCreate(t, c, doc)
	got, err := c.Patch(bg, created.PartitionKey(), created.ID(), ops)
	if err != nil {
		return "", fzPatchSentinel(t, "Patch", err)
	}
	return got.Body(), nil
}

// FuzzPatchJSON checks ParsePatch on any text: it never panics, nor does
// UnmarshalJSON; a refusal is ErrInvalidPatch alone; what it takes is at
// most MaxPatchOperations operations that encoding/json reads the same
// (the constructors make the same operations of them, which Patch applies
// alike), and that re-marshal to a text that parses to the same
// operations, and marshals to itself.
func FuzzPatchJSON(f *testing.F) {
	for _, s := range []string{
		`[{"op":"add","path":"/color","value":"silver"},{"op":"remove","path":"/used"},{"op":"set","path":"/price","value":355.45},{"op":"incr","path":"/inventory/quantity","value":10},{"op":"add","path":"/tags/-","value":"featured-bikes"},{"op":"move","from":"/color","path":"/inventory/color"}]`,
		`[{"op":"incr","path":"/n","value":1.0},{"op":"incr","path":"/f","value":-1e-7},{"op":"incr","path":"/new","value":-0}]`,
		`[{"op":"incr","path":"/n","value":1},{"op":"incr","path":"/n","value":1}]`,
		`[{"op":"incr","path":"/big","value":1}]`,
		`[{"op":"replace","path":"/arr/1/0","value": { "k" : [ "<&>\u2028" , null ] } }]`,
		`[{"op":"move","from":"/arr/2","path":"/o/a~0b/c~1d/-"}]`,
		`[{"op":"set","path":"/ttl","value":-1},{"op":"remove","path":"/ttl"}]`,
		`[{"op":"set","path":"/pk","value":1}]`,
		`[{"\u006fp":"add","path":"/\u00e9","value":"\ud800"}]`,
		`[{"op":"add","path":"/\ud800","value":1}]`,
		`[{"op":"inc","path":"/a","value":1}]`,
		`[{"op":"set","path":"/a","value":1,"op":"set"}]`,
		`[{"op":"remove","path":"/a","value":1}]`,
		`[{"op":"move","path":"/a"}]`,
		`[{"op":"incr","path":"/a","value":9223372036854775808}]`,
		`[{"op":"add","path":"/a","value":1}] []`,
		`[` + strings.Repeat(`{"op":"incr","path":"/k","value":1},`, MaxPatchOperations) + `{"op":"incr","path":"/k","value":1}]`,
		"[\xff]", `[]`, `{}`, ``, `[1]`, `[[[]]]`,
	} {
		f.Add(uint8(0), []byte(s))
	}
	f.Fuzz(func(t *testing.T, setup uint8, text []byte) {
		var one PatchOp
		_ = one.UnmarshalJSON(text)
		ops, err := ParsePatch(text)
		if err != nil {
			if s := fzPatchSentinel(t, "ParsePatch", err); s != ErrInvalidPatch || ops != nil {
				t.Fatalf("ParsePatch(%q): %v, %v; want ErrInvalidPatch and no operation", text, ops, err)
			}
			return
		}
		if len(ops) == 0 || len(ops) > MaxPatchOperations {
			t.Fatalf("ParsePatch(%q) took %d operations", text, len(ops))
		}
		like := fzConstructorOps(t, text)
		if !reflect.DeepEqual(ops, like) {
			t.Fatalf("ParsePatch(%q) = %v; the constructors make %v of it", text, ops, like)
		}
		again := fzEncodePatch(t, ops)
		ops2, err := ParsePatch(again)
		if err != nil || !reflect.DeepEqual(ops2, ops) {
			t.Fatalf("ParsePatch(%q) = %v, which marshals to %s, which parses to %v, %v", text, ops, again, ops2, err)
		}
		if third := fzEncodePatch(t, ops2); !bytes.Equal(third, again) {
			t.Fatalf("%s marshals to %s after a round trip", again, third)
		}
		doc := fzPatchJSONDocs[int(setup)%len(fzPatchJSONDocs)]
		got, gerr := fzApplyPatch(t, doc, ops)
		want, werr := fzApplyPatch(t, doc, like)
		if got != want || gerr != werr {
			t.Fatalf("%s on %s: parsed: %s, %v; by the constructors: %s, %v", text, doc, got, gerr, want, werr)
		}
	})
}
