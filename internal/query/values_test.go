package query

import (
	"fmt"
	"strings"
	"testing"
)

// TestValuesReadsAsValue: Values, which reads a document once for many
// paths, gives every path the value Value gives it (R13: an index holds
// the value a query reads at its path), on documents with a member
// written twice, escaped names, nested objects, arrays, system properties,
// more paths than one pass takes, and bodies that are no object.
func TestValuesReadsAsValue(t *testing.T) { // R13
	bodies := []string{
		`{"a":1,"b":"x","c":{"d":true,"e":[1,{"f":null}]},"g":"2026-11-07T13:02:45Z"}`,
		`{"a":1,"a":2,"b":"x\u0000y","c":{"d":false,"d":1}}`,
		`{"\u0061":"escaped name","b\"q":3,"c":[],"_ts":"own","_etag":7}`,
		`{"c":{"e":[[1]]},"h":{"i":{"j":"deep"}}}`,
		`{}`, `[1,2]`, `"text"`, `17`, ``,
		many("a", 257), many("a", 256), many("b", 513), // a count kept in a byte must not wrap (a review found 257 read as once)
	}
	names := []string{"a", "b", "c", "d", "g", "h", "_ts", "_etag", `b"q`, "zz"}
	var paths []Path
	for _, n := range names {
		paths = append(paths, Path{{Name: n}})
	}
	paths = append(paths, Path{{Name: "c"}, {Name: "d"}}, Path{{Name: "c"}, {Name: "e"}, {IsIndex: true, Index: 1}, {Name: "f"}},
		Path{{Name: "h"}, {Name: "i"}, {Name: "j"}}, Path{{Name: "_ts"}, {Name: "x"}}, Path{{IsIndex: true}}, nil)
	for _, body := range bodies {
		r := Row{Body: body, TS: 1_700_000_000, ETag: "0000000000000007"}
		for _, ps := range [][]Path{paths[:1], paths[:3], paths[:maxValues], paths} {
			vals := make([]Value, len(ps))
			r.Values(ps, vals)
			for i, p := range ps {
				if want := r.Value(p); fmt.Sprint(vals[i]) != fmt.Sprint(want) {
					t.Errorf("body %s, path %v of %d: Values gives %v, Value %v", body, p, len(ps), vals[i], want)
				}
			}
		}
	}
}

// many returns an object holding the member name n times, valued 0, 1...
func many(name string, n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%d", name, i)
	}
	b.WriteString("}")
	return b.String()
}
