package ttldb

// Native Go fuzz targets for the input paths that take untrusted bytes:
//
//   - FuzzDocument: a whole document through Create (the JSON intake scanner);
//   - FuzzTTLValue: the value of a document's ttl and of a DefaultTTL (R1, R2);
//   - FuzzIDAndPartitionKey: ids and partition keys through Create, Get,
//     Touch and Delete, and the internal key encoding (R10);
//   - FuzzContinuation: continuation tokens given to List.
//
// Each target checks the library against an oracle written independently of
// it: encoding/json for JSON, math/big for ttl numbers, the text of R10 for
// ids and keys. The seeds (f.Add and testdata/fuzz/FuzzXxx) run with every
// `go test`; to fuzz one target for a million inputs:
//
//	go test -run='^$' -fuzz='^FuzzDocument$' -fuzztime=1000000x ./
//
// A -fuzztime given as a duration also works, but before Go 1.27 it can end
// with a spurious "context deadline exceeded" failure when the time runs out
// (golang/go#75804); CI uses counts for that reason.
//
// The assertion style: unit tests check with testify's require; these
// oracles, like the model test's harness, compare a whole result and fail
// with one t.Fatalf that describes the case, so that a crasher reads as one
// sentence.

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ttldb/ttldb/internal/jsonscan"
	"github.com/ttldb/ttldb/internal/ref"
)

// fzNow is the fixed time of the fuzz collections' clock.
const fzNow = 1_700_000_000

// fzSentinels are all the sentinel errors; every error must match exactly
// one of them (Errors section of SPEC.md).
var fzSentinels = []error{
	ErrNotFound, ErrConflict, ErrPreconditionFailed, ErrInvalidTTL,
	ErrInvalidID, ErrInvalidPartitionKey, ErrInvalidDocument, ErrTooLarge,
	ErrInvalidOption, ErrInvalidContinuation, ErrClosed,
}

// fzFault is the sentinel each fault of the oracles (internal/ref) names.
var fzFault = map[ref.Fault]error{
	ref.PreconditionFailed: ErrPreconditionFailed, ref.InvalidTTL: ErrInvalidTTL, ref.InvalidID: ErrInvalidID,
	ref.InvalidPartitionKey: ErrInvalidPartitionKey, ref.InvalidDocument: ErrInvalidDocument,
	ref.TooLarge: ErrTooLarge, ref.InvalidPatch: ErrInvalidPatch,
}

// fzFaults returns the sentinels of faults.
func fzFaults(faults map[ref.Fault]bool) map[error]bool {
	out := map[error]bool{}
	for f := range faults {
		out[fzFault[f]] = true
	}
	return out
}

// fzKey is the library's partition key of the oracle's.
func fzKey(k ref.Key) PartitionKey {
	switch k.Kind {
	case 's':
		return StringKey(k.Str)
	case 'n':
		return NumberKey(k.Num)
	case 't', 'f':
		return BoolKey(k.Kind == 't')
	case 'z':
		return NullKey()
	}
	return PartitionKey{}
}

// fzSentinel returns the one sentinel err matches, failing the test when it
// matches none or several.
func fzSentinel(t testing.TB, err error) error {
	t.Helper()
	var found []error
	for _, s := range fzSentinels {
		if errors.Is(err, s) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("error %q matches %d sentinels %v, want exactly one", err, len(found), found)
	}
	return found[0]
}

// fzWantErr fails unless err is not nil and matches one of allowed.
func fzWantErr(t testing.TB, err error, allowed map[error]bool, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want an error matching one of %v", what, slices.Collect(maps.Keys(allowed)))
	}
	if s := fzSentinel(t, err); !allowed[s] {
		t.Fatalf("%s: error %q, want one matching %v", what, err, slices.Collect(maps.Keys(allowed)))
	}
}

// fzCollection returns an empty collection on a fixed clock without a
// sweeper.
func fzCollection(t testing.TB, path string, def DefaultTTL) *Collection {
	t.Helper()
	c, err := NewCollection("fuzz", path, &Options{
		DefaultTTL:  def,
		ManualSweep: true,
		Now:         func() time.Time { return time.Unix(fzNow, 0) },
	})
	if err != nil {
		t.Fatalf("NewCollection(%q, %v): %v", path, def, err)
	}
	return c
}

// fzRequireEmpty fails unless c holds no live document.
func fzRequireEmpty(t testing.TB, c *Collection, what string) {
	t.Helper()
	n, err := c.Count(bg, Query{})
	if err != nil || n != 0 {
		t.Fatalf("%s: Count = %d, %v; want 0 after a rejected write", what, n, err)
	}
	p, err := c.List(bg, Query{})
	if err != nil || len(p.Documents) != 0 || p.Continuation != "" {
		t.Fatalf("%s: List = %v, %v; want an empty page after a rejected write", what, p, err)
	}
}

// fzDecodeMap decodes an object as encoding/json does (last duplicate wins),
// numbers kept as literals.
func fzDecodeMap(t testing.TB, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("encoding/json cannot decode %.200q into a map: %v", b, err)
	}
	return m
}

// ---------------------------------------------------------------------------
// FuzzDocument

// fzDocSetups are the partition-key paths and DefaultTTLs every document is
// written under. Whether a write is accepted must not depend on DefaultTTL
// (R2); with the clock fixed, no document expires during a check.
var fzDocSetups = []struct {
	path string
	def  DefaultTTL
}{
	{"/pk", TTLOff()},
	{"/a/b", TTLNoDefault()},
	{"/id", TTLSeconds(100)},
	{"/ttl", TTLNoDefault()},
}

// fzCheckDocument writes b with Create to a new collection with the
// partition-key path path and checks the outcome against ref.ExpectDocument.
// It returns the stored document when b was accepted.
func fzCheckDocument(t testing.TB, b []byte, path string, def DefaultTTL) (Document, bool) {
	t.Helper()
	e := ref.ExpectDocument(b, path)
	c := fzCollection(t, path, def)
	defer c.Close()
	what := fmt.Sprintf("Create(%.200q [%d bytes]) with path %s, DefaultTTL %v", b, len(b), path, def)
	d, err := c.Create(bg, b)

	if e.ScanErr || len(e.Faults) > 0 {
		allowed := fzFaults(e.Faults)
		if e.ScanErr {
			allowed = map[error]bool{ErrInvalidDocument: true}
		}
		if e.BigInput {
			allowed[ErrTooLarge] = true
		}
		fzWantErr(t, err, allowed, what)
		if d != (Document{}) {
			t.Fatalf("%s: rejected with %v but returned the document %s", what, err, d.JSON())
		}
		_, err = c.Upsert(bg, b)
		fzWantErr(t, err, allowed, "Upsert of "+what)
		fzRequireEmpty(t, c, what)
		return Document{}, false
	}
	if err != nil {
		if e.BigInput && errors.Is(err, ErrTooLarge) {
			return Document{}, false
		}
		t.Fatalf("%s: %v; want it accepted", what, err)
	}

	// The stored JSON: valid, compact, the input's members in order
	// without _ts and _etag, then the library's _ts and _etag.
	stored := []byte(d.JSON())
	if !json.Valid(stored) || !utf8.Valid(stored) {
		t.Fatalf("%s: stored invalid JSON %q", what, stored)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, stored); err != nil || !bytes.Equal(compact.Bytes(), stored) {
		t.Fatalf("%s: stored JSON %q is not compact", what, stored)
	}
	st, err := ref.Parse(stored)
	if err != nil || st.Kind != 'o' || len(st.Keys) < 3 {
		t.Fatalf("%s: stored %q is not an object with id, _ts and _etag (%v)", what, stored, err)
	}
	n := len(st.Keys)
	if st.Keys[n-2] != "_ts" || st.Vals[n-2].Kind != 'n' || st.Vals[n-2].Str != strconv.Itoa(fzNow) ||
		d.TS() != fzNow {
		t.Fatalf("%s: stored %q, TS %d: want _ts %d second to last", what, stored, d.TS(), fzNow)
	}
	etag := d.ETag()
	if st.Keys[n-1] != "_etag" || st.Vals[n-1].Kind != 's' || st.Vals[n-1].Str != etag ||
		len(etag) != 16 || strings.Trim(etag, "0123456789abcdef") != "" {
		t.Fatalf("%s: stored %q, ETag %q: want a 16-digit hex _etag last", what, stored, etag)
	}
	body := &ref.Node{Kind: 'o', Keys: st.Keys[:n-2], Vals: st.Vals[:n-2]}
	if want := e.Tree.Without("_ts", "_etag"); !reflect.DeepEqual(body, want) {
		t.Fatalf("%s: stored %q, which is not the input's members in order", what, stored)
	}
	// And as encoding/json reads both (last duplicate wins).
	got, want := fzDecodeMap(t, stored), fzDecodeMap(t, b)
	for _, m := range []map[string]any{got, want} {
		delete(m, "_ts")
		delete(m, "_etag")
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: stored %q decodes to %v, the input to %v", what, stored, got, want)
	}

	// id, partition key and ttl as the input has them.
	if d.ID() != e.ID {
		t.Fatalf("%s: ID() = %q, want %q", what, d.ID(), e.ID)
	}
	if want := fzKey(e.PK); d.PartitionKey() != want {
		t.Fatalf("%s: PartitionKey() = %v, want %v", what, d.PartitionKey(), want)
	}
	sec, ok := d.TTL()
	switch {
	case e.TTL == nil || e.TTL.Kind == 'z':
		if ok {
			t.Fatalf("%s: TTL() = %d, true; want none (inherit)", what, sec)
		}
	case !ok || int64(sec) != e.TTLVal:
		t.Fatalf("%s: TTL() = %d, %v; want %d", what, sec, ok, e.TTLVal)
	}

	// Read back.
	g, err := c.Get(bg, d.PartitionKey(), d.ID())
	if err != nil || g.JSON() != d.JSON() {
		t.Fatalf("%s: Get(%v, %q) = %q, %v; want %q", what, d.PartitionKey(), d.ID(), g.JSON(), err, d.JSON())
	}
	p, err := c.List(bg, Query{})
	if err != nil || len(p.Documents) != 1 || p.Documents[0].JSON() != d.JSON() || p.Continuation != "" {
		t.Fatalf("%s: List = %v, %v; want the one document", what, p, err)
	}
	if cnt, err := c.Count(bg, Query{}); err != nil || cnt != 1 {
		t.Fatalf("%s: Count = %d, %v; want 1", what, cnt, err)
	}

	// The other writes of the same input: Create again conflicts (R10), a
	// Replace with a wrong etag fails its precondition, Upsert replaces.
	_, err = c.Create(bg, b)
	fzWantErr(t, err, map[error]bool{ErrConflict: true}, what+" twice")
	_, err = c.Replace(bg, b, IfMatch("not-the-etag"))
	fzWantErr(t, err, map[error]bool{ErrPreconditionFailed: true}, what+", Replace with a wrong etag")
	u, err := c.Upsert(bg, b)
	if err != nil || u.ETag() == d.ETag() || u.ID() != d.ID() || u.PartitionKey() != d.PartitionKey() ||
		strings.TrimSuffix(u.JSON(), u.ETag()+`"}`) != strings.TrimSuffix(d.JSON(), d.ETag()+`"}`) {
		t.Fatalf("%s, then Upsert = %q, %v; want %q with a new etag", what, u.JSON(), err, d.JSON())
	}
	if cnt, err := c.Count(bg, Query{}); err != nil || cnt != 1 {
		t.Fatalf("%s, then Upsert: Count = %d, %v; want 1", what, cnt, err)
	}
	return d, true
}

// fzDocumentSeeds are texts that exercise the intake: jsonscan.Seeds.
func fzDocumentSeeds() [][]byte { return jsonscan.Seeds() }

// fzFuzzing reports whether the test binary is fuzzing (-fuzz), not just
// running the seeds. Seeds of megabytes are added only then: mutated, they
// would slow fuzzing down.
func fzFuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// fzBigDocumentSeeds are documents around MaxDocumentSize (R10).
func fzBigDocumentSeeds() [][]byte {
	pad := func(n int) string { return strings.Repeat("x", n) }
	frame := len(`{"id":"a","x":""}`)
	return [][]byte{
		[]byte(`{"id":"a","x":"` + pad(MaxDocumentSize-frame) + `"}`),                // exactly the limit
		[]byte(`{"id":"a","x":"` + pad(MaxDocumentSize-frame+1) + `"}`),              // one byte over
		[]byte(` {"id" : "a", "x" : "` + pad(MaxDocumentSize-frame) + `" } ` + "\n"), // over only with spaces
		[]byte(`{"id":"a","_ts":1,"x":"` + pad(MaxDocumentSize-frame) + `"}`),        // over only with _ts
		[]byte(`{"id":"a","x":[` + strings.Repeat("1,", MaxDocumentSize/2) + `1],"y":}`),
	}
}

func FuzzDocument(f *testing.F) {
	for _, s := range fzDocumentSeeds() {
		f.Add(s)
	}
	if !fzFuzzing() {
		for _, s := range fzBigDocumentSeeds() {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		setups := fzDocSetups
		if len(b) > 64<<10 {
			setups = setups[:1] // keep megabyte seeds quick
		}
		for _, s := range setups {
			fzCheckDocument(t, b, s.path, s.def)
		}
	})
}

// ---------------------------------------------------------------------------
// FuzzTTLValue

// fzJSONSpace trims JSON's insignificant white space.
func fzJSONSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

func fzCheckDefaultTTL(t testing.TB, v []byte) {
	t.Helper()
	want, ok := int64(0), false
	if json.Valid(v) {
		want, ok = ref.RefTTL(string(fzJSONSpace(v)))
	}
	before := TTLSeconds(77)
	d := before
	err := d.UnmarshalJSON(v)
	what := fmt.Sprintf("DefaultTTL.UnmarshalJSON(%.200q [%d bytes])", v, len(v))
	if !ok {
		fzWantErr(t, err, map[error]bool{ErrInvalidTTL: true}, what)
		if d != before {
			t.Fatalf("%s: rejected with %v but changed the value to %v", what, err, d)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v; want it accepted", what, err)
	}
	n, on := d.Seconds()
	switch {
	case string(fzJSONSpace(v)) == "null":
		if on || d != TTLOff() {
			t.Fatalf("%s = %v; want off", what, d)
		}
	case !on || n != want:
		t.Fatalf("%s = %v; want %d", what, d, want)
	}
	// The value is one of R1's states: a collection takes it, and it
	// encodes back to its value.
	c, err := NewCollection("fuzz", "/pk", &Options{DefaultTTL: d, ManualSweep: true})
	if err != nil {
		t.Fatalf("%s = %v, which NewCollection refuses: %v", what, d, err)
	}
	c.Close()
	out, err := d.MarshalJSON()
	if wantOut := "null"; on {
		wantOut = strconv.FormatInt(want, 10)
		if err != nil || string(out) != wantOut {
			t.Fatalf("%s = %v, which encodes to %q, %v; want %s", what, d, out, err, wantOut)
		}
	} else if err != nil || string(out) != wantOut {
		t.Fatalf("%s = %v, which encodes to %q, %v; want null", what, d, out, err)
	}
	// encoding/json reaches UnmarshalJSON with the same verdict.
	var holder struct{ D DefaultTTL }
	if err := json.Unmarshal([]byte(`{"D":`+string(v)+`}`), &holder); err != nil || holder.D != d {
		t.Fatalf("json.Unmarshal of %v into a DefaultTTL field = %v, %v; want %v", v, holder.D, err, d)
	}
}

func fzTTLSeeds() [][]byte {
	seeds := []string{
		"null", " null ", "-1", "1", "10", "10.0", "1e1", "1E+1", "100e-2", "0.1e1",
		"10.5", "0", "-0", "-0.0", "0e5", "-1.0", "-1e0", "-10e-1", "-2", "-2147483647",
		"2147483647", "2147483647.0", "2147483647.0000000001", "2147483648",
		"21474836470e-1", "214748364.7e1", "9999999999", "99999999999", "1e9", "1e10",
		"0.00000000000000000001e20", "100000000000000000000e-20", "1e1000000000",
		"1e-1000000000", "1e+00000000000000000001", "1e99999999999999999999",
		"\"10\"", "true", "false", "[]", "[1]", "{}", "{\"a\":1}", "\t10\n",
		"1e", "01", "- 1", ".5", "+1", "0x10", "1,\"b\":2", "null,\"ttl\":1",
		"1 2", "", " ", "nul", "Infinity", "NaN",
	}
	var out [][]byte
	for _, s := range seeds {
		out = append(out, []byte(s))
	}
	return out
}

// fzTTLCapSeed is a ttl whose exponent has more than seven digits and whose
// fraction has a million: 0.000…001e10000000 is 10^9000000, which R1 and R2
// refuse. It is built in code, being a megabyte, and is a known failure:
// exactInt stops reading exponent digits at 1000000, so it reads the
// exponent as 1000000 and the value as 1.
func fzTTLCapSeed() []byte {
	return []byte("0." + strings.Repeat("0", 999_999) + "1e10000000")
}

func FuzzTTLValue(f *testing.F) {
	for _, s := range fzTTLSeeds() {
		f.Add(s)
	}
	if !fzFuzzing() {
		f.Add(fzTTLCapSeed())
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		fzCheckDefaultTTL(t, v)

		// As a document's ttl (R2).
		doc := []byte(`{"id":"a","ttl":` + string(v) + `}`)
		d, ok := fzCheckDocument(t, doc, "/pk", TTLNoDefault())
		if _, okOff := fzCheckDocument(t, doc, "/pk", TTLOff()); okOff != ok {
			t.Fatalf("ttl %.200q: accepted = %v with DefaultTTL off, %v with -1 (R2)", v, okOff, ok)
		}
		if !json.Valid(v) {
			return // then doc's ttl is not v (fzCheckDocument judged doc)
		}
		lit := fzJSONSpace(v)
		want, wantOK := ref.RefTTL(string(lit))
		what := fmt.Sprintf("ttl %.200q [%d bytes]", v, len(v))
		if ok != wantOK {
			t.Fatalf("%s: accepted = %v, want %v", what, ok, wantOK)
		}
		if !ok {
			return
		}
		// Stored exactly as written, never as the inherited default.
		if wantJSON := `{"id":"a","ttl":` + string(lit) + `,"_ts":`; !strings.HasPrefix(d.JSON(), wantJSON) {
			t.Fatalf("%s: stored %.200q, want it to start %.200q", what, d.JSON(), wantJSON)
		}
		sec, has := d.TTL()
		if string(lit) == "null" {
			if has {
				t.Fatalf("%s: TTL() = %d, true; want none", what, sec)
			}
		} else if !has || int64(sec) != want {
			t.Fatalf("%s: TTL() = %d, %v; want %d", what, sec, has, want)
		}
	})
}

// ---------------------------------------------------------------------------
// FuzzIDAndPartitionKey

// fzRawJSONString quotes s as a JSON string, escaping only what JSON
// requires and leaving any other byte, valid UTF-8 or not, as it is.
func fzRawJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// fzEscapedJSONString quotes s, valid UTF-8, with every character written
// as a \u escape (surrogate pairs beyond U+FFFF).
func fzEscapedJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04X\u%04x`, r1, r2)
			continue
		}
		fmt.Fprintf(&b, `\u%04x`, r)
	}
	b.WriteByte('"')
	return b.String()
}

// fzLookupFaults is what a lookup by (pk, id) must report for a string key.
func fzLookupFaults(id, pk string) map[error]bool {
	faults := map[error]bool{}
	if !ref.IDOK(id) {
		faults[ErrInvalidID] = true
	}
	if !ref.PKStringOK(pk) {
		faults[ErrInvalidPartitionKey] = true
	}
	return faults
}

// fzCheckIDPK writes doc, which holds the id id and the string partition key
// pk under "/pk" (badUTF8: doc holds invalid UTF-8), then looks it up with
// every pair of lookups.
func fzCheckIDPK(t testing.TB, doc []byte, id, pk string, badUTF8 bool, lookups [][2]string) {
	t.Helper()
	c := fzCollection(t, "/pk", TTLOff())
	defer c.Close()
	what := fmt.Sprintf("Create(%.300q)", doc)
	d, err := c.Create(bg, doc)
	faults := fzLookupFaults(id, pk)
	if badUTF8 {
		faults = map[error]bool{ErrInvalidDocument: true}
	}
	accepted := len(faults) == 0
	if !accepted {
		fzWantErr(t, err, faults, what)
		fzRequireEmpty(t, c, what)
	} else {
		if err != nil {
			t.Fatalf("%s: %v; want it accepted", what, err)
		}
		if d.ID() != id || d.PartitionKey() != StringKey(pk) {
			t.Fatalf("%s: ID() = %q, PartitionKey() = %v; want %q, %q", what, d.ID(), d.PartitionKey(), id, pk)
		}
	}

	// Lookups with any strings: invalid ones are refused and change
	// nothing; valid ones find the document iff they are its key.
	for _, l := range lookups {
		qid, qpk := l[0], l[1]
		lw := fmt.Sprintf("%s, then key (%q, %q)", what, qpk, qid)
		lf := fzLookupFaults(qid, qpk)
		g, err := c.Get(bg, StringKey(qpk), qid)
		switch {
		case len(lf) > 0:
			fzWantErr(t, err, lf, "Get: "+lw)
			fzWantErr(t, c.Delete(bg, StringKey(qpk), qid), lf, "Delete: "+lw)
			_, err = c.Touch(bg, StringKey(qpk), qid)
			fzWantErr(t, err, lf, "Touch: "+lw)
		case accepted && qid == id && qpk == pk:
			if err != nil || g.JSON() != d.JSON() {
				t.Fatalf("Get: %s = %q, %v; want %q", lw, g.JSON(), err, d.JSON())
			}
		default:
			fzWantErr(t, err, map[error]bool{ErrNotFound: true}, "Get: "+lw)
		}
	}
	n, err := c.Count(bg, Query{})
	if want := map[bool]int{true: 1}[accepted]; err != nil || n != want {
		t.Fatalf("%s, then lookups: Count = %d, %v; want %d", what, n, err, want)
	}
	if !accepted {
		return
	}
	if g, err := c.Get(bg, StringKey(pk), id); err != nil || g.JSON() != d.JSON() {
		t.Fatalf("%s: Get = %q, %v; want %q", what, g.JSON(), err, d.JSON())
	}

	// Touch keeps the body and renews the etag; Delete removes it.
	td, err := c.Touch(bg, StringKey(pk), id)
	if err != nil || td.ID() != id || td.PartitionKey() != StringKey(pk) || td.ETag() == d.ETag() {
		t.Fatalf("%s: Touch = %q, %v", what, td.JSON(), err)
	}
	if body := d.JSON()[:strings.LastIndex(d.JSON(), `,"_ts":`)]; !strings.HasPrefix(td.JSON(), body+`,"_ts":`) {
		t.Fatalf("%s: Touch stored %q, want the body %q kept", what, td.JSON(), body)
	}
	if err := c.Delete(bg, StringKey(pk), id); err != nil {
		t.Fatalf("%s: Delete: %v", what, err)
	}
	if _, err := c.Get(bg, StringKey(pk), id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%s: Get after Delete: %v, want ErrNotFound", what, err)
	}
	fzRequireEmpty(t, c, what+" then Delete")
}

func fzSign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func fzEnc(k PartitionKey) string { return string(k.appendEncoded(nil)) }

// fzCheckKeyEncoding checks the internal key encoding: partition keys
// round-trip, keys split back into partition and id, and the byte order of
// keys is the order of (partition, id).
func fzCheckKeyEncoding(t testing.TB, strs []string, x, y float64) {
	t.Helper()
	var keys []PartitionKey
	for _, s := range strs {
		keys = append(keys, StringKey(s))
	}
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	for _, f := range []float64{x, y} {
		if finite(f) {
			keys = append(keys, NumberKey(f))
		} else {
			k := NumberKey(f)
			if err := k.validate(); !errors.Is(err, ErrInvalidPartitionKey) {
				t.Fatalf("NumberKey(%v).validate() = %v, want ErrInvalidPartitionKey", f, err)
			}
		}
	}
	keys = append(keys, NoPartitionKey(), NullKey(), BoolKey(false), BoolKey(true))

	for _, k := range keys {
		enc := fzEnc(k)
		got, ok := decodePartitionKey(enc)
		if !ok || got != k {
			t.Fatalf("decodePartitionKey(appendEncoded(%v)) = %v, %v", k, got, ok)
		}
		if k.kind == pkNumber && math.Float64bits(got.f) != math.Float64bits(k.f) && !(k.f == 0 && got.f == 0) {
			t.Fatalf("NumberKey(%v) decodes to %v", k.f, got.f)
		}
		for _, id := range strs {
			e, i, ok := splitKey(enc + id)
			if !ok || e != enc || i != id {
				t.Fatalf("splitKey(enc(%v) + %q) = %q, %q, %v", k, id, e, i, ok)
			}
		}
	}
	// Order: none < null < false < true < numbers < strings; numbers by
	// value; strings by bytes; then ids by bytes.
	rank := func(k PartitionKey) int {
		switch {
		case k.IsNone():
			return 0
		case k == NullKey():
			return 1
		case k == BoolKey(false):
			return 2
		case k == BoolKey(true):
			return 3
		}
		if k.kind == pkNumber {
			return 4
		}
		return 5
	}
	cmpKey := func(a, b PartitionKey) int {
		if c := rank(a) - rank(b); c != 0 {
			return fzSign(c)
		}
		if a.kind == pkNumber {
			switch {
			case a.f < b.f:
				return -1
			case a.f > b.f:
				return 1
			}
			return 0
		}
		return strings.Compare(a.s, b.s)
	}
	encs := make([]string, len(keys))
	for i, k := range keys {
		encs[i] = fzEnc(k)
	}
	for i, a := range keys {
		for j, b := range keys {
			want := cmpKey(a, b)
			if got := fzSign(strings.Compare(encs[i], encs[j])); got != want {
				t.Fatalf("encodings of %v and %v compare %d, the keys %d", a, b, got, want)
			}
			// Whole keys, partition then id: every pair of ids within a
			// partition, two pairs across partitions.
			idPairs := [][2]string{{strs[0], strs[len(strs)-1]}, {strs[len(strs)-1], strs[0]}}
			if want == 0 {
				idPairs = idPairs[:0]
				for _, ia := range strs {
					for _, ib := range strs {
						idPairs = append(idPairs, [2]string{ia, ib})
					}
				}
			}
			for _, p := range idPairs {
				ia, ib := p[0], p[1]
				w := want
				if w == 0 {
					w = strings.Compare(ia, ib)
				}
				if got := fzSign(strings.Compare(encs[i]+ia, encs[j]+ib)); got != w {
					t.Fatalf("keys (%v, %q) and (%v, %q) compare %d, want %d", a, ia, b, ib, got, w)
				}
			}
		}
	}
}

// fzCheckNumberKey writes a document whose partition key is the number x
// and looks it up by x and by y.
func fzCheckNumberKey(t testing.TB, x, y float64) {
	t.Helper()
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return
	}
	c := fzCollection(t, "/pk", TTLOff())
	defer c.Close()
	for _, lit := range []string{strconv.FormatFloat(x, 'g', -1, 64), strconv.FormatFloat(x, 'e', -1, 64)} {
		doc := `{"id":"n","pk":` + lit + `}`
		d, err := c.Upsert(bg, []byte(doc))
		if err != nil || d.PartitionKey() != NumberKey(x) {
			t.Fatalf("Upsert(%s) = %v, %v; want partition %v", doc, d.PartitionKey(), err, x)
		}
		if n, err := c.Count(bg, Query{}); err != nil || n != 1 {
			t.Fatalf("Upsert(%s): Count = %d, %v; want 1", doc, n, err)
		}
		g, err := c.Get(bg, NumberKey(y), "n")
		switch {
		case math.IsNaN(y) || math.IsInf(y, 0):
			fzWantErr(t, err, map[error]bool{ErrInvalidPartitionKey: true}, fmt.Sprintf("Get(NumberKey(%v))", y))
		case y == x:
			if err != nil || g.JSON() != d.JSON() {
				t.Fatalf("Get(NumberKey(%v)) = %q, %v; want %q", y, g.JSON(), err, d.JSON())
			}
		default:
			fzWantErr(t, err, map[error]bool{ErrNotFound: true}, fmt.Sprintf("Get(NumberKey(%v)) for a document in %v", y, x))
		}
	}
}

type fzIDSeed struct {
	id, pk, other string
	x, y          float64
}

func fzIDSeeds() []fzIDSeed {
	return []fzIDSeed{
		{"a", "p", "b", 1, 2},
		{"a", "a", "a", -1.5, -1.5},
		{"", "", "", 0, math.Copysign(0, -1)},
		{"a/b", "x/y", "a?b", 1e308, -1e308},
		{"a\\b", "#", "a#b", 5e-324, -5e-324},
		{"a\x00", "\x00", "\x00\xff", math.MaxFloat64, math.SmallestNonzeroFloat64},
		{"\x01", "a\x00b", "a", math.NaN(), 1},
		{"a\x7f", "a\x01", "a\x00", math.Inf(1), math.Inf(-1)},
		{"a\u0080", "\u0085", "\u009f", 0.1, 0.2},
		{"a\u00a0", "\u00a0", "\u00e9", 3, 3.0000000000000004},
		{"\xff", "\xc3", "\xed\xa0\x80", 1, -1},
		{"\xc3\xa9", "\xc3\xa9\x00", "e\u0301", 2147483647, 2147483648},
		{"\U0001F600", "\uFFFD", "\uFEFF", 1e21, 1e-7},
		{"\u2028\u2029", "<>&", "\"", 9007199254740993, 9007199254740992},
		{strings.Repeat("x", 1023), strings.Repeat("p", 2048), strings.Repeat("x", 1024), 0, 0},
		{strings.Repeat("é", 511) + "x", strings.Repeat("p", 2049), strings.Repeat("é", 512), 0, 0},
	}
}

func FuzzIDAndPartitionKey(f *testing.F) {
	for _, s := range fzIDSeeds() {
		f.Add(s.id, s.pk, s.other, s.x, s.y)
	}
	f.Fuzz(func(t *testing.T, id, pk, other string, x, y float64) {
		fzCheckKeyEncoding(t, []string{id, pk, other}, x, y)
		fzCheckNumberKey(t, x, y)

		lookups := [][2]string{{id, pk}, {other, pk}, {id, other}, {other, other}}

		// Through encoding/json, which replaces invalid UTF-8 with
		// U+FFFD: the document holds the replaced strings.
		b, err := json.Marshal(map[string]string{"id": id, "pk": pk})
		if err != nil {
			t.Fatal(err)
		}
		var back struct{ ID, PK string }
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		fzCheckIDPK(t, b, back.ID, back.PK, false, append(lookups, [2]string{back.ID, back.PK}))

		// The raw bytes, invalid UTF-8 and all.
		bad := !utf8.ValidString(id) || !utf8.ValidString(pk)
		raw := []byte(`{"pk":` + fzRawJSONString(pk) + `,"id":` + fzRawJSONString(id) + `}`)
		fzCheckIDPK(t, raw, id, pk, bad, lookups)

		// Every character as a \u escape.
		if !bad {
			esc := []byte(`{"id":` + fzEscapedJSONString(id) + `,"pk":` + fzEscapedJSONString(pk) + `}`)
			fzCheckIDPK(t, esc, id, pk, false, lookups[:1])
		}
	})
}

// ---------------------------------------------------------------------------
// FuzzContinuation

// fzListFixture is a small collection with documents in every kind of
// partition, some expired (not swept), shared by the inputs of a process.
type fzListFixture struct {
	c     *Collection
	live  []fzListed // in key order
	keys  []string   // every stored key, live or expired
	parts []*PartitionKey
}

type fzListed struct{ key, json string }

var (
	fzListOnce sync.Once
	fzList     *fzListFixture
)

func fzListFixtureFor(t testing.TB) *fzListFixture {
	fzListOnce.Do(func() {
		var now int64 = fzNow
		var mu sync.Mutex
		c, err := NewCollection("fuzz", "/pk", &Options{
			DefaultTTL:  TTLNoDefault(),
			ManualSweep: true,
			Now: func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				return time.Unix(now, 0)
			},
		})
		if err != nil {
			panic(err)
		}
		fx := &fzListFixture{c: c}
		docs := []struct {
			json    string
			pk      PartitionKey
			id      string
			expired bool
		}{
			{`{"id":"x"}`, NoPartitionKey(), "x", false},
			{`{"id":"x0","ttl":5}`, NoPartitionKey(), "x0", true},
			{`{"id":"y","pk":null}`, NullKey(), "y", false},
			{`{"id":"f","pk":false}`, BoolKey(false), "f", false},
			{`{"id":"t","pk":true,"ttl":5}`, BoolKey(true), "t", true},
			{`{"id":"n1","pk":1}`, NumberKey(1), "n1", false},
			{`{"id":"n2","pk":-2.5}`, NumberKey(-2.5), "n2", false},
			{`{"id":"s1","pk":"a"}`, StringKey("a"), "s1", false},
			{`{"id":"s2","pk":"a","ttl":5}`, StringKey("a"), "s2", true},
			{`{"id":"s3","pk":"a","ttl":100}`, StringKey("a"), "s3", false},
			{`{"id":"s\u00e9","pk":"a"}`, StringKey("a"), "s\u00e9", false},
			{`{"id":"z","pk":"a\u0000b"}`, StringKey("a\x00b"), "z", false},
			{`{"id":"w","pk":"b"}`, StringKey("b"), "w", false},
		}
		for _, d := range docs {
			got, err := c.Create(bg, []byte(d.json))
			if err != nil {
				panic(fmt.Sprintf("Create(%s): %v", d.json, err))
			}
			key := fzEnc(d.pk) + d.id
			if got.d.Key() != key {
				panic(fmt.Sprintf("Create(%s): key %q, want %q", d.json, got.d.Key(), key))
			}
			fx.keys = append(fx.keys, key)
			if !d.expired {
				fx.live = append(fx.live, fzListed{key, got.JSON()})
			}
		}
		mu.Lock()
		now += 10 // the documents with ttl 5 have expired
		mu.Unlock()
		slices.SortFunc(fx.live, func(a, b fzListed) int { return strings.Compare(a.key, b.key) })
		fx.parts = []*PartitionKey{nil}
		for _, k := range []PartitionKey{NoPartitionKey(), NullKey(), BoolKey(false), BoolKey(true),
			NumberKey(1), NumberKey(-2.5), StringKey("a"), StringKey("a\x00b"), StringKey("b"), StringKey("zz")} {
			fx.parts = append(fx.parts, &k)
		}
		fzList = fx
	})
	return fzList
}

// fzToken is a listing's or a feed read's continuation token, as token.go
// documents it: the base64url encoding of version 3, the issuing
// collection's identity, the shape of the read (the hash of the
// collection's name, the kind of read and the hash of its partition: 13
// bytes), the key, and the CRC-32 of all of them.
type fzToken struct {
	collection uint64
	shape      string
	key        string
}

// fzDecodeToken decodes a token; ok is false when it is not one.
func fzDecodeToken(tok string) (fzToken, bool) {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < 1+8+13+4 || b[0] != 3 {
		return fzToken{}, false
	}
	if crc32.ChecksumIEEE(b[:len(b)-4]) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return fzToken{}, false
	}
	return fzToken{binary.BigEndian.Uint64(b[1:]), string(b[9:22]), string(b[22 : len(b)-4])}, true
}

// fzReadShape is the shape of a read of kind read of the collection name,
// of part (nil: all partitions): the FNV-1a hash (32 bits) of the name, the
// kind, and the FNV-1a hash of "partition", a 0x00 byte and the key
// encoding of the partition (or 0, for all partitions).
func fzReadShape(name string, read byte, part *PartitionKey) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	b := append(binary.BigEndian.AppendUint32(nil, h.Sum32()), read)
	var p uint64
	if part != nil {
		h := fnv.New64a()
		h.Write([]byte("partition\x00" + fzEnc(*part)))
		p = max(h.Sum64(), 1)
	}
	return string(binary.BigEndian.AppendUint64(b, p))
}

// fzShape is the shape of a listing (kind 1) of fx's collection.
func fzShape(fx *fzListFixture, part *PartitionKey) string {
	return fzReadShape(fx.c.name, 1, part)
}

// fzForgeToken makes a token with a correct checksum around any key.
func fzForgeToken(t fzToken) string {
	b := binary.BigEndian.AppendUint64([]byte{3}, t.collection)
	b = append(b, t.shape...)
	b = append(b, t.key...)
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return base64.RawURLEncoding.EncodeToString(b)
}

// fzWellFormedKey reports whether key is a partition-key encoding followed
// by an id, both of which R10 allows, as the encoding is documented in
// internal/local/index.go, or (in a collection partitioned by /id) the encoding of a string
// key that is a valid id, alone: the only keys List can put in a token.
func fzWellFormedKey(key string) bool {
	if key == "" {
		return false
	}
	switch key[0] {
	case 1, 2, 3, 4: // none, null, false, true
		return ref.IDOK(key[1:])
	case 5: // number: 8 bytes that sort like the float64, which is finite
		if len(key) < 9 {
			return false
		}
		bits := binary.BigEndian.Uint64([]byte(key[1:9]))
		if bits>>63 == 1 {
			bits &^= 1 << 63
		} else {
			bits = ^bits
		}
		f := math.Float64frombits(bits)
		return !math.IsNaN(f) && !math.IsInf(f, 0) && ref.IDOK(key[9:])
	case 6: // string: 0x00 written as 0x00 0xff, ended by 0x00 0x01
		var str []byte
		for i := 1; i+1 < len(key); i++ {
			if key[i] != 0 {
				str = append(str, key[i])
				continue
			}
			switch key[i+1] {
			case 1:
				rest := key[i+2:]
				return ref.PKStringOK(string(str)) && (ref.IDOK(rest) || rest == "" && ref.IDOK(string(str)))
			case 0xff:
				str = append(str, 0)
				i++
			default:
				return false
			}
		}
	}
	return false
}

// fzCheckList lists with the query and checks the page against the
// fixture. It returns the page.
func fzCheckList(t testing.TB, fx *fzListFixture, part *PartitionKey, limit int, tok string) (Page, error) {
	t.Helper()
	what := fmt.Sprintf("List(partition %v, limit %d, continuation %q)", part, limit, tok)
	prefix := ""
	if part != nil {
		prefix = fzEnc(*part)
	}
	after, valid := "", true
	if tok != "" {
		// A token is taken only by the collection and the query shape that
		// issued it.
		t, ok := fzDecodeToken(tok)
		after, valid = t.key, ok && t.collection == fx.c.tokenID && t.shape == fzShape(fx, part)
	}
	page, err := fx.c.List(bg, Query{Partition: part, Limit: limit, Continuation: tok})
	if err != nil {
		fzWantErr(t, err, map[error]bool{ErrInvalidContinuation: true}, what)
		if valid && fzWellFormedKey(after) && strings.HasPrefix(after, prefix) {
			t.Fatalf("%s: %v, for a token of a well-formed key %q in the partition", what, err, after)
		}
		return page, err
	}
	if !valid {
		t.Fatalf("%s: accepted a token that does not decode, or of another collection or query shape", what)
	}
	if tok != "" && !strings.HasPrefix(after, prefix) {
		t.Fatalf("%s: accepted a token of key %q, outside the partition", what, after)
	}
	var want []fzListed
	for _, d := range fx.live {
		if strings.HasPrefix(d.key, prefix) && (tok == "" || d.key > after) {
			want = append(want, d)
		}
	}
	more := limit > 0 && len(want) > limit
	if more {
		want = want[:limit]
	}
	var got []fzListed
	for _, d := range page.Documents {
		got = append(got, fzListed{d.d.Key(), d.JSON()})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %q, want %q", what, got, want)
	}
	if (page.Continuation != "") != more {
		t.Fatalf("%s: continuation %q, want one: %v", what, page.Continuation, more)
	}
	if more {
		k, ok := fzDecodeToken(page.Continuation)
		if want := (fzToken{fx.c.tokenID, fzShape(fx, part), want[len(want)-1].key}); !ok || k != want {
			t.Fatalf("%s: continuation %q holds %+v, %v; want %+v: this collection, this query's shape and the page's last key", what, page.Continuation, k, ok, want)
		}
	}
	return page, nil
}

type fzListSeed struct {
	tok         string
	part, limit uint8
	forge       bool
}

// fzRealTokens pages through every partition with limits 1 to 3, checking
// that the pages add up to the listing, and returns the tokens.
func fzRealTokens(t testing.TB, fx *fzListFixture) []fzListSeed {
	t.Helper()
	var out []fzListSeed
	for pi, part := range fx.parts {
		full, err := fzCheckList(t, fx, part, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		for limit := 1; limit <= 3; limit++ {
			var all []Document
			tok := ""
			for {
				p, err := fzCheckList(t, fx, part, limit, tok)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, p.Documents...)
				if p.Continuation == "" {
					break
				}
				tok = p.Continuation
				out = append(out, fzListSeed{tok, uint8(pi), uint8(limit), false}, fzListSeed{tok, uint8(pi + 1), uint8(limit), false})
			}
			if !slices.Equal(all, full.Documents) {
				t.Fatalf("pages of %d in partition %v add up to %v, want %v", limit, part, all, full.Documents)
			}
		}
	}
	return out
}

func fzListSeeds(t testing.TB, fx *fzListFixture) []fzListSeed {
	seeds := []fzListSeed{
		{"", 0, 0, false},
		{"", 7, 2, false},
		{"AQ", 0, 0, false},
		{"AQAAAAA", 0, 1, false},
		{"!!!!", 0, 0, false},
		{"AQ==", 0, 0, false},
		{"=", 3, 1, false},
		{"\x00", 0, 0, true},
		{"", 0, 0, true},
		{"\x07abc", 0, 0, true},
		{"\x06a\x00\x01", 7, 0, true},
		{"\x06a\x00\x02s", 0, 0, true},
		{"\x06a\x00\xffb\x00\x01z", 0, 0, true},
		{"\x06a", 0, 0, true},
		{"\x05\x00\x00", 0, 0, true},
		{"\x05\xff\xff\xff\xff\xff\xff\xff\xff", 0, 0, true},
		{"\x01", 1, 0, true},
		{"\x01x", 0, 1, true},
		{"\x06zz\x00\x01", 10, 0, true},
		{"\x01x", 0, 0x81, true}, // another collection's token
		{"\x01x", 0, 0x41, true}, // a token of another partition's listing
	}
	// Keys of expired documents, and real tokens.
	for _, k := range fx.keys {
		seeds = append(seeds, fzListSeed{k, 0, 1, true})
	}
	return append(seeds, fzRealTokens(t, fx)...)
}

func FuzzContinuation(f *testing.F) {
	fx := fzListFixtureFor(f)
	for _, s := range fzListSeeds(f, fx) {
		f.Add(s.tok, s.part, s.limit, s.forge)
	}
	// limit's two high bits, with forge, make a token of another
	// collection (0x80) or of the listing of another partition (0x40).
	f.Fuzz(func(t *testing.T, tok string, part, limit uint8, forge bool) {
		p := int(part) % len(fx.parts)
		if forge {
			scope := fzToken{fx.c.tokenID, fzShape(fx, fx.parts[p]), tok}
			if limit&0x80 != 0 {
				scope.collection++
			}
			if limit&0x40 != 0 {
				scope.shape = fzShape(fx, fx.parts[(p+1)%len(fx.parts)])
			}
			tok = fzForgeToken(scope)
		}
		fzCheckList(t, fx, fx.parts[p], int(limit&0x3f%5), tok)
	})
}
