package ttldb

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestContextsAreChecked: every exported method that takes a
// context.Context (of Collection, Typed and Cursor), and Open, given nil, returns
// ErrInvalidOption, whose text names the method and the mistake; given one
// that is done, canceled or past its deadline, it returns that context's
// error (errors.Is), whatever else is wrong with the call. Either way it
// changes nothing, in memory or on disk. The methods are found by
// reflection, so that a new one cannot be missed, and the package's source
// is read for any exported function or method that takes one, which the
// test would not call.
func TestContextsAreChecked(t *testing.T) { // R10, R16
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	cases := []struct {
		name string
		ctx  context.Context
		want func(t *testing.T, method string, err error)
	}{
		{"nil", nil, func(t *testing.T, method string, err error) {
			require.ErrorIs(t, err, ErrInvalidOption, method)
			require.ErrorContains(t, err, contextOp(method)+" with a nil context.Context: pass context.Background()")
		}},
		{"canceled", canceled, func(t *testing.T, method string, err error) {
			require.ErrorIs(t, err, context.Canceled, method)
			require.ErrorContains(t, err, "ttldb: "+contextOp(method)+": context canceled")
		}},
		{"past its deadline", expired, func(t *testing.T, method string, err error) {
			require.ErrorIs(t, err, context.DeadlineExceeded, method)
			require.ErrorContains(t, err, "ttldb: "+contextOp(method)+": context deadline exceeded")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			called := checkEveryContextMethod(t, tc.ctx, tc.want)
			require.Subset(t, called, []string{"Collection.Get", "Collection.Compact", "Collection.WatchFeed", "Cursor.Next", "Typed.Get"})
			require.Equal(t, declaredContextMethods(t), called, "the exported functions that take a context.Context, and those the test called")
		})
	}
}

// checkEveryContextMethod calls each exported method of a durable
// collection, a typed view of it and a cursor on it that takes a
// context.Context with ctx, checks its one error with want and that
// nothing changed, and returns the names of the methods called, sorted.
func checkEveryContextMethod(t *testing.T, ctx context.Context, want func(t *testing.T, method string, err error)) []string {
	dir := t.TempDir()
	c, err := NewCollection("ctx", "/pk", &Options{Dir: dir, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	typed, err := NewTyped[struct {
		ID string `json:"id"`
		PK string `json:"pk"`
	}](c)
	require.NoError(t, err)
	cur, err := c.OpenQuery(bg, SQL{Text: "SELECT * FROM c"})
	require.NoError(t, err)
	defer cur.Close()
	files := func() []string {
		names, err := os.ReadDir(dir)
		require.NoError(t, err)
		var out []string
		for _, e := range names {
			info, err := e.Info()
			require.NoError(t, err)
			out = append(out, fmt.Sprint(e.Name(), " ", info.ModTime(), " ", info.Size()))
		}
		return out
	}
	ctxType := reflect.TypeFor[context.Context]()
	var called []string
	for _, recv := range []any{c, typed, cur} {
		rt := reflect.TypeOf(recv)
		typeName := rt.Elem().Name()
		if i := strings.IndexByte(typeName, '['); i >= 0 {
			typeName = typeName[:i] // Typed[...]
		}
		for i := range rt.NumMethod() {
			m := rt.Method(i)
			args := []reflect.Value{reflect.ValueOf(recv)}
			takes := false
			for j := 1; j < m.Type.NumIn(); j++ {
				in := m.Type.In(j)
				switch {
				case in == ctxType:
					takes = true
					if ctx == nil {
						args = append(args, reflect.Zero(in))
					} else {
						args = append(args, reflect.ValueOf(ctx))
					}
				case in.Kind() == reflect.String:
					args = append(args, reflect.ValueOf("/n").Convert(in)) // a valid index path
				case in.Kind() == reflect.Int:
					args = append(args, reflect.ValueOf(1).Convert(in))
				case m.Type.IsVariadic() && j == m.Type.NumIn()-1:
					// no options
				default:
					args = append(args, reflect.Zero(in))
				}
			}
			if !takes {
				continue
			}
			name := typeName + "." + m.Name
			called = append(called, name)
			before, beforeFiles := state(t, c), files()
			var errs []error
			require.NotPanics(t, func() {
				errs = resultErrors(t, name, m.Func.Call(args))
			}, name)
			require.Len(t, errs, 1, "%s: one error, and nothing else", name)
			want(t, name, errs[0])
			require.Equal(t, before, state(t, c), name)
			require.Equal(t, beforeFiles, files(), name)
		}
	}
	// The package's functions that take one: Open, of the directory c has
	// open, which it would refuse as locked if it looked at the directory
	// before the context.
	for _, url := range []string{"file:" + dir, "mem:"} {
		before, beforeFiles := state(t, c), files()
		var got *Collection
		var err error
		require.NotPanics(t, func() {
			got, err = Open(ctx, url, &Options{Name: "ctx", PartitionKeyPath: "/pk"})
		}, "Open(%s)", url)
		require.Nil(t, got, "Open(%s)", url)
		want(t, "Open", err)
		require.Equal(t, before, state(t, c), "Open(%s)", url)
		require.Equal(t, beforeFiles, files(), "Open(%s)", url)
	}
	// Restore, into a directory that must not be made, and Verify, of c's.
	var b bytes.Buffer
	_, err = c.Backup(bg, &b)
	require.NoError(t, err)
	into := filepath.Join(t.TempDir(), "restored")
	var rerr, verr error
	require.NotPanics(t, func() { _, rerr = Restore(ctx, &b, into) }, "Restore")
	want(t, "Restore", rerr)
	_, err = os.Stat(into)
	require.ErrorIs(t, err, os.ErrNotExist, "Restore made the directory")
	before := files()
	require.NotPanics(t, func() { _, verr = Verify(ctx, dir) }, "Verify")
	want(t, "Verify", verr)
	require.Equal(t, before, files(), "Verify")
	called = append(called, "Open", "Restore", "Verify")
	slices.Sort(called)
	return called
}

// resultErrors returns the errors a call returned: its last result, or,
// for an iterator, the errors it yields.
func resultErrors(t *testing.T, name string, out []reflect.Value) []error {
	require.NotEmpty(t, out, name)
	last := out[len(out)-1]
	if last.Kind() == reflect.Func && last.Type().NumIn() == 1 && last.Type().In(0).Kind() == reflect.Func {
		var errs []error
		yield := last.Type().In(0)
		last.Call([]reflect.Value{reflect.MakeFunc(yield, func(args []reflect.Value) []reflect.Value {
			err, _ := args[len(args)-1].Interface().(error)
			errs = append(errs, err)
			return []reflect.Value{reflect.ValueOf(true)}
		})})
		return errs
	}
	err, ok := last.Interface().(error)
	if !ok && !last.IsNil() {
		t.Fatalf("%s returns %s: teach the test to read it", name, last.Type())
	}
	return []error{err}
}

// declaredContextMethods returns the exported functions and methods of the
// package's source that take a context.Context, as Type.Method, sorted.
func declaredContextMethods(t *testing.T) []string {
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
				if ix, ok := recv.(*ast.IndexExpr); ok {
					recv = ix.X // Typed[T]
				}
				id, ok := recv.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue // a method of an unexported type
				}
				name = id.Name + "." + name
			}
			declared = append(declared, name)
		}
	}
	slices.Sort(declared)
	return declared
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

// contextOp is the name the errors of method (Type.Method) give it: the
// method's, but Cursor's, whose type is named, and the JSON writes', which
// are named as the writes they are.
func contextOp(method string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(method, "Collection."), "Typed."), "JSON")
}
