package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var opNames = [...]string{"=", "!=", "<", "<=", ">", ">="}

// dump writes e fully parenthesized, to show how it was read.
func dump(q *Query, e *expr) string {
	list := func(es []*expr) string {
		var s []string
		for _, a := range es {
			s = append(s, dump(q, a))
		}
		return strings.Join(s, ", ")
	}
	switch e.kind {
	case xLit:
		if e.lit.Kind == Undefined {
			return "undefined"
		}
		return e.lit.raw
	case xParam:
		return "@" + q.params[e.idx]
	case xArray:
		return "[" + list(e.args) + "]"
	case xPath:
		return e.root + Path(e.path).String()[1:]
	case xNot:
		return "(NOT " + dump(q, e.args[0]) + ")"
	case xAnd, xOr:
		var s []string
		for _, a := range e.args {
			s = append(s, dump(q, a))
		}
		return "(" + strings.Join(s, map[exprKind]string{xAnd: " AND ", xOr: " OR "}[e.kind]) + ")"
	case xCmp:
		return "(" + dump(q, e.args[0]) + " " + opNames[e.op] + " " + dump(q, e.args[1]) + ")"
	case xIn:
		return "(" + dump(q, e.args[0]) + map[bool]string{true: " NOT", false: ""}[e.not] + " IN (" + list(e.args[1:]) + "))"
	case xBetween:
		return "(" + dump(q, e.args[0]) + map[bool]string{true: " NOT", false: ""}[e.not] + " BETWEEN " + dump(q, e.args[1]) + " AND " + dump(q, e.args[2]) + ")"
	case xCall:
		return e.fn.name + "(" + list(e.args) + ")"
	case xAgg:
		return aggNameOf[e.agg] + "(" + list(e.args) + ")"
	case xLike:
		return "(" + dump(q, e.args[0]) + map[bool]string{true: " NOT", false: ""}[e.not] + " LIKE " + list(e.args[1:]) + ")"
	}
	return "?"
}

// summary writes a parsed query in a canonical form.
func summary(q *Query) string {
	var s []string
	if q.top.set {
		s = append(s, fmt.Sprintf("top %d/%d", q.top.n, q.top.param))
	}
	switch q.sel {
	case selStar:
		s = append(s, "*")
	case selValue:
		s = append(s, "value "+dump(q, q.items[0].e))
	case selItems:
		for _, it := range q.items {
			s = append(s, it.name+": "+dump(q, it.e))
		}
	}
	if q.where != nil {
		s = append(s, "where "+dump(q, q.where))
	}
	for _, o := range q.order {
		s = append(s, fmt.Sprintf("order %s %v", o.Path, o.Desc))
	}
	if q.offset.set {
		s = append(s, fmt.Sprintf("offset %d/%d limit %d/%d", q.offset.n, q.offset.param, q.limit.n, q.limit.param))
	}
	if len(q.params) > 0 {
		s = append(s, "params "+strings.Join(q.params, ","))
	}
	return strings.Join(s, " | ")
}

// Valid queries, and how they read.
func TestParseValid(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{`SELECT * FROM c WHERE c.status = @s AND c.total >= @min ORDER BY c.total DESC OFFSET 0 LIMIT 20`,
			`* | where ((c.status = @s) AND (c.total >= @min)) | order c.total true | offset 0/-1 limit 20/-1 | params s,min`},
		{`SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(c.email)`, `value COUNT(1) | where IS_DEFINED(c.email)`},
		{`SELECT c.id, c.user.name FROM c WHERE STARTSWITH(c.id, "ord-") AND c.region IN ("eu", "us")`,
			`id: c.id | name: c.user.name | where (STARTSWITH(c.id, "ord-") AND (c.region IN ("eu", "us")))`},
		{`SELECT TOP 5 * FROM c`, `top 5/-1 | *`},
		{`select top @n value c from c`, `top 0/0 | value c | params n`},
		{`SELECT * FROM c WHERE c.n BETWEEN 1 AND 5 AND c.m NOT BETWEEN -2.5 AND 1e3`,
			`* | where ((c.n BETWEEN 1 AND 5) AND (c.m NOT BETWEEN -2.5 AND 1000))`},
		{`SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, "a") AND NOT ARRAY_CONTAINS(c.items, [1, @p, [true]], true)`,
			`* | where (ARRAY_CONTAINS(c.tags, "a") AND (NOT ARRAY_CONTAINS(c.items, [1, @p, [true]], true))) | params p`},
		{`SELECT * FROM c WHERE ARRAY_CONTAINS(["a", 'b', null, undefined, [1]], c.x, false)`,
			`* | where ARRAY_CONTAINS(["a", "b", null, undefined, [1]], c.x, false)`},
		{`SELECT * FROM c WHERE NOT (c.a = 1) AND NOT NOT c.b OR c.c`,
			`* | where (((NOT (c.a = 1)) AND (NOT (NOT c.b))) OR c.c)`},
		{`SELECT * FROM c WHERE (NOT c.a) = true AND NOT c.b AND NOT c.c OR NOT IS_DEFINED(c.d)`,
			`* | where ((((NOT c.a) = true) AND (NOT c.b) AND (NOT c.c)) OR (NOT IS_DEFINED(c.d)))`},
		{`SELECT VALUE [1., .5, +1, +.5e1, -.5, 1.e2, 0.] FROM c WHERE c.a[1].b = 1`, `value [1, 0.5, 1, 5, -0.5, 100, 0] | where (c.a[1].b = 1)`},
		{`SELECT * FROM c WHERE c.a = 1 OR c.b = 2 AND c.c = 3`, `* | where ((c.a = 1) OR ((c.b = 2) AND (c.c = 3)))`},
		{`SELECT * FROM c WHERE (c.a = 1 OR c.b = 2) AND c.c = 3`, `* | where (((c.a = 1) OR (c.b = 2)) AND (c.c = 3))`},
		{`SELECT * FROM c WHERE (c.a = 1) = true`, `* | where ((c.a = 1) = true)`},
		{`SELECT * FROM c WHERE c.a.b.c[0]["odd key"]['x'] != null AND c.b <> 'y'`,
			`* | where ((c.a.b.c[0]["odd key"].x != null) AND (c.b != "y"))`},
		{`SELECT c["odd key"], c.tags[0], 1, LOWER(c.s) AS low, c.x y, c FROM c`,
			`odd key: c["odd key"] | $1: c.tags[0] | $2: 1 | low: LOWER(c.s) | y: c.x | c: c`},
		{`SELECT r.id FROM root r WHERE r.a < 1 AND r.b <= 2 AND r.c > 3 AND r.d >= 4`,
			`id: r.id | where ((r.a < 1) AND (r.b <= 2) AND (r.c > 3) AND (r.d >= 4))`},
		{`SELECT x.id FROM c AS x ORDER BY x.a, x.b ASC, x.c DESC`, `id: x.id | order c.a false | order c.b false | order c.c true`},
		{`SELECT COUNT(c.x) AS n FROM c`, `n: COUNT(c.x)`},
		{`SELECT count(1) FROM c`, `$1: COUNT(1)`},
		{`SELECT * FROM c WHERE c.s = "\'\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" AND c.t = 'it\'s'`,
			`* | where ((c.s = "'\"\\/\b\f\n\r\té😀") AND (c.t = "it's"))`},
		{`SELECT * FROM c WHERE c.value = 1 AND c.select = 2`, `* | where ((c.value = 1) AND (c.select = 2))`},
		{`SELECT * FROM c WHERE is_defined(c.a) AND Is_Null(c.b) AND IS_BOOL(c.c) AND IS_NUMBER(c.d) AND IS_STRING(c.e) AND IS_ARRAY(c.f) AND IS_OBJECT(c.g) AND IS_PRIMITIVE(c.h)`,
			`* | where (IS_DEFINED(c.a) AND IS_NULL(c.b) AND IS_BOOL(c.c) AND IS_NUMBER(c.d) AND IS_STRING(c.e) AND IS_ARRAY(c.f) AND IS_OBJECT(c.g) AND IS_PRIMITIVE(c.h))`},
		{`SELECT VALUE ENDSWITH(c.a, "x", true) FROM c WHERE CONTAINS(c.a, @y) AND ARRAY_LENGTH(c.t) > 1 AND LENGTH(UPPER(c.s)) = 2`,
			`value ENDSWITH(c.a, "x", true) | where (CONTAINS(c.a, @y) AND (ARRAY_LENGTH(c.t) > 1) AND (LENGTH(UPPER(c.s)) = 2)) | params y`},
		{`SELECT * FROM c WHERE c.a IN (1) AND c.b NOT IN (@a, @b, @a) AND @b = c.c`,
			`* | where ((c.a IN (1)) AND (c.b NOT IN (@a, @b, @a)) AND (@b = c.c)) | params a,b`},
		{"SELECT *\n\tFROM c\r\n WHERE c.a = undefined OR c.b = -0", `* | where ((c.a = undefined) OR (c.b = -0))`},
		{`SELECT VALUE 1.5e-7 FROM c`, `value 1.5e-7`},
		{`SELECT * FROM c OFFSET @o LIMIT @l`, `* | offset 0/0 limit 0/1 | params o,l`},
		{`SELECT * FROM c WHERE [] = c.a`, `* | where ([] = c.a)`},
	} {
		q, err := Parse(tc.sql)
		require.NoError(t, err, tc.sql)
		require.Equal(t, tc.sql, q.Text())
		if tc.want != "" {
			require.Equal(t, tc.want, summary(q), tc.sql)
		}
	}
}

func TestParseParamsOrder(t *testing.T) {
	q, err := Parse(`SELECT TOP @t c.id FROM c WHERE c.a = @b AND c.c IN (@a, @b) ORDER BY c.id`)
	require.NoError(t, err)
	require.Equal(t, []string{"t", "b", "a"}, q.Params())
	q.Params()[0] = "changed"
	require.Equal(t, "t", q.Params()[0], "Params returns a copy")
}
