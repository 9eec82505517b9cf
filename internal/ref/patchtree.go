package ref

// The reference patch's tree of a document: it keeps the literal of every
// string, number and member name as written, so that a result can be
// written back byte for byte as the library stores it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// refNode is a JSON value of the reference's tree.
type refNode struct {
	kind  byte   // 'o' object, 'a' array, 's' string, 'n' number, 't' true, 'f' false, 'z' null
	raw   string // a string's or a number's literal as written; "" for a string the reference made
	str   string // a string's decoded value
	names []refName
	kids  []*refNode // an object's member values, an array's elements
}

// refName is a member name: its literal as written, quotes included ("" for
// a name the reference made from a path), and its decoded value. A name
// whose literal holds a lone surrogate escape ("\ud800") is no Unicode
// text: encoding/json decodes it as U+FFFD, but no path names it (a path is
// UTF-8), so lone marks it, and it matches no token.
type refName struct {
	raw, str string
	lone     bool
}

// refParse reads one JSON value, and nothing after it.
func refParse(b []byte) (*refNode, error) { return parseWhole(b, refParseValue) }

// refLiteral returns the text of the token the decoder just read, which
// started at or after start: a token is preceded only by space and by the
// ',' or ':' that Token consumes with it.
func refLiteral(src []byte, start, end int64) string {
	return strings.TrimLeft(string(src[start:end]), " \t\r\n,:")
}

func refParseValue(dec *json.Decoder, src []byte) (*refNode, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		if v != '{' && v != '[' {
			return nil, fmt.Errorf("unexpected %v", v)
		}
		n := &refNode{kind: 'a'}
		if v == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				at := dec.InputOffset()
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("member name %v", kt)
				}
				lit := refLiteral(src, at, dec.InputOffset())
				n.names = append(n.names, refName{raw: lit, str: k, lone: loneSurrogate(lit)})
			}
			kid, err := refParseValue(dec, src)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &refNode{kind: 's', raw: refLiteral(src, start, dec.InputOffset()), str: v}, nil
	case json.Number:
		return &refNode{kind: 'n', raw: string(v)}, nil
	case bool:
		if v {
			return &refNode{kind: 't'}, nil
		}
		return &refNode{kind: 'f'}, nil
	case nil:
		return &refNode{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("token %v", tok)
}

// refQuote appends s as a JSON string, as encoding/json writes it without
// its HTML escapes: the canonical form of a string, and the reference's
// choice for the member names it makes.
func refQuote(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// appendTo appends n as compact JSON: with canon, strings and member names
// decoded and quoted by refQuote; else each literal as written (which is
// what the library stores), refQuote only for what the reference made.
func (n *refNode) appendTo(dst []byte, canon bool) []byte {
	switch n.kind {
	case 'o', 'a':
		open, end := byte('['), byte(']')
		if n.kind == 'o' {
			open, end = '{', '}'
		}
		dst = append(dst, open)
		for i, kid := range n.kids {
			if i > 0 {
				dst = append(dst, ',')
			}
			if n.kind == 'o' {
				if nm := n.names[i]; canon || nm.raw == "" {
					dst = refQuote(dst, nm.str)
				} else {
					dst = append(dst, nm.raw...)
				}
				dst = append(dst, ':')
			}
			dst = kid.appendTo(dst, canon)
		}
		return append(dst, end)
	case 's':
		if canon || n.raw == "" {
			return refQuote(dst, n.str)
		}
		return append(dst, n.raw...)
	case 'n':
		return append(dst, n.raw...)
	case 't':
		return append(dst, "true"...)
	case 'f':
		return append(dst, "false"...)
	}
	return append(dst, "null"...)
}

// what names n's JSON type, for messages.
func (n *refNode) what() string {
	return map[byte]string{'o': "an object", 'a': "an array", 's': "a string", 'n': "a number", 't': "true", 'f': "false", 'z': "null"}[n.kind]
}

// RefCanonical returns the canonical form of the JSON text s: compact,
// members in order, strings decoded and quoted again, numbers as written.
func RefCanonical(s string) (string, error) {
	n, err := refParse([]byte(s))
	if err != nil {
		return "", err
	}
	return string(n.appendTo(nil, true)), nil
}
