package local

import (
	"context"
	"fmt"
	"unsafe"
)

// errorf wraps sentinel with a message that names the value at fault, as
// the API's messages do: "ttldb: invalid option: ...".
func errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// ctxLive reports whether ctx lets a call start: it is not nil and not
// done. When it is false, the call returns [engine.ContextError] and does
// nothing.
func ctxLive(ctx context.Context) bool { return ctx != nil && ctx.Err() == nil }

// viewString returns b as a string without copying: for a string used
// only while b is unchanged (a lookup).
func viewString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
