package ttldb

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
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
