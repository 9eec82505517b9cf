package query

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// value returns what SELECT VALUE expr, a query without FROM, gives: its
// one result, or "-" for none.
func value(t *testing.T, expr string) string {
	t.Helper()
	b := bind(t, "SELECT VALUE "+expr, nil)
	require.False(t, b.Reads(), expr)
	return results(b, []Row{{}})
}

// R13: the operators, and literals of any expressions, with Cosmos's
// meaning: arithmetic on numbers only, || on strings only, bitwise
// operators on numbers made 32-bit integers as JavaScript does, undefined
// for operands of other kinds, which ?? skips.
func TestOperatorValues(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`1`, `1`},
		{`1 + 2 * 3`, `7`},
		{`(1 + 2) * 3`, `9`},
		{`10 - 4 - 3`, `3`},
		{`2 * 3 % 4`, `2`},
		{`7 / 2`, `3.5`},
		{`-7 % 3`, `-1`},
		{`5.5 % 2`, `1.5`},
		{`0.1 + 0.2`, `0.30000000000000004`},
		{`5 * -5`, `-25`},
		{`- -1`, `1`},
		{`-(1 + 1)`, `-2`},
		{`+"a"`, `-`},
		{`-"a"`, `-`},
		{`1 / 0`, `null`}, // infinity: JSON has none, the service writes null
		{`1 + "1"`, `-`},
		{`1 + null`, `-`},
		{`1 + true`, `-`},
		{`1 + undefined`, `-`},
		{`[1] + 1`, `-`},
		{`"a" || "b" || ""`, `"ab"`},
		{`"a" || 1`, `-`},
		{`1 || 2`, `-`},
		{`100 >> 2`, `25`},
		{`100 << 2`, `400`},
		{`100 >>> 0`, `100`},
		{`100 & 1000`, `96`},
		{`100 | 1000`, `1004`},
		{`100 ^ 1000`, `908`},
		{`~5`, `-6`},
		{`-1 >>> 0`, `4294967295`},
		{`-16 >> 2`, `-4`},
		{`1 << 32`, `1`},
		{`1 << 31`, `-2147483648`},
		{`4294967297 | 0`, `1`},
		{`1.9 | 0`, `1`},
		{`-1.9 | 0`, `-1`},
		{`(1 / 0) | 0`, `0`},
		{`1 | "1"`, `-`},
		{`~"a"`, `-`},
		{`1 + 2 << 1`, `6`},
		{`1 | 2 & 3`, `3`},
		{`1 ^ 3 | 4`, `6`},
		{`true ? 1 : 2`, `1`},
		{`false ? 1 : 2`, `2`},
		{`1 ? 1 : 2`, `-`},
		{`undefined ? 1 : 2`, `-`},
		{`true ? false ? 1 : 2 : 3`, `2`},
		{`false ? 1 : (true ? 2 : 3)`, `2`},
		{`1 < 2 ? "lt" : "ge"`, `"lt"`},
		{`undefined ?? 1`, `1`},
		{`null ?? 1`, `null`},
		{`undefined ?? undefined ?? "c"`, `"c"`},
		{`undefined ?? undefined`, `-`},
		{`(undefined ?? false) ? 1 : 2`, `2`},
		{`true ? (undefined ?? 3) : 2`, `3`},
		{`true AND 1 = 1`, `true`},
		{`NOT (1 + 1 = 2)`, `false`},
		{`(NOT true) ?? 1`, `false`},
		{`1 IN (2 - 1, 3)`, `true`},
		{`2 BETWEEN 1 + 0 AND 1 + 1`, `true`},
		{`("a" || "b") = "ab"`, `true`},
		{`(1 = 1) | 0`, `-`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[1, undefined, "a" || "b", [2 * 3], {x: 1 + 1}]`, `[1,"ab",[6],{"x":2}]`},
		{`{a: 1, "b c": "x", d: undefined, e: null, f: [1, {g: 2}], "if": 0.5}`, `{"a":1,"b c":"x","e":null,"f":[1,{"g":2}],"if":0.5}`},
		{`{a: undefined}`, `{}`},
		{`{a: 1} = {a: 1}`, `true`},
		{`[1, 2] = [1, 2]`, `true`},
		{`{a: true ? 1 : 2}`, `{"a":1}`},
	} {
		require.Equal(t, tc.want, value(t, tc.expr), tc.expr)
	}
}

// R13: a query without FROM has one row, and at most one result: the
// items' object, or the VALUE, or none when WHERE is not true.
func TestNoFrom(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{`SELECT "Adventure", "Works"`, `{"$1":"Adventure","$2":"Works"}`},
		{`SELECT 1 AS a, 2 b`, `{"a":1,"b":2}`},
		{`SELECT {department: "Sales", team: "Field sales"}`, `{"$1":{"department":"Sales","team":"Field sales"}}`},
		{`SELECT VALUE 1 WHERE 1 = 2`, ``},
		{`SELECT VALUE 1 WHERE 1 = 1`, `1`},
		{`SELECT VALUE undefined`, `-`},
		{`SELECT undefined AS u`, `{}`},
		{`SELECT TOP 1 VALUE [1]`, `[1]`},
	} {
		b := bind(t, tc.sql, nil)
		require.False(t, b.Reads())
		require.Equal(t, tc.want, results(b, []Row{{}}), tc.sql)
	}
	b := bind(t, `SELECT VALUE COUNT(1)`, nil)
	require.False(t, b.Reads())
	require.True(t, b.Aggregate())
	var a Aggregation
	b.Accumulate(&a, Row{})
	out, ok := b.AppendAggregate(nil, &a)
	require.True(t, ok)
	require.Equal(t, "1", string(out))
	require.True(t, bind(t, `SELECT VALUE 1 FROM c`, nil).Reads())
}

// R13: literals and operators on a document's values, which keep their
// stored text inside a computed array or object.
func TestOperatorsOnRows(t *testing.T) {
	rows := evalRows()
	for _, tc := range []struct{ sql, want string }{
		{`SELECT VALUE {id: c.id, n2: c.n * 2, s: c.s || "!"} FROM c WHERE c.id IN ("a", "c", "d", "f")`,
			`{"id":"a","n2":2,"s":"x!"}` + "\n" + `{"id":"c","n2":-5,"s":"héllo wörld!"}` + "\n" + `{"id":"d"}` + "\n" + `{"id":"f"}`},
		{`SELECT VALUE [c.n, c.obj, c.missing] FROM c WHERE c.id IN ("b", "g")`, `[1.0,{}]` + "\n" + `[0,{"k":{"deep":[1,2]}}]`},
		{`SELECT VALUE [r] FROM root r WHERE r.id = "f"`, `[{"id":"f","_ts":105,"_etag":"e5"}]`},
		{`SELECT c.id FROM c WHERE c.n + 1 = 2`, `{"id":"a"}` + "\n" + `{"id":"b"}`},
		{`SELECT c.id FROM c WHERE (c.b ?? false) = true`, `{"id":"a"}` + "\n" + `{"id":"g"}`},
		{`SELECT c.id FROM c WHERE (IS_NUMBER(c.n) ? c.n : 0) > 2`, `{"id":"e"}` + "\n" + `{"id":"i"}`},
		{`SELECT c.id FROM c WHERE ARRAY_CONTAINS([c.s, "zz"], "abc")`, `{"id":"g"}`},
		{`SELECT c.id FROM c WHERE c.user = {name: "bob"}`, `{"id":"b"}`},
		{`SELECT c.id FROM c WHERE c.items[0] = {k: 1, j: 1 + 1}`, `{"id":"b"}`},
		{`SELECT c.id, -c.n AS m FROM c WHERE c.id IN ("a", "h")`, `{"id":"a","m":-1}` + "\n" + `{"id":"h","m":0}`},
	} {
		b := bind(t, tc.sql, nil)
		require.Equal(t, tc.want, results(b, rows), tc.sql)
	}
}

// R13: terms with the new expressions give no ranges unless they are
// constant, so an index serves only what it can; and the rows that match
// have their keys within the ranges given (matchIDs checks it).
func TestOperatorRanges(t *testing.T) {
	rows := evalRows()
	n := Path{{Name: "n"}}
	for _, tc := range []struct {
		sql    string
		ranged bool
		ids    string
	}{
		{`SELECT * FROM c WHERE c.n = 1 + 0`, false, "a b"},
		{`SELECT * FROM c WHERE c.n = -1 * -1`, false, "a b"},
		{`SELECT * FROM c WHERE c.n = -(-1)`, true, "a b"},
		{`SELECT * FROM c WHERE c.n + 0 = 1`, false, "a b"},
		{`SELECT * FROM c WHERE c.n IN (1, 2 + 1)`, false, "a b i"},
		{`SELECT * FROM c WHERE c.n BETWEEN 1 AND 1 + 1`, false, "a b j"},
		{`SELECT * FROM c WHERE c.obj = {k: 1, j: "v"}`, false, "a c"},
		{`SELECT * FROM c WHERE c.n = {a: c.n}`, false, ""},
	} {
		b := bind(t, tc.sql, nil)
		_, ok := b.Ranges(n)
		require.Equal(t, tc.ranged, ok, tc.sql)
		require.Equal(t, tc.ids, matchIDs(t, b, rows, tc.sql), tc.sql)
	}
	b := bind(t, `SELECT * FROM c WHERE c.obj = {k: 1, j: "v"}`, nil)
	rs, ok := b.Ranges(Path{{Name: "obj"}})
	require.True(t, ok)
	require.Equal(t, []Range{kindRange(Object)}, rs)
}

// R13: what does not parse, where, and why; the readings that differ
// between Cosmos DB and SQL or C are refused.
func TestOperatorErrors(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		offset int
		msg    string
	}{
		{`SELECT VALUE 1 +`, 16, `expected an expression, found the end of the query`},
		{`SELECT VALUE * 2`, 13, `expected an expression, found "*"`},
		{`SELECT VALUE 1 ? 2`, 18, `expected ":" of ?:, found the end of the query`},
		{`SELECT VALUE true ? 1 : 2 ? 3 : 4`, 26, `?: does not chain without parentheses`},
		{`SELECT VALUE 1 ?? true ? 1 : 2`, 23, `?? before ?: is ambiguous`},
		{`SELECT VALUE true ? 1 : 2 ?? 3`, 24, `?? after ?: is ambiguous`},
		{`SELECT VALUE 1 = 1 || "a"`, 19, `a comparison before || is ambiguous`},
		{`SELECT VALUE "a" || "b" = "ab"`, 20, `a comparison after || is ambiguous`},
		{`SELECT VALUE 1 & 2 = 2`, 17, `a comparison after & is ambiguous`},
		{`SELECT VALUE NOT true | 1`, 13, `NOT before the operator | is ambiguous`},
		{`SELECT VALUE NOT 1 + 1`, 13, `NOT before the operator + is ambiguous`},
		{`SELECT VALUE {`, 14, `expected a member name (a name or a string) in an object literal, found the end of the query`},
		{`SELECT VALUE {a}`, 15, `expected ":" after the member name "a", found "}"`},
		{`SELECT VALUE {a: 1 b: 2}`, 19, `expected "," or "}" in an object literal, found "b"`},
		{`SELECT VALUE {a: 1,}`, 19, `expected a member name`},
		{`SELECT VALUE {1: 2}`, 14, `expected a member name (a name or a string) in an object literal, found "1"`},
		{`SELECT VALUE {value: 2}`, 14, `value is a keyword: write the member name in quotes, as "value"`},
		{`SELECT VALUE {a: 1, "a": 2}`, 20, `the object literal names the member "a" twice`},
		{`SELECT VALUE [1, 2`, 18, `expected "]", found the end of the query`},
		{"SELECT VALUE {\n  a: 1 +\n}", 24, `expected an expression, found "}"`},
	} {
		e := parseError(t, tc.sql)
		require.False(t, e.Unsupported, tc.sql)
		require.Contains(t, e.Msg, tc.msg, tc.sql)
		require.Equal(t, tc.offset, e.Offset, "%s: %v", tc.sql, e)
	}
	require.Equal(t, "2", value(t, "1 - -1"))
	e := parseError(t, "SELECT VALUE {\n  a: 1 +\n}")
	require.Equal(t, 3, e.Line)
	require.Equal(t, 1, e.Column)
}

// R13: the new forms nest no deeper than MaxDepth, and long chains of one
// operator do not nest at all.
func TestOperatorDepth(t *testing.T) {
	for _, tc := range []struct{ open, close string }{
		{"- ", ""}, {"~", ""}, {"[", "]"}, {"{a: ", "}"}, {"true ? ", " : 0"}, {"(1 + ", ")"},
	} {
		nest := func(n int) string {
			return "SELECT VALUE " + strings.Repeat(tc.open, n) + "1" + strings.Repeat(tc.close, n)
		}
		_, err := Parse(nest(MaxDepth))
		require.NoError(t, err, tc.open)
		e := parseError(t, nest(MaxDepth+1))
		require.Contains(t, e.Msg, "the query nests deeper than 64 levels", tc.open)
	}
	for _, op := range []string{" + ", " * ", " << ", " | ", " || ", " ?? "} {
		long := "SELECT VALUE 1" + strings.Repeat(op+"1", 20000)
		b := bind(t, long, nil)
		results(b, []Row{{}}) // evaluates without a deep recursion
	}
}

// R13: a property or an index of any expression reads into its value;
// of anything but an array or an object it is undefined.
func TestMemberAccess(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`{"quantity": 5}.quantity`, `5`},
		{`{"quantity": 5}.name`, `-`},
		{`{skus: [25344, 82947], vendors: null}.skus`, `[25344,82947]`},
		{`{skus: [25344, 82947], vendors: null}.skus[1]`, `82947`},
		{`{a: {b: "x"}}["a"].b`, `"x"`},
		{`[1, [2, 3]][1][0]`, `2`},
		{`[1][1]`, `-`},
		{`"abc".a`, `-`},
		{`(1).a`, `-`},
		{`IS_ARRAY({skus: [1]}.skus)`, `true`},
		{`IS_DEFINED({quantity: 5}.name)`, `false`},
	} {
		require.Equal(t, tc.want, value(t, tc.expr), tc.expr)
	}
	rows := evalRows()
	for _, tc := range []struct{ sql, want string }{
		{`SELECT VALUE (c.user).name FROM c WHERE c.id IN ("a", "c", "f")`, `"Ann"` + "\n-\n-"},
		{`SELECT VALUE (c)._ts FROM c WHERE c.id = "a"`, `100`},
		{`SELECT VALUE LOWER(c.s)[0] FROM c WHERE c.id = "a"`, `-`},
		{`SELECT VALUE (c.missing ?? c.items)[0].k FROM c WHERE c.id IN ("b", "f", "h")`, "1\n-\n2"},
	} {
		require.Equal(t, tc.want, results(bind(t, tc.sql, nil), rows), tc.sql)
	}
}

// R13: FROM a path: each document's value there is a row, named by the
// alias (else the path's last member name); a document without one gives
// no row; SELECT * gives the value as stored, without system properties.
func TestFromPath(t *testing.T) {
	rows := evalRows()
	for _, tc := range []struct{ sql, want string }{
		{`SELECT * FROM c.user u WHERE u.name = "Ann"`, `{"name":"Ann","age":30}`},
		{`SELECT * FROM c.user`, `{"name":"Ann","age":30}` + "\n" + `{"name":"bob"}` + "\n" + `"plain"` + "\n" + `{"name":null}` + "\n" + `{"name":"Éva","tags":["x"]}`},
		{`SELECT user.name FROM c.user WHERE IS_STRING(user.name)`, `{"name":"Ann"}` + "\n" + `{"name":"bob"}` + "\n" + `{"name":"Éva"}`},
		{`SELECT VALUE t FROM c.tags[0] AS t`, `"red"` + "\n" + `"blue"` + "\n" + `"red"` + "\n" + `"a"`},
		{`SELECT t FROM c.tags[0] t WHERE t = "red"`, `{"t":"red"}` + "\n" + `{"t":"red"}`},
		{`SELECT VALUE o.k FROM c["obj"] AS o`, "1\n-\n1.0\n-\n{\"deep\":[1,2]}"},
		{`SELECT VALUE d._ts FROM c.obj d`, "-\n-\n-\n-\n-"},
		{`SELECT VALUE COUNT(1) FROM c.items`, ``},
		{`SELECT VALUE x.k FROM c.items[0] x`, "1\n2"},
	} {
		b := bind(t, tc.sql, nil)
		require.False(t, b.Star(), tc.sql)
		got := results(b, rows)
		if b.Aggregate() {
			var a Aggregation
			for _, r := range rows {
				if b.Match(r) {
					b.Accumulate(&a, r)
				}
			}
			out, _ := b.AppendAggregate(nil, &a)
			got = string(out)
			tc.want = "2" // b and h have items
		}
		require.Equal(t, tc.want, got, tc.sql)
	}
	b := bind(t, `SELECT * FROM c.user WHERE user.name = "Ann"`, nil)
	rs, ok := b.Ranges(Path{{Name: "user"}, {Name: "name"}})
	require.True(t, ok)
	require.Equal(t, []Range{keyRange(Value{Kind: String, Str: "Ann"})}, rs)
	require.Equal(t, []Order{{Path: Path{{Name: "items"}, {Index: 0, IsIndex: true}, {Name: "k"}}, Desc: true}},
		bind(t, `SELECT VALUE x.k FROM c.items[0] x ORDER BY x.k DESC`, nil).OrderBy())
}
