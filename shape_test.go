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

// TestShapeOfTheCode checks the rules the code is cut by: no library file of
// any package of the module is over about 500 lines, and no two files of
// the root package call each other's functions both ways, so that every
// file can be read knowing only the files it calls.
func TestShapeOfTheCode(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package from source")
	}
	for _, dir := range moduleDirs(t) {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			src, err := os.ReadFile(name)
			require.NoError(t, err)
			if _, ok := shapeExceptions[filepath.ToSlash(name)]; !ok {
				require.LessOrEqual(t, strings.Count(string(src), "\n"), maxFileLines, "%s is too long: split it by concept", name)
			}
		}
	}
	both := callsBothWays(t, ".", "github.com/ttldb/ttldb")
	require.Empty(t, both, "files that call each other both ways")
}

// shapeExceptions are the library files allowed over maxFileLines, each
// with the reason (none at present).
var shapeExceptions = map[string]string{}

// moduleDirs lists the folders of the module's packages: every folder below
// the root that holds a .go file, but testdata, hidden folders and other
// modules (bench, with its own go.mod).
func moduleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if gos, _ := filepath.Glob(filepath.Join(path, "*.go")); len(gos) > 0 {
			dirs = append(dirs, path)
		}
		return nil
	}))
	require.Contains(t, dirs, "conformance", "the walk finds the module's packages")
	return dirs
}

// callsBothWays type-checks the non-test files of the package in dir, whose
// import path is path, and returns the pairs of its files that call each
// other's functions both ways, each with an example of each way.
func callsBothWays(t *testing.T, dir, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(path, fset, files, info)
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
	return both
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
