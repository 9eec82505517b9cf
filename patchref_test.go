package ttldb

// An independent reference implementation of the partial document update
// of R14 (Collection.Patch), written from the text of SPEC.md and of the
// Patch API's documentation, not from internal/patch. It is the oracle of
// FuzzPatch (fuzz_patch_test.go). The conformance suite's model keeps a copy,
// conformance/internal/ref, for its Patch and ExecuteBatch steps: this
// package's internal tests cannot import a package that imports ttldb.
// Keep the two in step. (The exported names, RefPatch, RefPatchOp, ..., date
// from when the model lived in package ttldb_test; they exist only in test
// builds.)
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
//     R10) by fzExpectDocument, the independent oracle of FuzzDocument.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// refNode is a JSON value of the reference's tree.
type refNode struct {
	kind  byte   // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	raw   string // a string's or a number's literal as written; "" for a string the reference made
	str   string // a string's decoded value
	names []refName
	kids  []*refNode // an object's member values, an array's elements
}

// refName is a member name: its literal as written, quotes included ("" for
// a name the reference made from a path), and its decoded value. A name
// whose literal holds a lone surrogate escape ("\ud800") is no Unicode
// text: encoding/json decodes it as U+FFFD, but no path names it (a path is
// UTF-8), so lone marks it, and it matches no token.
type refName struct {
	raw, str string
	lone     bool
}

// refParse reads one JSON value, and nothing after it.
func refParse(b []byte) (*refNode, error) { return parseWhole(b, refParseValue) }

// refLiteral returns the text of the token the decoder just read, which
// started at or after start: a token is preceded only by space and by the
// ',' or ':' that Token consumes with it.
func refLiteral(src []byte, start, end int64) string {
	return strings.TrimLeft(string(src[start:end]), " \t\r\n,:")
}

func refParseValue(dec *json.Decoder, src []byte) (*refNode, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v != '{' && v != '[' {
			return nil, fmt.Errorf("unexpected %v", v)
		}
		n := &refNode{kind: 'a'}
		if v == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				at := dec.InputOffset()
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("member name %v", kt)
				}
				lit := refLiteral(src, at, dec.InputOffset())
				n.names = append(n.names, refName{raw: lit, str: k, lone: fzLoneSurrogate(lit)})
			}
			kid, err := refParseValue(dec, src)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &refNode{kind: 's', raw: refLiteral(src, start, dec.InputOffset()), str: v}, nil
	case json.Number:
		return &refNode{kind: 'n', raw: string(v)}, nil
	case bool:
		if v {
			return &refNode{kind: 't'}, nil
		}
		return &refNode{kind: 'f'}, nil
	case nil:
		return &refNode{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("token %v", tok)
}

// refQuote appends s as a JSON string, as encoding/json writes it without
// its HTML escapes: the canonical form of a string, and the reference's
// choice for the member names it makes.
func refQuote(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// appendTo appends n as compact JSON: with canon, strings and member names
// decoded and quoted by refQuote; else each literal as written (which is
// what the library stores), refQuote only for what the reference made.
func (n *refNode) appendTo(dst []byte, canon bool) []byte {
	switch n.kind {
	case 'o', 'a':
		open, end := byte('['), byte(']')
		if n.kind == 'o' {
			open, end = '{', '}'
		}
		dst = append(dst, open)
		for i, kid := range n.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			if n.kind == 'o' {
				if nm := n.names[i]; canon || nm.raw == "" {
					dst = refQuote(dst, nm.str)
				} else {
					dst = append(dst, nm.raw...)
				}
				dst = append(dst, ':')
			}
			dst = kid.appendTo(dst, canon)
		}
		return append(dst, end)
	case 's':
		if canon || n.raw == "" {
			return refQuote(dst, n.str)
		}
		return append(dst, n.raw...)
	case 'n':
		return append(dst, n.raw...)
	case 't':
		return append(dst, "true"...)
	case 'f':
		return append(dst, "false"...)
	}
	return append(dst, "null"...)
}

// what names n's JSON type, for messages.
func (n *refNode) what() string {
	return map[byte]string{'o': "an object", 'a': "an array", 's': "a string", 'n': "a number", 't': "true", 'f': "false", 'z': "null"}[n.kind]
}

// RefCanonical returns the canonical form of the JSON text s: compact,
// members in order, strings decoded and quoted again, numbers as written.
func RefCanonical(s string) (string, error) {
	n, err := refParse([]byte(s))
	if err != nil {
		return "", err
	}
	return string(n.appendTo(nil, true)), nil
}

// ---------------------------------------------------------------------------
// Operations.

// RefPatchOp is a patch operation as a test describes it: the reference
// reads it, and Lib makes the library's PatchOp of it.
type RefPatchOp struct {
	Kind    string // "add", "set", "replace", "remove", "incr", "move"; "" is the zero PatchOp
	Path    string
	From    string // move's
	Value   any    // add's, set's and replace's: JSON text as json.RawMessage or []byte, or a Go value
	By      int64  // incr's amount, unless Float
	ByFloat float64
	Float   bool // incr by ByFloat (PatchIncrementFloat)
}

// Lib returns the library's operation.
func (o RefPatchOp) Lib() PatchOp {
	switch o.Kind {
	case "add":
		return PatchAdd(o.Path, o.Value)
	case "set":
		return PatchSet(o.Path, o.Value)
	case "replace":
		return PatchReplace(o.Path, o.Value)
	case "remove":
		return PatchRemove(o.Path)
	case "incr":
		if o.Float {
			return PatchIncrementFloat(o.Path, o.ByFloat)
		}
		return PatchIncrement(o.Path, o.By)
	case "move":
		return PatchMove(o.From, o.Path)
	}
	return PatchOp{}
}

// String describes the operation, for the messages of the tests.
func (o RefPatchOp) String() string {
	switch o.Kind {
	case "":
		return "zero"
	case "remove":
		return fmt.Sprintf("remove %q", o.Path)
	case "move":
		return fmt.Sprintf("move %q to %q", o.From, o.Path)
	case "incr":
		if o.Float {
			return fmt.Sprintf("incr %q by %v (float)", o.Path, o.ByFloat)
		}
		return fmt.Sprintf("incr %q by %d", o.Path, o.By)
	}
	v := fmt.Sprintf("%v", o.Value)
	switch x := o.Value.(type) {
	case json.RawMessage:
		v = fmt.Sprintf("%q", []byte(x))
	case []byte:
		v = fmt.Sprintf("bytes %q", x)
	case string:
		v = fmt.Sprintf("Go string %q", x)
	}
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	return fmt.Sprintf("%s %q %s", o.Kind, o.Path, v)
}

// RefOps returns the library's operations of ops.
func RefOps(ops []RefPatchOp) []PatchOp {
	out := make([]PatchOp, len(ops))
	for i, o := range ops {
		out[i] = o.Lib()
	}
	return out
}

// refOp is an operation the reference has checked: paths split, value
// parsed.
type refOp struct {
	kind       string
	path, from []string
	val        *refNode
	by         RefPatchOp // By, ByFloat, Float
}

var (
	refBadTilde = regexp.MustCompile(`~([^01]|$)`)
	refUnescape = strings.NewReplacer("~1", "/", "~0", "~")
	refIndexRE  = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	refIntLit   = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
)

// refPointer splits a JSON Pointer into its decoded tokens.
func refPointer(p string) ([]string, error) {
	switch {
	case p == "":
		return nil, errors.New("the empty path")
	case p[0] != '/':
		return nil, fmt.Errorf("path %q does not start with '/'", p)
	case !utf8.ValidString(p):
		return nil, fmt.Errorf("path %q is not UTF-8", p)
	case refBadTilde.MatchString(p):
		return nil, fmt.Errorf("path %q has '~' without 0 or 1", p)
	}
	toks := strings.Split(p[1:], "/")
	if len(toks) > MaxDepth {
		return nil, fmt.Errorf("path %q has %d tokens", p, len(toks))
	}
	for i, t := range toks {
		toks[i] = refUnescape.Replace(t)
	}
	return toks, nil
}

// refHasPrefix reports whether p is prefix or lies inside it.
func refHasPrefix(p, prefix []string) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

// refPath checks a path of an operation against what a patch may not
// touch: the id, the system properties, the partition key.
func refPath(p string, pk []string) ([]string, error) {
	toks, err := refPointer(p)
	if err != nil {
		return nil, err
	}
	if toks[0] == "id" || toks[0] == "_ts" || toks[0] == "_etag" {
		return nil, fmt.Errorf("path %q starts at %s", p, toks[0])
	}
	if refHasPrefix(toks, pk) || refHasPrefix(pk, toks) {
		return nil, fmt.Errorf("path %q meets the partition key", p)
	}
	return toks, nil
}

// refCompile checks what can be checked without the document.
func refCompile(ops []RefPatchOp, pk []string) ([]refOp, error) {
	if len(ops) == 0 || len(ops) > MaxPatchOperations {
		return nil, fmt.Errorf("%d operations", len(ops))
	}
	out := make([]refOp, len(ops))
	for i, o := range ops {
		r := refOp{kind: o.Kind, by: o}
		var err error
		switch o.Kind {
		case "add", "set", "replace", "remove", "incr", "move":
		default:
			return nil, fmt.Errorf("operation %d is the zero PatchOp", i+1)
		}
		if r.path, err = refPath(o.Path, pk); err != nil {
			return nil, fmt.Errorf("operation %d: %v", i+1, err)
		}
		switch o.Kind {
		case "move":
			if r.from, err = refPath(o.From, pk); err != nil {
				return nil, fmt.Errorf("operation %d: from: %v", i+1, err)
			}
		case "incr":
			if o.Float && (math.IsNaN(o.ByFloat) || math.IsInf(o.ByFloat, 0)) {
				return nil, fmt.Errorf("operation %d: incr by %v", i+1, o.ByFloat)
			}
		case "add", "set", "replace":
			var text []byte
			switch x := o.Value.(type) {
			case json.RawMessage:
				text = x
			case []byte:
				text = x
			default:
				if text, err = json.Marshal(o.Value); err != nil {
					return nil, fmt.Errorf("operation %d: value: %v", i+1, err)
				}
			}
			if !json.Valid(text) || !utf8.Valid(text) {
				return nil, fmt.Errorf("operation %d: value %q is not JSON text (valid UTF-8)", i+1, text)
			}
			if r.val, err = refParse(text); err != nil {
				panic(fmt.Sprintf("json.Valid accepts %q, the Decoder says %v", text, err))
			}
		}
		out[i] = r
	}
	return out, nil
}

// refIndex reads an array index.
func refIndex(tok string) (int, bool) {
	if !refIndexRE.MatchString(tok) {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}

// member returns the position of the member name of the object n, or -1;
// a name held twice is an error.
func (n *refNode) member(name string) (int, error) {
	at := -1
	for i, nm := range n.names {
		if nm.str == name && !nm.lone {
			if at >= 0 {
				return 0, fmt.Errorf("member %q is there twice", name)
			}
			at = i
		}
	}
	return at, nil
}

// refContainer follows toks from root, each of which must exist, to an
// object or an array.
func refContainer(root *refNode, toks []string) (*refNode, error) {
	n := root
	for i, tok := range toks {
		switch n.kind {
		case 'o':
			j, err := n.member(tok)
			if err != nil {
				return nil, err
			}
			if j < 0 {
				return nil, fmt.Errorf("%q of token %d does not exist", tok, i)
			}
			n = n.kids[j]
		case 'a':
			j, ok := refIndex(tok)
			if !ok || j >= len(n.kids) {
				return nil, fmt.Errorf("no element %q in an array of %d", tok, len(n.kids))
			}
			n = n.kids[j]
		default:
			return nil, fmt.Errorf("token %d goes through %s", i, n.what())
		}
	}
	if n.kind != 'o' && n.kind != 'a' {
		return nil, fmt.Errorf("the parent is %s", n.what())
	}
	return n, nil
}

// refFind returns the container of the value at path, which must exist,
// and its position there.
func refFind(root *refNode, path []string) (*refNode, int, error) {
	parent, err := refContainer(root, path[:len(path)-1])
	if err != nil {
		return nil, 0, err
	}
	last := path[len(path)-1]
	if parent.kind == 'o' {
		j, err := parent.member(last)
		if err == nil && j < 0 {
			err = fmt.Errorf("member %q does not exist", last)
		}
		return parent, j, err
	}
	j, ok := refIndex(last)
	if !ok || j >= len(parent.kids) {
		return nil, 0, fmt.Errorf("no element %q in an array of %d", last, len(parent.kids))
	}
	return parent, j, nil
}

// removeAt removes the member or element at j and returns its value.
func (n *refNode) removeAt(j int) *refNode {
	v := n.kids[j]
	n.kids = slices.Delete(n.kids, j, j+1)
	if n.kind == 'o' {
		n.names = slices.Delete(n.names, j, j+1)
	}
	return v
}

// refNumber is the JSON number of an incr's amount.
func refNumber(o RefPatchOp) *refNode {
	if o.Float {
		return &refNode{kind: 'n', raw: refFloat(o.ByFloat)}
	}
	return &refNode{kind: 'n', raw: strconv.FormatInt(o.By, 10)}
}

// refFloat writes a finite float64 as encoding/json does.
func refFloat(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// refIncr returns v plus the amount of o.
func refIncr(v *refNode, o RefPatchOp) (*refNode, error) {
	if v.kind != 'n' {
		return nil, fmt.Errorf("incr of %s", v.what())
	}
	// Integers add exactly; an integer literal beyond int64 is refused,
	// never rounded (R14's decisions in SPEC.md).
	if !o.Float && refIntLit.MatchString(v.raw) {
		x, _ := new(big.Int).SetString(v.raw, 10)
		if !x.IsInt64() {
			return nil, fmt.Errorf("%s is beyond int64", v.raw)
		}
		sum := x.Add(x, big.NewInt(o.By))
		if !sum.IsInt64() {
			return nil, fmt.Errorf("%s + %d overflows int64", v.raw, o.By)
		}
		return &refNode{kind: 'n', raw: sum.String()}, nil
	}
	x, err := strconv.ParseFloat(v.raw, 64) // ±Inf beyond float64's range, and then refused below
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		panic(fmt.Sprintf("number %q: %v", v.raw, err))
	}
	d := o.ByFloat
	if !o.Float {
		d = float64(o.By)
	}
	sum := x + d
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return nil, fmt.Errorf("%s + %v is not finite", v.raw, d)
	}
	return &refNode{kind: 'n', raw: refFloat(sum)}, nil
}

// refPut applies add, set, replace or incr (of v, the value, or of o's
// amount) at path.
func refPut(root *refNode, kind string, path []string, v *refNode, o RefPatchOp) error {
	parent, err := refContainer(root, path[:len(path)-1])
	if err != nil {
		return err
	}
	last := path[len(path)-1]
	if parent.kind == 'a' {
		j, isIndex := refIndex(last)
		n := len(parent.kids)
		end := last == "-" || (isIndex && j == n)
		switch {
		case !end && (!isIndex || j > n):
			return fmt.Errorf("no position %q in an array of %d", last, n)
		case end && (kind == "add" || kind == "set"):
			parent.kids = append(parent.kids, v)
		case end:
			return fmt.Errorf("%s at the end of an array of %d, where there is no element", kind, n)
		case kind == "add":
			parent.kids = slices.Insert(parent.kids, j, v)
		case kind == "incr":
			sum, err := refIncr(parent.kids[j], o)
			if err != nil {
				return err
			}
			parent.kids[j] = sum
		default: // set, replace
			parent.kids[j] = v
		}
		return nil
	}
	j, err := parent.member(last)
	switch {
	case err != nil:
		return err
	case j < 0 && kind == "replace":
		return fmt.Errorf("replace of member %q, which does not exist", last)
	case j < 0:
		if kind == "incr" {
			v = refNumber(o)
		}
		parent.names = append(parent.names, refName{str: last})
		parent.kids = append(parent.kids, v)
	case kind == "incr":
		sum, err := refIncr(parent.kids[j], o)
		if err != nil {
			return err
		}
		parent.kids[j] = sum
	default:
		parent.kids[j] = v
	}
	return nil
}

// refApply applies one operation to the document root.
func refApply(root *refNode, op refOp) error {
	switch op.kind {
	case "remove":
		parent, j, err := refFind(root, op.path)
		if err != nil {
			return err
		}
		parent.removeAt(j)
		return nil
	case "move":
		if len(op.path) > len(op.from) && refHasPrefix(op.path, op.from) {
			return errors.New("move into itself")
		}
		parent, j, err := refFind(root, op.from)
		if err != nil {
			return err
		}
		if slices.Equal(op.path, op.from) {
			return nil
		}
		return refPut(root, "add", op.path, parent.removeAt(j), op.by)
	}
	return refPut(root, op.kind, op.path, op.val, op.by)
}

// ---------------------------------------------------------------------------
// The whole patch.

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
	Faults []error // when it fails: the sentinels, one of which the library must return
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

// Allows reports whether err matches one of the faults.
func (r RefPatchResult) Allows(err error) bool {
	for _, f := range r.Faults {
		if errors.Is(err, f) {
			return true
		}
	}
	return false
}

// RefPatch applies ops to body, a document's compact text without _ts and
// _etag, in a collection whose partition-key path is pkPath.
func RefPatch(body, pkPath string, ops []RefPatchOp) RefPatchResult {
	pk := strings.Split(pkPath[1:], "/")
	compiled, err := refCompile(ops, pk)
	if err != nil {
		return RefPatchResult{Stage: RefCompile, Faults: []error{ErrInvalidPatch}, Reason: err.Error()}
	}
	root, err := refParse([]byte(body))
	if err != nil || root.kind != 'o' {
		panic(fmt.Sprintf("RefPatch of %q, not a JSON object: %v", body, err))
	}
	for i, op := range compiled {
		if err := refApply(root, op); err != nil {
			return RefPatchResult{Stage: RefApply, Faults: []error{ErrInvalidPatch}, Reason: fmt.Sprintf("operation %d (%v): %v", i+1, ops[i], err)}
		}
	}
	res := RefPatchResult{Body: string(root.appendTo(nil, false)), Canon: string(root.appendTo(nil, true)), Exact: refExact(root)}
	e := fzExpectDocument([]byte(res.Body), pkPath)
	switch {
	case e.scanErr:
		res.Faults = []error{ErrInvalidDocument}
		res.Reason = "the result is not valid UTF-8, or too deep"
	case len(e.faults) > 0:
		for _, s := range fzSentinels {
			if e.faults[s] {
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
func RefTTL(lit string) (int64, bool) { return fzTTLOracle(lit) }

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
func TestPatchReferenceKnownAnswers(t *testing.T) {
	const doc = `{"id":"a","pk":"p","n":1,"arr":[1,2,3],"o":{"k":"v"}}`
	with := func(s string) string { return strings.Replace(doc, `,"o":{"k":"v"}}`, s, 1) }
	arr := func(s string) string { return strings.Replace(doc, `[1,2,3]`, s, 1) }
	add := func(p string, v string) RefPatchOp {
		return RefPatchOp{Kind: "add", Path: p, Value: json.RawMessage(v)}
	}
	set := func(p string, v string) RefPatchOp {
		return RefPatchOp{Kind: "set", Path: p, Value: json.RawMessage(v)}
	}
	rep := func(p string, v string) RefPatchOp {
		return RefPatchOp{Kind: "replace", Path: p, Value: json.RawMessage(v)}
	}
	rem := func(p string) RefPatchOp { return RefPatchOp{Kind: "remove", Path: p} }
	incr := func(p string, by int64) RefPatchOp { return RefPatchOp{Kind: "incr", Path: p, By: by} }
	move := func(from, p string) RefPatchOp { return RefPatchOp{Kind: "move", From: from, Path: p} }
	bad := ErrInvalidPatch.Error()
	cases := []struct {
		doc  string
		ops  []RefPatchOp
		want string // the body, or the error text of the sentinel
	}{
		{doc, []RefPatchOp{add("/x", "5")}, with(`,"o":{"k":"v"},"x":5}`)},
		{doc, []RefPatchOp{add("/n", " [ 5 ] ")}, strings.Replace(doc, `"n":1`, `"n":[5]`, 1)},
		{doc, []RefPatchOp{add("/arr/1", "9")}, arr("[1,9,2,3]")},
		{doc, []RefPatchOp{add("/arr/0", "9")}, arr("[9,1,2,3]")},
		{doc, []RefPatchOp{add("/arr/3", "9")}, arr("[1,2,3,9]")},
		{doc, []RefPatchOp{add("/arr/-", "9")}, arr("[1,2,3,9]")},
		{doc, []RefPatchOp{add("/arr/4", "9")}, bad},
		{doc, []RefPatchOp{add("/arr/01", "9")}, bad},
		{doc, []RefPatchOp{set("/arr/1", "9")}, arr("[1,9,3]")},
		{doc, []RefPatchOp{set("/arr/3", "9")}, arr("[1,2,3,9]")},
		{doc, []RefPatchOp{set("/arr/-", "9")}, arr("[1,2,3,9]")},
		{doc, []RefPatchOp{set("/arr/4", "9")}, bad},
		{doc, []RefPatchOp{set("/o/k", `"\u0077"`)}, with(`,"o":{"k":"\u0077"}}`)},
		{doc, []RefPatchOp{rep("/arr/1", "9")}, arr("[1,9,3]")},
		{doc, []RefPatchOp{rep("/arr/3", "9")}, bad},
		{doc, []RefPatchOp{rep("/arr/-", "9")}, bad},
		{doc, []RefPatchOp{rep("/x", "9")}, bad},
		{doc, []RefPatchOp{rep("/o", "null")}, with(`,"o":null}`)},
		{doc, []RefPatchOp{rem("/arr/0")}, arr("[2,3]")},
		{doc, []RefPatchOp{rem("/arr/3")}, bad},
		{doc, []RefPatchOp{rem("/arr/-")}, bad},
		{doc, []RefPatchOp{rem("/x")}, bad},
		{doc, []RefPatchOp{rem("/o/k"), rem("/n")}, `{"id":"a","pk":"p","arr":[1,2,3],"o":{}}`},
		{doc, []RefPatchOp{incr("/n", 2)}, strings.Replace(doc, `"n":1`, `"n":3`, 1)},
		{doc, []RefPatchOp{incr("/n", -3)}, strings.Replace(doc, `"n":1`, `"n":-2`, 1)},
		{doc, []RefPatchOp{{Kind: "incr", Path: "/n", ByFloat: 0.5, Float: true}}, strings.Replace(doc, `"n":1`, `"n":1.5`, 1)},
		{doc, []RefPatchOp{set("/n", "2.5"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":3.5`, 1)},
		{doc, []RefPatchOp{set("/n", "1e2"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":101`, 1)},
		{doc, []RefPatchOp{set("/n", "9007199254740993"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":9007199254740994`, 1)},
		{doc, []RefPatchOp{set("/n", "9223372036854775806"), incr("/n", 1)}, strings.Replace(doc, `"n":1`, `"n":9223372036854775807`, 1)},
		{doc, []RefPatchOp{incr("/n", math.MaxInt64)}, bad},
		{doc, []RefPatchOp{set("/n", "-9223372036854775807"), incr("/n", -2)}, bad},
		{doc, []RefPatchOp{{Kind: "incr", Path: "/n", ByFloat: math.Inf(1), Float: true}}, bad},
		{doc, []RefPatchOp{set("/n", "1e308"), {Kind: "incr", Path: "/n", ByFloat: 1e308, Float: true}}, bad},
		{doc, []RefPatchOp{incr("/x", 4)}, with(`,"o":{"k":"v"},"x":4}`)},
		{doc, []RefPatchOp{{Kind: "incr", Path: "/x", ByFloat: 1e21, Float: true}}, with(`,"o":{"k":"v"},"x":1e+21}`)},
		{doc, []RefPatchOp{incr("/arr/0", 1)}, arr("[2,2,3]")},
		{doc, []RefPatchOp{incr("/arr/3", 1)}, bad},
		{doc, []RefPatchOp{incr("/o", 1)}, bad},
		{doc, []RefPatchOp{incr("/o/k", 1)}, bad},
		{doc, []RefPatchOp{move("/n", "/o/n")}, `{"id":"a","pk":"p","arr":[1,2,3],"o":{"k":"v","n":1}}`},
		{doc, []RefPatchOp{move("/n", "/n")}, doc},
		{doc, []RefPatchOp{move("/x", "/x")}, bad},
		{doc, []RefPatchOp{move("/n", "/arr")}, `{"id":"a","pk":"p","arr":1,"o":{"k":"v"}}`},
		{doc, []RefPatchOp{move("/o", "/o/x")}, bad},
		{doc, []RefPatchOp{move("/o/k", "/o")}, `{"id":"a","pk":"p","n":1,"arr":[1,2,3],"o":"v"}`},
		{doc, []RefPatchOp{move("/arr/0", "/arr/-")}, arr("[2,3,1]")},
		{doc, []RefPatchOp{move("/arr/0", "/arr/2")}, arr("[2,3,1]")},
		{doc, []RefPatchOp{move("/arr/2", "/arr/0")}, arr("[3,1,2]")},
		{doc, []RefPatchOp{add("/o/k/x", "1")}, bad},
		{doc, []RefPatchOp{add("/q/x", "1")}, bad},
		{doc, []RefPatchOp{add("/arr/x", "1")}, bad},
		{doc, []RefPatchOp{add("/a~1b", "1"), add("/m~0n", "2"), add("/", "3")}, with(`,"o":{"k":"v"},"a/b":1,"m~n":2,"":3}`)},
		{doc, []RefPatchOp{add("/id", `"b"`)}, bad},
		{doc, []RefPatchOp{add("/pk", `"q"`)}, bad},
		{doc, []RefPatchOp{rem("/pk")}, bad},
		{doc, []RefPatchOp{add("/_ts", "1")}, bad},
		{doc, []RefPatchOp{add("/_etag", `"x"`)}, bad},
		{doc, []RefPatchOp{add("", "1")}, bad},
		{doc, []RefPatchOp{add("x", "1")}, bad},
		{doc, []RefPatchOp{add("/x~2", "1")}, bad},
		{doc, []RefPatchOp{add("/x", "{")}, bad},
		{doc, []RefPatchOp{{}}, bad},
		{doc, nil, bad},
		{doc, slices.Repeat([]RefPatchOp{incr("/n", 1)}, MaxPatchOperations), strings.Replace(doc, `"n":1`, `"n":11`, 1)},
		{doc, slices.Repeat([]RefPatchOp{incr("/n", 1)}, MaxPatchOperations+1), bad},
		{doc, []RefPatchOp{set("/n", "2"), rep("/missing", "1")}, bad},
		{doc, []RefPatchOp{set("/ttl", "5")}, with(`,"o":{"k":"v"},"ttl":5}`)},
		{doc, []RefPatchOp{set("/ttl", "10.0"), incr("/ttl", -5)}, with(`,"o":{"k":"v"},"ttl":5}`)},
		{doc, []RefPatchOp{set("/ttl", "10.0")}, with(`,"o":{"k":"v"},"ttl":10.0}`)},
		{doc, []RefPatchOp{set("/ttl", "0")}, ErrInvalidTTL.Error()},
		{doc, []RefPatchOp{set("/ttl", `"5"`)}, ErrInvalidTTL.Error()},
		{doc, []RefPatchOp{incr("/ttl", -1)}, with(`,"o":{"k":"v"},"ttl":-1}`)},
		{doc, []RefPatchOp{add("/deep", strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth))}, ErrInvalidDocument.Error()},
		{`{"id":"a","pk":"p","d":1,"d":2}`, []RefPatchOp{add("/d", "3")}, bad},
		{`{"id":"a","pk":"p","d":1,"d":2}`, []RefPatchOp{add("/e", "3")}, `{"id":"a","pk":"p","d":1,"d":2,"e":3}`},
		{`{"id":"a","pk":"p","\u0064":1}`, []RefPatchOp{incr("/d", 1)}, `{"id":"a","pk":"p","\u0064":2}`},
	}
	for i, tc := range cases {
		res := RefPatch(tc.doc, "/pk", tc.ops)
		got := res.Body
		if res.Stage != RefOK {
			got = res.Faults[0].Error()
		}
		if got != tc.want {
			t.Errorf("case %d %v: the reference says %s, want %s", i, tc.ops, got, tc.want)
		}
		c := fzCollection(t, "/pk", TTLNoDefault())
		created, err := c.CreateJSON(bg, []byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		d, err := c.Patch(bg, StringKey("p"), "a", RefOps(tc.ops))
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
// reference, refIncr, follows the library, so that FuzzPatch and the
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
