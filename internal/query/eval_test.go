package query

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// evalDocs are the documents of the evaluation tests, with ids a to j:
// values of every kind at the same paths, missing members, nulls, nesting,
// arrays, a key with escapes, 1 and 1.0, 0 and -0, non-ASCII text, a
// string that is no Unicode text, and a member named twice.
var evalDocs = []string{
	`{"id":"a","n":1,"s":"x","b":true,"nul":null,"arr":[1,"x",null],"obj":{"k":1,"j":"v"},"user":{"name":"Ann","age":30},"tags":["red","blue"],"odd key":"o","esc\"q":1}`,
	`{"id":"b","n":1.0,"s":"X","b":false,"arr":[],"obj":{},"user":{"name":"bob"},"tags":["blue"],"items":[{"k":1,"j":2},{"k":2}]}`,
	`{"id":"c","n":-2.5,"s":"héllo wörld","b":null,"nul":null,"arr":[1.0,"x",null],"obj":{"j":"v","k":1.0},"tags":[],"user":"plain"}`,
	`{"id":"d","n":"1","s":1,"b":"true","arr":{"0":1},"obj":[1],"user":{"name":null}}`,
	`{"id":"e","n":1e2,"s":"","tags":["red"],"user":{"name":"Éva","tags":["x"]},"x\u00e9":true}`,
	`{"id":"f"}`,
	`{"id":"g","n":0,"s":"abc","b":true,"arr":[1,[2,3],{"a":1}],"obj":{"k":{"deep":[1,2]}}}`,
	`{"id":"h","n":-0.0,"s":"ABC","nul":null,"arr":[2,1],"items":[{"k":2,"j":2,"z":0}]}`,
	`{"id":"i","n":3,"s":"a\u0000b","tags":["a",1,true,null,[1],{"a":1}],"lone":"\ud800"}`,
	`{"id":"j","n":2,"s":"a","dup":1,"dup":2}`,
}

func evalRows() []Row {
	rows := make([]Row, len(evalDocs))
	for i, d := range evalDocs {
		rows[i] = Row{Body: d, TS: int64(100 + i), ETag: fmt.Sprintf("e%d", i)}
	}
	return rows
}

// bind parses and binds sql.
func bind(t testing.TB, sql string, params map[string]string) *Bound {
	t.Helper()
	q, err := Parse(sql)
	require.NoError(t, err, sql)
	b, err := q.Bind(params)
	require.NoError(t, err, sql)
	return b
}

// bindUsed parses sql and binds the parameters of params it uses.
func bindUsed(t testing.TB, sql string, params map[string]string) *Bound {
	t.Helper()
	q, err := Parse(sql)
	require.NoError(t, err, sql)
	used := map[string]string{}
	for _, name := range q.Params() {
		used[name] = params[name]
	}
	b, err := q.Bind(used)
	require.NoError(t, err, sql)
	return b
}

// inRanges reports whether key is in one of rs.
func inRanges(key []byte, rs []Range) bool {
	for _, r := range rs {
		if bytes.Compare(key, r.From) >= 0 && (r.To == nil || bytes.Compare(key, r.To) < 0) {
			return true
		}
	}
	return false
}

// matchIDs returns the ids of the rows b matches, and checks that each has
// at every path of b.Paths a key within b.Ranges, followed by anything (an
// index's item key).
func matchIDs(t testing.TB, b *Bound, rows []Row, what string) string {
	t.Helper()
	var ids []string
	for _, r := range rows {
		if !b.Match(r) {
			continue
		}
		ids = append(ids, r.Value(Path{{Name: "id"}}).Str)
		for _, p := range b.Paths() {
			rs, ok := b.Ranges(p)
			require.True(t, ok, "%s: a path of Paths has no ranges", what)
			key := AppendKey(nil, r.Value(p))
			require.True(t, inRanges(key, rs), "%s: row %s at %s: key %x not in %x", what, r.Body, p, key, rs)
			require.True(t, inRanges(append(key, "\xff\xffdoc"...), rs), "%s: row %s at %s", what, r.Body, p)
			require.True(t, inRanges(append(key, 0), rs), "%s: row %s at %s", what, r.Body, p)
		}
	}
	return strings.Join(ids, " ")
}

// WHERE clauses, and the documents they keep.
func TestEvalWhere(t *testing.T) {
	params := map[string]string{
		"o": `{"j":"v","k":1}`, "empty": `{}`, "s1": `"x"`, "null": `null`, "k1": `{"k":1}`, "k2": `{"k":2}`,
		"a1": `{"a":1}`, "three": `3`, "t": `true`, "f": `false`,
	}
	rows := evalRows()
	for _, tc := range []struct{ where, want string }{
		// Numbers, as float64, across 1 and 1.0, 0 and -0.
		{`c.n = 1`, "a b"}, {`c.n = 1.0`, "a b"}, {`1 = c.n`, "a b"}, {`c.n != 1`, "c e g h i j"}, {`c.n <> 1`, "c e g h i j"},
		{`c.n < 1`, "c g h"}, {`c.n <= 1`, "a b c g h"}, {`c.n > 1`, "e i j"}, {`c.n >= 100`, "e"}, {`1 > c.n`, "c g h"},
		{`c.n = 0`, "g h"}, {`c.n = -0`, "g h"}, {`c.n > -3 AND c.n < -2`, "c"},
		// Strings, by their bytes; only with strings.
		{`c.n > "0"`, "d"}, {`c.n = true`, ""}, {`c.s = "x"`, "a"}, {`c.s = 'X'`, "b"},
		{`c.s < "a"`, "b e h"}, {`c.s >= "a"`, "a c g i j"}, {`c.s > "a"`, "a c g i"}, {`c.s < "ab"`, "b e h i j"},
		{`c.s = "a\u0000b"`, "i"}, {`c.s = "héllo wörld"`, "c"}, {`c.s = "h\u00e9llo w\u00f6rld"`, "c"},
		// Booleans and null.
		{`c.b = true`, "a g"}, {`c.b < true`, "b"}, {`c.b > false`, "a g"}, {`c.b <= true`, "a b g"}, {`c.b >= false`, "a b g"},
		{`c.b = "true"`, "d"}, {`c.b != true`, "b"},
		{`c.nul = null`, "a c h"}, {`c.b = null`, "c"}, {`c.nul <= null`, "a c h"}, {`c.nul < null`, ""},
		{`c.nul >= null`, "a c h"}, {`c.nul > null`, ""}, {`c.nul != null`, ""}, {`c.b = c.nul`, "c"},
		// Undefined.
		{`c.missing = null`, ""}, {`c.missing != 1`, ""}, {`c.n = undefined`, ""}, {`c.missing = undefined`, ""},
		{`c.missing = c.missing`, ""}, {`c.lone = c.lone`, ""}, {`c.dup = 1`, ""}, {`c.dup = c.dup`, ""},
		// Arrays and objects: = deep; any other comparison undefined, != too, as in Cosmos.
		{`c.arr = [1, "x", null]`, "a c"}, {`c.arr = []`, "b"}, {`c.arr != []`, ""}, {`NOT (c.arr != [])`, ""}, {`c.arr < [2]`, ""},
		{`c.arr >= []`, ""}, {`c.arr = [1, [2, 3], @a1]`, "g"}, {`c.arr = [2, 1]`, "h"}, {`c.arr = [1, 2]`, ""},
		{`c.obj = @o`, "a c"}, {`c.obj = @empty`, "b"}, {`c.obj != @empty`, ""}, {`c.obj > @empty`, ""},
		{`c.obj = [1]`, "d"}, {`c.obj = @k1`, ""}, {`c.user = @o`, ""},
		// Paths against paths.
		{`c.arr[0] = c.n`, "a"}, {`c.n = c.n`, "a b c d e g h i j"}, {`c.n = c.s`, ""}, {`c.s < c.id`, "b e g h i j"},
		// Three-valued logic; WHERE keeps exactly true.
		{`c.b`, "a g"}, {`NOT c.b`, "b"}, {`c.missing`, ""}, {`NOT c.missing`, ""}, {`c.b AND c.n = 1`, "a"},
		{`c.b = false AND c.missing = 1`, ""}, {`NOT (c.b = false AND c.missing = 1)`, "a g"},
		{`c.b OR c.missing = 1`, "a g"}, {`NOT (c.b = false OR c.missing = 1)`, ""}, {`NOT (c.b OR c.missing = 1)`, ""},
		{`NOT (c.n = 1)`, "c e g h i j"}, {`(NOT c.b) = true`, "b"}, {`NOT NOT c.b`, "a g"},
		{`true`, "a b c d e f g h i j"}, {`1`, ""}, {`'true'`, ""}, {`null`, ""}, {`NOT false`, "a b c d e f g h i j"},
		{`undefined`, ""}, {`NOT undefined`, ""}, {`true AND 1`, ""}, {`false OR true`, "a b c d e f g h i j"},
		{`NOT (false AND 1)`, "a b c d e f g h i j"}, {`true OR 1`, "a b c d e f g h i j"}, {`NOT (1 OR false)`, ""},
		{`NOT (false OR false)`, "a b c d e f g h i j"}, {`@t AND NOT @f`, "a b c d e f g h i j"},
		{`c.n = 1 OR c.s = "abc" OR c.b = null`, "a b c g"}, {`(c.n = 1 OR c.n = 2) AND (c.s = "x" OR c.s = "a")`, "a j"},
		// IN: x = a OR x = b; NOT IN: NOT of that.
		{`c.n IN (1, 3)`, "a b i"}, {`c.n IN ("1", 100)`, "d e"}, {`c.n NOT IN (1, 3)`, "c e g h j"},
		{`c.n NOT IN (1, "x")`, ""}, {`c.n IN (1, "x")`, "a b"}, {`c.s IN (@s1, "abc")`, "a g"}, {`c.arr IN ([], [2, 1])`, "b h"},
		{`c.missing IN (1)`, ""}, {`c.missing NOT IN (1)`, ""}, {`c.n IN (c.arr[0])`, "a"}, {`1 IN (c.n, c.s)`, "a b d"},
		{`c.n IN (@three, undefined)`, "i"}, {`c.n NOT IN (@three, undefined)`, ""},
		// BETWEEN: x >= lo AND x <= hi.
		{`c.n BETWEEN 0 AND 2`, "a b g h j"}, {`c.n BETWEEN 2 AND 0`, ""}, {`c.n NOT BETWEEN 0 AND 2`, "c e i"},
		{`c.s BETWEEN "a" AND "b"`, "g i j"}, {`c.n BETWEEN 0 AND "z"`, ""}, {`c.n NOT BETWEEN 0 AND "z"`, "c"},
		{`c.b BETWEEN false AND true`, "a b g"}, {`c.nul BETWEEN null AND null`, "a c h"}, {`c.arr BETWEEN [] AND [9]`, ""},
		{`c.n BETWEEN c.n AND c.n`, "a b c e g h i j d"},
		// Type checks.
		{`IS_DEFINED(c.nul)`, "a c h"}, {`IS_DEFINED(c.b)`, "a b c d g"}, {`NOT IS_DEFINED(c.b)`, "e f h i j"},
		{`IS_NULL(c.b)`, "c"}, {`IS_NULL(c.missing)`, ""}, {`IS_BOOL(c.b)`, "a b g"}, {`IS_NUMBER(c.n)`, "a b c e g h i j"},
		{`IS_STRING(c.n)`, "d"}, {`IS_ARRAY(c.arr)`, "a b c g h"}, {`IS_OBJECT(c.arr)`, "d"}, {`IS_OBJECT(c.user)`, "a b d e"},
		{`IS_PRIMITIVE(c.b)`, "a b c d g"}, {`IS_PRIMITIVE(c.arr)`, ""}, {`IS_PRIMITIVE(c.missing)`, ""},
		{`IS_STRING(c.lone)`, ""}, {`IS_DEFINED(c.lone)`, ""}, {`IS_DEFINED(c.dup)`, ""}, {`IS_DEFINED(c)`, "a b c d e f g h i j"},
		{`IS_OBJECT(c)`, "a b c d e f g h i j"}, {`NOT IS_NULL(c.nul)`, "b d e f g i j"},
		// String functions.
		{`STARTSWITH(c.s, "a")`, "g i j"}, {`STARTSWITH(c.s, "A")`, "h"}, {`STARTSWITH(c.s, "a", true)`, "g h i j"},
		{`STARTSWITH(c.s, "a", false)`, "g i j"}, {`STARTSWITH(c.s, "a", 1)`, ""}, {`STARTSWITH(c.s, "a", null)`, ""},
		{`STARTSWITH(c.s, "")`, "a b c e g h i j"}, {`STARTSWITH(c.n, "1")`, "d"}, {`STARTSWITH(c.s, 1)`, ""},
		{`STARTSWITH(c.s, @null)`, ""}, {`STARTSWITH(c.s, "a\u0000")`, "i"}, {`STARTSWITH(c.s, c.s)`, "a b c e g h i j"},
		{`STARTSWITH(c.s, "A", @t)`, "g h i j"}, {`STARTSWITH(c.s, "A", @f)`, "h"}, {`NOT STARTSWITH(c.s, "a")`, "a b c e h"},
		{`ENDSWITH(c.s, "c")`, "g"}, {`ENDSWITH(c.s, "C", true)`, "g h"}, {`ENDSWITH(c.s, "wörld")`, "c"}, {`ENDSWITH(c.n, "")`, "d"},
		{`CONTAINS(c.s, "llo")`, "c"}, {`CONTAINS(c.s, "\u0000")`, "i"}, {`CONTAINS(c.s, "B", true)`, "g h i"},
		{`CONTAINS(c.s, "")`, "a b c e g h i j"}, {`CONTAINS(c.s, "b", "yes")`, ""}, {`CONTAINS(c.arr, "x")`, ""},
		{`STARTSWITH(c.user.name, "éva", true)`, "e"}, {`STARTSWITH(c.user.name, "éva")`, ""},
		{`LENGTH(c.s) = 11`, "c"}, {`LENGTH(c.s) = 3`, "g h i"}, {`LENGTH(c.s) = 0`, "e"}, {`LENGTH(c.n) = 1`, "d"}, {`LENGTH(c.arr) = 3`, ""},
		{`LOWER(c.s) = "abc"`, "g h"}, {`UPPER(c.s) = "X"`, "a b"}, {`LOWER(c.n) = "1"`, "d"}, {`UPPER(c.user.name) = "ÉVA"`, "e"},
		{`LOWER(c.missing) = LOWER(c.missing)`, ""}, {`IS_DEFINED(LOWER(c.b))`, "d"},
		// Arrays.
		{`ARRAY_CONTAINS(c.tags, "red")`, "a e"}, {`ARRAY_CONTAINS(c.tags, "blue")`, "a b"}, {`ARRAY_CONTAINS(c.arr, null)`, "a c"},
		{`ARRAY_CONTAINS(c.arr, 1)`, "a c g h"}, {`ARRAY_CONTAINS(c.arr, [2, 3])`, "g"}, {`ARRAY_CONTAINS(c.arr, @a1)`, "g"},
		{`ARRAY_CONTAINS(c.items, @k1)`, ""}, {`ARRAY_CONTAINS(c.items, @k1, true)`, "b"}, {`ARRAY_CONTAINS(c.items, @k2, true)`, "b h"},
		{`ARRAY_CONTAINS(c.items, @k2)`, "b"}, {`ARRAY_CONTAINS(c.items, @k2, false)`, "b"}, {`ARRAY_CONTAINS(c.arr, 1, 1)`, ""},
		{`ARRAY_CONTAINS(c.obj, 1)`, "d"}, {`ARRAY_CONTAINS(c.tags, c.missing)`, ""}, {`ARRAY_CONTAINS(["red", "green"], c.tags[0])`, "a e"},
		{`ARRAY_CONTAINS([1, @three], c.n)`, "a b i"}, {`ARRAY_CONTAINS(c.tags, 1)`, "i"}, {`ARRAY_CONTAINS(c.tags, [1])`, "i"},
		{`ARRAY_CONTAINS(c.tags, @a1, true)`, "i"}, {`ARRAY_CONTAINS(c.tags, true)`, "i"}, {`ARRAY_CONTAINS(c.s, "x")`, ""},
		{`ARRAY_CONTAINS(c.arr, "x", true)`, "a c"}, {`NOT ARRAY_CONTAINS(c.tags, "red")`, "b c i"}, {`ARRAY_CONTAINS([], c.n)`, ""},
		{`ARRAY_CONTAINS([[1, "x", null]], c.arr)`, "a c"}, {`ARRAY_CONTAINS([1, undefined], c.n)`, "a b"},
		{`ARRAY_LENGTH(c.arr) = 3`, "a c g"}, {`ARRAY_LENGTH(c.arr) = 0`, "b"}, {`ARRAY_LENGTH(c.obj) = 1`, "d"}, {`ARRAY_LENGTH(c.s) = 1`, ""},
		// Paths.
		{`c["odd key"] = "o"`, "a"}, {`c['esc"q'] = 1`, "a"}, {`c["esc\"q"] = 1`, "a"}, {`c["x\u00e9"] = true`, "e"}, {`c["xé"]`, "e"},
		{`c.user.name = "Ann"`, "a"}, {`c.user.name = null`, "d"}, {`c.user.name.x = 1`, ""}, {`c.tags[0] = "red"`, "a e"},
		{`c.tags[1] = "blue"`, "a"}, {`IS_DEFINED(c.tags[5])`, "i"}, {`IS_DEFINED(c.tags[6])`, ""}, {`c.arr[1][0] = 2`, "g"},
		{`c.arr[2].a = 1`, "g"}, {`c.arr["0"] = 1`, "d"}, {`c.arr[0] = 1`, "a c g"}, {`c.user.tags[0] = "x"`, "e"},
		{`c._ts = 104`, "e"}, {`c._ts >= 108`, "i j"}, {`c._etag = "e2"`, "c"}, {`c.id = "f"`, "f"}, {`c.s[0] = "x"`, ""},
		// Parameters.
		{`c.n = @three OR c.s = @s1`, "a i"}, {`c.b = @t`, "a g"}, {`c.b = @null`, "c"},
	} {
		b := bindUsed(t, "SELECT * FROM c WHERE "+tc.where, params)
		want := strings.Fields(tc.want)
		got := strings.Fields(matchIDs(t, b, rows, tc.where))
		require.ElementsMatch(t, want, got, tc.where)
	}
}

// A query without WHERE matches everything, and has no ranges.
func TestEvalNoWhere(t *testing.T) {
	b := bind(t, "SELECT * FROM c", nil)
	require.Equal(t, "a b c d e f g h i j", matchIDs(t, b, evalRows(), ""))
	require.Empty(t, b.Paths())
	_, ok := b.Ranges(Path{{Name: "n"}})
	require.False(t, ok)
}
