package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: a property or an index computed by an expression or a parameter,
// c[@p], c[CONCAT("a", "b")], c.tags[c.n - 1]: the service's grammar takes
// any expression in brackets after any primary expression (the .NET SDK's
// sql.g4, MemberIndexerScalarExpression), and applications send c[@p] to
// it. A string names an object's member, an integer from 0 an array's
// element; anything else is undefined.
func TestComputedIndex(t *testing.T) {
	rows := evalRows()
	params := map[string]string{"p": `"user"`, "name": `"name"`, "i": `1`, "neg": `-1`, "half": `0.5`, "odd": `"odd key"`, "t": `true`}
	for _, tc := range []struct{ sql, want string }{
		{`SELECT VALUE c[@p] FROM c WHERE c.id = "a"`, `{"name":"Ann","age":30}`},
		{`SELECT VALUE c[@p][@name] FROM c WHERE c.id IN ("a", "b", "e")`, "\"Ann\"\n\"bob\"\n\"Éva\""},
		{`SELECT VALUE c[@p].name FROM c WHERE c.id = "a"`, `"Ann"`},
		{`SELECT VALUE c.tags[@i] FROM c WHERE c.id = "a"`, `"blue"`},
		{`SELECT VALUE c.tags[@i - 1] FROM c WHERE c.id = "a"`, `"red"`},
		{`SELECT VALUE c.tags[ARRAY_LENGTH(c.tags) - 1] FROM c WHERE c.id IN ("a", "b", "e")`, "\"blue\"\n\"blue\"\n\"red\""},
		{`SELECT VALUE c[CONCAT("us", "er")]["name"] FROM c WHERE c.id = "a"`, `"Ann"`},
		{`SELECT VALUE c[@odd] FROM c WHERE c.id = "a"`, `"o"`},
		{`SELECT VALUE c["ar" || "r"][1] FROM c WHERE c.id = "g"`, `[2,3]`},
		{`SELECT VALUE c.arr[1][0] FROM c WHERE c.id = "g"`, `2`},
		{`SELECT VALUE c.arr[(1)][0] FROM c WHERE c.id = "g"`, `2`},
		{`SELECT VALUE {"a": 1}[@p] ?? "none"`, `"none"`},
		{`SELECT VALUE {"user": 7}[@p]`, `7`},
		{`SELECT VALUE [10, 20][@i]`, `20`},
		// Undefined: a negative or fractional index, an index of the wrong
		// kind, a step into a scalar, a missing member or element.
		{`SELECT VALUE [10, 20][@neg]`, `-`},
		{`SELECT VALUE [10, 20][@half]`, `-`},
		{`SELECT VALUE [10, 20][2]`, `-`},
		{`SELECT VALUE [10, 20]["0"]`, `-`},
		{`SELECT VALUE {"1": 2}[@i]`, `-`},
		{`SELECT VALUE {"true": 2}[@t]`, `-`},
		{`SELECT VALUE "abc"[@i]`, `-`},
		{`SELECT VALUE c[@name] FROM c WHERE c.id = "a"`, `-`},
		{`SELECT VALUE c[c.missing] FROM c WHERE c.id = "a"`, `-`},
		// A projection of it is named $1, as any expression; a literal
		// step after it names it, as after any expression.
		{`SELECT c[@p] FROM c WHERE c.id = "b"`, `{"$1":{"name":"bob"}}`},
		{`SELECT c[@p].age FROM c WHERE c.id = "a"`, `{"age":30}`},
		{`SELECT c[@p] AS u FROM c WHERE c.id = "f"`, `{}`},
	} {
		b, in := bindUsed(t, tc.sql, params), rows
		if !b.Reads() {
			in = []Row{{}}
		}
		require.Equal(t, tc.want, results(b, in), tc.sql)
	}
	// In WHERE: the term is checked on each row, never served by an index
	// (its path is not known when the query is parsed), beside one that is.
	for _, tc := range []struct{ where, want string }{
		{`c[@p].name = "Ann"`, "a"},
		{`c[@p]["name"] >= "a"`, "b e"},
		{`IS_DEFINED(c[@p])`, "a b c d e"},
		{`c.n = 1 AND c[@p].name = "bob"`, "b"},
		{`c.tags[@i] = "blue"`, "a"},
		{`c[@name] = "Ann"`, ""},
	} {
		sql := "SELECT * FROM c WHERE " + tc.where
		b := bindUsed(t, sql, params)
		require.Equal(t, tc.want, matchIDs(t, b, rows, sql), sql)
		for _, p := range b.Paths() {
			require.NotEqual(t, "user", p[0].Name, "%s: the computed index %v is served by an index", sql, p)
		}
	}
	// GROUP BY takes it, as any expression with a property reference.
	b := bindUsed(t, `SELECT VALUE c[@p].name FROM c WHERE c.id IN ("a", "b") GROUP BY c[@p].name`, params)
	require.NotNil(t, b)
	// A chain of steps after an expression nests, each one a level: no
	// deeper than MaxDepth.
	deep := "SELECT VALUE c" + strings.Repeat("[@p]", MaxDepth+1) + " FROM c"
	require.Contains(t, parseError(t, deep).Msg, fmt.Sprintf("the query nests deeper than %d levels", MaxDepth))
	require.Equal(t, "-", results(bindUsed(t, "SELECT VALUE c"+strings.Repeat("[@p]", MaxDepth-1)+" FROM c WHERE c.id = \"a\"", params), rows))
	// Refused: ORDER BY on it (ttldb sorts by a path known at Parse).
	e := parseError(t, `SELECT * FROM c ORDER BY c[@p]`)
	require.True(t, e.Unsupported)
	require.Contains(t, e.Msg, "ORDER BY on a property or an index computed by an expression or a parameter (c[@p])")
	require.Equal(t, 25, e.Offset)
}
