package conformance

// R13's edge cases, from a review: Cosmos semantics at the edges (types,
// undefined, escapes, ignore case), indexes that must give the rows of a
// scan on edge values, past the point cap, on system properties and with
// writes between pages, and the expiry instant through every plan. Moved
// from the root package's query_edge_test.go; the root keeps index builds
// under load and hooks, Close during queries, the byte layout of tokens,
// and the parser's errors, which run no engine.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/internal/ref"
)

// r13Edge opens a collection partitioned by /pk (TTL on, no default)
// holding docs, with indexes on paths.
func r13Edge(t *testing.T, h Harness, docs []string, paths ...string) (*ttldb.Collection, *clock) {
	t.Helper()
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLNoDefault())
	for _, d := range docs {
		ruleCreate(t, c, d)
	}
	for _, p := range paths {
		require.NoError(t, c.CreateIndex(bg, p))
	}
	return c, clk
}

// r13Run returns a query's results, as strings, from one page.
func r13Run(t testing.TB, c *ttldb.Collection, q ttldb.SQL) ([]string, ttldb.QueryPlan) {
	t.Helper()
	page, err := c.Query(bg, q)
	require.NoError(t, err, q.Text)
	return r13Strings(page), page.Plan
}

// r13Paged returns a query's results read in pages of size, following the
// continuation tokens.
func r13Paged(t testing.TB, c *ttldb.Collection, q ttldb.SQL, size int) []string {
	t.Helper()
	q.MaxItems = size
	out := []string{}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5000)
		page, err := c.Query(bg, q)
		require.NoError(t, err, q.Text)
		out = append(out, r13Strings(page)...)
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// r13Strings returns a page's results as strings.
func r13Strings(p ttldb.QueryPage) []string {
	out := []string{}
	for _, r := range p.Results {
		out = append(out, string(r))
	}
	return out
}

// r13Get reads a document that must be there.
func r13Get(t *testing.T, c *ttldb.Collection, pk ttldb.PartitionKey, id string) ttldb.Document {
	t.Helper()
	d, err := c.Get(bg, pk, id)
	require.NoError(t, err, "Get(%v, %q)", pk, id)
	return d
}

// R13: Cosmos documents that "for comparison operators such as >, >=, !=,
// <, and <=, comparison across types or between two objects or arrays
// produces undefined" (learn.microsoft.com/azure/cosmos-db/nosql/query/
// equality-comparison-operators); only = is defined on two arrays or two
// objects. (ttldb evaluated != of two arrays or two objects as NOT =.)
func checkNotEqualOfArraysAndObjectsIsUndefined(t *testing.T, h Harness) {
	docs := []string{
		`{"id":"a","pk":"p","tags":["x"],"o":{"k":1}}`,
		`{"id":"b","pk":"p","tags":["y"],"o":{"k":2}}`,
	}
	for _, idx := range [][]string{nil, {"/tags", "/o"}} {
		c, _ := r13Edge(t, h, docs, idx...)
		got, _ := r13Run(t, c, ttldb.SQL{Text: `SELECT VALUE c.id FROM c WHERE c.tags = ["x"]`})
		require.Equal(t, []string{`"a"`}, got) // = of arrays is defined
		for _, q := range []ttldb.SQL{
			{Text: `SELECT VALUE c.id FROM c WHERE c.tags != ["x"]`},
			{Text: `SELECT VALUE c.id FROM c WHERE c.o != @o`, Params: map[string]any{"o": map[string]any{"k": 1}}},
		} {
			got, _ := r13Run(t, c, q)
			require.Empty(t, got, "%s (indexes %v): != of two arrays or objects is undefined", q.Text, idx)
		}
	}
}

// R13: STARTSWITH, ENDSWITH and CONTAINS with ignore case compare
// characters by their upper cases, as Cosmos does: a string matches its own
// UPPER() even for final sigma, long s and dotless i, and "ΣΑΣ" ends with
// "ς". (Both strings were lower-cased, and LOWER(UPPER(x)) != LOWER(x) for
// these.)
func checkIgnoreCaseAgreesWithUpper(t *testing.T, h Harness) {
	var docs []string
	for i, s := range []string{"ς", "ſ", "ı", "ΣΑΣ"} {
		docs = append(docs, fmt.Sprintf(`{"id":"d%d","pk":"p","s":%q}`, i, s))
	}
	c, _ := r13Edge(t, h, docs)
	got, _ := r13Run(t, c, ttldb.SQL{Text: `SELECT VALUE c.s FROM c WHERE STARTSWITH(c.s, UPPER(c.s), true) AND STARTSWITH(UPPER(c.s), c.s, true)`})
	require.Equal(t, []string{`"ς"`, `"ſ"`, `"ı"`, `"ΣΑΣ"`}, got, "a string equals its UPPER() ignoring case")
	got, _ = r13Run(t, c, ttldb.SQL{Text: `SELECT VALUE c.s FROM c WHERE ENDSWITH(c.s, "ς", true)`})
	require.Equal(t, []string{`"ς"`, `"ΣΑΣ"`}, got)
}

// R13: Cosmos semantics the spec decides: undefined is not null, types do
// not compare, three-valued logic, IN, BETWEEN, numbers as doubles, string
// escapes in documents and literals, ORDER BY across types, projections.
func checkQueryEdgeCosmosSemantics(t *testing.T, h Harness) {
	docs := []string{
		`{"id":"a","pk":"p","n":1,"s":"\u00e9","\u00e9":1,"tags":["x","y"],"u":"plain","z":null}`,
		`{"id":"b","pk":"p","n":1.0,"s":"é","tags":[{"k":1,"j":2}],"f":false}`,
		`{"id":"c","pk":"p","n":-0,"s":"a\u0000b","f":true}`,
		`{"id":"d","pk":"p","n":0,"s":"a"}`,
		`{"id":"e","pk":"p","n":9007199254740993,"s":"ab"}`,
		`{"id":"f","pk":"p","n":9007199254740992,"s":null}`,
		`{"id":"g","pk":"p","n":1e2,"s":true}`,
		`{"id":"h","pk":"p","n":"1"}`,
	}
	for _, idx := range [][]string{nil, {"/n", "/s", "/f", "/z", "/tags"}} {
		c, _ := r13Edge(t, h, docs, idx...)
		for _, tc := range []struct {
			sql  string
			want []string
		}{
			{`SELECT VALUE c.id FROM c WHERE c.n = 1`, []string{`"a"`, `"b"`}},
			{`SELECT VALUE c.id FROM c WHERE c.n = 0`, []string{`"c"`, `"d"`}},
			{`SELECT VALUE c.id FROM c WHERE c.n = 9007199254740992`, []string{`"e"`, `"f"`}},
			{`SELECT VALUE c.id FROM c WHERE c.n = 100`, []string{`"g"`}},
			{`SELECT VALUE c.id FROM c WHERE c.n > "0"`, []string{`"h"`}},
			{`SELECT VALUE c.id FROM c WHERE c.s = 'é'`, []string{`"a"`, `"b"`}},
			{`SELECT VALUE c.id FROM c WHERE c.s = "\u00e9"`, []string{`"a"`, `"b"`}},
			{`SELECT VALUE c.id FROM c WHERE c["é"] = 1`, []string{`"a"`}},
			{`SELECT VALUE c.id FROM c WHERE c.s = 'a\u0000b'`, []string{`"c"`}},
			{`SELECT VALUE c.id FROM c WHERE STARTSWITH(c.s, 'a')`, []string{`"c"`, `"d"`, `"e"`}},
			{`SELECT VALUE c.id FROM c WHERE STARTSWITH(c.s, 'É', true)`, []string{`"a"`, `"b"`}},
			{`SELECT VALUE c.id FROM c WHERE IS_NULL(c.s)`, []string{`"f"`}},
			{`SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.z)`, []string{`"a"`}},
			{`SELECT VALUE c.id FROM c WHERE c.z = null`, []string{`"a"`}},
			{`SELECT VALUE c.id FROM c WHERE NOT (c.f = true)`, []string{`"b"`}},
			{`SELECT VALUE c.id FROM c WHERE c.f = false OR c.missing = 1`, []string{`"b"`}},
			{`SELECT VALUE c.id FROM c WHERE NOT (c.f AND c.missing)`, []string{`"b"`}},
			{`SELECT VALUE c.id FROM c WHERE c.f OR c.missing`, []string{`"c"`}},
			{`SELECT VALUE c.id FROM c WHERE c.s IN ('a', 1)`, []string{`"d"`}},
			{`SELECT VALUE c.id FROM c WHERE c.n BETWEEN 0 AND 1`, []string{`"a"`, `"b"`, `"c"`, `"d"`}},
			{`SELECT VALUE c.id FROM c WHERE c.n BETWEEN 0 AND "z"`, []string{}},
			{`SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, @o, true)`, []string{`"b"`}},
			{`SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, @o)`, []string{}},
			{`SELECT VALUE c.id FROM c WHERE c.u.x = 1 OR IS_DEFINED(c.u.x)`, []string{}},
			// undefined (h) < null (f) < true (g) < strings by their bytes; ties (a, b) by key, as the first item goes
			{`SELECT VALUE c.id FROM c ORDER BY c.s`, []string{`"h"`, `"f"`, `"g"`, `"d"`, `"c"`, `"e"`, `"a"`, `"b"`}},
			{`SELECT VALUE c.id FROM c ORDER BY c.s DESC`, []string{`"b"`, `"a"`, `"e"`, `"c"`, `"d"`, `"g"`, `"f"`, `"h"`}},
			{`SELECT VALUE c.id FROM c ORDER BY c.f DESC, c.id`, []string{`"c"`, `"b"`, `"a"`, `"d"`, `"e"`, `"f"`, `"g"`, `"h"`}},
			{`SELECT c.tags[0], c.id AS i, 'k' FROM c WHERE c.id = 'a'`, []string{`{"$1":"x","i":"a","$2":"k"}`}},
			{`SELECT c.missing, c.u.x FROM c WHERE c.id = 'a'`, []string{`{}`}},
			{`SELECT VALUE c.u.x FROM c`, []string{}},
			{`SELECT VALUE COUNT(c.f) FROM c`, []string{`2`}},
			{`SELECT COUNT(1) FROM c WHERE c.n > 0`, []string{`{"$1":5}`}},
			// the string "1" (h) after every number; 2^53+1 = 2^53 as doubles: a tie, by key descending
			{`SELECT TOP 2 VALUE c.id FROM c ORDER BY c.n DESC`, []string{`"h"`, `"f"`}},
			{`SELECT VALUE c.id FROM c ORDER BY c.n DESC OFFSET 2 LIMIT 3`, []string{`"e"`, `"g"`, `"b"`}},
		} {
			q := ttldb.SQL{Text: tc.sql}
			if len(tc.sql) > 0 && strings.Contains(tc.sql, "@o") {
				q.Params = map[string]any{"o": map[string]any{"k": 1}}
			}
			got, plan := r13Run(t, c, q)
			require.Equal(t, tc.want, got, "%s (indexes %v, plan %+v)", tc.sql, idx, plan)
			require.Equal(t, tc.want, r13Paged(t, c, q, 1), "%s in pages of 1", tc.sql)
		}
	}
}

// R13: with and without indexes, in one page and in pages, with and
// without a partition, the same rows for values the randomized oracle does
// not draw: -0, infinities (1e400), extreme doubles, integers beyond 2^53,
// strings with NUL bytes, strings that are prefixes of each other, lone
// surrogate escapes (undefined), and values under a path through a scalar.
func checkQueryEdgeIndexEqualsScanOnEdgeValues(t *testing.T, h Harness) {
	vals := []string{`-0`, `0`, `0.0`, `1e400`, `-1e400`, `1.7976931348623157e308`, `5e-324`, `-5e-324`,
		`9007199254740993`, `9007199254740992`, `"\ud800"`, `"\ud83d\ude00"`, `"\u00e9"`, `"é"`, `""`, `"a"`, `"A"`,
		`"a\u0000"`, `"a\u0000b"`, `"\u0000"`, `"ab"`, `"a\u0001"`, `null`, `true`, `false`, `[]`, `[1]`, `{}`,
		`{"k":1}`, `"\uffff"`, `"\ud83d\ude00x"`}
	var docs []string
	for i, v := range vals {
		docs = append(docs, fmt.Sprintf(`{"id":"d%02d","pk":"p%d","v":%s,"w":{"x":%s}}`, i, i%3, v, v))
	}
	docs = append(docs, `{"id":"e1","pk":"p0"}`, `{"id":"e2","pk":"p1","w":"scalar"}`)
	consts := []string{`0`, `-0`, `1e308`, `-1e308`, `9007199254740992`, `''`, `'a'`, `'a\u0000'`, `'\u0000'`, `'é'`,
		`'\ud83d\ude00'`, `null`, `true`, `false`, `[]`, `[1]`}
	var qs []string
	for _, p := range []string{"c.v", "c.w.x"} {
		for _, k := range consts {
			for _, op := range []string{"=", "!=", "<", "<=", ">", ">="} {
				qs = append(qs, fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s %s %s", p, op, k))
			}
			qs = append(qs,
				fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s IN (%s, 'a', 1)", p, k),
				fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s BETWEEN %s AND 'zz'", p, k),
				fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s BETWEEN -1e308 AND %s", p, k),
				fmt.Sprintf("SELECT VALUE c.id FROM c WHERE STARTSWITH(%s, %s, false)", p, k),
				fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s > %s ORDER BY %s DESC", p, k, p),
				fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s <= %s ORDER BY %s", p, k, p))
		}
		for _, f := range []string{"IS_DEFINED", "IS_NULL", "IS_BOOL", "IS_NUMBER", "IS_STRING", "IS_ARRAY", "IS_OBJECT", "IS_PRIMITIVE"} {
			qs = append(qs, fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s(%s) ORDER BY %s DESC", f, p, p))
		}
		qs = append(qs, fmt.Sprintf("SELECT VALUE c.id FROM c ORDER BY %s", p),
			fmt.Sprintf("SELECT VALUE c.id FROM c WHERE %s", p),
			fmt.Sprintf("SELECT VALUE COUNT(1) FROM c WHERE %s >= ''", p))
	}
	plain, _ := r13Edge(t, h, docs)
	indexed, _ := r13Edge(t, h, docs, "/v", "/w/x")
	pk := ttldb.StringKey("p1")
	for _, text := range qs {
		for _, part := range []*ttldb.PartitionKey{nil, &pk} {
			q := ttldb.SQL{Text: text, Partition: part}
			want, _ := r13Run(t, plain, q)
			got, plan := r13Run(t, indexed, q)
			require.Equal(t, want, got, "%s (partition %v), plan %+v", text, part != nil, plan)
			for size := 1; size <= 3; size++ {
				require.Equal(t, want, r13Paged(t, indexed, q, size), "%s in pages of %d", text, size)
			}
		}
	}
}

// R13: a query whose equality matches more than 1024 documents (the
// in-process engine then reads the index on the ORDER BY path instead)
// gives the rows of a scan, whole and in pages.
func checkQueryEdgeOrderedIndexPastPointCap(t *testing.T, h Harness) {
	docs := ref.PointCapDocs()
	plain, _ := r13Edge(t, h, docs)
	indexed, _ := r13Edge(t, h, docs, "/st", "/v")
	pk := ttldb.StringKey("p2")
	for _, text := range []string{
		`SELECT VALUE c.id FROM c WHERE c.st = "open" ORDER BY c.v DESC`,
		`SELECT TOP 50 c.id, c.v FROM c WHERE c.st = "open" ORDER BY c.v`,
		`SELECT VALUE c.id FROM c WHERE c.st = "open" AND c.v != 3 ORDER BY c.v DESC OFFSET 10 LIMIT 500`,
	} {
		for _, part := range []*ttldb.PartitionKey{nil, &pk} {
			q := ttldb.SQL{Text: text, Partition: part}
			want, _ := r13Run(t, plain, q)
			got, plan := r13Run(t, indexed, q)
			require.Equal(t, want, got, "%s, plan %+v", text, plan)
			require.Equal(t, want, r13Paged(t, indexed, q, 7), text)
		}
	}
}

// R4, R13: a document with effective TTL t written at _ts is in every
// query's rows and counts at _ts+t-1, whatever the plan, and in none at
// _ts+t, before the sweeper runs; also for a TTL inherited from
// DefaultTTL, and for a page resumed from a token issued a second before.
func checkQueryEdgeExpiryInstantThroughEveryPlan(t *testing.T, h Harness) {
	queries := []string{
		`SELECT VALUE c.id FROM c`,
		`SELECT VALUE c.id FROM c WHERE c.v = 1`,
		`SELECT VALUE c.id FROM c WHERE c.v >= 1 ORDER BY c.v DESC`,
		`SELECT VALUE c.id FROM c ORDER BY c.v`,
		`SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.v) ORDER BY c.id DESC`,
		`SELECT VALUE COUNT(1) FROM c WHERE c.v = 1`,
	}
	for _, def := range []ttldb.DefaultTTL{ttldb.TTLNoDefault(), ttldb.TTLSeconds(10)} {
		for _, idx := range [][]string{nil, {"/v"}} {
			c, clk := ruleOpenTTL(t, h, "/pk", def)
			for _, p := range idx {
				require.NoError(t, c.CreateIndex(bg, p))
			}
			if def == ttldb.TTLNoDefault() {
				ruleCreate(t, c, `{"id":"short","pk":"p","v":1,"ttl":10}`)
			} else {
				ruleCreate(t, c, `{"id":"short","pk":"p","v":1}`)
			}
			ruleCreate(t, c, `{"id":"keep","pk":"p","v":1,"ttl":-1}`)
			clk.Advance(9 * time.Second) // _ts + t - 1
			var tokens []ttldb.SQL
			for _, text := range queries {
				got, _ := r13Run(t, c, ttldb.SQL{Text: text})
				if text == queries[5] {
					require.Equal(t, []string{"2"}, got)
				} else {
					require.Contains(t, got, `"short"`, "%s at _ts+t-1 (%v, %v)", text, def, idx)
				}
				page, err := c.Query(bg, ttldb.SQL{Text: text, MaxItems: 1})
				require.NoError(t, err)
				if page.Continuation != "" && string(page.Results[0]) == `"keep"` {
					tokens = append(tokens, ttldb.SQL{Text: text, Continuation: page.Continuation})
				}
			}
			clk.Advance(time.Second) // _ts + t
			for _, text := range queries {
				got, _ := r13Run(t, c, ttldb.SQL{Text: text})
				if text == queries[5] {
					require.Equal(t, []string{"1"}, got)
				} else {
					require.NotContains(t, got, `"short"`, "%s at _ts+t (%v, %v)", text, def, idx)
				}
				for res, err := range c.QueryAll(bg, ttldb.SQL{Text: text}) {
					require.NoError(t, err)
					require.NotEqual(t, `"short"`, string(res))
				}
			}
			for _, q := range tokens {
				got, _ := r13Run(t, c, q)
				require.NotContains(t, got, `"short"`, "%s resumed at _ts+t", q.Text)
			}
		}
	}
}

// R13: indexes on the system properties and on the partition key and id
// follow Touch (a new _ts and _etag, the same body) and give the rows of a
// scan.
func checkQueryEdgeSystemPropertyIndexes(t *testing.T, h Harness) {
	var results [2][]string
	for i, idx := range [][]string{nil, {"/_ts", "/_etag", "/id", "/pk"}} {
		c, clk := r13Edge(t, h, nil, idx...)
		for n := range 6 {
			ruleCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d"}`, n, n%2))
			clk.Advance(time.Second)
		}
		_, err := c.Touch(bg, ttldb.StringKey("p0"), "d0")
		require.NoError(t, err)
		d1 := r13Get(t, c, ttldb.StringKey("p1"), "d1")
		for _, text := range []string{
			`SELECT VALUE c.id FROM c WHERE c._ts >= 1000003 ORDER BY c._ts DESC`,
			`SELECT VALUE c.id FROM c ORDER BY c._ts`,
			`SELECT VALUE c.id FROM c WHERE c._ts = 1000006`,
			`SELECT VALUE c.id FROM c WHERE c._etag = @e`,
			`SELECT VALUE c.id FROM c WHERE c.pk = "p1" ORDER BY c.id DESC`,
			`SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, "d") AND c.id > "d2"`,
		} {
			q := ttldb.SQL{Text: text}
			if strings.Contains(text, "@e") {
				q.Params = map[string]any{"e": d1.ETag()}
			}
			got, _ := r13Run(t, c, q)
			results[i] = append(results[i], fmt.Sprint(got))
		}
	}
	require.Equal(t, results[0], results[1])
	require.Equal(t, `["d0" "d5" "d4" "d3"]`, results[0][0])
}

// R13: the same writes made to a collection with indexes and to one
// without, between the pages of a query read with continuation tokens:
// every page is the same, whichever plan resumes from the token (ordered
// index walks ASC and DESC, equality, range, sort).
func checkQueryEdgePagesWithWritesBetween(t *testing.T, h Harness) {
	seeds := uint64(30)
	if Long() {
		seeds = 100
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		plain, _ := r13Edge(t, h, nil)
		indexed, _ := r13Edge(t, h, nil, "/v", "/s")
		both := func(f func(c *ttldb.Collection)) { f(plain); f(indexed) }
		val := func() any {
			switch r.IntN(5) {
			case 0:
				return nil
			case 1:
				return fmt.Sprint("s", r.IntN(4))
			case 2:
				return r.IntN(2) == 0
			}
			return r.IntN(6)
		}
		write := func() {
			id, v, s := r.IntN(40), val(), val()
			if r.IntN(5) == 0 {
				both(func(c *ttldb.Collection) { _ = c.Delete(bg, ttldb.StringKey(fmt.Sprint("p", id%3)), fmt.Sprint(id)) })
				return
			}
			both(func(c *ttldb.Collection) {
				_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(id), "pk": fmt.Sprint("p", id%3), "v": v, "s": s})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
		for range 60 {
			write()
		}
		texts := []string{
			`SELECT VALUE c.id FROM c ORDER BY c.v DESC`,
			`SELECT VALUE c.id FROM c ORDER BY c.v`,
			`SELECT VALUE c.id FROM c WHERE c.v >= 2 ORDER BY c.v DESC`,
			`SELECT VALUE c.id FROM c WHERE c.s IN ("s1", "s2") ORDER BY c.v DESC`,
			`SELECT VALUE c.id FROM c WHERE c.s = "s1"`,
			`SELECT VALUE c.id FROM c WHERE c.v > 1`,
			`SELECT TOP 12 c.id FROM c WHERE IS_DEFINED(c.v) ORDER BY c.v DESC`,
			`SELECT VALUE c.id FROM c ORDER BY c.v DESC, c.s OFFSET 3 LIMIT 15`,
		}
		text := texts[r.IntN(len(texts))]
		qa, qb := ttldb.SQL{Text: text, MaxItems: 1 + r.IntN(4)}, ttldb.SQL{}
		qb = qa
		for pages := 0; pages < 100; pages++ {
			pa, err := plain.Query(bg, qa)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := indexed.Query(bg, qb)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(r13Strings(pa)) != fmt.Sprint(r13Strings(pb)) {
				t.Fatalf("seed %d %s page %d: %v vs %v (plan %+v)", seed, text, pages, r13Strings(pa), r13Strings(pb), pb.Plan)
			}
			if pa.Continuation == "" || pb.Continuation == "" {
				if pa.Continuation != pb.Continuation {
					t.Fatalf("tokens differ")
				}
				break
			}
			qa.Continuation, qb.Continuation = pa.Continuation, pb.Continuation
			for range r.IntN(5) {
				write()
			}
		}
	}
}
