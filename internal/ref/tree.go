package ref

// An independent JSON reading: encoding/json's Decoder, token by token, into
// a tree that keeps members in order, duplicates and number literals.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Node is a JSON value as the oracle reads it.
type Node struct {
	Kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	Str  string // a string's decoded value or a number's literal
	Lone bool   // a string whose literal holds a lone surrogate escape
	Keys []string
	Vals []*Node // members of an object, elements of an array
}

// Parse reads the JSON value b, and nothing after it, into a tree.
func Parse(b []byte) (*Node, error) { return parseWhole(b, parseValue) }

// parseWhole reads one JSON value of b with parse, from a decoder that
// keeps numbers as written, and nothing after it.
func parseWhole[T any](b []byte, parse func(*json.Decoder, []byte) (T, error)) (T, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := parse(dec, b)
	if err != nil {
		return n, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return n, fmt.Errorf("data after the value (%v)", err)
	}
	return n, nil
}

func parseValue(dec *json.Decoder, src []byte) (*Node, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	lit := strings.TrimLeft(string(src[start:dec.InputOffset()]), " \t\r\n,:")
	switch v := tok.(type) {
	case json.Delim:
		n := &Node{Kind: 'a'}
		if v == '{' {
			n.Kind = 'o'
		}
		for dec.More() {
			if n.Kind == 'o' {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("member name %v", kt)
				}
				n.Keys = append(n.Keys, k)
			}
			e, err := parseValue(dec, src)
			if err != nil {
				return nil, err
			}
			n.Vals = append(n.Vals, e)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &Node{Kind: 's', Str: v, Lone: loneSurrogate(lit)}, nil
	case json.Number:
		return &Node{Kind: 'n', Str: string(v)}, nil
	case bool:
		if v {
			return &Node{Kind: 't'}, nil
		}
		return &Node{Kind: 'f'}, nil
	case nil:
		return &Node{Kind: 'z'}, nil
	}
	return nil, fmt.Errorf("token %v", tok)
}

// escape matches one escape of a JSON string literal, left to right, so
// that an escaped backslash is never read as the start of another escape.
var escape = regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|.)`)

// loneSurrogate reports whether the JSON string literal lit holds a \u
// escape of a surrogate that is not half of a high-low pair of adjacent
// escapes: valid JSON, but no Unicode text (R10 refuses it in ids and
// partition keys; encoding/json decodes it as U+FFFD).
func loneSurrogate(lit string) bool {
	ms := escape.FindAllStringSubmatchIndex(lit, -1)
	unit := func(k int) (uint64, bool) {
		m := ms[k]
		if lit[m[2]] != 'u' {
			return 0, false
		}
		u, _ := strconv.ParseUint(lit[m[2]+1:m[3]], 16, 16)
		return u, true
	}
	for k := 0; k < len(ms); k++ {
		u, ok := unit(k)
		switch {
		case !ok || u < 0xd800 || u > 0xdfff:
		case u >= 0xdc00:
			return true // a low surrogate not after a high one
		default: // a high surrogate: the next escape, right after it, must be a low one
			if k+1 == len(ms) || ms[k+1][0] != ms[k][1] {
				return true
			}
			if next, ok := unit(k + 1); !ok || next < 0xdc00 || next > 0xdfff {
				return true
			}
			k++
		}
	}
	return false
}

// Depth is the nesting of containers: a flat object is 1.
func (n *Node) Depth() int {
	if n.Kind != 'o' && n.Kind != 'a' {
		return 0
	}
	d := 0
	for _, v := range n.Vals {
		d = max(d, v.Depth())
	}
	return d + 1
}

// Members returns the values of the members named name.
func (n *Node) Members(name string) []*Node {
	var out []*Node
	for i, k := range n.Keys {
		if k == name {
			out = append(out, n.Vals[i])
		}
	}
	return out
}

// Without returns a copy of the object n without the members named names.
func (n *Node) Without(names ...string) *Node {
	out := &Node{Kind: n.Kind}
	for i, k := range n.Keys {
		if !slices.Contains(names, k) {
			out.Keys = append(out.Keys, k)
			out.Vals = append(out.Vals, n.Vals[i])
		}
	}
	return out
}
