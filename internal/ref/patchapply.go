package ref

// The reference patch applied to a document's tree, one operation at a
// time.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
)

// refIndex reads an array index.
func refIndex(tok string) (int, bool) {
	if !refIndexRE.MatchString(tok) {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}

// member returns the position of the member name of the object n, or -1;
// a name held twice is an error.
func (n *refNode) member(name string) (int, error) {
	at := -1
	for i, nm := range n.names {
		if nm.str == name && !nm.lone {
			if at >= 0 {
				return 0, fmt.Errorf("member %q is there twice", name)
			}
			at = i
		}
	}
	return at, nil
}

// refContainer follows toks from root, each of which must exist, to an
// object or an array.
func refContainer(root *refNode, toks []string) (*refNode, error) {
	n := root
	for i, tok := range toks {
		switch n.kind {
		case 'o':
			j, err := n.member(tok)
			if err != nil {
				return nil, err
			}
			if j < 0 {
				return nil, fmt.Errorf("%q of token %d does not exist", tok, i)
			}
			n = n.kids[j]
		case 'a':
			j, ok := refIndex(tok)
			if !ok || j >= len(n.kids) {
				return nil, fmt.Errorf("no element %q in an array of %d", tok, len(n.kids))
			}
			n = n.kids[j]
		default:
			return nil, fmt.Errorf("token %d goes through %s", i, n.what())
		}
	}
	if n.kind != 'o' && n.kind != 'a' {
		return nil, fmt.Errorf("the parent is %s", n.what())
	}
	return n, nil
}

// refFind returns the container of the value at path, which must exist,
// and its position there.
func refFind(root *refNode, path []string) (*refNode, int, error) {
	parent, err := refContainer(root, path[:len(path)-1])
	if err != nil {
		return nil, 0, err
	}
	last := path[len(path)-1]
	if parent.kind == 'o' {
		j, err := parent.member(last)
		if err == nil && j < 0 {
			err = fmt.Errorf("member %q does not exist", last)
		}
		return parent, j, err
	}
	j, ok := refIndex(last)
	if !ok || j >= len(parent.kids) {
		return nil, 0, fmt.Errorf("no element %q in an array of %d", last, len(parent.kids))
	}
	return parent, j, nil
}

// removeAt removes the member or element at j and returns its value.
func (n *refNode) removeAt(j int) *refNode {
	v := n.kids[j]
	n.kids = slices.Delete(n.kids, j, j+1)
	if n.kind == 'o' {
		n.names = slices.Delete(n.names, j, j+1)
	}
	return v
}

// refNumber is the JSON number of an incr's amount.
func refNumber(o RefPatchOp) *refNode {
	if o.Float {
		return &refNode{kind: 'n', raw: refFloat(o.ByFloat)}
	}
	return &refNode{kind: 'n', raw: strconv.FormatInt(o.By, 10)}
}

// refFloat writes a finite float64 as encoding/json does.
func refFloat(f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// refIncr returns v plus the amount of o.
func refIncr(v *refNode, o RefPatchOp) (*refNode, error) {
	if v.kind != 'n' {
		return nil, fmt.Errorf("incr of %s", v.what())
	}
	// Integers add exactly; an integer literal beyond int64 is refused,
	// never rounded (R14's decisions in SPEC.md).
	if !o.Float && refIntLit.MatchString(v.raw) {
		x, _ := new(big.Int).SetString(v.raw, 10)
		if !x.IsInt64() {
			return nil, fmt.Errorf("%s is beyond int64", v.raw)
		}
		sum := x.Add(x, big.NewInt(o.By))
		if !sum.IsInt64() {
			return nil, fmt.Errorf("%s + %d overflows int64", v.raw, o.By)
		}
		return &refNode{kind: 'n', raw: sum.String()}, nil
	}
	x, err := strconv.ParseFloat(v.raw, 64) // ±Inf beyond float64's range, and then refused below
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		panic(fmt.Sprintf("number %q: %v", v.raw, err))
	}
	d := o.ByFloat
	if !o.Float {
		d = float64(o.By)
	}
	sum := x + d
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return nil, fmt.Errorf("%s + %v is not finite", v.raw, d)
	}
	return &refNode{kind: 'n', raw: refFloat(sum)}, nil
}

// refPut applies add, set, replace or incr (of v, the value, or of o's
// amount) at path.
func refPut(root *refNode, kind string, path []string, v *refNode, o RefPatchOp) error {
	parent, err := refContainer(root, path[:len(path)-1])
	if err != nil {
		return err
	}
	last := path[len(path)-1]
	if parent.kind == 'a' {
		j, isIndex := refIndex(last)
		n := len(parent.kids)
		end := last == "-" || (isIndex && j == n)
		switch {
		case !end && (!isIndex || j > n):
			return fmt.Errorf("no position %q in an array of %d", last, n)
		case end && (kind == "add" || kind == "set"):
			parent.kids = append(parent.kids, v)
		case end:
			return fmt.Errorf("%s at the end of an array of %d, where there is no element", kind, n)
		case kind == "add":
			parent.kids = slices.Insert(parent.kids, j, v)
		case kind == "incr":
			sum, err := refIncr(parent.kids[j], o)
			if err != nil {
				return err
			}
			parent.kids[j] = sum
		default: // set, replace
			parent.kids[j] = v
		}
		return nil
	}
	j, err := parent.member(last)
	switch {
	case err != nil:
		return err
	case j < 0 && kind == "replace":
		return fmt.Errorf("replace of member %q, which does not exist", last)
	case j < 0:
		if kind == "incr" {
			v = refNumber(o)
		}
		parent.names = append(parent.names, refName{str: last})
		parent.kids = append(parent.kids, v)
	case kind == "incr":
		sum, err := refIncr(parent.kids[j], o)
		if err != nil {
			return err
		}
		parent.kids[j] = sum
	default:
		parent.kids[j] = v
	}
	return nil
}

// refApply applies one operation to the document root.
func refApply(root *refNode, op refOp) error {
	switch op.kind {
	case "remove":
		parent, j, err := refFind(root, op.path)
		if err != nil {
			return err
		}
		parent.removeAt(j)
		return nil
	case "move":
		if len(op.path) > len(op.from) && refHasPrefix(op.path, op.from) {
			return errors.New("move into itself")
		}
		parent, j, err := refFind(root, op.from)
		if err != nil {
			return err
		}
		if slices.Equal(op.path, op.from) {
			return nil
		}
		return refPut(root, "add", op.path, parent.removeAt(j), op.by)
	}
	return refPut(root, op.kind, op.path, op.val, op.by)
}
