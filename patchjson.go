package ttldb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb/internal/patch"
)

// The JSON form of a patch, as Cosmos DB's REST API takes it and as an
// HTTP service receives it:
//
//	[{"op":"set","path":"/status","value":"shipped"},
//	 {"op":"incr","path":"/n","value":1},
//	 {"op":"move","from":"/a","path":"/b"}]
//
// ParsePatch reads a whole patch; PatchOp's UnmarshalJSON and MarshalJSON
// read and write one operation.

// patchOpNames are the operations of the JSON form, in the order of
// patch.Kind, for the message that lists them.
const patchOpNames = "add, set, replace, remove, incr, move"

// patchMembers are the members of an operation, by their index in
// parsePatchOp's members.
var patchMembers = map[string]int{"op": 0, "path": 1, "from": 2, "value": 3}

// ParsePatch reads a patch in Cosmos DB's JSON form: an array of at most
// [MaxPatchOperations] objects, each with "op" (add, set, replace, remove,
// incr or move) and "path"; "value" for add, set, replace and incr; "from"
// for move. It returns the operations the constructors ([PatchAdd],
// [PatchIncrement]...) would make, for [Collection.Patch], [Batch.Patch]
// or [Typed.Patch]: a value as a [encoding/json.RawMessage], compact; an
// incr's value that is written as an integer (1, -3) as [PatchIncrement],
// one written with a fraction or an exponent (1.5, 1.0, 1e3) as
// [PatchIncrementFloat].
//
// ParsePatch is strict, as a request's body deserves: it refuses (with
// [ErrInvalidPatch], naming the operation's index, the operation as
// written and the fault) text that is not valid JSON or UTF-8, anything
// but a non-empty array, text after it, an operation that is not an
// object, an unknown op (the message lists the known ones), a member
// other than op, path, value and from, or one given twice, a missing
// path, a path that is not a JSON Pointer, a value missing where the op
// needs one or given where it takes none (remove, move), from missing for
// move or given for another op, and an incr's value that is not a number,
// an integer beyond int64 or a number beyond float64. What depends on the
// collection or the document (a path of the id or the partition key, a
// member that does not exist) is checked by Patch, as for the
// constructors. ParsePatch costs O(len(data)).
func ParsePatch(data []byte) ([]PatchOp, error) {
	raws, err := patchElements(data)
	if err != nil {
		return nil, errorf(ErrInvalidPatch, "%v", err)
	}
	ops := make([]PatchOp, len(raws))
	for i, raw := range raws {
		if ops[i], err = parsePatchOp(raw); err != nil {
			return nil, errorf(ErrInvalidPatch, "operation %d of %d (%s): %v", i+1, len(raws), clipOp(raw), err)
		}
	}
	return ops, nil
}

// patchElements splits data, a JSON array of at most MaxPatchOperations
// elements, into its elements.
func patchElements(data []byte) ([]json.RawMessage, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("the patch is not valid UTF-8 (from byte %d), which JSON text must be", invalidUTF8At(data))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	switch {
	case err == io.EOF:
		return nil, errors.New(`the patch is empty: it is a JSON array of operations, as [{"op":"set","path":"/status","value":"shipped"}]`)
	case err != nil:
		return nil, notJSON("the patch", err)
	case t == json.Delim('{'):
		return nil, errors.New(`the patch is a JSON object, not an array of operations: put a single operation in brackets, [{"op":...}]`)
	case t != json.Delim('['):
		return nil, fmt.Errorf("the patch is %s, not a JSON array of operations", kindOfToken(t))
	}
	var raws []json.RawMessage
	for dec.More() {
		if len(raws) == MaxPatchOperations {
			return nil, fmt.Errorf("the patch holds more than %d operations, the most allowed (as in Cosmos DB): split it into several patches, or a Batch to apply them together", MaxPatchOperations)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, notJSON(fmt.Sprintf("operation %d", len(raws)+1), err)
		}
		raws = append(raws, raw)
	}
	if _, err := dec.Token(); err != nil { // the closing ']'
		return nil, notJSON("the patch", err)
	}
	if len(raws) == 0 {
		return nil, errors.New("the patch holds no operation")
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("the patch has text after its array, at byte %d (%q): a patch is one array", len(data)-len(rest), clip(rest))
	}
	return raws, nil
}

// parsePatchOp reads one operation, a JSON object.
func parsePatchOp(data []byte) (PatchOp, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	switch {
	case err != nil:
		return PatchOp{}, notJSON("the operation", err)
	case t != json.Delim('{'):
		return PatchOp{}, fmt.Errorf("the operation is %s, not a JSON object", kindOfToken(t))
	}
	var members [4]json.RawMessage // op, path, from, value
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return PatchOp{}, notJSON("the operation", err)
		}
		name, ok := t.(string) // a member's name, as the decoder checks
		if !ok {
			return PatchOp{}, fmt.Errorf("the operation is not valid JSON: %v where a member's name should be", t)
		}
		i, known := patchMembers[name]
		if !known {
			hint := ""
			if _, ok := patchMembers[strings.ToLower(name)]; ok {
				hint = ": member names are lower case"
			}
			return PatchOp{}, fmt.Errorf("unknown member %.40q%s (an operation has op, path, value and, for move, from)", name, hint)
		}
		slot := &members[i]
		if *slot != nil {
			return PatchOp{}, fmt.Errorf("member %q is given twice", name)
		}
		if err := dec.Decode(slot); err != nil {
			return PatchOp{}, notJSON("the operation", err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return PatchOp{}, notJSON("the operation", err)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return PatchOp{}, fmt.Errorf("the operation has text after its object, at byte %d (%q)", len(data)-len(rest), clip(rest))
	}
	return patchOpOf(members[0], members[1], members[2], members[3])
}

// patchOpOf makes the operation of the members op, path, from and value,
// each nil when absent.
func patchOpOf(opRaw, pathRaw, fromRaw, value json.RawMessage) (op PatchOp, err error) {
	if opRaw == nil {
		return op, fmt.Errorf(`no "op" member: an operation is one of %s`, patchOpNames)
	}
	name, err := jsonString("op", opRaw)
	if err != nil {
		return op, err
	}
	switch name {
	case "add":
		op.kind = patch.Add
	case "set":
		op.kind = patch.Set
	case "replace":
		op.kind = patch.Replace
	case "remove":
		op.kind = patch.Remove
	case "incr":
		op.kind = patch.Incr
	case "move":
		op.kind = patch.Move
	default:
		return op, fmt.Errorf("unknown op %.40q: the ops are %s%s", name, patchOpNames, opHint(name))
	}
	if pathRaw == nil {
		return op, fmt.Errorf(`%s has no "path" member`, name)
	}
	if op.path, err = jsonPointer("path", pathRaw); err != nil {
		return op, err
	}
	switch {
	case op.kind == patch.Move && fromRaw == nil:
		return op, errors.New(`move has no "from" member: it moves the value at from to path`)
	case op.kind == patch.Move:
		if op.from, err = jsonPointer("from", fromRaw); err != nil {
			return op, err
		}
	case fromRaw != nil:
		return op, fmt.Errorf(`%s takes no "from" member: only move does`, name)
	}
	switch op.kind {
	case patch.Remove, patch.Move:
		if value != nil {
			return op, fmt.Errorf(`%s takes no "value" member`, name)
		}
		return op, nil
	}
	if value == nil {
		return op, fmt.Errorf(`%s has no "value" member`, name)
	}
	if op.kind == patch.Incr {
		op.by, err = incrAmount(value)
		return op, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, value); err != nil { // the decoder checked the value: never
		return op, notJSON("value", err)
	}
	op.value = json.RawMessage(buf.Bytes())
	return op, nil
}

// incrAmount reads an incr's value: an integer when written without a
// fraction or an exponent, else a float64.
func incrAmount(raw json.RawMessage) (patch.Number, error) {
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return patch.Number{}, fmt.Errorf("incr's value is %s, not a number", jsonKind(raw))
	}
	s := string(raw)
	if !strings.ContainsAny(s, ".eE") {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return patch.Number{}, fmt.Errorf("incr's value %.40s is an integer beyond the range of a 64-bit integer, which would be rounded: write it with a fraction or an exponent (%.40s.0) to add it as a float64", s, s)
		}
		return patch.Number{Int: n}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return patch.Number{}, fmt.Errorf("incr's value %.40s is beyond the range of a 64-bit float", s)
	}
	return patch.Number{Float: f, IsFloat: true}, nil
}

// jsonString reads the member name, which must be a JSON string.
func jsonString(name string, raw json.RawMessage) (string, error) {
	if raw[0] != '"' {
		return "", fmt.Errorf("%q is %s, not a string", name, jsonKind(raw))
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil { // the decoder checked it: never
		return "", notJSON(name, err)
	}
	return s, nil
}

// jsonPointer reads the member name, a JSON Pointer.
func jsonPointer(name string, raw json.RawMessage) (string, error) {
	s, err := jsonString(name, raw)
	if err != nil {
		return "", err
	}
	if hasLoneSurrogate(raw) {
		// It would decode to U+FFFD, and name another member than the
		// one written.
		return "", fmt.Errorf("%s %s holds a lone surrogate escape, which names no member of UTF-8 text", name, clip(raw))
	}
	if _, err := patch.Pointer(s); err != nil {
		if name == "path" {
			return "", err // "path ... does not start with '/'..."
		}
		return "", fmt.Errorf("%s: %v", name, err)
	}
	return s, nil
}

// hasLoneSurrogate reports whether the JSON string literal raw holds a
// \uD800-\uDFFF escape that is not half of a pair.
func hasLoneSurrogate(raw []byte) bool {
	s := string(raw)
	for i := 0; i+6 <= len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' {
			i++ // \\, \" ...: skip the escaped character
			continue
		}
		r, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		if err != nil {
			continue
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 > len(s) || s[i+6:i+8] != `\u` {
				return true
			}
			lo, err := strconv.ParseUint(s[i+8:i+12], 16, 32)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
			continue
		}
		i += 5
	}
	return false
}

// opHint suggests the op meant by a name that is not one.
func opHint(name string) string {
	switch l := strings.ToLower(name); {
	case l != name && strings.Contains(" add set replace remove incr move ", " "+l+" "):
		return ": ops are lower case"
	case l == "inc" || l == "increment":
		return `: an increment is "incr"`
	case l == "copy" || l == "test":
		return ": Cosmos DB's patch has neither copy nor test"
	}
	return ""
}

// MarshalJSON writes op in Cosmos DB's JSON form, which [ParsePatch] and
// UnmarshalJSON read back to an operation of the same effect:
// {"op":"set","path":"/a","value":1}; an incr's value as an integer, or,
// for [PatchIncrementFloat], with a fraction or an exponent (1.0, 1e+21),
// so that it stays a float. Errors: [ErrInvalidPatch] for the zero
// PatchOp, a value that does not encode to JSON, and an incr by a float
// that is not finite. It costs the size of the value.
func (op PatchOp) MarshalJSON() ([]byte, error) {
	if op.kind < patch.Add || op.kind > patch.Move {
		return nil, errorf(ErrInvalidPatch, "the zero PatchOp has no JSON form: make operations with PatchAdd, PatchSet and the others")
	}
	b := append([]byte(`{"op":"`), op.kind.String()...)
	b = append(b, '"')
	if op.kind == patch.Move {
		b = append(append(b, `,"from":`...), jsonQuote(op.from)...)
	}
	b = append(append(b, `,"path":`...), jsonQuote(op.path)...)
	switch op.kind {
	case patch.Incr:
		b = append(b, `,"value":`...)
		if !op.by.IsFloat {
			b = strconv.AppendInt(b, op.by.Int, 10)
			break
		}
		f := op.by.Float
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errorf(ErrInvalidPatch, "%v: %v is not a finite number", op, f)
		}
		n := len(b)
		b = strconv.AppendFloat(b, f, 'g', -1, 64)
		if !bytes.ContainsAny(b[n:], ".e") {
			b = append(b, ".0"...)
		}
	case patch.Add, patch.Set, patch.Replace:
		v, err := encodeValue(op.value)
		if err != nil {
			return nil, errorf(ErrInvalidPatch, "%v: %v", op, err)
		}
		b = append(append(b, `,"value":`...), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads one operation in Cosmos DB's JSON form, for a
// PatchOp inside a larger request (a struct field decoded by
// encoding/json), with the checks [ParsePatch] makes of each operation;
// ParsePatch reads a whole patch, with its limit and the operations'
// indexes in its messages. Errors: [ErrInvalidPatch]. On an error op is
// unchanged. It costs O(len(data)).
func (op *PatchOp) UnmarshalJSON(data []byte) error {
	if !utf8.Valid(data) {
		return errorf(ErrInvalidPatch, "the operation is not valid UTF-8 (from byte %d), which JSON text must be", invalidUTF8At(data))
	}
	p, err := parsePatchOp(data)
	if err != nil {
		return errorf(ErrInvalidPatch, "operation %s: %v", clipOp(data), err)
	}
	*op = p
	return nil
}

// jsonQuote returns s as a JSON string.
func jsonQuote(s string) []byte {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// notJSON describes a syntax error of what.
func notJSON(what string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s is not valid JSON: %v (near byte %d)", what, se, se.Offset)
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return fmt.Errorf("%s is not valid JSON: the text ends too soon", what)
	}
	return fmt.Errorf("%s is not valid JSON: %v", what, err)
}

// kindOfToken names a token of encoding/json's Decoder.
func kindOfToken(t json.Token) string {
	switch x := t.(type) {
	case json.Delim:
		return "a JSON array"
	case string:
		return fmt.Sprintf("the string %.40q", x)
	case float64, json.Number:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	}
	return "null"
}

// jsonKind names the kind of a JSON value, valid.
func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// invalidUTF8At is the offset of the first byte of b that is not valid
// UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// clipOp shortens an operation's text for an error message, at a
// character's boundary.
func clipOp(b []byte) string {
	const max = 80
	if len(b) <= max {
		return string(b)
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "..."
}
