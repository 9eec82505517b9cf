package ttldb

// FuzzPatch: a document of arbitrary bytes, patched by an arbitrary sequence
// of operations (R14), against the reference implementation of
// internal/ref (ref.RefPatch).
//
//	go test -run='^$' -fuzz='^FuzzPatch$' -fuzztime=20000x .
//
// The operations are encoded as text, one a line, so that seeds read as
// what they do: the first byte is the kind, then the path, then, after a
// tab, the argument:
//
//	a/path<TAB>json   add        (json as json.RawMessage; "=text" passes
//	s/path<TAB>json   set         the Go string text, "#json" a []byte)
//	r/path<TAB>json   replace
//	x/path            remove
//	i/path<TAB>int    incr by an int64
//	f/path<TAB>float  incr by a float64 (strconv.ParseFloat: NaN, Inf...)
//	m/path<TAB>from   move from to path
//
// Any other first byte, and an empty line, is the zero PatchOp. The first
// input byte picks the collection's partition-key path and DefaultTTL and
// whether the patch carries an IfMatch, current or stale.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb/internal/ref"
)

// fzPatchSentinels are every sentinel error of the package; an error must
// match exactly one.
var fzPatchSentinels = append(slices.Clone(fzSentinels), ErrInvalidPatch, ErrInvalidBatch, ErrFeedTrimmed, ErrLocked, ErrCorrupt)

// fzPatchSentinel returns the one sentinel err matches.
func fzPatchSentinel(t testing.TB, what string, err error) error {
	t.Helper()
	var found []error
	for _, s := range fzPatchSentinels {
		if errors.Is(err, s) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: error %q matches %d sentinels %v, want exactly one", what, err, len(found), found)
	}
	return found[0]
}

// fzPatchSetups are the collections a document is patched in: with setup
// bits 4 and 8 the patch carries IfMatch, of the current etag or a stale
// one.
var fzPatchSetups = []struct {
	path string
	def  DefaultTTL
}{
	{"/pk", TTLOff()},
	{"/t/pk", TTLNoDefault()},
	{"/id", TTLSeconds(100)},
	{"/ttl", TTLNoDefault()},
}

// fzPatchCollection returns an empty collection without a sweeper whose
// clock reads *now, in Unix seconds.
func fzPatchCollection(t testing.TB, path string, def DefaultTTL, now *atomic.Int64) *Collection {
	t.Helper()
	now.Store(fzNow)
	c, err := NewCollection("fuzz", path, &Options{
		DefaultTTL:  def,
		ManualSweep: true,
		Now:         func() time.Time { return time.Unix(now.Load(), 0) },
	})
	if err != nil {
		t.Fatalf("NewCollection(%q, %v): %v", path, def, err)
	}
	return c
}

// fzDecodePatch reads the operations of the text encoding above.
func fzDecodePatch(b []byte) []ref.RefPatchOp {
	if len(b) == 0 {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > MaxPatchOperations+2 {
		lines = lines[:MaxPatchOperations+2]
	}
	ops := make([]ref.RefPatchOp, 0, len(lines))
	for _, l := range lines {
		if len(l) == 0 {
			ops = append(ops, ref.RefPatchOp{})
			continue
		}
		path, arg, _ := strings.Cut(string(l[1:]), "\t")
		o := ref.RefPatchOp{Path: path}
		switch l[0] {
		case 'a', 's', 'r':
			o.Kind = map[byte]string{'a': "add", 's': "set", 'r': "replace"}[l[0]]
			switch {
			case strings.HasPrefix(arg, "="):
				o.Value = arg[1:]
			case strings.HasPrefix(arg, "#"):
				o.Value = []byte(arg[1:])
			default:
				o.Value = json.RawMessage(arg)
			}
		case 'x':
			o.Kind = "remove"
		case 'i':
			o.Kind = "incr"
			n, err := strconv.ParseInt(arg, 10, 64)
			if err != nil {
				n = int64(len(arg)) - 2
			}
			o.By = n
		case 'f':
			o.Kind, o.Float = "incr", true
			x, err := strconv.ParseFloat(arg, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				x = 0.25
			}
			o.ByFloat = x
		case 'm':
			o.Kind, o.From = "move", arg
		}
		ops = append(ops, o)
	}
	return ops
}

// fzPatchMember returns the literal of the root member name of the
// document text s, or "" when it has none.
func fzPatchMember(t testing.TB, s, name string) string {
	t.Helper()
	lit, ok := ref.Member(s, name)
	if !ok {
		t.Fatalf("the document %.300q does not parse as an object", s)
	}
	return lit
}

// fzCheckPatch creates doc in a collection of the setup, patches it with
// ops, and compares the outcome with the reference's (R14).
func fzCheckPatch(t testing.TB, setup uint8, doc, opsText []byte) {
	t.Helper()
	st := fzPatchSetups[setup%uint8(len(fzPatchSetups))]
	ops := fzDecodePatch(opsText)
	lib := refLib.Ops(ops)
	var clock atomic.Int64
	c := fzPatchCollection(t, st.path, st.def, &clock)
	defer c.Close()
	what := fmt.Sprintf("path %s, %v", st.path, ops)

	created, err := c.CreateJSON(bg, doc)
	if err != nil {
		// No document: a patch that is bad in itself is refused as such
		// (checked before the lookup), any other is not found (R4).
		res := ref.RefPatch(`{}`, st.path, ops)
		_, err := c.Patch(bg, NoPartitionKey(), "x", lib)
		want := ErrNotFound
		if res.Stage == ref.RefCompile {
			want = ErrInvalidPatch
		}
		if got := fzPatchSentinel(t, "Patch of a missing document", err); got != want {
			t.Fatalf("%s: Patch of a missing document: %v, want %v (reference: %v)", what, err, want, res)
		}
		return
	}
	pk, id := created.PartitionKey(), created.ID()
	what = fmt.Sprintf("document %.300s, %s", created.JSON(), what)
	var opts []WriteOption
	stale := setup&8 != 0
	switch {
	case stale:
		opts = []WriteOption{IfMatch("0000000000000000")}
	case setup&4 != 0:
		opts = []WriteOption{IfMatch(created.ETag())}
	}
	// The patch comes a second later, when the document is still live
	// then: its _ts must be that second's (R6).
	if at, expires := c.ExpiresAt(created); !expires || at.Unix() > fzNow+1 {
		clock.Add(1)
	}
	res := ref.RefPatch(created.Body(), st.path, ops)
	if stale && res.Stage != ref.RefCompile {
		res = ref.RefPatchResult{Stage: ref.RefApply, Faults: []ref.Fault{ref.PreconditionFailed}, Reason: "a stale etag"}
	}
	lsn := c.LastLSN()
	got, err := c.Patch(bg, pk, id, lib, opts...)
	if err != nil {
		fzPatchSentinel(t, what, err)
	}
	switch {
	case res.Stage != ref.RefOK && err == nil:
		t.Fatalf("%s: Patch succeeded with %s; the reference says %v", what, got.JSON(), res)
	case res.Stage != ref.RefOK && !fzAllows(res, err):
		t.Fatalf("%s: Patch: %v; the reference says %v", what, err, res)
	case res.Stage != ref.RefOK:
		// Nothing changed: the document, its etag, the feed.
		now, gerr := c.Get(bg, pk, id)
		if gerr != nil || now.JSON() != created.JSON() || c.LastLSN() != lsn {
			t.Fatalf("%s: Patch failed (%v), but the document is now %s, %v, and LastLSN %d (was %d)", what, err, now.JSON(), gerr, c.LastLSN(), lsn)
		}
	case err != nil:
		t.Fatalf("%s: Patch: %v; the reference says %s", what, err, res)
	default:
		fzCheckPatched(t, c, what, created, got, res, clock.Load())
	}
	fzCheckPatchInBatch(t, st.path, st.def, doc, lib, setup, what, err, got)
}

// fzCheckPatched checks a successful patch: the result is the reference's,
// it is a valid document, a write (R6, R10, R11), and Get returns it.
func fzCheckPatched(t testing.TB, c *Collection, what string, created, got Document, res ref.RefPatchResult, now int64) {
	t.Helper()
	canon, err := ref.RefCanonical(got.Body())
	switch {
	case err != nil:
		t.Fatalf("%s: the patched body %.300q does not parse: %v", what, got.Body(), err)
	case canon != res.Canon:
		t.Fatalf("%s: Patch returned\n  %.500s\nthe reference has\n  %.500s", what, canon, res.Canon)
	case res.Exact && got.Body() != res.Body:
		t.Fatalf("%s: Patch returned the text\n  %.500q\nthe reference keeps the literals as\n  %.500q", what, got.Body(), res.Body)
	case !json.Valid([]byte(got.JSON())):
		t.Fatalf("%s: the patched document %.300q is not JSON", what, got.JSON())
	case got.TS() != now || got.ETag() == created.ETag() || got.LSN() != created.LSN()+1 || c.LastLSN() != got.LSN():
		t.Fatalf("%s: a patch is a write: _ts %d, etag %s (was %s), LSN %d (was %d, LastLSN %d)", what, got.TS(), got.ETag(), created.ETag(), got.LSN(), created.LSN(), c.LastLSN())
	case got.ID() != created.ID() || got.PartitionKey() != created.PartitionKey():
		t.Fatalf("%s: the patch moved the document to %v/%q", what, got.PartitionKey(), got.ID())
	}
	if lit := fzPatchMember(t, got.JSON(), "_ts"); lit != strconv.FormatInt(now, 10) {
		t.Fatalf("%s: _ts member %s", what, lit)
	}
	n, ok := got.TTL()
	lit := fzPatchMember(t, got.Body(), "ttl")
	want, wok := int64(0), false
	if lit != "" && lit != "null" {
		v, valid := ref.RefTTL(lit)
		if !valid {
			t.Fatalf("%s: the patched document has the ttl %s, which R2 refuses", what, lit)
		}
		want, wok = v, true
	}
	if ok != wok || int64(n) != want {
		t.Fatalf("%s: TTL() = %d, %v; the ttl member is %q (R2)", what, n, ok, lit)
	}
	read, err := c.Get(bg, got.PartitionKey(), got.ID())
	if err != nil || read.JSON() != got.JSON() {
		t.Fatalf("%s: Get after the patch: %.300s, %v; Patch returned %.300s", what, read.JSON(), err, got.JSON())
	}
}

// fzCheckPatchInBatch applies the same patch, followed by a read, in a
// batch, to the same document in another collection: the batch must agree
// with the lone Patch, whose outcome was err or got (R14: each operation of
// a batch follows the rules it follows alone). Without IfMatch, the batch
// first upserts the document as it is, so that a failing patch has an
// operation before it to undo, and a succeeding one shares its _ts and
// follows its LSN.
func fzCheckPatchInBatch(t testing.TB, path string, def DefaultTTL, doc []byte, lib []PatchOp, setup uint8, what string, perr error, got Document) {
	t.Helper()
	var clock atomic.Int64
	c := fzPatchCollection(t, path, def, &clock)
	defer c.Close()
	created, err := c.CreateJSON(bg, doc)
	if err != nil {
		t.Fatalf("%s: the second Create: %v", what, err)
	}
	var opts []WriteOption
	switch {
	case setup&8 != 0:
		opts = []WriteOption{IfMatch("0000000000000000")}
	case setup&4 != 0:
		opts = []WriteOption{IfMatch(created.ETag())}
	}
	b := NewBatch(created.PartitionKey())
	if opts == nil {
		b.Upsert([]byte(created.Body()))
	}
	at := b.Len()
	b.Patch(created.ID(), lib, opts...)
	b.Read(created.ID())
	out, err := c.ExecuteBatch(bg, b)
	if perr != nil {
		var be *BatchError
		switch {
		case err == nil:
			t.Fatalf("%s: alone the patch fails (%v), in a batch it gives %.300s", what, perr, out[at].JSON())
		case !errors.As(err, &be) || be.Index != at || be.Len != b.Len() || be.Op != "Patch" || be.ID != created.ID():
			t.Fatalf("%s: in a batch: %v (%#v), want a BatchError of operation %d of %d, Patch of %q", what, err, be, at, b.Len(), created.ID())
		case fzPatchSentinel(t, what+" in a batch", err) != fzPatchSentinel(t, what, perr):
			t.Fatalf("%s: in a batch: %v; alone: %v", what, err, perr)
		}
		now, gerr := c.Get(bg, created.PartitionKey(), created.ID())
		if gerr != nil || now.JSON() != created.JSON() || c.LastLSN() != created.LSN() {
			t.Fatalf("%s: the batch failed (%v), but the document is now %s, %v, LastLSN %d", what, err, now.JSON(), gerr, c.LastLSN())
		}
		return
	}
	switch {
	case err != nil:
		t.Fatalf("%s: alone the patch gives %.300s, in a batch: %v", what, got.JSON(), err)
	case len(out) != b.Len() || out[at].Body() != got.Body() || out[at+1].JSON() != out[at].JSON() || out[at].TS() != fzNow:
		t.Fatalf("%s: in a batch: %v; alone the patch gives %.300s", what, out, got.JSON())
	case at == 1 && (out[0].Body() != created.Body() || out[0].TS() != out[1].TS() || out[0].LSN()+1 != out[1].LSN() || c.LastLSN() != out[1].LSN()):
		t.Fatalf("%s: in a batch after an upsert: %v, LastLSN %d: one _ts, consecutive LSNs (R14)", what, out, c.LastLSN())
	}
}

// fzPatchSeed is a seed of FuzzPatch.
type fzPatchSeed struct {
	setup uint8
	doc   string
	ops   string
}

// fzPatchSeeds: every operation, succeeding and failing in each way the
// reference knows, on documents with nested objects, arrays, escapes,
// numbers at the edges of int64, and duplicate members.
func fzPatchSeeds() []fzPatchSeed {
	d1 := `{"id":"a","pk":"p","n":1,"f":1.5,"s":"x\u0041","arr":[1,2,3],"o":{"x":{"y":[true,null]},"k":"v"},"ttl":10}`
	d2 := `{"id":"b","t":{"pk":1,"x":[1]},"n":9223372036854775806,"neg":-9223372036854775807,"big":99999999999999999999,"e":1e308,"z":-0,"fl":1E2}`
	d3 := `{"id":"c","dup":1,"dup":2,"a~b":{"c/d":1},"":{"":[]},"o":{"d":[1],"d":[2]}}`
	d4 := `{"id":"k","pk":[1],"ttl":-1,"a":[[[]]]}`
	d5 := `{"id":"q","ttl":5,"x":{},"y":[]}`
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	ok := strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1)
	seeds := []fzPatchSeed{
		// Each kind, succeeding.
		{0, d1, "s/n\t5\ni/n\t2\nf/f\t0.25\na/arr/1\t\"ins\"\na/arr/-\t{}\nr/o/k\t[1]\nx/arr/0\nm/moved\t/o/x\ns/arr/3\tnull\na/new~1name\t\"\\u00e9\""},
		{0, d1, "a/arr/3\t4\na/arr/0\t0\ns/arr/0\t-1\ns/arr/5\t5\ns/arr/-\t6\nr/arr/1\t\"r\"\ni/arr/2\t10\nf/arr/3\t-0.5\nx/arr/4"},
		{0, d1, "a/o/x/y/1\t{\"deep\":{\"er\":[]}}\ni/o/x/y/1/deep/c\t3\nm/o/x/y/0\t/o/x/y/2\nm/o/x/y/-\t/o/x/y/0\nx/o/x"},
		{0, d1, "m/arr\t/arr\nm/n\t/n\nm/o/k\t/o/k"},                    // from == path: nothing changes
		{0, d1, "m/arr/0\t/arr/2\nm/arr/2\t/arr/0\nm/o/x/k\t/o/k"},      // a move within an array, into a sibling
		{0, d1, "m/o\t/o/x\nm/n\t/f"},                                   // a move over an existing member, up the tree
		{4, d1, "s/n\t1e2\ni/n\t1\ns/m\t-0\ni/m\t0\ns/p\t10.0\ni/p\t1"}, // float literals add as floats
		{0, d1, "a/g\t=<a href=\"x\">&\u2028\na/b\t#[1, 2 ,{ \"a\" : null }]\na/\t1\na/~0~1\t2"},
		{0, d1, "a/\x01\t1\na/\b\u2028\"\\\t2"},
		{2, d4, "s/pk/0\t2\nx/a/0/0\na/a/0/0\t\"x\""},
		{3, d5, "s/x/ttl\t0\na/y/0\t{\"ttl\":\"x\"}"},
		{1, d2, "s/t/x/0\t2\na/t/y\ttrue"},
		// incr at the edges.
		{0, d2, "i/n\t1"},
		{0, d2, "i/n\t2"},
		{0, d2, "i/neg\t-1"},
		{0, d2, "i/neg\t-2"},
		{0, d2, "i/big\t1\ni/e\t-1\ni/z\t0\ni/fl\t1"},
		{0, d2, "f/e\t1e308"},
		{0, d2, "f/n\t0.5\ni/new\t9223372036854775807\ni/new\t1"},
		{0, d2, "f/new\t1e21\nf/new2\t1e-7\nf/new3\t-0"},
		// Failing: ErrInvalidPatch when applied.
		{0, d1, "i/s\t1"},
		{0, d1, "i/o\t1"},
		{0, d1, "r/missing\t1"},
		{0, d1, "x/missing"},
		{0, d1, "x/arr/3"},
		{0, d1, "a/arr/4\t1"},
		{0, d1, "a/arr/01\t1"},
		{0, d1, "r/arr/-\t1"},
		{0, d1, "i/arr/3\t1"},
		{0, d1, "x/arr/-"},
		{0, d1, "a/o/x/y/0/z\t1"},
		{0, d1, "a/missing/x\t1"},
		{0, d1, "m/o/x/z\t/o"},
		{0, d1, "m/x\t/none"},
		{0, d1, "s/n\t1\nr/nope\t1"}, // the first applies, the second fails: nothing changes
		{0, d3, "a/dup\t1"},
		{0, d3, "x/dup"},
		{0, d3, "a/o/d/0\t1"},
		{0, d3, "a/other\t1\ns/a~0b/c~1d\t2\na//x\t3\nx///0"},
		// A name with a lone surrogate escape is no UTF-8 path's.
		{0, `{"id":"a","\ud800":1,"\udc00":2,"\ud83d\ude00":3}`, "a/\ufffd\t4\ni/\U0001F600\t1"},
		// Failing: ErrInvalidPatch before the document is looked up.
		{0, d1, ""},
		{0, d1, "a\t1"},
		{0, d1, "aid\t1"},
		{0, d1, "a/id\t1"},
		{0, d1, "a/_ts\t1"},
		{0, d1, "x/_etag"},
		{0, d1, "a/pk\t1"},
		{0, d1, "a/pk/x\t1"},
		{1, d2, "a/t\t{}"},
		{1, d2, "x/t/pk"},
		{1, d2, "m/t/pk\t/x"},
		{2, d4, "a/id/x\t1"},
		{3, d5, "s/ttl\t1"},
		{0, d1, "a/~2\t1"},
		{0, d1, "a/x~\t1"},
		{0, d1, "a/x\t{"},
		{0, d1, "a/x\t"},
		{0, d1, "f/n\tNaN"},
		{0, d1, "f/n\t-Inf"},
		{0, d1, "z/n"},
		{0, d1, "s/n\t1\n"},
		{0, d1, strings.Repeat("i/n\t1\n", MaxPatchOperations) + "i/n\t1"},
		{0, d1, strings.Repeat("i/n\t1\n", MaxPatchOperations-1) + "i/n\t1"},
		{0, d1, "a" + strings.Repeat("/0", MaxDepth+1) + "\t1"},
		{0, `{"id":"missing`, "s/n\t1"},
		{0, `{"id":"missing`, "s/id\t1"},
		// Failing: the result breaks R2 or R10.
		{0, d1, "s/ttl\t0"},
		{0, d1, "s/ttl\t\"5\""},
		{0, d1, "s/ttl\t10.5"},
		{0, d1, "i/ttl\t2147483637"},
		{0, d1, "i/ttl\t2147483638"},
		{0, d1, "s/ttl\t2147483647.0\nx/ttl\ni/ttl\t-1"},
		{0, d1, "s/ttl\tnull"},
		{0, d1, "a/deep\t" + deep},
		{0, d1, "a/deep\t" + ok},
		{0, d1, "a/deep\t" + deep + "\nx/deep"},
		{0, d1, "a/u\t\"\xff\""},
		{0, d1, "a/u\t\"\xff\"\nx/u"},
		// With IfMatch.
		{4, d1, "i/n\t1"},
		{8, d1, "i/n\t1"},
		{8, d1, "a/id\t1"},
		{8, d1, "r/missing\t1"},
	}
	return seeds
}

// fzPatchBigSeeds make results around MaxDocumentSize (R10).
func fzPatchBigSeeds() []fzPatchSeed {
	doc := `{"id":"a","x":""}`
	room := MaxDocumentSize - len(doc)
	return []fzPatchSeed{
		{0, doc, `s/x` + "\t\"" + strings.Repeat("x", room) + `"`},
		{0, doc, `s/x` + "\t\"" + strings.Repeat("x", room+1) + `"`},
		{0, doc, `s/x` + "\t\"" + strings.Repeat("x", room+1) + "\"\ns/x\t1"},
	}
}

// FuzzPatch checks Patch (R14) on any document and any operations: it
// never panics; every error wraps exactly one sentinel, the one the
// reference predicts; a failed patch changes nothing, not even the etag;
// a successful one is the reference's result, a valid document that Get
// returns, written as any write is (R6, R11); and a batch of the same
// patch agrees with it.
func FuzzPatch(f *testing.F) {
	seeds := fzPatchSeeds()
	if !fzFuzzing() {
		seeds = append(seeds, fzPatchBigSeeds()...)
	}
	for _, s := range seeds {
		f.Add(s.setup, []byte(s.doc), []byte(s.ops))
	}
	f.Fuzz(func(t *testing.T, setup uint8, doc, ops []byte) {
		fzCheckPatch(t, setup, doc, ops)
	})
}
