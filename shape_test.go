package ttldb

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxFileLines is the most lines a file of the library may hold: one
// concept per file, small enough to read at once.
const maxFileLines = 520

// TestShapeOfTheCode checks the rules the code is cut by: no library file is
// over about 500 lines, and no two files call each other's functions both
// ways, so that every file can be read knowing only the files it calls.
func TestShapeOfTheCode(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package from source")
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		require.LessOrEqual(t, strings.Count(string(src), "\n"), maxFileLines, "%s is too long: split it by concept", name)
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("github.com/ttldb/ttldb", fset, files, info)
	require.NoError(t, err)

	calls := map[[2]string]string{} // caller file, callee file: one example
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok || fn.Pkg() != pkg {
			continue
		}
		from := fset.Position(id.Pos())
		to := fset.Position(fn.Pos()).Filename
		if from.Filename != to {
			calls[[2]string{from.Filename, to}] = fn.Name() + " at " + from.String()
		}
	}
	var both []string
	for edge, at := range calls {
		if back, ok := calls[[2]string{edge[1], edge[0]}]; ok && edge[0] < edge[1] {
			both = append(both, edge[0]+" calls "+edge[1]+" ("+at+") and back ("+back+")")
		}
	}
	sort.Strings(both)
	require.Empty(t, both, "files that call each other both ways")
}

// TestSpecRulesAreTested checks that every rule of docs/SPEC.md that is not
// marked planned is named, as "R4", by at least one test of the module.
func TestSpecRulesAreTested(t *testing.T) {
	spec, err := os.ReadFile("docs/SPEC.md")
	require.NoError(t, err)
	heading := regexp.MustCompile(`(?m)^## (R\d+)\. [^\n]*\n\s*(Status: planned)?`)
	var rules []string
	for _, m := range heading.FindAllStringSubmatch(string(spec), -1) {
		if m[2] == "" {
			rules = append(rules, m[1])
		}
	}
	require.GreaterOrEqual(t, len(rules), 10, "docs/SPEC.md has rules R1-R10 at least")
	var tests strings.Builder
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, "_test.go") && !strings.HasPrefix(path, "bench") {
			b, err := os.ReadFile(path)
			tests.Write(b)
			return err
		}
		return err
	}))
	for _, r := range rules {
		named := regexp.MustCompile(`//.*\b` + r + `\b`).MatchString(tests.String())
		require.True(t, named, "no test names rule %s of docs/SPEC.md in a comment", r)
	}
}
