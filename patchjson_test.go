package ttldb

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParsePatch is the table of Cosmos DB's JSON form of a patch: the
// operations a text gives, the constructors' own (R14).
func TestParsePatch(t *testing.T) { // R14
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	for _, tc := range []struct {
		text string
		want []PatchOp
	}{
		// The example of Cosmos DB's documentation, as written there.
		{`[
  { "op": "add", "path": "/color", "value": "silver" },
  { "op": "remove", "path": "/used" },
  { "op": "set", "path": "/price", "value": 355.45 },
  { "op": "incr", "path": "/inventory/quantity", "value": 10 },
  { "op": "add", "path": "/tags/-", "value": "featured-bikes" },
  { "op": "move", "from": "/color", "path": "/inventory/color" }
]`, []PatchOp{PatchAdd("/color", raw(`"silver"`)), PatchRemove("/used"), PatchSet("/price", raw(`355.45`)), PatchIncrement("/inventory/quantity", 10), PatchAdd("/tags/-", raw(`"featured-bikes"`)), PatchMove("/color", "/inventory/color")}},
		// Values are kept as JSON text, compact.
		{`[{"op":"replace","path":"/o","value": { "a" : [ 1 , "x" , null ] } }]`, []PatchOp{PatchReplace("/o", raw(`{"a":[1,"x",null]}`))}},
		{`[{"op":"add","path":"/n","value":null}]`, []PatchOp{PatchAdd("/n", raw(`null`))}},
		{`[{"op":"set","path":"/big","value":99999999999999999999}]`, []PatchOp{PatchSet("/big", raw(`99999999999999999999`))}},
		// incr: an integer as written is an integer; a fraction or an
		// exponent, even .0, a float.
		{`[{"op":"incr","path":"/n","value":1}]`, []PatchOp{PatchIncrement("/n", 1)}},
		{`[{"op":"incr","path":"/n","value":-9223372036854775808}]`, []PatchOp{PatchIncrement("/n", math.MinInt64)}},
		{`[{"op":"incr","path":"/n","value":-0}]`, []PatchOp{PatchIncrement("/n", 0)}},
		{`[{"op":"incr","path":"/n","value":1.0}]`, []PatchOp{PatchIncrementFloat("/n", 1)}},
		{`[{"op":"incr","path":"/n","value":1.5}]`, []PatchOp{PatchIncrementFloat("/n", 1.5)}},
		{`[{"op":"incr","path":"/n","value":1e2}]`, []PatchOp{PatchIncrementFloat("/n", 100)}},
		{`[{"op":"incr","path":"/n","value":-2.5E-1}]`, []PatchOp{PatchIncrementFloat("/n", -0.25)}},
		// Members in any order, escapes in names and paths.
		{`[{"path":"/a~1b","value":true,"op":"set"},{"path":"/x","from":"/y","op":"move"}]`, []PatchOp{PatchSet("/a~1b", raw(`true`)), PatchMove("/y", "/x")}},
		{`[{"\u006fp":"add","path":"/\u00e9\ud83d\ude00","value":1}]`, []PatchOp{PatchAdd("/é😀", raw(`1`))}},
		// Ten operations, the most.
		{`[` + strings.Repeat(`{"op":"incr","path":"/k","value":1},`, 9) + `{"op":"incr","path":"/k","value":1}]`, make10()},
	} {
		got, err := ParsePatch([]byte(tc.text))
		require.NoError(t, err, tc.text)
		require.Equal(t, tc.want, got, tc.text)
	}
}

// TestParsePatchErrors is the table of what ParsePatch refuses, with the
// exact message: ErrInvalidPatch, the operation's index, the operation as
// written, the fault (R14).
func TestParsePatchErrors(t *testing.T) { // R14
	const p = "ttldb: invalid patch: "
	for _, tc := range []struct{ text, want string }{
		// The patch as a whole.
		{``, p + `the patch is empty: it is a JSON array of operations, as [{"op":"set","path":"/status","value":"shipped"}]`},
		{" \n\t", p + `the patch is empty: it is a JSON array of operations, as [{"op":"set","path":"/status","value":"shipped"}]`},
		{`[]`, p + `the patch holds no operation`},
		{`{"op":"add","path":"/a","value":1}`, p + `the patch is a JSON object, not an array of operations: put a single operation in brackets, [{"op":...}]`},
		{`null`, p + `the patch is null, not a JSON array of operations`},
		{`"[]"`, p + `the patch is the string "[]", not a JSON array of operations`},
		{`12`, p + `the patch is the number 12, not a JSON array of operations`},
		{`[{"op":"add","path":"/a","value":1}`, p + `the patch is not valid JSON: the text ends too soon`},
		{`[{"op":"add","path":"/a","value":1},]`, p + `operation 2 is not valid JSON: invalid character ']' looking for beginning of value (near byte 35)`},
		{`[{"op":"add","path":"/a","value":nul}]`, p + `operation 1 is not valid JSON: invalid character '}' in literal null (expecting 'l') (near byte 36)`},
		{`[{"op":"add","path":"/a","value":1}{}]`, p + `operation 2 is not valid JSON: expected comma after array element (near byte 35)`},
		{`[{"op":"add","path":"/a","value":1}] x`, p + `the patch has text after its array, at byte 37 ("x"): a patch is one array`},
		{`[{"op":"add","path":"/a","value":1}]]`, p + `the patch has text after its array, at byte 36 ("]"): a patch is one array`},
		{`[{"op":"add","path":"/a","value":1}][]`, p + `the patch has text after its array, at byte 36 ("[]"): a patch is one array`},
		{"[{\"op\":\"add\",\"path\":\"/a\",\"value\":\"\xff\"}]", p + `the patch is not valid UTF-8 (from byte 34), which JSON text must be`},
		{`[` + strings.Repeat(`{"op":"incr","path":"/k","value":1},`, 10) + `{"op":"incr","path":"/k","value":1}]`,
			p + `the patch holds more than 10 operations, the most allowed (as in Cosmos DB): split it into several patches, or a Batch to apply them together`},
		// An operation.
		{`[1]`, p + `operation 1 of 1 (1): the operation is the number 1, not a JSON object`},
		{`[[]]`, p + `operation 1 of 1 ([]): the operation is a JSON array, not a JSON object`},
		{`[{}]`, p + `operation 1 of 1 ({}): no "op" member: an operation is one of add, set, replace, remove, incr, move`},
		{`[{"op":"set","path":"/a","value":1},{"op":"inc","path":"/a","value":1}]`, p + `operation 2 of 2 ({"op":"inc","path":"/a","value":1}): unknown op "inc": the ops are add, set, replace, remove, incr, move: an increment is "incr"`},
		{`[{"op":"Add","path":"/a","value":1}]`, p + `operation 1 of 1 ({"op":"Add","path":"/a","value":1}): unknown op "Add": the ops are add, set, replace, remove, incr, move: ops are lower case`},
		{`[{"op":"copy","from":"/b","path":"/a"}]`, p + `operation 1 of 1 ({"op":"copy","from":"/b","path":"/a"}): unknown op "copy": the ops are add, set, replace, remove, incr, move: Cosmos DB's patch has neither copy nor test`},
		{`[{"op":"","path":"/a"}]`, p + `operation 1 of 1 ({"op":"","path":"/a"}): unknown op "": the ops are add, set, replace, remove, incr, move`},
		{`[{"op":3,"path":"/a"}]`, p + `operation 1 of 1 ({"op":3,"path":"/a"}): "op" is a number, not a string`},
		{`[{"op":"add","value":1}]`, p + `operation 1 of 1 ({"op":"add","value":1}): add has no "path" member`},
		{`[{"op":"add","path":null,"value":1}]`, p + `operation 1 of 1 ({"op":"add","path":null,"value":1}): "path" is null, not a string`},
		{`[{"op":"add","path":"a","value":1}]`, p + `operation 1 of 1 ({"op":"add","path":"a","value":1}): path "a" does not start with '/', as in "/status"`},
		{`[{"op":"add","path":"","value":1}]`, p + `operation 1 of 1 ({"op":"add","path":"","value":1}): the path is empty; a path names a member, as in "/status", and a whole new document is a Replace`},
		{`[{"op":"add","path":"/a~2","value":1}]`, p + `operation 1 of 1 ({"op":"add","path":"/a~2","value":1}): path "/a~2" holds '~' not followed by 0 or 1: write a '~' in a member name as ~0 and a '/' as ~1`},
		{`[{"op":"add","path":"/\ud800","value":1}]`, p + `operation 1 of 1 ({"op":"add","path":"/\ud800","value":1}): path "/\ud800" holds a lone surrogate escape, which names no member of UTF-8 text`},
		{`[{"op":"add","path":"/a"}]`, p + `operation 1 of 1 ({"op":"add","path":"/a"}): add has no "value" member`},
		{`[{"op":"incr","path":"/a"}]`, p + `operation 1 of 1 ({"op":"incr","path":"/a"}): incr has no "value" member`},
		{`[{"op":"remove","path":"/a","value":1}]`, p + `operation 1 of 1 ({"op":"remove","path":"/a","value":1}): remove takes no "value" member`},
		{`[{"op":"move","from":"/b","path":"/a","value":1}]`, p + `operation 1 of 1 ({"op":"move","from":"/b","path":"/a","value":1}): move takes no "value" member`},
		{`[{"op":"move","path":"/a"}]`, p + `operation 1 of 1 ({"op":"move","path":"/a"}): move has no "from" member: it moves the value at from to path`},
		{`[{"op":"move","from":"b","path":"/a"}]`, p + `operation 1 of 1 ({"op":"move","from":"b","path":"/a"}): from: path "b" does not start with '/', as in "/status"`},
		{`[{"op":"set","from":"/b","path":"/a","value":1}]`, p + `operation 1 of 1 ({"op":"set","from":"/b","path":"/a","value":1}): set takes no "from" member: only move does`},
		{`[{"op":"set","path":"/a","value":1,"Value":2}]`, p + `operation 1 of 1 ({"op":"set","path":"/a","value":1,"Value":2}): unknown member "Value": member names are lower case (an operation has op, path, value and, for move, from)`},
		{`[{"op":"set","path":"/a","value":1,"ttl":2}]`, p + `operation 1 of 1 ({"op":"set","path":"/a","value":1,"ttl":2}): unknown member "ttl" (an operation has op, path, value and, for move, from)`},
		{`[{"op":"set","path":"/a","value":1,"op":"add"}]`, p + `operation 1 of 1 ({"op":"set","path":"/a","value":1,"op":"add"}): member "op" is given twice`},
		{`[{"op":"set","path":"/a","value":1,"v\u0061lue":2}]`, p + `operation 1 of 1 ({"op":"set","path":"/a","value":1,"v\u0061lue":2}): member "value" is given twice`},
		{`[{"op":"incr","path":"/a","value":"1"}]`, p + `operation 1 of 1 ({"op":"incr","path":"/a","value":"1"}): incr's value is a string, not a number`},
		{`[{"op":"incr","path":"/a","value":null}]`, p + `operation 1 of 1 ({"op":"incr","path":"/a","value":null}): incr's value is null, not a number`},
		{`[{"op":"incr","path":"/a","value":9223372036854775808}]`, p + `operation 1 of 1 ({"op":"incr","path":"/a","value":9223372036854775808}): incr's value 9223372036854775808 is an integer beyond the range of a 64-bit integer, which would be rounded: write it with a fraction or an exponent (9223372036854775808.0) to add it as a float64`},
		{`[{"op":"incr","path":"/a","value":1e309}]`, p + `operation 1 of 1 ({"op":"incr","path":"/a","value":1e309}): incr's value 1e309 is beyond the range of a 64-bit float`},
	} {
		ops, err := ParsePatch([]byte(tc.text))
		require.ErrorIs(t, err, ErrInvalidPatch, tc.text)
		require.Equal(t, tc.want, err.Error(), tc.text)
		require.Nil(t, ops)
	}
	// A long operation is cut in the message at a character's boundary.
	long := `[{"op":"add","path":"/` + strings.Repeat("é", 60) + `"}]`
	_, err := ParsePatch([]byte(long))
	require.EqualError(t, err, p+`operation 1 of 1 ({"op":"add","path":"/`+strings.Repeat("é", 29)+`...): add has no "value" member`)
}

// TestPatchJSONIncr applies an incr written in the JSON form and by the
// constructor to the same documents: 1 and 1.0 differ where an integer
// and a float64 add differently (R14).
func TestPatchJSONIncr(t *testing.T) { // R14
	const doc = `{"id":"p1","pk":"a","i":9007199254740993,"max":9223372036854775807,"f":0.5}`
	for _, tc := range []struct {
		text string
		op   PatchOp
		want string // the members after the patch, or "" for an error
	}{
		{`{"op":"incr","path":"/i","value":1}`, PatchIncrement("/i", 1), `"i":9007199254740994`},
		{`{"op":"incr","path":"/i","value":1.0}`, PatchIncrementFloat("/i", 1), `"i":9007199254740992`}, // in float64, 2^53 + 1 + 1 is 2^53
		{`{"op":"incr","path":"/i","value":2}`, PatchIncrement("/i", 2), `"i":9007199254740995`},
		{`{"op":"incr","path":"/max","value":1}`, PatchIncrement("/max", 1), ""},
		{`{"op":"incr","path":"/max","value":1.0}`, PatchIncrementFloat("/max", 1), `"max":9223372036854776000`},
		{`{"op":"incr","path":"/f","value":-1}`, PatchIncrement("/f", -1), `"f":-0.5`},
		{`{"op":"incr","path":"/new","value":1.0}`, PatchIncrementFloat("/new", 1), `"new":1`},
	} {
		ops, err := ParsePatch([]byte("[" + tc.text + "]"))
		require.NoError(t, err)
		require.Equal(t, []PatchOp{tc.op}, ops, tc.text)
		for _, ops := range [][]PatchOp{ops, {tc.op}} {
			c, _ := newTestCollection(t, "/pk", DefaultTTL{})
			mustCreate(t, c, doc)
			got, err := c.Patch(bg, StringKey("a"), "p1", ops)
			if tc.want == "" {
				require.ErrorIs(t, err, ErrInvalidPatch, tc.text)
				continue
			}
			require.NoError(t, err, tc.text)
			require.Contains(t, got.Body(), tc.want, tc.text)
		}
	}
}

// TestPatchOpMarshalJSON checks the JSON form MarshalJSON writes, and
// that it reads back to the same operation (R14).
func TestPatchOpMarshalJSON(t *testing.T) { // R14
	for _, tc := range []struct {
		op   PatchOp
		want string
	}{
		{PatchAdd("/a", map[string]any{"x": []int{1}}), `{"op":"add","path":"/a","value":{"x":[1]}}`},
		{PatchSet("/a~1b", json.RawMessage(` [ 1 , 2 ] `)), `{"op":"set","path":"/a~1b","value":[1,2]}`},
		{PatchReplace("/q\"", []byte(`"<&>"`)), `{"op":"replace","path":"/q\"","value":"<&>"}`},
		{PatchRemove("/a"), `{"op":"remove","path":"/a"}`},
		{PatchIncrement("/n", -3), `{"op":"incr","path":"/n","value":-3}`},
		{PatchIncrementFloat("/n", 1), `{"op":"incr","path":"/n","value":1.0}`},
		{PatchIncrementFloat("/n", -0.25), `{"op":"incr","path":"/n","value":-0.25}`},
		{PatchIncrementFloat("/n", 1e21), `{"op":"incr","path":"/n","value":1e+21}`},
		{PatchIncrementFloat("/n", 1e-7), `{"op":"incr","path":"/n","value":1e-07}`},
		{PatchMove("/from", "/to"), `{"op":"move","from":"/from","path":"/to"}`},
	} {
		b, err := tc.op.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, tc.want, string(b))
		var back PatchOp
		require.NoError(t, json.Unmarshal(b, &back))
		want := tc.op
		if want.value != nil { // read back as compact JSON text
			v, err := encodeValue(want.value)
			require.NoError(t, err)
			want.value = json.RawMessage(v)
		}
		require.Equal(t, want, back)
	}
	for _, op := range []PatchOp{{}, PatchIncrementFloat("/n", math.NaN()), PatchIncrementFloat("/n", math.Inf(-1)), PatchAdd("/a", []byte(`{`)), PatchAdd("/a", func() {})} {
		_, err := op.MarshalJSON()
		require.ErrorIs(t, err, ErrInvalidPatch, "%v", op)
	}
}

// TestPatchOpUnmarshalJSON reads operations inside a larger request, as a
// service decodes its body with encoding/json: the same operations and the
// same checks as ParsePatch, and an error leaves the operation as it was
// (R14).
func TestPatchOpUnmarshalJSON(t *testing.T) { // R14
	var req struct {
		ID  string    `json:"id"`
		Ops []PatchOp `json:"ops"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"id":"p1","ops":[{"op":"incr","path":"/n","value":2},{"op":"remove","path":"/x"}]}`), &req))
	require.Equal(t, []PatchOp{PatchIncrement("/n", 2), PatchRemove("/x")}, req.Ops)

	err := json.Unmarshal([]byte(`{"ops":[{"op":"increment","path":"/n","value":2}]}`), &req)
	require.ErrorIs(t, err, ErrInvalidPatch)
	require.EqualError(t, err, `ttldb: invalid patch: operation {"op":"increment","path":"/n","value":2}: unknown op "increment": the ops are add, set, replace, remove, incr, move: an increment is "incr"`)

	op := PatchSet("/keep", 1)
	for _, bad := range []string{`{"op":"remove","path":"/a","path":"/b"}`, `{"op":"remove"}`, `{"op":"remove","path":"/a"} x`, "{\"op\":\"remove\",\"path\":\"/\xff\"}", `[]`, ``} {
		err := op.UnmarshalJSON([]byte(bad))
		require.ErrorIs(t, err, ErrInvalidPatch, bad)
		require.Equal(t, PatchSet("/keep", 1), op, bad)
	}
	require.False(t, errors.Is(op.UnmarshalJSON([]byte(`{"op":"remove","path":"/a"}`)), ErrInvalidPatch))
	require.Equal(t, PatchRemove("/a"), op)
}

// patchBase is the document the patch tests of this package patch (the
// table of patch operations is the conformance suite's, R14/Patch*).
const patchBase = `{"id":"p1","pk":"a","name":"bike","price":455.95,"inventory":{"quantity":15,"bins":[1,2]},"used":false,"tags":["r-series"],"n":null,"s":"str","a~b":1,"c/d":2}`

// make10 is ten increments of /k by 1, the most a patch takes.
func make10() []PatchOp {
	ops := make([]PatchOp, 10)
	for i := range ops {
		ops[i] = PatchIncrement("/k", 1)
	}
	return ops
}
