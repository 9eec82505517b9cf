package query

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are the queries the fuzzer starts from.
var fuzzSeeds = []string{
	`SELECT * FROM c WHERE c.status = @s AND c.total >= @min ORDER BY c.total DESC OFFSET 0 LIMIT 20`,
	`SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(c.email)`,
	`SELECT c.id, c.user.name FROM c WHERE STARTSWITH(c.id, "ord-") AND c.region IN ("eu", "us")`,
	`SELECT TOP 5 * FROM c`,
	`SELECT TOP @n c.id FROM c ORDER BY c.n, c.s DESC`,
	`SELECT VALUE c.id FROM c WHERE c.n BETWEEN @a AND 100 AND c.n NOT BETWEEN 1 AND 2`,
	`SELECT * FROM c WHERE NOT ARRAY_CONTAINS(c.tags, @p, true) AND ARRAY_CONTAINS([1, "a", [null]], c.n)`,
	`SELECT c["odd key"], c.tags[0], LOWER(c.s) AS l, c FROM c WHERE c.b OR c.n < @p`,
	`SELECT COUNT(c.n) AS n FROM root r WHERE r.n != 1 AND r.s <> 'x\'y' AND IS_NULL(r.nul)`,
	`SELECT * FROM c WHERE ENDSWITH(c.s, "a", true) AND CONTAINS(c.s, @p) AND LENGTH(c.s) > ARRAY_LENGTH(c.arr)`,
	`SELECT VALUE UPPER(c.s) FROM c WHERE IS_STRING(c.s) AND IS_NUMBER(c.n) OR IS_BOOL(c.b) AND IS_ARRAY(c.arr) OR IS_OBJECT(c.obj) OR IS_PRIMITIVE(c.x)`,
	`SELECT * FROM c WHERE (c.a = 1 OR (c.b = 2 AND NOT (c.c IN (1, 2, 3)))) AND c.d = undefined AND c.e = null`,
	`SELECT * FROM c JOIN t IN c.tags WHERE udf.f(c.x) AND c.a LIKE "%" GROUP BY c.a`,
	"SELECT *\nFROM c\nWHERE c.s = \"\\u00e9\\ud83d\\ude00\" AND c._ts > 1e2",
	`SELECT * FROM c WHERE NOT (c.a = 1) AND (NOT c.b) = true AND c.c NOT IN (1, @p) AND c.d BETWEEN -1 AND +2.5e1`,
	`SELECT VALUE c FROM c WHERE c.a.b[0]["x"] >= .5 OR c.a <> 1. OR NOT NOT IS_NULL(c.z)`,
	`SELECT VALUE SUBSTRING(c.s, INDEX_OF(c.s, "a", 1), LENGTH(c.s)) FROM c WHERE RegexMatch(c.s, @p, "ix") AND IS_INTEGER(c.n)`,
	`SELECT ToString(c.n) AS s, StringToArray(c.s) AS a, ARRAY_SLICE(c.arr, -2, 1), SetUnion(c.tags, [1, "a"]), ObjectToArray(c.obj, "k") FROM c`,
	`SELECT VALUE IIF(IS_FINITE_NUMBER(c.n), TAN(c.n) , LOG(c.n, 10)) FROM c WHERE IntBitLeftShift(c.n, 70) = NumberBin(c.n, 0.1) OR CHOOSE(c.n, 1, 2) = 1`,
	`SELECT VALUE CONCAT(TRIM(c.s, "-"), REPLICATE(c.s, c.n), REVERSE(c.s)) FROM c WHERE ARRAY_CONTAINS_ANY(c.arr, 1, c.x) AND PI() > 3`,
	`SELECT DateTimeAdd("mm", c.n, @p) AS a, DateTimeDiff("dd", @p, GetCurrentDateTime()) AS b, DateTimeBin(@p, "ns", c.n, @p), TicksToDateTime(c.n) FROM c WHERE DateTimePart("ms", @p) > 0`,
	`SELECT VALUE ST_DISTANCE(c.obj, @p) FROM c WHERE ST_WITHIN(@p, c.obj) OR ST_INTERSECTS(c.obj, @p) OR ST_AREA(@p) > 0 OR ST_ISVALID(@p)`,
	`SELECT VALUE {a: c.n * 2 + 1, "b": [c.s || "x", -c.n, ~c.n], c: (c.n ?? 0) > 1 ? c.n % 3 : c.n << 2 >>> 1}`,
	`SELECT {x: 1}.x AS one, [1, @p][1] FROM c WHERE c.n & 1 | 2 ^ 3 AND (c.obj).k = {k: 1}.k`,
	`SELECT VALUE 1 - -1 / 0 WHERE true`,
	`SELECT VALUE c.id FROM c WHERE c.s LIKE "a%b_[c-d][^e]" AND c.t NOT LIKE @p ESCAPE "!" AND (c.u LIKE c.s) = true`,
	`SELECT VALUE {n: COUNT(1), s: SUM(c.n) / COUNT(c.n), m: ROUND(AVG(c.n)), x: [MIN(c.s), MAX(c.s)]} FROM c WHERE c.s LIKE "%"`,
	`SELECT c.b, COUNT(1) * 2 AS twice, MAX(c.n) ?? 0 AS top FROM c GROUP BY c.b`,
	`SELECT VALUE [NaN, -Infinity, ToString(Infinity), VectorDistance(c.arr, [1, 2], false, {distanceFunction: "euclidean"})] FROM c`,
	`SELECT DISTINCT VALUE [c.id, t, u] FROM c JOIN t IN c.tags JOIN u IN t.x WHERE t.a = @p AND c.n > 1 ORDER BY c.n DESC`,
	`SELECT * FROM x IN c.arr WHERE x > 1 OR x.a = @p`,
	`SELECT TOP 2 DISTINCT r.s, t, o.k FROM root r JOIN r.obj o JOIN t IN r.tags WHERE o.k = 1`,
	`SELECT t.k, COUNT(1) AS n FROM c JOIN t IN c.items GROUP BY t.k`,
	`SELECT VALUE c.id FROM c JOIN t IN c.items WHERE EXISTS(SELECT VALUE v FROM v IN t.x WHERE v = @p AND c.n > 1) OR NOT EXISTS(SELECT 1)`,
	`SELECT ARRAY(SELECT TOP 2 DISTINCT VALUE (SELECT VALUE COUNT(1) FROM u IN t.z) FROM t IN c.tags) AS a, (SELECT o.k FROM c.obj o).k FROM c`,
	`SELECT c.id, v FROM c JOIN t IN c.tags JOIN (SELECT VALUE x FROM x IN t.x WHERE x != @p) v JOIN m IN (SELECT VALUE [1, c.n]) JOIN (SELECT COUNT(1) AS n FROM u IN c.arr) ORDER BY VectorDistance(c.arr, [1, 2])`,
	`SELECT DISTINCT VALUE COUNT(1) FROM c GROUP BY c.b`,
	`SELECT x.id, COUNT(1) AS n FROM (SELECT c.id, t FROM root c JOIN t IN c.tags WHERE t.a != @p) AS x JOIN y IN x.t.x GROUP BY x.id`,
	"-- all of it\nSELECT c[@p], c.tags[c.n - 1][\"a\"] AS a -- projected\r\nFROM c WHERE c[CONCAT(\"o\", \"bj\")][@p] = 1--1\nAND [1, 2][@p] > 0 --",
	`SELECT c[@p][0].k, COUNT(1) AS n FROM c WHERE c.n = 1 AND {"a": c.n}[c.s] != null GROUP BY c[@p][0].k`,
	`SELECT VALUE COUNT(1) FROM c WHERE c.n > 0 ORDER BY c.n DESC`,
	`SELECT x, COUNT(1) AS n FROM (SELECT DISTINCT VALUE t FROM c JOIN t IN c.tags WHERE c.n != @p) x JOIN y IN (SELECT VALUE [x]) GROUP BY x`,
	`SELECT * FROM (SELECT TOP @p COUNT(1) AS n, AVG(c.n) AS a FROM c) x`,
}

// fuzzValues are the values every parameter takes in turn.
var fuzzValues = []string{`1`, `"a"`, `null`, `[1,"a"]`, `{"a":1}`, `true`, `"\ud800"`, `1e400`, `-0`,
	`"2020-02-29T23:59:59.9999999Z"`, `{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}`}

// FuzzParse runs any text: Parse never panics, and refuses with a *Error
// at a position within the text; a query that parses binds, and runs on
// fixed rows without panicking, giving valid JSON, with every row it
// matches inside the ranges it gives.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	rows := append(evalRows(), Row{Body: `{}`, TS: 1, ETag: "t"},
		Row{Body: `{"id":"z","a":1,"b":2,"c":3,"d":[],"e":null,"status":"open","total":10,"tags":["a",{"a":1}]}`})
	extraPaths := []Path{nil, {{Name: "n"}}, {{Name: "s"}}, {{Name: "arr"}, {Index: 0, IsIndex: true}}}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := Parse(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: %T is no *Error", text, err)
			}
			if e.Offset < 0 || e.Offset > len(text) || e.Line < 1 || e.Column < 1 || e.Msg == "" || e.Error() == "" {
				t.Fatalf("%q: a bad error %+v", text, e)
			}
			if e.Line == 1 && len(text) <= MaxQueryLen && utf8.ValidString(text) && e.Column != 1+utf8.RuneCountInString(text[:e.Offset]) {
				t.Fatalf("%q: column %d at offset %d", text, e.Column, e.Offset)
			}
			return
		}
		if q.Text() != text {
			t.Fatalf("Text %q, not %q", q.Text(), text)
		}
		checkAccounting(t, text, q)
		for _, v := range fuzzValues {
			params := map[string]string{}
			for _, name := range q.Params() {
				params[name] = v
			}
			b, err := q.Bind(params)
			if err != nil {
				continue // TOP @n with a value that is no count
			}
			runBound(t, text, b, rows, extraPaths)
		}
	})
}

// runBound runs every method of b on rows, and checks what it can.
func runBound(t *testing.T, text string, b *Bound, rows []Row, extraPaths []Path) {
	_, _, _ = b.Top(), b.Offset(), b.Limit()
	_ = b.OrderBy()
	paths := append(b.Paths(), extraPaths...)
	var rs [][]Range
	for _, p := range paths {
		r, _ := b.Ranges(p)
		rs = append(rs, r)
	}
	for _, r := range rows {
		_ = b.AppendSortKey(nil, r)
		match := b.Match(r)
		if match {
			for i, p := range b.Paths() {
				if k := AppendKey(nil, r.Value(p)); !inRanges(k, rs[i]) {
					t.Fatalf("%q: row %s matches, but its key %x at %s is not in %x", text, r.Body, k, p, rs[i])
				}
			}
		}
		if b.Aggregate() {
			var a Aggregation
			_ = b.Each(r, func(x Row) bool { // R13: aggregates over a JOIN's rows
				b.Accumulate(&a, x)
				b.Accumulate(&a, x)
				return true
			})
			if out, ok := b.AppendAggregate(nil, &a); ok && !json.Valid(out) {
				t.Fatalf("%q: aggregate %s", text, out)
			}
			continue
		}
		if b.Grouped() {
			var g Groups
			_ = b.Each(r, func(x Row) bool { // R13: GROUP BY over a JOIN's rows
				b.AddToGroup(&g, x)
				b.AddToGroup(&g, x)
				return true
			})
			for _, k := range g.Keys() {
				if out, ok := b.AppendGroup(nil, &g, k); ok && !json.Valid(out) {
					t.Fatalf("%q: group %s", text, out)
				}
			}
			continue
		}
		if !match {
			continue
		}
		_ = b.Each(r, func(x Row) bool { // R13: each row of a JOIN's product
			out, ok := b.AppendResult(nil, x)
			if ok && !json.Valid(out) {
				t.Fatalf("%q: row %s gives %s, no JSON", text, r.Body, out)
			}
			if ok && b.Distinct() {
				_ = AppendDistinctKey(nil, out)
			}
			return true
		})
	}
}

// checkAccounting checks that the syntax tree of q has a node for every
// logical and comparison operator (LIKE and ESCAPE included) of its text,
// so that none was dropped or read as another.
func checkAccounting(t *testing.T, text string, q *Query) {
	tokens := map[string]int{}
	toks := lex(text)
	for i, tk := range toks {
		switch {
		case tk.kind == tIdent && (i == 0 || !toks[i-1].is(".")):
			tokens[strings.ToUpper(tk.text)]++
		case tk.kind == tPunct:
			if _, ok := cmpOps[tk.text]; ok {
				tokens["cmp"]++
			}
		case tk.kind == tParam:
			tokens["param"]++
		}
	}
	nodes := map[string]int{}
	var walk func(e *expr)
	walk = func(e *expr) {
		if e == nil {
			return
		}
		switch e.kind {
		case xNot:
			nodes["NOT"]++
		case xAnd:
			nodes["AND"] += len(e.args) - 1
		case xOr:
			nodes["OR"] += len(e.args) - 1
		case xCmp:
			nodes["cmp"]++
		case xIn:
			nodes["IN"]++
		case xBetween:
			nodes["BETWEEN"]++
			nodes["AND"]++
		case xParam:
			nodes["param"]++
		case xLike:
			nodes["LIKE"]++
			nodes["ESCAPE"] += len(e.args) - 2
		case xGroupRef: // an item's copy of GROUP BY's expression
			walk(q.group[e.idx])
		}
		if e.not && (e.kind == xIn || e.kind == xBetween || e.kind == xLike) {
			nodes["NOT"]++
		}
		for _, a := range e.args {
			walk(a)
		}
		if s := e.sub; s != nil { // a subquery's operators, its FROM's IN, and its TOP's parameter
			if s.top.set && s.top.param >= 0 {
				nodes["param"]++
			}
			for _, it := range s.items {
				walk(it.e)
			}
			walk(s.where)
			for k, j := range s.joins {
				if j.each && (j.src.sub == nil || j.flat) && !(s.whole && k == 0) { // a whole subquery's FROM c iterates the documents
					nodes["IN"]++
				}
				if j.src.sub != nil { // JOIN (SELECT ...)
					walk(j.src)
				}
			}
		}
	}
	for _, it := range q.items {
		walk(it.e)
	}
	walk(q.where)
	for _, g := range q.group {
		walk(g)
	}
	if w := q.where; q.from != nil && w.kind == xAnd && len(w.args) == 2 && w.args[0].kind == xCall && w.args[0].fn == fIsDefined {
		nodes["AND"]-- // FROM c.path: IS_DEFINED(c.path) AND (the WHERE clause), of no AND of the text
	}
	for _, j := range q.joins { // JOIN t IN c.tags, FROM t IN c.tags, JOIN t IN (SELECT ...), JOIN (SELECT ...)
		if j.each && (j.src.sub == nil || j.flat) {
			nodes["IN"]++
		}
		if j.src.sub != nil {
			walk(j.src)
		}
	}
	for _, o := range q.order { // ORDER BY VectorDistance(...)
		if o.e != nil {
			walk(o.e)
		}
	}
	for _, l := range []limitSpec{q.top, q.offset, q.limit} {
		if l.set && l.param >= 0 {
			nodes["param"]++
		}
	}
	for _, k := range []string{"NOT", "AND", "OR", "cmp", "IN", "BETWEEN", "LIKE", "ESCAPE", "param"} {
		if tokens[k] != nodes[k] {
			t.Fatalf("%q: %d %s in the text, %d in the tree", text, tokens[k], k, nodes[k])
		}
	}
}
