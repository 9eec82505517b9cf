package query

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: LIKE with the meaning the Learn page "LIKE" documents: % any string
// of zero or more characters, _ any one character, [a-f] and [abcdef] one
// character of the range or set, [^...] one outside it, a wildcard in
// brackets an ordinary character ("20-30[%]", "[_]n", "[[]" and "]", the
// page's table), ESCAPE, NOT LIKE; case-sensitive, as RegexMatch without
// "i", its documented equivalent; undefined unless the value and the
// pattern are strings and the escape a string of one character.
func TestLikeValues(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		// The page's examples.
		{`"ISO PSA" LIKE "%SO%PS%"`, `true`},
		{`"ISOxPS" LIKE "%SO_PS%"`, `true`},
		{`"ISOPS" LIKE "%SO_PS%"`, `false`},
		{`"SOuPS" LIKE "%SO[t-z]PS%"`, `true`},
		{`"SOaPS" LIKE "%SO[t-z]PS%"`, `false`},
		{`"SOdPS" LIKE "%SO[^abc]PS%"`, `true`},
		{`"SObPS" LIKE "%SO[^abc]PS%"`, `false`},
		{`"SObPS" LIKE "%SO[abc]PS%"`, `true`},
		{`"Screwdriver set" LIKE "%driver%"`, `true`},
		{`"fruit salad" LIKE "fruit%"`, `true`},
		{`"a fruit" LIKE "fruit%"`, `false`},
		{`"Mountain Road" LIKE "%Road"`, `true`},
		{`"Road bike" LIKE "%Road"`, `false`},
		{`"winter coat" NOT LIKE "%winter%"`, `false`},
		{`"summer coat" NOT LIKE "%winter%"`, `true`},
		{`"up 20% off" LIKE "%20^%%" ESCAPE "^"`, `true`},
		{`"up 20 off" LIKE "%20^%%" ESCAPE "^"`, `false`},
		{`"20-30%" LIKE "20-30[%]"`, `true`},
		{`"20-301" LIKE "20-30[%]"`, `false`},
		{`"_n" LIKE "[_]n"`, `true`},
		{`"an" LIKE "[_]n"`, `false`},
		{`"[" LIKE "[[]"`, `true`},
		{`"]" LIKE "]"`, `true`},
		// Whole-string matching, characters as code points, case.
		{`"abc" LIKE "abc"`, `true`},
		{`"abc" LIKE "ab"`, `false`},
		{`"abc" LIKE "ABC"`, `false`},
		{`"" LIKE "%"`, `true`},
		{`"" LIKE "_"`, `false`},
		{`"é" LIKE "_"`, `true`},
		{`"😀x" LIKE "_x"`, `true`},
		{`"aXbXc" LIKE "a%b%c"`, `true`},
		{`"abcabd" LIKE "%abd"`, `true`},
		{`"ab" LIKE "a%%b"`, `true`},
		{`"a.c" LIKE "a.c"`, `true`},
		{`"abc" LIKE "a.c"`, `false`},
		{`"a[b" LIKE "a[b"`, `true`}, // no closing ]: an ordinary [
		{`"a%" LIKE "a!%" ESCAPE "!"`, `true`},
		{`"ab" LIKE "a!%" ESCAPE "!"`, `false`},
		{`"a!" LIKE "a!!" ESCAPE "!"`, `true`},
		// Undefined operands.
		{`1 LIKE "1"`, `-`},
		{`undefined LIKE "%"`, `-`},
		{`null LIKE "%"`, `-`},
		{`"a" LIKE 1`, `-`},
		{`"a" LIKE undefined`, `-`},
		{`1 NOT LIKE "1"`, `-`},
		{`"a" LIKE "a" ESCAPE @e`, `-`},
		{`"a!" LIKE "a!" ESCAPE "!"`, `-`},
		// In expressions.
		{`("ab" LIKE "a%") AND true`, `true`},
		{`IIF("ab" LIKE "a%", 1, 2)`, `1`},
	} {
		var params map[string]string
		if strings.Contains(tc.expr, "@e") {
			params = map[string]string{"e": `"!!"`}
		}
		b := bind(t, "SELECT VALUE "+tc.expr, params)
		require.Equal(t, tc.want, results(b, []Row{{}}), tc.expr)
	}
}

// R13: a LIKE whose pattern is a path is compiled for each row; one whose
// pattern is a parameter once, at Bind.
func TestLikeRows(t *testing.T) {
	rows := []Row{
		{Body: `{"id":"1","s":"apple","p":"a%"}`},
		{Body: `{"id":"2","s":"Apple","p":"A%"}`},
		{Body: `{"id":"3","s":"banana","p":"%x"}`},
		{Body: `{"id":"4","s":5,"p":"%"}`},
		{Body: `{"id":"5","p":"%"}`},
	}
	for _, tc := range []struct {
		sql    string
		params map[string]string
		want   string
	}{
		{`SELECT VALUE c.id FROM c WHERE c.s LIKE c.p`, nil, "\"1\"\n\"2\""},
		{`SELECT VALUE c.id FROM c WHERE c.s NOT LIKE c.p`, nil, `"3"`},
		{`SELECT VALUE c.id FROM c WHERE c.s LIKE @p`, map[string]string{"p": `"%a%"`}, "\"1\"\n\"3\""},
		{`SELECT VALUE c.id FROM c WHERE NOT (c.s LIKE @p)`, map[string]string{"p": `"%a%"`}, `"2"`},
		{`SELECT VALUE c.s LIKE "_pple" FROM c`, nil, "true\ntrue\nfalse\n-\n-"},
	} {
		require.Equal(t, tc.want, results(bind(t, tc.sql, tc.params), rows), tc.sql)
	}
}

// R13: LIKE's syntax errors name the fault: an ESCAPE literal that is not
// one character, and NOT before LIKE, ambiguous as before any comparison.
func TestLikeErrors(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		off  int
		text string
	}{
		{`SELECT * FROM c WHERE c.a LIKE "a" ESCAPE "ab"`, 42, `ESCAPE takes a string of one character`},
		{`SELECT * FROM c WHERE c.a LIKE "a" ESCAPE 1`, 42, `ESCAPE takes a string of one character`},
		{`SELECT * FROM c WHERE NOT c.a LIKE 'a%'`, 22, `NOT before a comparison is ambiguous`},
		{`SELECT * FROM c WHERE c.a LIKE 'a%' = true`, 36, `comparisons do not chain`},
		{`SELECT * FROM c WHERE c.a LIKE`, 30, `expected`},
	} {
		e := parseError(t, tc.sql)
		require.Equal(t, tc.off, e.Offset, tc.sql)
		require.Contains(t, e.Error(), tc.text, tc.sql)
	}
}
