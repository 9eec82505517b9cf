package query

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLanguageTables checks the lists the documentation is checked
// against: every keyword of the language is used by a query that parses,
// every refused one gets a query refused as unsupported, every operator is
// used by a query that parses, and the grammar of doc.go names every
// function (R13).
func TestLanguageTables(t *testing.T) { // R13
	uses := map[string]string{
		"SELECT": `SELECT * FROM c`, "TOP": `SELECT TOP 1 * FROM c`, "VALUE": `SELECT VALUE c.a FROM c`,
		"FROM": `SELECT * FROM c`, "AS": `SELECT c.a AS b FROM c`, "WHERE": `SELECT * FROM c WHERE c.a = 1`,
		"ORDER": `SELECT * FROM c ORDER BY c.a`, "BY": `SELECT * FROM c ORDER BY c.a`,
		"ASC": `SELECT * FROM c ORDER BY c.a ASC`, "DESC": `SELECT * FROM c ORDER BY c.a DESC`,
		"OFFSET": `SELECT * FROM c OFFSET 1 LIMIT 2`, "LIMIT": `SELECT * FROM c OFFSET 1 LIMIT 2`,
		"AND": `SELECT * FROM c WHERE c.a AND c.b`, "OR": `SELECT * FROM c WHERE c.a OR c.b`,
		"NOT": `SELECT * FROM c WHERE NOT c.a`, "IN": `SELECT * FROM c WHERE c.a IN (1, 2)`,
		"BETWEEN": `SELECT * FROM c WHERE c.a BETWEEN 1 AND 2`, "TRUE": `SELECT * FROM c WHERE c.a = true`,
		"FALSE": `SELECT * FROM c WHERE c.a = false`, "NULL": `SELECT * FROM c WHERE c.a = null`,
		"UNDEFINED": `SELECT * FROM c WHERE c.a = undefined`, "GROUP": `SELECT c.a FROM c GROUP BY c.a`,
		"LIKE": `SELECT * FROM c WHERE c.a LIKE 'x%'`, "ESCAPE": `SELECT * FROM c WHERE c.a LIKE 'x!%' ESCAPE '!'`,
		"JOIN": `SELECT t FROM c JOIN t IN c.tags`, "DISTINCT": `SELECT DISTINCT c.a FROM c`,
		"EXISTS": `SELECT * FROM c WHERE EXISTS(SELECT VALUE 1 FROM t IN c.a)`, "ARRAY": `SELECT ARRAY(SELECT VALUE 1) FROM c`,
	}
	for _, kw := range Keywords() {
		sql, ok := uses[kw]
		require.True(t, ok, "keyword %s: add a query that uses it", kw)
		_, err := Parse(sql)
		require.NoError(t, err, sql)
	}
	refused := map[string]string{}
	for _, kw := range RefusedKeywords() {
		sql, ok := refused[kw]
		require.True(t, ok, "refused keyword %s: add a query that uses it", kw)
		require.True(t, parseError(t, sql).Unsupported, sql)
	}
	for _, name := range Functions() {
		if name == "COUNT" {
			_, err := Parse(`SELECT VALUE COUNT(1) FROM c`)
			require.NoError(t, err)
			continue
		}
		f := funcs[name]
		args := strings.Repeat("c.a, ", f.min)
		_, err := Parse(`SELECT VALUE ` + name + `(` + strings.TrimSuffix(args, ", ") + `) FROM c`)
		require.NoError(t, err, name)
		if f.max < 0 || f.max > f.min {
			_, err := Parse(`SELECT VALUE ` + strings.ToLower(name) + `(` + args + `true) FROM c`)
			require.NoError(t, err, name)
		}
	}
	require.Len(t, Operators(), 22)
	for _, op := range Operators() {
		sql := `SELECT VALUE 1 ` + op + ` 2`
		switch op {
		case "?:":
			sql = `SELECT VALUE true ? 1 : 2`
		case "~":
			sql = `SELECT VALUE ~1`
		}
		_, err := Parse(sql)
		require.NoError(t, err, sql)
	}

	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)//\tfunction = (.*?)\n//\n`).FindSubmatch(doc)
	require.NotNil(t, m, "doc.go has no function production")
	listed := strings.FieldsFunc(strings.ReplaceAll(string(m[1]), "//\t", ""), func(r rune) bool { return r == '|' || r == ' ' || r == '\n' })
	slices.Sort(listed)
	want := slices.DeleteFunc(Functions(), func(s string) bool { return s == "COUNT" })
	require.Equal(t, want, listed, "the grammar's function production in doc.go")
}
