package ttldb

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestZeroCollectionEveryMethod: every exported method of a Collection not
// made by NewCollection, found by reflection so that none is missed,
// returns ErrClosed (or, without an error to return, a zero answer) and
// never panics, whichever part of it has moved onto the engine interface.
func TestZeroCollectionEveryMethod(t *testing.T) { // R15, R16
	var c Collection
	rt := reflect.TypeOf(&c)
	errType := reflect.TypeFor[error]()
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		args := []reflect.Value{reflect.ValueOf(&c)}
		for j := 1; j < m.Type.NumIn(); j++ {
			in := m.Type.In(j)
			switch {
			case in == reflect.TypeFor[context.Context]():
				args = append(args, reflect.ValueOf(bg))
			case in.Kind() == reflect.String:
				args = append(args, reflect.ValueOf("/n").Convert(in))
			case in.Kind() == reflect.Int:
				args = append(args, reflect.ValueOf(1).Convert(in))
			case m.Type.IsVariadic() && j == m.Type.NumIn()-1:
			default:
				args = append(args, reflect.Zero(in))
			}
		}
		var out []reflect.Value
		require.NotPanics(t, func() { out = m.Func.Call(args) }, m.Name)
		if len(out) == 0 || m.Name == "Close" {
			continue
		}
		last := out[len(out)-1]
		if last.Type() != errType && last.Kind() != reflect.Func {
			continue // an accessor: a zero answer
		}
		var errs []error
		require.NotPanics(t, func() { errs = resultErrors(t, m.Name, out) }, m.Name)
		require.NotEmpty(t, errs, m.Name)
		for _, err := range errs {
			require.ErrorIs(t, err, ErrClosed, m.Name)
		}
	}
}
