package ttldb

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNilContextIsAnError: every exported method that takes a
// context.Context, given nil, returns ErrInvalidOption, whose text names
// the mistake, and changes nothing, where it used to panic (README: no
// input panics). The methods are found by reflection, so that a new one
// cannot be missed, and the package's source is read for any exported
// function or method of another type that takes one, which the test would
// not call.
func TestNilContextIsAnError(t *testing.T) { // R10, R16 (the calls that take a context)
	dir := t.TempDir()
	c, err := NewCollection("nilctx", "/pk", &Options{Dir: dir, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	files := func() []string {
		names, err := os.ReadDir(dir)
		require.NoError(t, err)
		var out []string
		for _, e := range names {
			info, err := e.Info()
			require.NoError(t, err)
			out = append(out, e.Name()+" "+info.ModTime().String())
		}
		return out
	}
	ctxType := reflect.TypeFor[context.Context]()
	var called []string
	ct := reflect.TypeOf(c)
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		args := []reflect.Value{reflect.ValueOf(c)}
		takes := false
		for j := 1; j < m.Type.NumIn(); j++ {
			in := m.Type.In(j)
			switch {
			case in == ctxType:
				takes = true
				args = append(args, reflect.Zero(in))
			case in.Kind() == reflect.String:
				args = append(args, reflect.ValueOf("/n").Convert(in)) // a valid index path
			default:
				args = append(args, reflect.Zero(in))
			}
		}
		if !takes {
			continue
		}
		called = append(called, "Collection."+m.Name)
		before, beforeFiles := state(t, c), files()
		var errs []error
		require.NotPanics(t, func() {
			out := m.Func.Call(args)
			require.NotEmpty(t, out, m.Name)
			switch r := out[len(out)-1].Interface().(type) {
			case error:
				errs = append(errs, r)
			case nil:
				errs = append(errs, nil)
			case iter.Seq2[Change, error]:
				for _, err := range r {
					errs = append(errs, err)
				}
			default:
				t.Fatalf("%s returns %T: teach the test to read it", m.Name, r)
			}
		}, m.Name)
		require.Len(t, errs, 1, "%s: one error, and nothing else", m.Name)
		require.ErrorIs(t, errs[0], ErrInvalidOption, m.Name)
		require.ErrorContains(t, errs[0], m.Name+" with a nil context.Context: pass context.Background()")
		require.Equal(t, before, state(t, c), m.Name)
		require.Equal(t, beforeFiles, files(), m.Name)
	}
	require.Subset(t, called, []string{"Collection.Compact", "Collection.CreateIndex", "Collection.WatchFeed"})

	// Every exported function and method of the package's source that
	// takes a context.Context is one of those called.
	var declared []string
	sources, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range sources {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || !takesContext(fn.Type.Params) {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil {
				recv := fn.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					name = id.Name + "." + name
				} else {
					continue // a method of an unexported type
				}
			}
			declared = append(declared, name)
		}
	}
	slices.Sort(declared)
	slices.Sort(called)
	require.Equal(t, called, declared, "the exported functions that take a context.Context, and those the test called with nil")
}

// takesContext reports whether a parameter list holds a context.Context.
func takesContext(params *ast.FieldList) bool {
	for _, p := range params.List {
		if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "context" {
				return true
			}
		}
	}
	return false
}
