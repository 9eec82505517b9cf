package ref

// The oracles of R2 and R10 that the reference patch checks a patched
// document with: an independent JSON reading (encoding/json's Decoder,
// token by token, into a tree that keeps members in order, duplicates and
// number literals) and what SPEC.md says of a written document. Copied
// from the root package's fuzz_test.go (fzExpectDocument and what it
// needs), whose internal tests cannot import this package.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb"
)

// fzSentinels are all the sentinel errors; every error must match exactly
// one of them (Errors section of SPEC.md).
var fzSentinels = []error{
	ttldb.ErrNotFound, ttldb.ErrConflict, ttldb.ErrPreconditionFailed, ttldb.ErrInvalidTTL,
	ttldb.ErrInvalidID, ttldb.ErrInvalidPartitionKey, ttldb.ErrInvalidDocument, ttldb.ErrTooLarge,
	ttldb.ErrInvalidOption, ttldb.ErrInvalidContinuation, ttldb.ErrClosed,
}

type fzNode struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	str  string // a string's decoded value or a number's literal
	lone bool   // a string whose literal holds a lone surrogate escape
	keys []string
	vals []*fzNode // members of an object, elements of an array
}

func fzParse(b []byte) (*fzNode, error) { return parseWhole(b, fzParseValue) }

// parseWhole reads one JSON value of b with parse, from a decoder that
// keeps numbers as written, and nothing after it.
func parseWhole[T any](b []byte, parse func(*json.Decoder, []byte) (T, error)) (T, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := parse(dec, b)
	if err != nil {
		return n, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return n, fmt.Errorf("data after the value (%v)", err)
	}
	return n, nil
}

func fzParseValue(dec *json.Decoder, src []byte) (*fzNode, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	lit := strings.TrimLeft(string(src[start:dec.InputOffset()]), " \t\r\n,:")
	switch v := tok.(type) {
	case json.Delim:
		n := &fzNode{kind: 'a'}
		if v == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("member name %v", kt)
				}
				n.keys = append(n.keys, k)
			}
			e, err := fzParseValue(dec, src)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &fzNode{kind: 's', str: v, lone: fzLoneSurrogate(lit)}, nil
	case json.Number:
		return &fzNode{kind: 'n', str: string(v)}, nil
	case bool:
		if v {
			return &fzNode{kind: 't'}, nil
		}
		return &fzNode{kind: 'f'}, nil
	case nil:
		return &fzNode{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("token %v", tok)
}

// fzEscape matches one escape of a JSON string literal, left to right, so
// that an escaped backslash is never read as the start of another escape.
var fzEscape = regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|.)`)

// fzLoneSurrogate reports whether the JSON string literal lit holds a \u
// escape of a surrogate that is not half of a high-low pair of adjacent
// escapes: valid JSON, but no Unicode text (R10 refuses it in ids and
// partition keys; encoding/json decodes it as U+FFFD).
func fzLoneSurrogate(lit string) bool {
	ms := fzEscape.FindAllStringSubmatchIndex(lit, -1)
	unit := func(k int) (uint64, bool) {
		m := ms[k]
		if lit[m[2]] != 'u' {
			return 0, false
		}
		u, _ := strconv.ParseUint(lit[m[2]+1:m[3]], 16, 16)
		return u, true
	}
	for k := 0; k < len(ms); k++ {
		u, ok := unit(k)
		switch {
		case !ok || u < 0xd800 || u > 0xdfff:
		case u >= 0xdc00:
			return true // a low surrogate not after a high one
		default: // a high surrogate: the next escape, right after it, must be a low one
			if k+1 == len(ms) || ms[k+1][0] != ms[k][1] {
				return true
			}
			if next, ok := unit(k + 1); !ok || next < 0xdc00 || next > 0xdfff {
				return true
			}
			k++
		}
	}
	return false
}

// depth is the nesting of containers: a flat object is 1.
func (n *fzNode) depth() int {
	if n.kind != 'o' && n.kind != 'a' {
		return 0
	}
	d := 0
	for _, v := range n.vals {
		d = max(d, v.depth())
	}
	return d + 1
}

// members returns the values of the members named name.
func (n *fzNode) members(name string) []*fzNode {
	var out []*fzNode
	for i, k := range n.keys {
		if k == name {
			out = append(out, n.vals[i])
		}
	}
	return out
}

// without returns a copy of the object n without the members named names.
func (n *fzNode) without(names ...string) *fzNode {
	out := &fzNode{kind: n.kind}
	for i, k := range n.keys {
		if !slices.Contains(names, k) {
			out.keys = append(out.keys, k)
			out.vals = append(out.vals, n.vals[i])
		}
	}
	return out
}

// Oracles from the text of SPEC.md.

// fzIDOK is R10 for ids: non-empty, at most 1023 bytes, UTF-8, without '/',
// '\', '?', '#' or control characters (U+0000-U+001F, U+007F-U+009F).
func fzIDOK(id string) bool {
	if id == "" || len(id) > 1023 || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if r == '/' || r == '\\' || r == '?' || r == '#' || r <= 0x1f || (r >= 0x7f && r <= 0x9f) {
			return false
		}
	}
	return true
}

// fzPKStringOK is R10 for a string partition key.
func fzPKStringOK(s string) bool { return len(s) <= 2048 && utf8.ValidString(s) }

var fzNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// fzTTLOracle is R1/R2 for a JSON value given as its text (no surrounding
// space): null (inherit: 0, true), or a JSON number that is exactly an
// integer equal to -1 or from 1 to 2147483647. It decides with math/big,
// never with floating point and without the library's exactInt.
func fzTTLOracle(lit string) (int64, bool) {
	if lit == "null" {
		return 0, true
	}
	m := fzNumber.FindStringSubmatch(lit)
	if m == nil {
		return 0, false
	}
	// The value is mant * 10^k, mant the significant digits.
	frac := strings.TrimPrefix(m[2], ".")
	k := big.NewInt(0)
	if m[3] != "" {
		if _, ok := k.SetString(strings.TrimPrefix(m[3][1:], "+"), 10); !ok {
			panic("exponent " + m[3])
		}
	}
	k.Sub(k, big.NewInt(int64(len(frac))))
	mant := strings.TrimLeft(m[1]+frac, "0")
	if mant == "" {
		return 0, false // zero
	}
	n := int64(len(mant))
	// 10^(n-1) <= mant < 10^n, so |value| >= 10^(n-1+k) >= 10^k, and
	// |value| < 10^(n+k): decide the far-out cases without big powers
	// (big.Rat.SetString refuses exponents beyond a million).
	if k.Cmp(big.NewInt(10)) > 0 {
		return 0, false // |value| >= 1e11
	}
	if new(big.Int).Add(k, big.NewInt(n)).Sign() <= 0 {
		return 0, false // 0 < |value| < 1
	}
	var r big.Rat
	if _, ok := r.SetString(lit); !ok {
		// Only for more than a million significant digits: build the
		// value from its parts.
		num, _ := new(big.Int).SetString(mant, 10)
		p := new(big.Int).Exp(big.NewInt(10), new(big.Int).Abs(k), nil)
		if k.Sign() >= 0 {
			r.SetInt(num.Mul(num, p))
		} else {
			r.SetFrac(num, p)
		}
		if lit[0] == '-' {
			r.Neg(&r)
		}
	}
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, false
	}
	v := r.Num().Int64()
	if v == -1 || (v >= 1 && v <= 2147483647) {
		return v, true
	}
	return 0, false
}

// fzExpect is what SPEC.md says of a document written to a collection whose
// partition-key path is path.
type fzExpect struct {
	// scanErr: the input is not a JSON object within R10's depth, or not
	// UTF-8: the only answer is ErrInvalidDocument.
	scanErr bool
	// faults are the sentinels the input breaks; empty when it must be
	// accepted. When it breaks several, any of them may be reported.
	faults map[error]bool
	// bigInput: over MaxDocumentSize bytes, so ErrTooLarge may be reported
	// (whether it must depends on the whitespace and system properties
	// dropped).
	bigInput bool

	tree   *fzNode // the input
	id     string
	ttl    *fzNode // nil when absent
	ttlVal int64
	pk     ttldb.PartitionKey
}

func fzExpectDocument(b []byte, path string) fzExpect {
	e := fzExpect{faults: map[error]bool{}, bigInput: len(b) > ttldb.MaxDocumentSize}
	if !json.Valid(b) || !utf8.Valid(b) {
		// Invalid JSON is never accepted; valid JSON holds bytes >= 0x80
		// only in strings, where R10 wants UTF-8 (the library is stricter
		// than encoding/json, which replaces bad bytes with U+FFFD).
		e.scanErr = true
		return e
	}
	tree, err := fzParse(b)
	if err != nil {
		panic(fmt.Sprintf("json.Valid accepts %q but the Decoder says %v", b, err))
	}
	e.tree = tree
	// R10's depth is that of what is stored: without _ts and _etag, which
	// are only read, and whose nesting the scanner bounds at 10,000.
	if tree.kind != 'o' || tree.without("_ts", "_etag").depth() > ttldb.MaxDepth || tree.depth() > 10_000 {
		e.scanErr = true
		return e
	}
	if e.bigInput && len(tree.members("_ts"))+len(tree.members("_etag")) == 0 {
		// R10's size is that of the compact encoding (json.Compact keeps
		// strings as written, as the library does).
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			panic(err)
		}
		if compact.Len() > ttldb.MaxDocumentSize {
			e.faults[ttldb.ErrTooLarge] = true
		}
		e.bigInput = false
	}
	segs := strings.Split(path[1:], "/")

	// Members that R2 and R10 read must appear once (the library is
	// stricter than encoding/json, where the last one wins).
	for _, name := range []string{"id", "ttl", segs[0]} {
		if len(tree.members(name)) > 1 {
			e.faults[ttldb.ErrInvalidDocument] = true
		}
	}

	// id (R10)
	switch ids := tree.members("id"); {
	case len(ids) == 0 || ids[0].kind != 's':
		e.faults[ttldb.ErrInvalidID] = true
	case !fzIDOK(ids[0].str) || ids[0].lone:
		e.faults[ttldb.ErrInvalidID] = true
	default:
		e.id = ids[0].str
	}

	// ttl (R2)
	if ttls := tree.members("ttl"); len(ttls) > 0 {
		e.ttl = ttls[0]
		lit := "null"
		switch e.ttl.kind {
		case 'z':
		case 'n':
			lit = e.ttl.str
		default:
			lit = "not a number"
		}
		v, ok := fzTTLOracle(lit)
		if !ok {
			e.faults[ttldb.ErrInvalidTTL] = true
		}
		e.ttlVal = v
	}

	// partition key (R10): follow the path; a member along it must not
	// appear twice.
	cur := tree
	found := true
	for _, seg := range segs {
		if cur.kind != 'o' {
			found = false
			break
		}
		vs := cur.members(seg)
		if len(vs) > 1 {
			e.faults[ttldb.ErrInvalidDocument] = true
		}
		if len(vs) == 0 {
			found = false
			break
		}
		cur = vs[0]
	}
	if found {
		switch cur.kind {
		case 's':
			if !fzPKStringOK(cur.str) || cur.lone {
				e.faults[ttldb.ErrInvalidPartitionKey] = true
			}
			e.pk = ttldb.StringKey(cur.str)
		case 'n':
			f, err := strconv.ParseFloat(cur.str, 64)
			if err != nil || math.IsInf(f, 0) {
				e.faults[ttldb.ErrInvalidPartitionKey] = true
			}
			e.pk = ttldb.NumberKey(f)
		case 't':
			e.pk = ttldb.BoolKey(true)
		case 'f':
			e.pk = ttldb.BoolKey(false)
		case 'z':
			e.pk = ttldb.NullKey()
		default:
			e.faults[ttldb.ErrInvalidPartitionKey] = true
		}
	}
	return e
}
