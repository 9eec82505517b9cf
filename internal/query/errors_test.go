package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parseError parses sql, which must fail, and returns its *Error.
func parseError(t *testing.T, sql string) *Error {
	t.Helper()
	q, err := Parse(sql)
	require.Error(t, err, sql)
	require.Nil(t, q)
	var e *Error
	require.True(t, errors.As(err, &e), sql)
	return e
}

// Malformed queries: the error's position, and what it says.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		offset int
		msg    string
	}{
		{`SELECT * FROM c WHERE`, 21, `expected an expression, found the end of the query`},
		{`SELECT * FROM c JOIN t IN c.tags`, 26, `SELECT * needs a FROM clause of one alias, and a JOIN adds one`}, // R13, join.md
		{`SELECT c.id FROM c JOIN t IN d.tags`, 29, `identifier d is not defined: the JOIN's source starts from an alias before it (c)`},
		{`SELECT c.id FROM c JOIN t IN u.a JOIN u IN c.b`, 29, `identifier u is not defined`},
		{`SELECT c.id FROM c JOIN c IN c.tags`, 24, `the alias c is declared twice`},
		{`SELECT c.id FROM c JOIN t IN c.a JOIN t IN c.b`, 38, `the alias t is declared twice`},
		{`SELECT c.id FROM x IN c.tags`, 7, `identifier c is not defined: the FROM clause names x`},
		{`SELECT u.id FROM c JOIN t IN c.tags`, 7, `identifier u is not defined: the FROM clause names c, t`},
		{`SELECT c.id FROM c JOIN 1`, 24, `expected a name and a path after IN, as c.tags, found "1"`},
		{`SELECT c.id FROM c JOIN c.tags[0]`, 33, `expected an alias for the JOIN's source`},
		{`SELECT DISTINCT * FROM c`, 7, `DISTINCT does not go with SELECT *`},
		{`SELECT VALUE (SELECT VALUE t FROM t IN u.a) FROM c`, 39, `identifier u is not defined in the subquery's FROM clause`},
		{`SELECT VALUE (SELECT VALUE u FROM t IN c.a) FROM c`, 27, `identifier u is not defined in the subquery`},
		{`SELECT VALUE EXISTS(1) FROM c`, 13, `expected a subquery after EXISTS`},
		{`SELECT VALUE (SELECT VALUE 1 FROM t IN c.a x) FROM c`, 43, `expected WHERE or ")" after the subquery, found "x"`},
		{`SELECT c.id FROM c JOIN a IN c.a JOIN b IN c.a JOIN d IN c.a JOIN e IN c.a JOIN f IN c.a JOIN g IN c.a JOIN h IN c.a JOIN i IN c.a` +
			` JOIN j IN c.a JOIN k IN c.a JOIN l IN c.a JOIN m IN c.a JOIN n IN c.a JOIN o IN c.a JOIN p IN c.a JOIN q IN c.a JOIN r IN c.a`, 248, `the FROM clause joins more than 16 sources`},
		{`SELEC * FROM c`, 0, `expected SELECT, found "SELEC"`},
		{``, 0, `expected SELECT, found the end of the query`},
		{`SELECT * WHERE c.a = 1`, 9, `expected FROM: SELECT * needs a FROM clause, "WHERE" has no document to select`},
		{`SELECT *`, 8, `expected FROM: SELECT * needs a FROM clause, the end of the query has no document to select`},
		{`SELECT c.a`, 7, `identifier c is not defined: the query has no FROM clause`},
		{`SELECT VALUE 1 WHERE c.a = 1`, 21, `identifier c is not defined: the query has no FROM clause`},
		{`SELECT VALUE 1 FROM`, 19, `expected a container name after FROM, found the end of the query`},
		{`SELECT VALUE 1 garbage`, 15, `expected FROM, WHERE, ORDER BY, OFFSET or the end of the query, found "garbage"`},
		{`SELECT * FROM c WHERE x.a = 1`, 22, `identifier x is not defined: the FROM clause names c`},
		{`SELECT c.id FROM root r`, 7, `identifier c is not defined: the FROM clause names r`},
		{`SELECT VALUE c FROM c AS x`, 13, `identifier c is not defined: the FROM clause names x`},
		{`SELECT * FROM c WHERE a = 1 AND b = 2`, 22, `identifier a is not defined`},
		{`SELECT TOP 5 * FROM c OFFSET 0 LIMIT 1`, 22, `TOP cannot be combined with OFFSET`},
		{`SELECT c.id, c.x.id FROM c`, 13, `duplicate name "id"`},
		{`SELECT c.a AS b, c.b FROM c`, 17, `duplicate name "b"`},
		{`SELECT * FROM c ORDER BY 1`, 25, `could not be mapped to a document path`},
		{`SELECT VALUE (SELECT VALUE t FROM t IN c.a ORDER BY t) FROM c`, 43, `'ORDER BY' is not supported in subqueries (the service's error SC2202)`},
		{`SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.a OFFSET 0 LIMIT 1) FROM c`, 48, `'OFFSET LIMIT' clause is not supported in subqueries (the service's error SC2204)`},
		{`SELECT VALUE c.id FROM c JOIN (SELECT VALUE t FROM t IN c.a ORDER BY t.x)`, 60, `SC2202`},
		{`SELECT * FROM c ORDER BY c`, 25, `could not be mapped to a document path`},
		{`SELECT * FROM c ORDER BY LOWER(c.a)`, 25, `could not be mapped to a document path`},
		{`SELECT * FROM c ORDER c.a`, 22, `expected BY after ORDER, found "c"`},
		{`SELECT * FROM c WHERE c.a = 'x`, 28, `the string is not closed`},
		{`SELECT * FROM c WHERE c.a = "x\`, 28, `the string is not closed`},
		{`SELECT * FROM c WHERE c.a = "\q"`, 29, `unknown escape \q`},
		{`SELECT * FROM c WHERE c.a = "\ud800"`, 29, `surrogate`},
		{`SELECT * FROM c WHERE c.a = "\udc00\ud800"`, 29, `surrogate`},
		{`SELECT * FROM c WHERE c.a = "\u12"`, 29, `four hexadecimal digits`},
		{`SELECT * FROM c WHERE c.a = "\u12g4"`, 29, `four hexadecimal digits`},
		{`SELECT * FROM c WHERE c.a = 1 = 2`, 30, `comparisons do not chain`},
		{`SELECT * FROM c WHERE c.a = 1 IN (1)`, 30, `comparisons do not chain`},
		{`SELECT * FROM c WHERE c.a IN (1) NOT BETWEEN 1 AND 2`, 33, `comparisons do not chain`},
		{`SELECT * FROM c WHERE STARTSWITH(c.a)`, 22, `STARTSWITH takes 2 or 3 arguments, not 1`},
		{`SELECT * FROM c WHERE IS_DEFINED()`, 22, `IS_DEFINED takes 1 argument, not 0`},
		{`SELECT * FROM c WHERE ARRAY_CONTAINS(c.a, 1, true, 2)`, 22, `ARRAY_CONTAINS takes 2 or 3 arguments, not 4`},
		{`SELECT VALUE PI(1) FROM c`, 13, `PI takes 0 arguments, not 1`},
		{`SELECT VALUE CONCAT("a") FROM c`, 13, `CONCAT takes at least 2 arguments, not 1`},
		{`SELECT VALUE ObjectToArray(c, "k", "v", 1) FROM c`, 13, `OBJECTTOARRAY takes 1 to 3 arguments, not 4`},
		{`SELECT VALUE SUBSTRING(c.s, 1) FROM c`, 13, `SUBSTRING takes 3 arguments, not 2`},
		{`SELECT * FROM c WHERE IS_DEFINED(c.a,)`, 37, `expected an expression, found ")"`},
		{`SELECT * FROM c WHERE c.a IN ()`, 30, `expected an expression, found ")"`},
		{`SELECT * FROM c WHERE c.a IN 1`, 29, `expected "(" after IN, found "1"`},
		{`SELECT * FROM c WHERE c.a = [1,]`, 31, `expected an expression, found "]"`},
		{`SELECT * FROM c WHERE c.a = [1 2]`, 31, `expected "]", found "2"`},
		{`SELECT * FROM c WHERE c.a BETWEEN 1 OR 2`, 36, `expected AND in BETWEEN ... AND ..., found "OR"`},
		{`SELECT * FROM c WHERE c.tags[1.5] = 1`, 29, `an array index is an integer from 0 to 2147483647, not 1.5`},
		{`SELECT * FROM c WHERE c.tags[2147483648] = 1`, 29, `an array index is an integer`},
		{`SELECT * FROM c JOIN t IN c.tags[@p]`, 33, `the path of a FROM or JOIN source takes a property name in quotes or an array index, not an expression`}, // R13, the SDK's grammar
		{`SELECT * FROM c.a[1 + 1]`, 18, `the path of a FROM or JOIN source takes`},
		{`SELECT * FROM c WHERE c[] = 1`, 24, `expected an expression, found "]"`},
		{`SELECT * FROM c WHERE c[@p = 1`, 30, `expected "]", found the end of the query`},
		{`SELECT * FROM c WHERE c["a" = 1`, 31, `expected "]", found the end of the query`},
		{`SELECT * FROM c WHERE c. = 1`, 25, `expected a property name after '.', found "="`},
		{`SELECT * FROM c WHERE c.1 = 1`, 24, `expected a property name after '.', found "1"`},
		{`SELECT * FROM c WHERE c.a = 1e400`, 28, `the number 1e400 is out of range`},
		{`SELECT * FROM c WHERE c.a = .`, 28, `expected an expression, found "."`},
		{`SELECT * FROM c WHERE NOT c.a = 1`, 22, `NOT before a comparison is ambiguous (Cosmos DB reads NOT a = b as (NOT a) = b): write NOT (a = b), or (NOT a) = b`},
		{`SELECT * FROM c WHERE c.b AND NOT c.a IN (1)`, 30, `NOT before a comparison is ambiguous`},
		{`SELECT * FROM c WHERE NOT NOT c.a NOT BETWEEN 1 AND 2`, 26, `NOT before a comparison is ambiguous`},
		{`SELECT * FROM c WHERE NOT IS_DEFINED(c.a) = true`, 22, `NOT before a comparison is ambiguous`},
		{`SELECT * FROM c WHERE c.a.5 = 1`, 26, `expected a property name after '.', found "5"`},
		{`SELECT * FROM c WHERE c.a[0].5 = 1`, 29, `expected a property name after '.', found "5"`},
		{`SELECT * FROM c WHERE (c.a).5 = 1`, 28, `expected a property name after '.', found "5"`},
		{`SELECT * FROM c WHERE c.a = 1e+`, 31, `expected a digit in the exponent`},
		{`SELECT * FROM c WHERE c.a = 1x`, 29, `expected a space or an operator after the number 1`},
		{`SELECT * FROM c WHERE c.a = #`, 28, `unexpected character '#'`},
		{`SELECT * FROM c WHERE c.a = 1;`, 29, `unexpected character ';'`},
		{`SELECT * FROM c WHERE c.a ! 1`, 26, `unexpected character '!'`},
		{`SELECT * FROM c WHERE c.a = @`, 28, `expected a parameter name after '@'`},
		{`SELECT * FROM c WHERE c.a = (1`, 30, `expected ")", found the end of the query`},
		{`SELECT * FROM c WHERE c.a = 1)`, 29, `expected AND, OR, ORDER BY, OFFSET or the end of the query, found ")"`},
		{`SELECT * FROM c WHERE c.a = 1 garbage`, 30, `expected AND, OR, ORDER BY, OFFSET or the end of the query, found "garbage"`},
		{`SELECT * FROM c garbage more`, 24, `expected WHERE, ORDER BY, OFFSET or the end of the query, found "more"`},
		{`SELECT * FROM c ORDER BY c.a OFFSET 1 LIMIT 2 WHERE`, 46, `expected the end of the query, found "WHERE"`},
		{`SELECT * FROM c ORDER BY c.a WHERE c.a = 1`, 29, `expected OFFSET or the end of the query, found "WHERE"`},
		{`SELECT * FROM c WHERE c.a NOT = 1`, 26, `expected AND, OR, ORDER BY, OFFSET or the end of the query, found "NOT"`},
		{`SELECT * FROM c WHERE c.a = 1 NOT = 1`, 30, `expected AND, OR, ORDER BY, OFFSET or the end of the query, found "NOT"`},
		{`SELECT * FROM c WHERE c.a NOT c.b`, 26, `expected AND, OR, ORDER BY, OFFSET or the end of the query, found "NOT"`},
		{`SELECT VALUE FROM c`, 13, `expected an expression, found "FROM"`},
		{`SELECT VALUE * FROM c`, 13, `expected an expression, found "*"`},
		{`SELECT VALUE c.a, c.b FROM c`, 16, `expected FROM, WHERE, ORDER BY, OFFSET or the end of the query, found ","`},
		{`SELECT c.a AS FROM c`, 14, `expected a name after AS, found "FROM"`},
		{`SELECT c.a AS "x" FROM c`, 14, `expected a name after AS, found "\"x\""`},
		{`SELECT * FROM value`, 14, `expected a container name after FROM, found "value"`},
		{`SELECT * FROM 1`, 14, `expected a container name after FROM, found "1"`},
		{`SELECT * FROM c AS`, 18, `expected a name after AS, found the end of the query`},
		{`SELECT * FROM c.tags[0]`, 23, `expected an alias for the FROM path, as FROM c.tags[0] AS t, found the end of the query`},
		{`SELECT * FROM c.`, 16, `expected a property name after '.'`},
		{`SELECT c.a FROM c.x`, 7, `identifier c is not defined: the FROM clause names x`},
		{`SELECT TOP -1 * FROM c`, 11, `expected a non-negative integer or a parameter after TOP, found "-"`},
		{`SELECT TOP 1.5 * FROM c`, 11, `TOP takes an integer from 0 to 2147483647, not 1.5`},
		{`SELECT TOP 2147483648 * FROM c`, 11, `TOP takes an integer from 0 to 2147483647, not 2147483648`},
		{`SELECT * FROM c OFFSET 1`, 24, `expected LIMIT, found the end of the query`},
		{`SELECT * FROM c OFFSET 'a' LIMIT 1`, 23, `expected a non-negative integer or a parameter after OFFSET, found "'a'"`},
		{`SELECT * FROM c OFFSET 1 LIMIT`, 30, `expected a non-negative integer or a parameter after LIMIT`},
		{`SELECT * FROM c LIMIT 1`, 16, `LIMIT comes with OFFSET`},
		{`SELECT COUNT(*) FROM c`, 13, `expected an expression, found "*"`},
		{`SELECT VALUE COUNT(1 FROM c`, 21, `expected ")", found "FROM"`},
		{`SELECT * FROM c WHERE c.a = "` + strings.Repeat("x", 40) + `" AND`, 74, `found the end of the query`},
		{`SELECT * FROM c WHERE c.a = 1 "` + strings.Repeat("x", 40) + `"`, 30, `found "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxx..."`},
		{`SELECT c.a, c.b.a FROM c`, 12, `duplicate name "a"`},
		{`SELECT * FROM c GROUP BY c.status`, 25, `SELECT * does not go with GROUP BY`},
		{`SELECT c.a FROM c GROUP BY c.b`, 7, `"c.a" is neither an expression of GROUP BY nor an aggregate`},
		{`SELECT VALUE c.b + 1 FROM c GROUP BY c.a`, 13, `the path c.b in "c.b + 1" is neither an expression of GROUP BY nor an aggregate`},
		{`SELECT COUNT(1) FROM c GROUP BY 1`, 32, `GROUP BY's expression reads no property of the row`},
		{`SELECT COUNT(1) FROM c GROUP BY c.a, LOWER("X")`, 37, `GROUP BY's expression reads no property of the row`},
		{`SELECT c.id, MAX(c.x) FROM c`, 7, `"c.id" is outside an aggregate: with an aggregate and no GROUP BY`},
		{`SELECT COUNT(1), c.id FROM c`, 17, `"c.id" is outside an aggregate`},
		{`SELECT VALUE {n: COUNT(1), id: c.id} FROM c`, 31, `the path c.id in "{n: COUNT(1), id: c.id}" is outside an aggregate`},
		{`SELECT VALUE c.x + SUM(c.x) FROM c`, 13, `the path c.x in "c.x + SUM(c.x)" is outside an aggregate`},
		{`SELECT * FROM c WHERE COUNT(1) > 1`, 22, `COUNT is an aggregate: it goes in the SELECT clause, not in WHERE or GROUP BY`},
		{`SELECT COUNT(1) FROM c GROUP BY SUM(c.x)`, 32, `SUM is an aggregate: it goes in the SELECT clause`},
		{`SELECT VALUE COUNT(SUM(c.x)) FROM c`, 19, `SUM inside another aggregate's argument`},
		{`SELECT VALUE MAX(1, 2) FROM c`, 18, `MAX takes one argument`},
		{`SELECT c.a FROM c GROUP c.a`, 24, `expected BY after GROUP, found "c"`},
		{`SELECT c.a FROM c GROUP BY`, 26, `expected an expression, found the end of the query`},
		{`SELECT c["$1"], 1 FROM c`, 16, `duplicate name "$1"`},
		{`SELECT * FROM c WHERE STARTSWITH(c.a "b")`, 37, `expected ")", found "\"b\""`},
	} {
		e := parseError(t, tc.sql)
		require.Equal(t, tc.offset, e.Offset, "%s: %v", tc.sql, e)
		require.Contains(t, e.Msg, tc.msg, tc.sql)
		require.False(t, e.Unsupported, tc.sql)
		require.Equal(t, 1, e.Line)
		require.Equal(t, tc.offset+1, e.Column, tc.sql)
	}
}

// Line and column count lines, and characters in them.
func TestErrorPosition(t *testing.T) {
	e := parseError(t, "SELECT *\nFROM c\nWHERE c.a = 'é' AND ?")
	require.Equal(t, 3, e.Line)
	require.Equal(t, 21, e.Column)
	require.Equal(t, len("SELECT *\nFROM c\nWHERE c.a = 'é' AND "), e.Offset)
	require.Equal(t, `at line 3, column 21: expected an expression, found "?"`, e.Error())

	e = parseError(t, "SELECT * FROM c WHERE c.a = 1 AND c.b = \xff")
	require.Equal(t, 40, e.Offset)
	require.Contains(t, e.Msg, "not valid UTF-8")

	e = parseError(t, strings.Repeat(" ", MaxQueryLen-len("SELECT * FROM c"))+"SELECT * FROM c ")
	require.Contains(t, e.Error(), "at line 1, column 1: the query is 262145 bytes long, longer than the 262144 bytes allowed")
	_, err := Parse(strings.Repeat(" ", MaxQueryLen-len("SELECT * FROM c")) + "SELECT * FROM c")
	require.NoError(t, err)
}

// Nesting deeper than MaxDepth is refused, whatever nests.
func TestParseDepth(t *testing.T) {
	nest := func(n int, open, close string) string {
		return "SELECT * FROM c WHERE " + strings.Repeat(open, n) + "c.a" + strings.Repeat(close, n)
	}
	for _, tc := range []struct {
		open, close string
		levels      int // how many levels each opening nests
	}{
		{"(", ")", 1}, {"NOT ", "", 1}, {"IS_DEFINED(", ")", 1}, {"NOT (", ")", 2}, {"c.b IN (", ")", 1},
	} {
		_, err := Parse(nest(MaxDepth/tc.levels, tc.open, tc.close))
		require.NoError(t, err, tc.open)
		e := parseError(t, nest(MaxDepth/tc.levels+1, tc.open, tc.close))
		require.Contains(t, e.Msg, "the query nests deeper than 64 levels", tc.open)
	}
	arr := "SELECT * FROM c WHERE ARRAY_CONTAINS(" + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + ", c.a)"
	_, err := Parse(arr)
	require.NoError(t, err)
	e := parseError(t, strings.Replace(arr, "[", "[[", 1))
	require.Contains(t, e.Msg, "deeper than 64")
	e = parseError(t, "SELECT * FROM c WHERE c.a IN "+strings.Repeat("(", 70))
	require.Contains(t, e.Msg, "deeper than 64")
	// Long chains do not nest.
	long := "SELECT * FROM c WHERE c.a = 1" + strings.Repeat(" AND c.a = 1 OR c.b = 2", 5000)
	q, err := Parse(long)
	require.NoError(t, err)
	b, err := q.Bind(nil)
	require.NoError(t, err)
	require.True(t, b.Match(Row{Body: `{"b":2}`}))
}

// The parts of Cosmos SQL this subset refuses are refused as such.
func TestParseUnsupported(t *testing.T) {
	for _, tc := range []struct {
		sql    string
		offset int
		msg    string
	}{
		{`SELECT VALUE x FROM x IN (SELECT VALUE [1])`, 25, `FROM x IN (SELECT ...) (a subquery in FROM`},
		{`SELECT c.id FROM c JOIN t IN c.tags ORDER BY t.name`, 45, `ORDER BY on a path of a JOIN's alias`},
		{`SELECT x FROM x IN c.tags ORDER BY x.a`, 35, `ORDER BY on a path of a JOIN's alias`},
		{`SELECT * FROM c WHERE c.a IN (SELECT VALUE 1 FROM d)`, 30, `a subquery is not supported`},
		{`SELECT * FROM c WHERE c.a = (SELECT VALUE 1 FROM d)`, 49, `a subquery that reads a container (d) is not supported: a subquery reads values of its outer query, as FROM t IN c.tags (the service takes correlated subqueries only`},
		{`SELECT VALUE (SELECT * FROM t IN c.a) FROM c`, 21, `SELECT * in a subquery (the service's answer is unobserved`},
		{`SELECT VALUE (SELECT VALUE t FROM t IN c.a GROUP BY t) FROM c`, 43, `GROUP BY in a subquery (the service refuses one under an aggregate`},
		{`SELECT * FROM (SELECT * FROM c)`, 22, `SELECT * in a subquery (the service's answer is unobserved`},
		{`SELECT VALUE x FROM (SELECT VALUE 1) x`, 20, `a subquery in FROM that reads no container`},
		{`SELECT VALUE x FROM (SELECT VALUE t FROM t IN c.tags) x`, 20, `a subquery in FROM that reads no container`},
		{`SELECT VALUE COUNT(1) + ARRAY_LENGTH(ARRAY(SELECT VALUE t FROM t IN c.tags)) FROM c`, 37, `a subquery outside an aggregate's argument, in a query with aggregates or GROUP BY (the Learn page GROUP BY`},
		{`SELECT c.n, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS k FROM c GROUP BY c.n`, 12, `a subquery outside an aggregate's argument`},
		{`SELECT VALUE ARRAY(SELECT VALUE 1 FROM d) FROM c`, 39, `a subquery that reads a container (d) is not supported: a subquery reads values of its outer query, as FROM t IN c.tags (the service takes correlated subqueries only`},
		{`SELECT * FROM c WHERE udf.f(c.x)`, 22, `a user-defined function (udf.f) is not supported`},
		{`SELECT VALUE UDF.tax(c.x) FROM c`, 13, `user-defined function`},
		{`SELECT * FROM c WHERE FOO(c.x)`, 22, `the function FOO is not supported`},
		{`SELECT * FROM c WHERE DocumentId(c) = 1`, 22, `DOCUMENTID (it reads the service's internal _rid, which ttldb does not keep) is not supported`},
		{`SELECT * FROM c WHERE IntPow(c.x, 2) = 1`, 22, `the function INTPOW is not supported`}, // the service has none
		{`SELECT c.a FROM c GROUP BY c.a ORDER BY c.a`, 31, `ORDER BY with GROUP BY (the service refuses it too: "You can't use GROUP BY with an ORDER BY clause"`},
		{`SELECT *, c.id FROM c`, 7, `SELECT * combined with other items (the service's grammar takes * alone`},
		{`SELECT c.id, * FROM c`, 13, `SELECT * combined with other items (the service's grammar takes * alone`},
	} {
		e := parseError(t, tc.sql)
		require.True(t, e.Unsupported, "%s: %v", tc.sql, e)
		require.Contains(t, e.Msg, "not supported", tc.sql)
		require.Contains(t, e.Msg, tc.msg, tc.sql)
		require.Equal(t, tc.offset, e.Offset, "%s: %v", tc.sql, e)
	}
}
