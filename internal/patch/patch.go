package patch

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ttldb/ttldb/internal/jsontext"
)

// Kind is the kind of an operation.
type Kind uint8

// The operations, as Cosmos DB names them.
const (
	// Add sets a member, new or not; into an array it inserts at an index,
	// shifting the elements after it, or appends at "-" or the length.
	Add Kind = iota + 1
	// Set is Add, but at an index of an array it replaces the element.
	Set
	// Replace replaces a member or element that must exist.
	Replace
	// Remove removes a member or element that must exist.
	Remove
	// Incr adds a number to a member or element that must be a number; a
	// member that does not exist is created with that number.
	Incr
	// Move removes the value at From and adds it at Path.
	Move
)

func (k Kind) String() string {
	if k < Add || k > Move {
		return fmt.Sprintf("Kind(%d)", k)
	}
	return [...]string{"add", "set", "replace", "remove", "incr", "move"}[k-1]
}

// Op is one operation.
type Op struct {
	Kind  Kind
	Path  []string // the target, as Pointer splits it
	From  []string // Move's source
	Value []byte   // for Add, Set and Replace: compact, valid JSON
	By    Number   // for Incr
}

func (op Op) String() string {
	if op.Kind == Move {
		return fmt.Sprintf("move %s to %s", Format(op.From), Format(op.Path))
	}
	return op.Kind.String() + " " + Format(op.Path)
}

// Apply applies ops in order to doc, a compact, valid JSON object, and
// returns the patched object, compact; doc is not modified. Either every
// operation applies or Apply returns an error naming the first that does
// not, as "operation 2 (incr /count): ...".
func Apply(doc []byte, ops []Op) ([]byte, error) {
	root := &value{raw: doc}
	if !root.open() || root.kind != '{' {
		return nil, errors.New("the document is not a JSON object")
	}
	for i, op := range ops {
		if err := root.apply(op); err != nil {
			return nil, fmt.Errorf("operation %d of %d (%v): %w", i+1, len(ops), op, err)
		}
	}
	return root.append(make([]byte, 0, len(doc)+64)), nil
}

// apply applies op to the document root.
func (root *value) apply(op Op) error {
	switch {
	case op.Kind < Add || op.Kind > Move:
		return fmt.Errorf("unknown operation %v", op.Kind)
	case len(op.Path) == 0 || (op.Kind == Move && len(op.From) == 0):
		return errors.New("the path is empty")
	case len(op.Value) == 0 && (op.Kind == Add || op.Kind == Set || op.Kind == Replace):
		return errors.New("the operation has no value")
	}
	if op.Kind == Remove {
		_, err := root.take(op.Path)
		return err
	}
	v := &value{raw: op.Value}
	if op.Kind == Move {
		if len(op.Path) > len(op.From) && HasPrefix(op.Path, op.From) {
			return fmt.Errorf("%s lies inside %s: a value cannot move into itself", Format(op.Path), Format(op.From))
		}
		if slices.Equal(op.Path, op.From) { // nothing moves, but the value must be there
			_, _, err := root.get(op.From)
			return err
		}
		var err error
		if v, err = root.take(op.From); err != nil {
			return err
		}
	}
	parent, err := root.walk(op.Path[:len(op.Path)-1])
	if err != nil {
		return err
	}
	return parent.put(op, v)
}

// walk follows the tokens from v and returns the container they name.
func (v *value) walk(toks []string) (*value, error) {
	for i, tok := range toks {
		at := toks[:i+1]
		if !v.open() {
			return nil, notContainer(toks[:i], v)
		}
		j, err := v.find(tok, at)
		if err != nil {
			return nil, err
		}
		if j < 0 {
			return nil, fmt.Errorf("%s does not exist", Format(at))
		}
		v = &v.kids[j]
	}
	if !v.open() {
		return nil, notContainer(toks, v)
	}
	return v, nil
}

// find returns the position of the member or element tok of v, open, or
// -1 when it has none. An index past the end of an array, or a token that
// is no index, is an error, as is a member name the object holds twice.
func (v *value) find(tok string, at []string) (int, error) {
	if v.kind == '[' {
		i, ok := index(tok)
		switch {
		case tok == "-":
			return 0, fmt.Errorf("%s names no element: \"-\" only appends, with add or set", Format(at))
		case !ok:
			return 0, fmt.Errorf("%s: %q is not an array index (0, 1, ..., or - to append)", Format(at), tok)
		case i >= len(v.kids):
			return 0, fmt.Errorf("%s: index %d is past the end of an array of %d elements", Format(at), i, len(v.kids))
		}
		return i, nil
	}
	found := -1
	for j, name := range v.names {
		if jsontext.KeyIs(name, tok) {
			if found >= 0 {
				return 0, fmt.Errorf("%s: the object holds member %q twice, so the path is ambiguous", Format(at), tok)
			}
			found = j
		}
	}
	return found, nil
}

// get returns the container holding the value at path, which must exist,
// and the value's position in it.
func (root *value) get(path []string) (parent *value, j int, err error) {
	if parent, err = root.walk(path[:len(path)-1]); err != nil {
		return nil, 0, err
	}
	if j, err = parent.find(path[len(path)-1], path); err != nil {
		return nil, 0, err
	}
	if j < 0 {
		return nil, 0, fmt.Errorf("%s does not exist", Format(path))
	}
	return parent, j, nil
}

// take removes the value at path, which must exist, and returns it.
func (root *value) take(path []string) (*value, error) {
	parent, j, err := root.get(path)
	if err != nil {
		return nil, err
	}
	v := parent.kids[j]
	parent.kids = slices.Delete(parent.kids, j, j+1)
	if parent.kind == '{' {
		parent.names = slices.Delete(parent.names, j, j+1)
	}
	return &v, nil
}

// put applies op, whose value (for all but Incr) is v, to the member or
// element its last token names in parent.
func (parent *value) put(op Op, v *value) error {
	path := op.Path
	tok := path[len(path)-1]
	kind := op.Kind
	if kind == Move {
		kind = Add
	}
	if parent.kind == '[' {
		if i, ok := index(tok); (ok && i == len(parent.kids)) || tok == "-" {
			if kind != Add && kind != Set {
				return fmt.Errorf("%s names no element: the array has %d", Format(path), len(parent.kids))
			}
			parent.kids = append(parent.kids, *v)
			return nil
		}
		if i, ok := index(tok); ok && i < len(parent.kids) && kind == Add {
			parent.kids = slices.Insert(parent.kids, i, *v)
			return nil
		}
	}
	j, err := parent.find(tok, path)
	if err != nil {
		return err
	}
	switch {
	case j < 0 && (kind == Replace):
		return fmt.Errorf("%s does not exist: replace changes only what is there (set or add also create)", Format(path))
	case j < 0:
		if kind == Incr {
			v = &value{raw: op.By.append(nil)}
		}
		parent.names = append(parent.names, appendQuoted(nil, tok))
		parent.kids = append(parent.kids, *v)
		return nil
	case kind == Incr:
		sum, err := add(&parent.kids[j], op.By)
		if err != nil {
			return fmt.Errorf("%s: %w", Format(path), err)
		}
		v = &value{raw: sum}
	}
	parent.kids[j] = *v
	return nil
}

// notContainer is the error of a path that goes through a scalar.
func notContainer(at []string, v *value) error {
	if len(at) == 0 {
		return errors.New("the document is not a JSON object")
	}
	return fmt.Errorf("%s is %s, not an object or an array, so no path goes through it", Format(at), v.what())
}
