package ref

// The reference patch's operations: as a test describes them (RefPatchOp),
// as the library makes them (Builders), and as the reference checks them
// before it looks at the document (refCompile).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// RefPatchOp is a patch operation as a test describes it: the reference
// reads it, and Builders.Op makes the library's PatchOp of it.
type RefPatchOp struct {
	Kind    string // "add", "set", "replace", "remove", "incr", "move"; "" is the zero PatchOp
	Path    string
	From    string // move's
	Value   any    // add's, set's and replace's: JSON text as json.RawMessage or []byte, or a Go value
	By      int64  // incr's amount, unless Float
	ByFloat float64
	Float   bool // incr by ByFloat (PatchIncrementFloat)
}

// Builders are the library's constructors of patch operations (ttldb's
// PatchAdd, PatchSet, ...), with which a caller makes the library's
// operation of a RefPatchOp: the reference does not import the library.
type Builders[P any] struct {
	Add, Set, Replace func(path string, value any) P
	Remove            func(path string) P
	Increment         func(path string, by int64) P
	IncrementFloat    func(path string, by float64) P
	Move              func(from, path string) P
}

// Op returns the library's operation of o; the zero P for the zero
// RefPatchOp.
func (b Builders[P]) Op(o RefPatchOp) P {
	switch o.Kind {
	case "add":
		return b.Add(o.Path, o.Value)
	case "set":
		return b.Set(o.Path, o.Value)
	case "replace":
		return b.Replace(o.Path, o.Value)
	case "remove":
		return b.Remove(o.Path)
	case "incr":
		if o.Float {
			return b.IncrementFloat(o.Path, o.ByFloat)
		}
		return b.Increment(o.Path, o.By)
	case "move":
		return b.Move(o.From, o.Path)
	}
	var zero P
	return zero
}

// Ops returns the library's operations of ops.
func (b Builders[P]) Ops(ops []RefPatchOp) []P {
	out := make([]P, len(ops))
	for i, o := range ops {
		out[i] = b.Op(o)
	}
	return out
}

// String describes the operation, for the messages of the tests.
func (o RefPatchOp) String() string {
	switch o.Kind {
	case "":
		return "zero"
	case "remove":
		return fmt.Sprintf("remove %q", o.Path)
	case "move":
		return fmt.Sprintf("move %q to %q", o.From, o.Path)
	case "incr":
		if o.Float {
			return fmt.Sprintf("incr %q by %v (float)", o.Path, o.ByFloat)
		}
		return fmt.Sprintf("incr %q by %d", o.Path, o.By)
	}
	v := fmt.Sprintf("%v", o.Value)
	switch x := o.Value.(type) {
	case json.RawMessage:
		v = fmt.Sprintf("%q", []byte(x))
	case []byte:
		v = fmt.Sprintf("bytes %q", x)
	case string:
		v = fmt.Sprintf("Go string %q", x)
	}
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	return fmt.Sprintf("%s %q %s", o.Kind, o.Path, v)
}

// refOp is an operation the reference has checked: paths split, value
// parsed.
type refOp struct {
	kind       string
	path, from []string
	val        *refNode
	by         RefPatchOp // By, ByFloat, Float
}

var (
	refBadTilde = regexp.MustCompile(`~([^01]|$)`)
	refUnescape = strings.NewReplacer("~1", "/", "~0", "~")
	refIndexRE  = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	refIntLit   = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
)

// refPointer splits a JSON Pointer into its decoded tokens.
func refPointer(p string) ([]string, error) {
	switch {
	case p == "":
		return nil, errors.New("the empty path")
	case p[0] != '/':
		return nil, fmt.Errorf("path %q does not start with '/'", p)
	case !utf8.ValidString(p):
		return nil, fmt.Errorf("path %q is not UTF-8", p)
	case refBadTilde.MatchString(p):
		return nil, fmt.Errorf("path %q has '~' without 0 or 1", p)
	}
	toks := strings.Split(p[1:], "/")
	if len(toks) > MaxDepth {
		return nil, fmt.Errorf("path %q has %d tokens", p, len(toks))
	}
	for i, t := range toks {
		toks[i] = refUnescape.Replace(t)
	}
	return toks, nil
}

// refHasPrefix reports whether p is prefix or lies inside it.
func refHasPrefix(p, prefix []string) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

// refPath checks a path of an operation against what a patch may not
// touch: the id, the system properties, the partition key.
func refPath(p string, pk []string) ([]string, error) {
	toks, err := refPointer(p)
	if err != nil {
		return nil, err
	}
	if toks[0] == "id" || toks[0] == "_ts" || toks[0] == "_etag" {
		return nil, fmt.Errorf("path %q starts at %s", p, toks[0])
	}
	if refHasPrefix(toks, pk) || refHasPrefix(pk, toks) {
		return nil, fmt.Errorf("path %q meets the partition key", p)
	}
	return toks, nil
}

// refCompile checks what can be checked without the document.
func refCompile(ops []RefPatchOp, pk []string) ([]refOp, error) {
	if len(ops) == 0 || len(ops) > MaxPatchOperations {
		return nil, fmt.Errorf("%d operations", len(ops))
	}
	out := make([]refOp, len(ops))
	for i, o := range ops {
		r := refOp{kind: o.Kind, by: o}
		var err error
		switch o.Kind {
		case "add", "set", "replace", "remove", "incr", "move":
		default:
			return nil, fmt.Errorf("operation %d is the zero PatchOp", i+1)
		}
		if r.path, err = refPath(o.Path, pk); err != nil {
			return nil, fmt.Errorf("operation %d: %v", i+1, err)
		}
		switch o.Kind {
		case "move":
			if r.from, err = refPath(o.From, pk); err != nil {
				return nil, fmt.Errorf("operation %d: from: %v", i+1, err)
			}
		case "incr":
			if o.Float && (math.IsNaN(o.ByFloat) || math.IsInf(o.ByFloat, 0)) {
				return nil, fmt.Errorf("operation %d: incr by %v", i+1, o.ByFloat)
			}
		case "add", "set", "replace":
			var text []byte
			switch x := o.Value.(type) {
			case json.RawMessage:
				text = x
			case []byte:
				text = x
			default:
				if text, err = json.Marshal(o.Value); err != nil {
					return nil, fmt.Errorf("operation %d: value: %v", i+1, err)
				}
			}
			if !json.Valid(text) || !utf8.Valid(text) {
				return nil, fmt.Errorf("operation %d: value %q is not JSON text (valid UTF-8)", i+1, text)
			}
			if r.val, err = refParse(text); err != nil {
				panic(fmt.Sprintf("json.Valid accepts %q, the Decoder says %v", text, err))
			}
		}
		out[i] = r
	}
	return out, nil
}
