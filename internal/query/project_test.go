package query

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// results returns what b gives for each row that matches, one a line;
// "-" for a row without result.
func results(b *Bound, rows []Row) string {
	var out []string
	for _, r := range rows {
		if !b.Match(r) {
			continue
		}
		res, ok := b.AppendResult([]byte("prefix:"), r)
		switch {
		case !ok && string(res) == "prefix:":
			out = append(out, "-")
		case !ok:
			out = append(out, "BAD: dst changed")
		default:
			out = append(out, strings.TrimPrefix(string(res), "prefix:"))
		}
	}
	return strings.Join(out, "\n")
}

// Projections give exact JSON: stored values as stored, computed ones as
// encoding/json writes them; undefined members left out.
func TestProject(t *testing.T) {
	rows := evalRows()
	params := map[string]string{"p": `{"a": [1, 2]}`, "q": `"s"`}
	for _, tc := range []struct{ sql, want string }{
		{`SELECT c.id, c.n, c.missing, c.user.name FROM c WHERE c.id IN ("a", "b", "d", "f")`,
			`{"id":"a","n":1,"name":"Ann"}` + "\n" + `{"id":"b","n":1.0,"name":"bob"}` + "\n" + `{"id":"d","n":"1","name":null}` + "\n" + `{"id":"f"}`},
		{`SELECT VALUE c.n FROM c WHERE c.id IN ("b", "e", "f", "h")`, "1.0\n1e2\n-\n-0.0"},
		{`SELECT VALUE c.s FROM c WHERE c.id IN ("c", "i")`, `"héllo wörld"` + "\n" + `"a\u0000b"`},
		{`SELECT VALUE c.user FROM c WHERE c.id = "e"`, `{"name":"Éva","tags":["x"]}`},
		{`SELECT VALUE c.lone FROM c WHERE c.id = "i"`, `-`},
		{`SELECT c.lone, c.dup FROM c WHERE c.id IN ("i", "j")`, "{}\n{}"},
		{`SELECT VALUE c FROM c WHERE c.id = "f"`, `{"id":"f","_ts":105,"_etag":"e5"}`},
		{`SELECT c FROM c WHERE c.id = "f"`, `{"c":{"id":"f","_ts":105,"_etag":"e5"}}`},
		{`SELECT r AS doc, r.id FROM root r WHERE r.id = "j"`, `{"doc":{"id":"j","n":2,"s":"a","dup":1,"dup":2,"_ts":109,"_etag":"e9"},"id":"j"}`},
		{`SELECT c.tags[0], 1, "s", true, null, LOWER(c.s) AS low, c.n = 1 AS eq, [1, "a", @p, [undefined]] AS arr, UPPER(c.missing) AS u, 1e21, 0.000001, 1.5e-7, -0, undefined FROM c WHERE c.id = "a"`,
			`{"$1":"red","$2":1,"$3":"s","$4":true,"$5":null,"low":"x","eq":true,"arr":[1,"a",{"a":[1,2]},[]],"$6":1e+21,"$7":0.000001,"$8":1.5e-7,"$9":-0}`},
		{`SELECT c["odd key"], c['esc"q'], c["xé"] FROM c WHERE c.id IN ("a", "e")`, `{"odd key":"o","esc\"q":1}` + "\n" + `{"xé":true}`},
		{`SELECT VALUE @p FROM c WHERE c.id = "a"`, `{"a":[1,2]}`},
		{`SELECT VALUE [@q, 'it''s'] FROM c WHERE c.id = "a"`, ``},
		{`SELECT VALUE LOWER(c.s) FROM c WHERE c.id IN ("c", "h", "i")`, `"héllo wörld"` + "\n" + `"abc"` + "\n" + `"a\u0000b"`},
		{`SELECT VALUE UPPER(c.user.name) FROM c WHERE IS_DEFINED(c.user.name)`, "\"ANN\"\n\"BOB\"\n-\n\"ÉVA\""},
		{`SELECT VALUE LENGTH(c.s) FROM c WHERE c.id IN ("c", "e", "i", "d")`, "11\n-\n0\n3"},
		{`SELECT VALUE ARRAY_LENGTH(c.tags) FROM c WHERE c.id IN ("a", "c", "f")`, "2\n0\n-"},
		{`SELECT VALUE c.n > 0 FROM c WHERE c.id IN ("a", "c", "d")`, "true\nfalse\n-"},
		{`SELECT VALUE c.id FROM c WHERE c.n = 1 ORDER BY c.id`, `"a"` + "\n" + `"b"`},
		{`SELECT VALUE c.arr[1] FROM c WHERE c.id = "g"`, `[2,3]`},
		{`SELECT VALUE "\"<&>\u2028\u2029\u0001\n\t\b\f\r\\/é😀" FROM c WHERE c.id = "a"`, `"\"<&>\u2028\u2029\u0001\n\t\b\f\r\\/é😀"`},
		{`SELECT VALUE 'it\'s' FROM c WHERE c.id = "a"`, `"it's"`},
		{`SELECT c._ts, c._etag FROM c WHERE c.id = "b"`, `{"_ts":101,"_etag":"e1"}`},
	} {
		q, err := Parse(tc.sql)
		if tc.want == "" { // 'it''s' is no string literal: doubled quotes are not an escape
			require.Error(t, err, tc.sql)
			continue
		}
		require.NoError(t, err, tc.sql)
		used := map[string]string{}
		for _, name := range q.Params() {
			used[name] = params[name]
		}
		b, err := q.Bind(used)
		require.NoError(t, err)
		require.False(t, b.Star())
		require.False(t, b.Aggregate())
		require.Equal(t, tc.want, results(b, rows), tc.sql)
	}
}

// R13: SELECT * and aggregates (inside any expression of the SELECT
// clause too): what the caller is told, and their output.
func TestStarAndAggregate(t *testing.T) {
	rows := evalRows()
	b := bind(t, `SELECT * FROM c WHERE c.id = "a"`, nil)
	require.True(t, b.Star())
	require.False(t, b.Aggregate())
	res, ok := b.AppendResult(nil, Row{Body: `{}`, TS: 7, ETag: "x"})
	require.True(t, ok)
	require.Equal(t, `{"_ts":7,"_etag":"x"}`, string(res))

	for _, tc := range []struct {
		sql string
		out string // over the rows that match; "-" for none
	}{
		{`SELECT VALUE COUNT(1) FROM c`, `10`},
		{`SELECT VALUE COUNT(c.n) FROM c WHERE c.id != "a"`, `8`},
		{`SELECT COUNT(c.b) AS n FROM c`, `{"n":5}`},
		{`SELECT COUNT(c.lone) FROM c`, `{"$1":0}`},
		{`SELECT COUNT(undefined) FROM c`, `{"$1":0}`},
		{`SELECT COUNT('x') c2 FROM c WHERE c.n > 2`, `{"c2":2}`},
		{`SELECT TOP 1 VALUE COUNT(@p) FROM c`, `10`},
		{`SELECT VALUE COUNT(1) FROM c WHERE false`, `0`},
		{`SELECT VALUE SUM(c.n) FROM c WHERE IS_NUMBER(c.n)`, `104.5`},
		{`SELECT VALUE SUM(c.n) FROM c`, `-`}, // "1" is no number
		{`SELECT VALUE SUM(c.missing) FROM c`, `0`},
		{`SELECT SUM(c.n) AS s FROM c`, `{}`},
		{`SELECT VALUE AVG(c.n) FROM c WHERE c.id IN ("a", "c", "g")`, `-0.5`},
		{`SELECT VALUE AVG(c.n) FROM c WHERE c.id = "zz"`, `-`},
		{`SELECT AVG(c.n) AS a FROM c WHERE c.id = "zz"`, `{}`},
		{`SELECT VALUE MIN(c.n) FROM c WHERE IS_NUMBER(c.n)`, `-2.5`},
		{`SELECT VALUE MAX(c.n) FROM c`, `"1"`},  // strings sort after numbers
		{`SELECT VALUE MIN(c.b) FROM c`, `null`}, // null < booleans < numbers < strings
		{`SELECT VALUE MAX(c.b) FROM c`, `"true"`},
		{`SELECT MAX(c.s) AS m FROM c WHERE IS_STRING(c.s)`, `{"m":"x"}`}, // by bytes: "x" > "héllo wörld"
		{`SELECT VALUE MIN(c.n) FROM c WHERE c.id IN ("b", "h")`, `-0.0`}, // as stored
		{`SELECT VALUE MIN(c.arr) FROM c`, `-`},
		{`SELECT VALUE MAX(c.missing) FROM c`, `-`},
		// Aggregates inside expressions (the sample count-expression:
		// SELECT VALUE {countScalar: COUNT(1), countExpression: COUNT(2 + 3)}).
		{`SELECT VALUE {countScalar: COUNT(1), countExpression: COUNT(2 + 3)} FROM c`, `{"countScalar":10,"countExpression":10}`},
		{`SELECT VALUE COUNT(1) * 2 FROM c`, `20`},
		{`SELECT {n: COUNT(1), s: SUM(c.n)} AS r FROM c WHERE IS_NUMBER(c.n)`, `{"r":{"n":8,"s":104.5}}`},
		{`SELECT VALUE ROUND(AVG(c.n)) FROM c WHERE c.id IN ("a", "c", "g")`, `-1`},
		{`SELECT VALUE [MIN(c.n), MAX(c.n), 1] FROM c WHERE IS_NUMBER(c.n)`, `[-2.5,1e2,1]`},
		{`SELECT COUNT(1) AS n, SUM(c.n) / COUNT(c.n) AS mean, "k" AS k FROM c WHERE IS_NUMBER(c.n)`, `{"n":8,"mean":13.0625,"k":"k"}`},
		{`SELECT VALUE AVG(c.n) * 2 FROM c WHERE c.id = "zz"`, `-`}, // undefined * 2
		{`SELECT VALUE IS_DEFINED(AVG(c.n)) FROM c WHERE c.id = "zz"`, `false`},
		{`SELECT VALUE COUNT(1) + @p FROM c`, `-`}, // 10 + null
		{`SELECT VALUE COUNT(1) = 10 ? "ten" : "other" FROM c`, `"ten"`},
	} {
		q, err := Parse(tc.sql)
		require.NoError(t, err, tc.sql)
		params := map[string]string{}
		if len(q.Params()) > 0 {
			params["p"] = "null"
		}
		b, err := q.Bind(params)
		require.NoError(t, err)
		require.True(t, b.Aggregate(), tc.sql)
		require.False(t, b.Star())
		var a Aggregation
		for _, r := range rows {
			if b.Match(r) {
				b.Accumulate(&a, r)
			}
			_, ok := b.AppendResult(nil, r)
			require.False(t, ok)
		}
		out, ok := b.AppendAggregate([]byte("x"), &a)
		if tc.out == "-" {
			require.False(t, ok, tc.sql)
			require.Equal(t, "x", string(out), tc.sql)
			continue
		}
		require.True(t, ok, tc.sql)
		require.Equal(t, "x"+tc.out, string(out), tc.sql)
	}
}

// appendString writes strings as encoding/json does without HTML escaping,
// and appendNumber numbers.
func TestJSONEncoding(t *testing.T) {
	enc := func(v any) string {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		require.NoError(t, e.Encode(v))
		return strings.TrimSuffix(buf.String(), "\n")
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "\"", "\\", "\x00", "\x1f", "\x7f", "\n", "<", "&", "é", "\u2028", "\u2029", "😀", "\xff", "\xe2\x80", "/"}
	for range 5000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		require.Equal(t, enc(s), string(appendString(nil, s)), "%q", s)
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e20, 1e21, 123456789e13, 1e-6, 1e-7, 1.5e-7, 5e-324, math.MaxFloat64, -math.MaxFloat64, 2.5, 1 << 53, 1e100}
	for range 5000 {
		floats = append(floats, math.Float64frombits(r.Uint64()), r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for _, f := range floats {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			require.Equal(t, "null", string(appendNumber(nil, f)))
			continue
		}
		require.Equal(t, enc(f), string(appendNumber(nil, f)), "%v", f)
	}
}

// R13: SUM and AVG add as if rounding once, so that the order of the rows
// (key order in ttldb, the order of writing in the service) does not change
// them: the sample corpus's AVG of 20.28, 5.11 and 62.21 is 29.2 in any
// order (the exact mean, rounded), their SUM 87.60000000000001 (the exact
// sum, rounded; adding in the order written gives 87.6, in key order not).
func TestSumInAnyOrder(t *testing.T) {
	docs := []string{`{"p":20.28}`, `{"p":5.11}`, `{"p":62.21}`}
	for _, order := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {1, 0, 2}} {
		for sql, want := range map[string]string{`SELECT VALUE AVG(c.p) FROM c`: `29.2`, `SELECT VALUE SUM(c.p) FROM c`: `87.60000000000001`} {
			b := bind(t, sql, nil)
			var a Aggregation
			for _, i := range order {
				b.Accumulate(&a, Row{Body: docs[i]})
			}
			out, ok := b.AppendAggregate(nil, &a)
			require.True(t, ok)
			require.Equal(t, want, string(out), "%s in order %v", sql, order)
		}
	}
	b := bind(t, `SELECT VALUE SUM(c.p) FROM c`, nil)
	var a Aggregation
	for _, d := range []string{`{"p":1e308}`, `{"p":1e308}`, `{"p":-1e308}`} {
		b.Accumulate(&a, Row{Body: d})
	}
	out, _ := b.AppendAggregate(nil, &a)
	require.Equal(t, "null", string(out)) // infinity on the way, as plain addition
}
