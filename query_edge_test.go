package ttldb

// Edge cases of R13 (queries, secondary indexes) and where it meets R4
// (expiry) and R12 (durability), from a review: the first five showed a
// defect each, since fixed; the others record what was checked and holds.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// edgeCollection returns a collection partitioned by /pk (TTL on, no
// default) holding docs, with indexes on paths.
func edgeCollection(t testing.TB, docs []string, paths ...string) (*Collection, *fakeClock) {
	t.Helper()
	c, clk := newTestCollection(t, "/pk", TTLNoDefault())
	for _, d := range docs {
		mustCreate(t, c, d)
	}
	for _, p := range paths {
		require.NoError(t, c.CreateIndex(context.Background(), p))
	}
	return c, clk
}

// edgeRun returns a query's results, as strings, from one page.
func edgeRun(t testing.TB, c *Collection, q SQL) ([]string, QueryPlan) {
	t.Helper()
	page, err := c.Query(bg, q)
	require.NoError(t, err, q.Text)
	out := []string{}
	for _, r := range page.Results {
		out = append(out, string(r))
	}
	return out, page.Plan
}

// edgePaged returns a query's results read in pages of size, following the
// continuation tokens.
func edgePaged(t testing.TB, c *Collection, q SQL, size int) []string {
	t.Helper()
	q.MaxItems = size
	out := []string{}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5000)
		page, err := c.Query(bg, q)
		require.NoError(t, err, q.Text)
		for _, r := range page.Results {
			out = append(out, string(r))
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// ---------------------------------------------------------------------------
// Defects the review found, fixed

// R12, R13: an open refused because Options.Indexes asks for an index on a
// collection whose indexing mode is none changes nothing. (It recorded the
// index in the directory's log before it checked the mode, and the
// directory could never be opened again.)
func TestRefusedIndexesChangeNoDirectory(t *testing.T) {
	t.Run("new directory", func(t *testing.T) {
		dir := t.TempDir()
		_, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true, Indexing: IndexingNone, Indexes: []string{"/a"}})
		require.ErrorIs(t, err, ErrInvalidOption)
		c, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err, "the refused open left the directory unopenable")
		require.Empty(t, c.Indexes())
		require.NoError(t, c.Close())
	})
	t.Run("existing directory with its documents", func(t *testing.T) {
		dir := t.TempDir()
		c, err := NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err)
		mustCreate(t, c, `{"id":"x","pk":"p"}`)
		require.NoError(t, c.CreateIndex(context.Background(), "/a"))
		require.NoError(t, c.Close())
		// Indexing none, which keeps no index, where the directory has one
		// (the options are the collection wanted: R12).
		_, err = NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true, Indexing: IndexingNone})
		require.ErrorIs(t, err, ErrInvalidOption)
		c, err = NewCollection("d", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err, "the refused open left the directory, and document x, unopenable")
		_, err = c.Get(bg, StringKey("p"), "x")
		require.NoError(t, err)
		require.Equal(t, []string{"/a"}, c.Indexes())
		require.Empty(t, c.Recovery().Changed)
		require.NoError(t, c.Close())
	})
}

// R13: DropIndex of an index being built frees its path at once: a
// CreateIndex of the same path, or SetIndexingMode(none), succeeds before
// the abandoned build has noticed. (Both failed until it had.)
func TestDropIndexDuringBuildFreesThePath(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for i := range 2 * buildEvery {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","v":%d}`, i, i%5))
	}
	var dropErr, createErr, modeErr error
	var listed []string
	done := false
	buildHook = func(int) {
		if done {
			return
		}
		done = true
		dropErr = c.DropIndex(bg, "/v")
		listed = c.Indexes()
		createErr = c.CreateIndex(context.Background(), "/v")
		if createErr == nil {
			require.NoError(t, c.DropIndex(bg, "/v"))
		}
		modeErr = c.SetIndexingMode(bg, IndexingNone)
	}
	t.Cleanup(func() { buildHook = nil })
	err := c.CreateIndex(context.Background(), "/v")
	require.ErrorIs(t, err, ErrInvalidOption) // dropped while it was built: as documented
	require.NoError(t, dropErr)
	require.Empty(t, listed)
	require.NoError(t, createErr, "CreateIndex after a DropIndex that succeeded")
	require.NoError(t, modeErr, "SetIndexingMode(none) with no index left")
}

// R13: Cosmos documents that "for comparison operators such as >, >=, !=,
// <, and <=, comparison across types or between two objects or arrays
// produces undefined" (learn.microsoft.com/azure/cosmos-db/nosql/query/
// equality-comparison-operators); only = is defined on two arrays or two
// objects. (ttldb evaluated != of two arrays or two objects as NOT =.)
func TestNotEqualOfArraysAndObjectsIsUndefined(t *testing.T) {
	docs := []string{
		`{"id":"a","pk":"p","tags":["x"],"o":{"k":1}}`,
		`{"id":"b","pk":"p","tags":["y"],"o":{"k":2}}`,
	}
	for _, idx := range [][]string{nil, {"/tags", "/o"}} {
		c, _ := edgeCollection(t, docs, idx...)
		got, _ := edgeRun(t, c, SQL{Text: `SELECT VALUE c.id FROM c WHERE c.tags = ["x"]`})
		require.Equal(t, []string{`"a"`}, got) // = of arrays is defined
		for _, q := range []SQL{
			{Text: `SELECT VALUE c.id FROM c WHERE c.tags != ["x"]`},
			{Text: `SELECT VALUE c.id FROM c WHERE c.o != @o`, Params: map[string]any{"o": map[string]any{"k": 1}}},
		} {
			got, _ := edgeRun(t, c, q)
			require.Empty(t, got, "%s (indexes %v): != of two arrays or objects is undefined", q.Text, idx)
		}
	}
}

// R13: STARTSWITH, ENDSWITH and CONTAINS with ignore case compare
// characters by their upper cases, as Cosmos does: a string matches its own
// UPPER() even for final sigma, long s and dotless i, and "ΣΑΣ" ends with
// "ς". (Both strings were lower-cased, and LOWER(UPPER(x)) != LOWER(x) for
// these.)
func TestIgnoreCaseAgreesWithUpper(t *testing.T) {
	var docs []string
	for i, s := range []string{"ς", "ſ", "ı", "ΣΑΣ"} {
		docs = append(docs, fmt.Sprintf(`{"id":"d%d","pk":"p","s":%q}`, i, s))
	}
	c, _ := edgeCollection(t, docs)
	got, _ := edgeRun(t, c, SQL{Text: `SELECT VALUE c.s FROM c WHERE STARTSWITH(c.s, UPPER(c.s), true) AND STARTSWITH(UPPER(c.s), c.s, true)`})
	require.Equal(t, []string{`"ς"`, `"ſ"`, `"ı"`, `"ΣΑΣ"`}, got, "a string equals its UPPER() ignoring case")
	got, _ = edgeRun(t, c, SQL{Text: `SELECT VALUE c.s FROM c WHERE ENDSWITH(c.s, "ς", true)`})
	require.Equal(t, []string{`"ς"`, `"ΣΑΣ"`}, got)
}

// R13 (errors): arithmetic is refused as not supported wherever it is
// written (docs/SPEC.md: "Refused as not supported, with an error that
// says so"), after COUNT(...) in the SELECT clause too. (It was reported
// there as a syntax error, "expected FROM, found "+"".)
func TestArithmeticAfterCountIsUnsupported(t *testing.T) {
	for _, text := range []string{
		`SELECT VALUE COUNT(1) + 1 FROM c`,
		`SELECT COUNT(1) * 2 AS n FROM c`,
		`SELECT COUNT(c.a) - 1 FROM c`,
	} {
		_, err := Prepare(text)
		var qe *QueryError
		require.ErrorAs(t, err, &qe, text)
		require.True(t, qe.Unsupported, "%s: %v", text, err)
	}
}

// ---------------------------------------------------------------------------
// What holds

// R13: Cosmos semantics the spec decides: undefined is not null, types do
// not compare, three-valued logic, IN, BETWEEN, numbers as doubles, string
// escapes in documents and literals, ORDER BY across types, projections.
func TestQueryEdgeCosmosSemanticsHold(t *testing.T) {
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
		c, _ := edgeCollection(t, docs, idx...)
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
			q := SQL{Text: tc.sql}
			if len(tc.sql) > 0 && contains(tc.sql, "@o") {
				q.Params = map[string]any{"o": map[string]any{"k": 1}}
			}
			got, plan := edgeRun(t, c, q)
			require.Equal(t, tc.want, got, "%s (indexes %v, plan %+v)", tc.sql, idx, plan)
			require.Equal(t, tc.want, edgePaged(t, c, q, 1), "%s in pages of 1", tc.sql)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// R13: with and without indexes, in one page and in pages, with and
// without a partition, the same rows for values the randomized oracle does
// not draw: -0, infinities (1e400), extreme doubles, integers beyond 2^53,
// strings with NUL bytes, strings that are prefixes of each other, lone
// surrogate escapes (undefined), and values under a path through a scalar.
func TestQueryEdgeIndexEqualsScanOnEdgeValues(t *testing.T) {
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
	plain, _ := edgeCollection(t, docs)
	indexed, _ := edgeCollection(t, docs, "/v", "/w/x")
	pk := StringKey("p1")
	for _, text := range qs {
		for _, part := range []*PartitionKey{nil, &pk} {
			q := SQL{Text: text, Partition: part}
			want, _ := edgeRun(t, plain, q)
			got, plan := edgeRun(t, indexed, q)
			require.Equal(t, want, got, "%s (partition %v), plan %+v", text, part != nil, plan)
			for size := 1; size <= 3; size++ {
				require.Equal(t, want, edgePaged(t, indexed, q, size), "%s in pages of %d", text, size)
			}
		}
	}
}

// R13: an equality that matches more than the 1024 documents it would read
// gives way to the index on the ORDER BY path; either way, and in pages,
// the rows are those of a scan.
func TestQueryEdgeOrderedIndexPastPointCap(t *testing.T) {
	var docs []string
	for i := range 1300 {
		v := fmt.Sprint(i % 17)
		switch {
		case i%11 == 0:
			v = "null"
		case i%5 == 0:
			v = fmt.Sprintf(`"s%d"`, i%3)
		}
		st := map[bool]string{true: `"closed"`, false: `"open"`}[i%7 == 0]
		if i%13 == 0 {
			docs = append(docs, fmt.Sprintf(`{"id":"%04d","pk":"p%d","st":%s}`, (i*7919)%1300, i%4, st))
			continue
		}
		docs = append(docs, fmt.Sprintf(`{"id":"%04d","pk":"p%d","st":%s,"v":%s}`, (i*7919)%1300, i%4, st, v))
	}
	plain, _ := edgeCollection(t, docs)
	indexed, _ := edgeCollection(t, docs, "/st", "/v")
	pk := StringKey("p2")
	for _, text := range []string{
		`SELECT VALUE c.id FROM c WHERE c.st = "open" ORDER BY c.v DESC`,
		`SELECT TOP 50 c.id, c.v FROM c WHERE c.st = "open" ORDER BY c.v`,
		`SELECT VALUE c.id FROM c WHERE c.st = "open" AND c.v != 3 ORDER BY c.v DESC OFFSET 10 LIMIT 500`,
	} {
		for _, part := range []*PartitionKey{nil, &pk} {
			q := SQL{Text: text, Partition: part}
			want, _ := edgeRun(t, plain, q)
			got, plan := edgeRun(t, indexed, q)
			require.Equal(t, want, got, text)
			if part == nil {
				require.True(t, plan.Ordered, "%s: %+v", text, plan)
			}
			require.Equal(t, want, edgePaged(t, indexed, q, 7), text)
		}
	}
}

// R4, R13: a document with effective TTL t written at _ts is in every
// query's rows and counts at _ts+t-1, whatever the plan, and in none at
// _ts+t, before the sweeper runs; also for a TTL inherited from
// DefaultTTL, and for a page resumed from a token issued a second before.
func TestQueryEdgeExpiryInstantThroughEveryPlan(t *testing.T) {
	queries := []string{
		`SELECT VALUE c.id FROM c`,
		`SELECT VALUE c.id FROM c WHERE c.v = 1`,
		`SELECT VALUE c.id FROM c WHERE c.v >= 1 ORDER BY c.v DESC`,
		`SELECT VALUE c.id FROM c ORDER BY c.v`,
		`SELECT VALUE c.id FROM c WHERE IS_DEFINED(c.v) ORDER BY c.id DESC`,
		`SELECT VALUE COUNT(1) FROM c WHERE c.v = 1`,
	}
	for _, def := range []DefaultTTL{TTLNoDefault(), TTLSeconds(10)} {
		for _, idx := range [][]string{nil, {"/v"}} {
			c, clk := newTestCollection(t, "/pk", def)
			for _, p := range idx {
				require.NoError(t, c.CreateIndex(context.Background(), p))
			}
			if def == TTLNoDefault() {
				mustCreate(t, c, `{"id":"short","pk":"p","v":1,"ttl":10}`)
			} else {
				mustCreate(t, c, `{"id":"short","pk":"p","v":1}`)
			}
			mustCreate(t, c, `{"id":"keep","pk":"p","v":1,"ttl":-1}`)
			clk.Advance(9 * time.Second) // _ts + t - 1
			var tokens []SQL
			for _, text := range queries {
				got, _ := edgeRun(t, c, SQL{Text: text})
				if text == queries[5] {
					require.Equal(t, []string{"2"}, got)
				} else {
					require.Contains(t, got, `"short"`, "%s at _ts+t-1 (%v, %v)", text, def, idx)
				}
				page, err := c.Query(bg, SQL{Text: text, MaxItems: 1})
				require.NoError(t, err)
				if page.Continuation != "" && string(page.Results[0]) == `"keep"` {
					tokens = append(tokens, SQL{Text: text, Continuation: page.Continuation})
				}
			}
			clk.Advance(time.Second) // _ts + t
			for _, text := range queries {
				got, _ := edgeRun(t, c, SQL{Text: text})
				if text == queries[5] {
					require.Equal(t, []string{"1"}, got)
				} else {
					require.NotContains(t, got, `"short"`, "%s at _ts+t (%v, %v)", text, def, idx)
				}
				for res, err := range c.QueryAll(bg, SQL{Text: text}) {
					require.NoError(t, err)
					require.NotEqual(t, `"short"`, string(res))
				}
			}
			for _, q := range tokens {
				got, _ := edgeRun(t, c, q)
				require.NotContains(t, got, `"short"`, "%s resumed at _ts+t", q.Text)
			}
		}
	}
}

// R13: indexes on the system properties and on the partition key and id
// follow Touch (a new _ts and _etag, the same body) and give the rows of a
// scan.
func TestQueryEdgeSystemPropertyIndexes(t *testing.T) {
	var results [2][]string
	for i, idx := range [][]string{nil, {"/_ts", "/_etag", "/id", "/pk"}} {
		c, clk := edgeCollection(t, nil, idx...)
		for n := range 6 {
			mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d"}`, n, n%2))
			clk.Advance(time.Second)
		}
		_, err := c.Touch(bg, StringKey("p0"), "d0")
		require.NoError(t, err)
		d1 := mustGet(t, c, StringKey("p1"), "d1")
		for _, text := range []string{
			`SELECT VALUE c.id FROM c WHERE c._ts >= 1000003 ORDER BY c._ts DESC`,
			`SELECT VALUE c.id FROM c ORDER BY c._ts`,
			`SELECT VALUE c.id FROM c WHERE c._ts = 1000006`,
			`SELECT VALUE c.id FROM c WHERE c._etag = @e`,
			`SELECT VALUE c.id FROM c WHERE c.pk = "p1" ORDER BY c.id DESC`,
			`SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, "d") AND c.id > "d2"`,
		} {
			q := SQL{Text: text}
			if contains(text, "@e") {
				q.Params = map[string]any{"e": d1.ETag()}
			}
			got, _ := edgeRun(t, c, q)
			results[i] = append(results[i], fmt.Sprint(got))
		}
	}
	require.Equal(t, results[0], results[1])
	require.Equal(t, `["d0" "d5" "d4" "d3"]`, results[0][0])
}

type edgeClock struct{ s atomic.Int64 }

func (k *edgeClock) Now() time.Time { return time.Unix(k.s.Load(), 0) }

// R13 (run with -race): CreateIndex and DropIndex, in a loop and against
// each other, while writers, deleters, the sweeper and queries go on; at
// the end the index holds one item per stored document.
func TestQueryEdgeIndexBuildsUnderLoad(t *testing.T) {
	clk := &edgeClock{}
	clk.s.Store(1_000_000)
	c, err := NewCollection("load", "/pk", &Options{DefaultTTL: TTLNoDefault(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	for i := range 3000 {
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": i % 11, "ttl": 1 + i%4})
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	worker := func(seed uint64, f func(r *rand.Rand) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, seed))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := f(r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	worker(1, func(r *rand.Rand) error {
		i := r.IntN(4000)
		_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": r.IntN(11), "ttl": 1 + r.IntN(4)})
		return err
	})
	worker(2, func(r *rand.Rand) error {
		i := r.IntN(4000)
		if err := c.Delete(bg, StringKey(fmt.Sprint(i%3)), fmt.Sprint(i)); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		return nil
	})
	worker(3, func(r *rand.Rand) error {
		clk.s.Add(int64(r.IntN(2)))
		_, err := c.Sweep(bg)
		return err
	})
	worker(4, func(r *rand.Rand) error {
		for _, err := range c.QueryAll(bg, SQL{Text: `SELECT VALUE c.v FROM c WHERE c.v >= 3 ORDER BY c.v DESC`}) {
			if err != nil {
				return err
			}
		}
		q := SQL{Text: `SELECT * FROM c WHERE c.v = 4`, MaxItems: 7}
		page, err := c.Query(bg, q)
		if err == nil && page.Continuation != "" {
			q.Continuation = page.Continuation
			_, err = c.Query(bg, q)
		}
		return err
	})
	for round := range 30 {
		var dwg sync.WaitGroup
		if round%3 == 0 {
			dwg.Add(1)
			go func() { defer dwg.Done(); _ = c.DropIndex(bg, "/v") }()
		}
		if err := c.CreateIndex(context.Background(), "/v"); err != nil {
			require.ErrorIs(t, err, ErrInvalidOption, "round %d", round)
		}
		dwg.Wait()
		_ = c.DropIndex(bg, "/v")
	}
	require.NoError(t, c.CreateIndex(context.Background(), "/v"))
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	checkIndexAgrees(t, c)
}

// R13, R15 (run with -race): Close while a Cursor, QueryAll, Query, a
// write and CreateIndex run: each ends with nil or ErrClosed, nothing
// panics, and the cursor closes after.
func TestQueryEdgeCloseDuringQueries(t *testing.T) {
	for range 10 {
		c, err := NewCollection("close", "/pk", &Options{DefaultTTL: TTLNoDefault(), ManualSweep: true, Indexes: []string{"/v"}})
		require.NoError(t, err)
		for i := range 2000 {
			_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": i % 11})
			require.NoError(t, err)
		}
		cur, err := c.OpenQuery(bg, SQL{Text: `SELECT * FROM c ORDER BY c.v DESC`})
		require.NoError(t, err)
		errs := make(chan error, 1000)
		check := func(err error) {
			if err != nil && !errors.Is(err, ErrClosed) {
				errs <- err
			}
		}
		var wg sync.WaitGroup
		run := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
		run(func() {
			for range 50 {
				_, err := cur.Next(bg, 10)
				if check(err); err != nil {
					return
				}
			}
		})
		run(func() {
			for _, err := range c.QueryAll(bg, SQL{Text: `SELECT * FROM c WHERE c.v > 3`}) {
				check(err)
			}
		})
		run(func() { check(c.CreateIndex(context.Background(), "/w")) })
		run(func() {
			for range 20 {
				_, err := c.Query(bg, SQL{Text: `SELECT * FROM c ORDER BY c.v`, MaxItems: 5})
				check(err)
			}
		})
		run(func() {
			for i := range 200 {
				_, err := c.Upsert(bg, map[string]any{"id": fmt.Sprint(i), "pk": fmt.Sprint(i % 3), "v": i % 7})
				check(err)
			}
		})
		require.NoError(t, c.Close())
		wg.Wait()
		require.NoError(t, cur.Close())
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}

// R13: a continuation token with any one byte changed, cut short or used
// for another query, partition or collection is refused with
// ErrInvalidContinuation, and never panics.
func TestQueryEdgeTokenTampering(t *testing.T) {
	docs := make([]string, 20)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"id":"d%02d","pk":"p%d","v":%d}`, i, i%2, i%5)
	}
	c, _ := edgeCollection(t, docs, "/v")
	other, _ := edgeCollection(t, docs, "/v")
	q := SQL{Text: `SELECT VALUE c.id FROM c WHERE c.v >= 1 ORDER BY c.v DESC`, MaxItems: 3}
	page, err := c.Query(bg, q)
	require.NoError(t, err)
	tok := page.Continuation
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	require.NoError(t, err)
	for i := range raw {
		for _, bit := range []byte{0x01, 0x80} {
			b := append([]byte(nil), raw...)
			b[i] ^= bit
			q.Continuation = base64.RawURLEncoding.EncodeToString(b)
			_, err := c.Query(bg, q)
			require.ErrorIs(t, err, ErrInvalidContinuation, "byte %d", i)
		}
		if i > 0 { // an empty token is no token: from the start
			q.Continuation = base64.RawURLEncoding.EncodeToString(raw[:i])
			_, err := c.Query(bg, q)
			require.ErrorIs(t, err, ErrInvalidContinuation, "cut at %d", i)
		}
	}
	pk := StringKey("p1")
	for _, bad := range []func(*SQL){
		func(s *SQL) { s.Text += " " },
		func(s *SQL) { s.Partition = &pk },
		func(s *SQL) {
			s.Text = `SELECT VALUE c.id FROM c WHERE c.v >= @n ORDER BY c.v DESC`
			s.Params = map[string]any{"n": 1}
		},
	} {
		s := SQL{Text: q.Text, MaxItems: 3, Continuation: tok}
		bad(&s)
		_, err := c.Query(bg, s)
		require.ErrorIs(t, err, ErrInvalidContinuation)
	}
	_, err = other.Query(bg, SQL{Text: q.Text, Continuation: tok})
	require.ErrorIs(t, err, ErrInvalidContinuation)
}

// R13 (errors): parse errors give the position and what was expected;
// the constructs the spec refuses are refused as not supported.
func TestQueryEdgeParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text        string
		col         int
		unsupported bool
	}{
		{`SELECT * FROM c WHERE`, 22, false},
		{`SELECT * FROM c WHERE c.a = 'abc`, 29, false},
		{"SELECT * FROM c\nWHERE c.a = ?", 13, false},
		{`SELECT * FROM c OFFSET 1`, 25, false},
		{`SELECT * FROM c WHERE c.a = 1 -- comment`, 31, true},
		{`SELECT * FROM c JOIN t IN c.tags`, 17, true},
		{`SELECT c.a FROM c GROUP BY c.a`, 19, true},
		{`SELECT DISTINCT c.a FROM c`, 8, true},
		{`SELECT * FROM c WHERE udf.f(c.a)`, 23, true},
		{`SELECT * FROM c WHERE c.a LIKE 'x%'`, 27, true},
		{`SELECT * FROM c WHERE c.a IN (SELECT VALUE 1 FROM d)`, 31, true},
		{`SELECT * FROM c WHERE c.a + 1 = 2`, 27, true},
		{`SELECT * FROM c WHERE c.a = 'x' || 'y'`, 33, true},
		{`SELECT * FROM c WHERE EXISTS(SELECT VALUE 1)`, 23, true},
		{`SELECT * FROM c WHERE c.a ?? 1`, 27, true},
		{`SELECT {"a": c.a} FROM c`, 8, true},
		{`SELECT * FROM c WHERE NOT c.a = 1`, 23, false},
		{`SELECT * FROM c WHERE c.a = 1 = true`, 31, false},
		{`SELECT TOP 1 * FROM c OFFSET 0 LIMIT 1`, 23, false},
	} {
		_, err := Prepare(tc.text)
		var qe *QueryError
		require.ErrorAs(t, err, &qe, tc.text)
		require.ErrorIs(t, err, ErrInvalidQuery)
		require.Equal(t, tc.col, qe.Column, "%s: %v", tc.text, err)
		require.Equal(t, tc.unsupported, qe.Unsupported, "%s: %v", tc.text, err)
	}
}

// R13: the same writes made to a collection with indexes and to one
// without, between the pages of a query read with continuation tokens:
// every page is the same, whichever plan resumes from the token (ordered
// index walks ASC and DESC, equality, range, sort).
func TestQueryEdgePagesWithWritesBetween(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		plain, _ := edgeCollection(t, nil)
		indexed, _ := edgeCollection(t, nil, "/v", "/s")
		both := func(f func(c *Collection)) { f(plain); f(indexed) }
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
				both(func(c *Collection) { _ = c.Delete(bg, StringKey(fmt.Sprint("p", id%3)), fmt.Sprint(id)) })
				return
			}
			both(func(c *Collection) {
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
		qa, qb := SQL{Text: text, MaxItems: 1 + r.IntN(4)}, SQL{}
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
			if fmt.Sprint(resultStrings(pa)) != fmt.Sprint(resultStrings(pb)) {
				t.Fatalf("seed %d %s page %d: %v vs %v (plan %+v)", seed, text, pages, resultStrings(pa), resultStrings(pb), pb.Plan)
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

// resultStrings returns a page's results as strings.
func resultStrings(p QueryPage) []string {
	out := []string{}
	for _, r := range p.Results {
		out = append(out, string(r))
	}
	return out
}
