package jsonscan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanBoth runs fastDocument, the fast path, and document, the full scanner, on
// src with the partition-key member pkRoot, as Document does. It fails
// the test when the fast path takes a text and the full scanner does not agree
// on every byte of the outcome: the compact text, where it ends, and the
// members noted (R10: id, ttl and the partition key are read from them).
// It reports whether the fast path took src.
func scanBoth(t testing.TB, src []byte, pkRoot string) bool {
	t.Helper()
	fast := scanner{src: src, pkRoot: pkRoot}
	took := fast.fastDocument()
	full := scanner{src: src, pkRoot: pkRoot}
	err := full.document()
	if !took {
		return false
	}
	require.NoError(t, err, "the fast path took %q, which the full scanner refuses", src)
	fast.flush()
	full.flush()
	require.Equal(t, string(full.out), string(fast.out), "compact text of %q", src)
	require.Equal(t, full.i, fast.i, "end of %q", src)
	require.Equal(t, [3]Span{full.id, full.ttl, full.pk}, [3]Span{fast.id, fast.ttl, fast.pk}, "id, ttl and partition key of %q", src)
	require.Equal(t, full.idLike, fast.idLike, "idLike of %q", src)
	return true
}

// TestFastScan pins which texts the fast path takes (R10): compact JSON
// without _ts, _etag, a noted member twice or an escaped top-level name.
// Everything else goes to the full scanner, which alone reports errors.
func TestFastScan(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	var mixed func(n int) string // objects and arrays in turn, n levels, with items around each
	mixed = func(n int) string {
		switch {
		case n == 0:
			return "0"
		case n%2 == 1:
			return `[1,` + mixed(n-1) + `,true]`
		}
		return `{"b":null,"c":` + mixed(n-1) + `,"d":"x"}`
	}
	taken := []string{
		`{}`,
		`{"id":"a"}`,
		SessionDoc,
		`{"id":"a","pk":"x","ttl":10}`,
		`{"id":"a","ttl":null,"pk":-0.5e+3}`,
		`{"id":"a","x":[],"y":{},"z":[[],{}],"w":[{"a":[1,true,false,null]}]}`,
		`{"pk":{"a":{"b":1}},"id":"a"}`,                               // a partition-key path into an object
		`{"ID":"a"}`,                                                  // idLike, for the error the full path gives
		`{"id":"a","Id":"b"}`,                                         // idLike beside id
		`{"id":"a","dup":1,"dup":2}`,                                  // only noted members must be unique
		`{"id":"a","x":{"_ts":1,"_etag":"e"}}`,                        // dropped only at the top
		"{\"id\":\"a\",\"s\":\"\x7f~ !#$%&()*+,-./:;<=>?@[]^_`{|}\"}", // DEL and plain punctuation
		`{"id":"a","x":` + deep(fastDepth-1) + `}`,
		`{"id":"a","x":` + mixed(fastDepth-1) + `}`,
		`{"id":"a","n":-0,"m":0.0,"e":1E9,"f":2e-3}`,
		`{"id":"a\"b\\\/\b\f\n\r\t\u00e9"}`, `{"id":"é","pk":"日本"}`, `{"id":"a","x":"\ud800"}`, // escapes, UTF-8, a lone surrogate (valid JSON text: only an id or a key refuses it)
		`{"id":"a","x":{"\u0062":"c\"","é":1}}`, // escapes and UTF-8 in names below the top
		`{"é":1,"id":"a"}`,                      // a top-level name beyond ASCII
	}
	for _, src := range taken {
		require.True(t, scanBoth(t, []byte(src), "pk"), "the fast path should take %s", src)
		for n := range len(src) { // a body cut short anywhere: left, and no panic
			require.False(t, scanBoth(t, []byte(src[:n]), "pk"), "the fast path should leave %q", src[:n])
		}
	}
	left := []string{
		` {"id":"a"}`, `{"id":"a"} `, `{"id": "a"}`, "{\"id\":\"a\",\n\"x\":1}", // white space
		`{"i\u0064":"a"}`, `{"id":"a","\u00e9":1}`, // an escaped top-level name
		"{\"id\":\"a\x01\"}", "{\"id\":\"\xff\"}", "{\"id\":\"a\",\"x\":{\"\xc3\":1}}", // control, invalid UTF-8
		`{"id":"a","s":"\x"}`, `{"id":"a","s":"\u12"}`, `{"id":"a","s":"\u12G4"}`, `{"id":"a","s":"\`, // bad escapes
		`{"id":"a","_ts":1}`, `{"_etag":"x","id":"a"}`, // dropped members
		`{"id":"a","id":"b"}`, `{"id":"a","ttl":1,"ttl":2}`, `{"pk":1,"id":"a","pk":2}`, // noted twice
		`{"id":"a","x":` + deep(fastDepth) + `}`, `{"id":"a","x":` + mixed(fastDepth) + `}`, // deeper than its stack
		`{"id":"a"}x`, `{"id":"a"}{}`, `{"id":"a",}`, `{"id":"a"`, `{"id"}`, `{"id":}`, `{,}`, // invalid
		`{"id":"a","n":01}`, `{"id":"a","n":1.}`, `{"id":"a","n":-}`, `{"id":"a","x":[1,]}`,
		`{"id":"a","n":tru}`, `{"id":"a","n":trux}`, `{"id":"a","n":fals0}`, `{"id":"a","n":nul1}`,
		// a string or a name whose first byte that is not plain is followed
		// by what could go on after its end
		`{"id":"a","s":"x\,"y":1}`, "{\"id\":\"a\",\"s\":\"\x01}", `{"id":"a","s":"é}`,
		`{"id":"a","x\:1}`, "{\"id\":\"a\",\"x\x01:1}",
		`{"id":"a","x":[1}`, `{"id":"a","x":{"a":1]}`, `{"id":"a","x":{1:2}}`, `{"id":"a","x":{"a"}}`,
		`[]`, `"x"`, `null`, ``, `{`,
	}
	for _, src := range left {
		require.False(t, scanBoth(t, []byte(src), "pk"), "the fast path should leave %q to the full scanner", src)
	}
	// Past droppedRun bytes the full scanner's size checks matter: left.
	big := `{"id":"a","x":"` + strings.Repeat("x", droppedRun) + `"}`
	require.False(t, scanBoth(t, []byte(big), "pk"))
}

// FuzzFastScan checks the fast path against the full scanner on any
// text (R10): whatever fastDocument takes, the full scanner takes the same way.
func FuzzFastScan(f *testing.F) {
	for _, s := range Seeds() {
		f.Add(s)
	}
	for _, cut := range []string{`{"a":1,`, `{"a"`, `{"a":`, `{"a":"b`, `{"a":[`, `{"a":{"b":[1,{}`} {
		f.Add([]byte(cut))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, root := range []string{"id", "pk", "a"} {
			scanBoth(t, b, root)
		}
	})
}
