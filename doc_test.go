package ttldb

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb/internal/query"
)

// docLists returns the words of the lists of the query language in text
// (the README, or doc.go's comment): for each item ("- **Functions**:
// ...", "  - Functions: ..."), the upper-case words and the operators it
// names, continuation lines included.
func docLists(text string) map[string][]string {
	item := regexp.MustCompile(`^\s*- (?:\*\*)?(Clauses|Operators|Literals|Functions|Aggregate|Refused as not supported)\b`)
	word := regexp.MustCompile("^(?:[A-Z][A-Z_0-9]*|[-=!<>+*/%&|^~?:]+)$")
	lists := map[string][]string{}
	var cur string
	for _, line := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(line, "//"); ok {
			line = strings.TrimPrefix(c, " ")
		}
		switch m := item.FindStringSubmatch(line); {
		case m != nil:
			cur = m[1]
			if _, dup := lists[cur]; dup {
				lists[cur+" (twice)"] = nil
			}
			lists[cur] = []string{}
			line = line[len(m[0]):]
		case cur != "" && strings.HasPrefix(line, "  ") && !strings.HasPrefix(strings.TrimSpace(line), "-"):
		default:
			cur = ""
		}
		if cur == "" {
			continue
		}
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" ,()`", r) }) {
			if strings.HasPrefix(w, "**") { // the end of a bold item name
				w = strings.TrimLeft(w, "*")
			}
			w = strings.TrimRight(w, ".")
			if w != ":" && word.MatchString(w) {
				lists[cur] = append(lists[cur], w)
			}
		}
	}
	return lists
}

// setOf returns the sorted, distinct words of lists, less those of less.
func setOf(less []string, lists ...[]string) []string {
	out := map[string]bool{}
	for _, l := range lists {
		for _, w := range l {
			if !slices.Contains(less, w) {
				out[w] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(out))
}

// TestQueryLanguageDocumented checks that the README's Queries section and
// the package documentation (doc.go, what go doc shows) list the query
// language as the parser has it, both ways: every function of
// internal/query's table and no other, every keyword and comparison
// operator, the aggregates, and every keyword refused as not
// supported (R13).
func TestQueryLanguageDocumented(t *testing.T) { // R13
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	pkgdoc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	keywords := query.Keywords()
	functions := slices.DeleteFunc(query.Functions(), func(s string) bool { return s == "COUNT" })
	for name, text := range map[string]string{"README.md": string(readme), "doc.go": string(pkgdoc)} {
		lists := docLists(text)
		require.ElementsMatch(t, []string{"Clauses", "Operators", "Literals", "Functions", "Aggregate", "Refused as not supported"}, slices.Collect(maps.Keys(lists)), "%s: the lists of the query language", name)
		require.Equal(t, functions, setOf(nil, lists["Functions"]), "%s: the functions, against internal/query's table", name)
		require.Len(t, lists["Functions"], len(functions), "%s: a function listed twice", name)
		require.Equal(t, query.Aggregates(), setOf(keywords, lists["Aggregate"]), "%s: the aggregates", name)
		require.Equal(t, setOf(nil, keywords, query.Operators()), setOf(nil, lists["Clauses"], lists["Operators"], lists["Literals"]),
			"%s: the clauses, operators and literals, against internal/query's keywords and comparison operators", name)
		require.Equal(t, query.RefusedKeywords(), setOf(keywords, lists["Refused as not supported"]), "%s: the keywords refused as not supported", name)
	}
}

// TestErrorsDocumented checks that the README's list of sentinel errors
// names every exported error variable of errors.go, and no other.
func TestErrorsDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	require.NoError(t, err)
	var sentinels []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					if n.IsExported() {
						sentinels = append(sentinels, n.Name)
					}
				}
			}
		}
	}
	require.Contains(t, sentinels, "ErrNotFound")
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)Every error wraps one sentinel of `errors.go` \\((.*?)\\):").FindSubmatch(readme)
	require.NotNil(t, m, "the README's list of sentinel errors")
	listed := regexp.MustCompile("`(Err[A-Za-z]+)`").FindAllStringSubmatch(string(m[1]), -1)
	var names []string
	for _, l := range listed {
		names = append(names, l[1])
	}
	slices.Sort(sentinels)
	slices.Sort(names)
	require.Equal(t, sentinels, names, "the README's list of sentinel errors, against errors.go")
}
