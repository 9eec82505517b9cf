package conformance

// Queries in Cosmos SQL and secondary indexes (R13) in the model-based test
// of model.go.
//
// The model answers a query from its documents with the spec's semantics
// alone: the live documents in key order (R4, R10); WHERE in three-valued
// logic (values of different types never compare, numbers as doubles,
// strings by their bytes, undefined is not null); ORDER BY in Cosmos's
// order across types, ties in key order in the direction of the first item;
// then TOP or OFFSET ... LIMIT, then SELECT. A JOIN t IN c.path makes a
// row of each element of the array there (none for anything else), in the
// document's order, WHERE testing c's and t's paths; EXISTS(SELECT VALUE u
// FROM u IN c.path WHERE cond) is true when some element makes cond true;
// DISTINCT keeps one of equal values, compared as a set, the model
// predicting no order for it, or counts them through SELECT VALUE COUNT(1)
// FROM (SELECT DISTINCT VALUE ...) x, which reads every document at once;
// a WHERE condition's step is sometimes an index computed from a
// parameter (c[@p]), and a comment sometimes stands between clauses;
// GROUP BY a path gives a result a group, in
// three forms of SELECT, compared as a set too (model_query_group.go); an
// object literal or a select list projects a row's id and a path's value
// (model_query_project.go); MIN, MAX, SUM and AVG of a path give one
// result (model_query_agg.go). The results, read in pages of
// random sizes that follow the continuation tokens, with QueryAll or with a
// Cursor, are compared value by value: whatever the indexes, they are the
// same; a plan may name only one of the collection's indexes, on a path
// WHERE or ORDER BY reads. The model keeps the indexes in the order they
// were made, and predicts CreateIndex and DropIndex (bad paths, duplicates,
// missing ones, indexing mode none, R8); a durable collection keeps them
// across a reopen and adds those of Options.Indexes (R12).
//
// A value that holds an object with a member twice or a number beyond the
// doubles (a patch may write either, R14) is odd: a query whose answer
// depends on one is only checked to run.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	classInvalidQuery = "ErrInvalidQuery"  // R13, in modelSentinels
	classCanceled     = "context.Canceled" // CreateIndex's when its context has ended: no sentinel
)

// ---------------------------------------------------------------------------
// JSON values as a query sees them.

// Kinds of jv, in the order ORDER BY sorts them (false before true).
const (
	jUndef = iota
	jNull
	jBool
	jNum
	jStr
	jArr
	jObj
)

// jv is a JSON value, or undefined (the zero jv).
type jv struct {
	kind int
	b    bool
	n    float64 // a number as a double (R13)
	raw  string  // the value as written
	s    string
	arr  []jv
	obj  []jMember
	odd  bool
}

type jMember struct {
	name string
	v    jv
}

func parseJV(text string) (jv, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var decode func() (jv, error)
	decode = func() (v jv, err error) {
		start := dec.InputOffset()
		defer func() { v.raw = strings.TrimLeft(text[start:dec.InputOffset()], " \t\r\n,:") }()
		t, err := dec.Token()
		switch t := t.(type) {
		case bool:
			return jv{kind: jBool, b: t}, nil
		case json.Number:
			f, err := t.Float64()
			return jv{kind: jNum, n: f, odd: err != nil}, nil
		case string:
			return jv{kind: jStr, s: t}, nil
		case nil:
			return jv{kind: jNull}, err
		}
		v = jv{kind: jArr}
		if t == json.Delim('{') {
			v.kind = jObj
		}
		for dec.More() {
			var name string
			if v.kind == jObj {
				t, _ := dec.Token()
				name, _ = t.(string)
				v.odd = v.odd || slices.ContainsFunc(v.obj, func(m jMember) bool { return m.name == name })
			}
			e, err := decode()
			if err != nil {
				return jv{}, err
			}
			if v.odd = v.odd || e.odd; v.kind == jArr {
				v.arr = append(v.arr, e)
			} else {
				v.obj = append(v.obj, jMember{name, e})
			}
		}
		_, err = dec.Token() // ] or }
		return v, err
	}
	v, err := decode()
	if _, end := dec.Token(); err == nil && end != io.EOF {
		err = errors.New("more after the value")
	}
	if err != nil {
		return jv{}, fmt.Errorf("%.200s: %v", text, err)
	}
	return v, nil
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// qStep is a step of a query's path: a member, or an array position.
type qStep struct {
	name  string
	index int
	isIdx bool
}

// at is the value at path p: undefined where a step finds nothing (a
// missing member, a position out of range, a step through a scalar); amb
// when a step meets a member that is there twice.
func (v jv) at(p []qStep) (jv, bool) {
	for _, s := range p {
		switch {
		case s.isIdx && v.kind == jArr && s.index < len(v.arr):
			v = v.arr[s.index]
		case !s.isIdx && v.kind == jObj:
			var found jv
			n := 0
			for _, m := range v.obj {
				if m.name == s.name {
					found, n = m.v, n+1
				}
			}
			if n > 1 {
				return jv{}, true
			}
			v = found
		default:
			return jv{}, false
		}
	}
	return v, false
}

// same is = of two defined values (R13): numbers as doubles, strings by
// bytes, arrays element by element, objects member by member in any order.
func same(a, b jv) bool {
	switch {
	case a.kind != b.kind:
		return false
	case a.kind == jArr:
		return slices.EqualFunc(a.arr, b.arr, same)
	case a.kind == jObj:
		return len(a.obj) == len(b.obj) && !slices.ContainsFunc(a.obj, func(m jMember) bool {
			w, _ := b.at([]qStep{{name: m.name}})
			return !same(m.v, w)
		})
	}
	return orderCmp(a, b) == 0
}

// orderCmp is ORDER BY's order (R13): undefined < null < false < true <
// numbers < strings < arrays < objects; arrays equal among themselves,
// objects too.
func orderCmp(a, b jv) int {
	rank := func(v jv) int {
		if v.kind > jBool || v.kind == jBool && v.b {
			return v.kind + 1
		}
		return v.kind
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.n, b.n), strings.Compare(a.s, b.s))
}

// docJV is the document as queries read it: its members, _ts and _etag.
// The members, parsed once, are kept in h.bodies.
func (h *modelHarness) docJV(d *mDoc) jv {
	v, ok := h.bodies[d]
	if !ok {
		var err error
		if v, err = parseJV(d.body()); err != nil {
			panic(err)
		}
		if h.bodies == nil {
			h.bodies = map[*mDoc]jv{}
		}
		h.bodies[d] = v
	}
	ts := strconv.FormatInt(d.ts, 10)
	v.obj = append(slices.Clip(v.obj), jMember{"_ts", jv{kind: jNum, n: float64(d.ts), raw: ts}},
		jMember{"_etag", jv{kind: jStr, s: d.etag, raw: jsonString(d.etag)}})
	v.raw = v.raw[:len(v.raw)-1] + `,"_ts":` + ts + `,"_etag":` + jsonString(d.etag) + "}"
	return v
}

// ---------------------------------------------------------------------------
// WHERE clauses.

// tri is a condition's value: false < undefined < true, so that AND is
// min, OR max and NOT tTrue-t, the spec's three-valued logic (R13).
type tri int8

const (
	tFalse tri = iota
	tUndef
	tTrue
)

func triOf(b bool) tri {
	if b {
		return tTrue
	}
	return tFalse
}

// mCond is a condition: a path compared with parameters (=, !=, <, <=, >,
// >=, between, in, starts), a type test (defined, null), or not, and, or
// of conditions.
type mCond struct {
	op   string
	path []qStep
	elem bool // path is from the JOIN's alias t, not from c
	vals []jv
	subs []*mCond
}

// eval is the condition's value on the document d, and with a JOIN its
// element e; amb when it depends on an odd value.
func (c *mCond) eval(d, e jv) (tri, bool) {
	switch c.op {
	case "not":
		t, amb := c.subs[0].eval(d, e)
		return tTrue - t, amb
	case "exists": // of the subquery's rows, one at least for which its condition is true
		a, amb := d.at(c.path)
		if amb || a.odd {
			return tUndef, true
		}
		for _, x := range a.arr {
			if t, amb := c.subs[0].eval(d, x); amb {
				return tUndef, true
			} else if t == tTrue {
				return tTrue, false
			}
		}
		return tFalse, false
	case "and", "or":
		a, amb1 := c.subs[0].eval(d, e)
		b, amb2 := c.subs[1].eval(d, e)
		if c.op == "or" {
			return max(a, b), amb1 || amb2
		}
		return min(a, b), amb1 || amb2
	}
	if c.elem {
		d = e
	}
	x, amb := d.at(c.path)
	if amb || x.odd && c.op != "defined" && c.op != "null" {
		return tUndef, true
	}
	switch c.op {
	case "defined":
		return triOf(x.kind != jUndef), false
	case "null":
		return triOf(x.kind == jNull), false
	case "starts":
		if x.kind != jStr {
			return tUndef, false
		}
		return triOf(strings.HasPrefix(x.s, c.vals[0].s)), false
	case "like": // the pattern, % and _ only, as a regular expression
		if x.kind != jStr {
			return tUndef, false
		}
		re := strings.NewReplacer("%", ".*", "_", ".").Replace(regexp.QuoteMeta(c.vals[0].s))
		return triOf(regexp.MustCompile(`^(?s:` + re + `)$`).MatchString(x.s)), false
	case "in":
		t := tFalse
		for _, v := range c.vals {
			t = max(t, compare("=", x, v))
		}
		return t, false
	case "between":
		return min(compare(">=", x, c.vals[0]), compare("<=", x, c.vals[1])), false
	}
	return compare(c.op, x, c.vals[0]), false
}

var cmpOps = map[string]func(int) bool{
	"=": func(c int) bool { return c == 0 }, "!=": func(c int) bool { return c != 0 },
	"<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
	">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
}

// compare is x op v: undefined unless both are defined and of one type.
// (Arrays and objects are only compared with =, null with = and !=.)
func compare(op string, x, v jv) tri {
	switch {
	case x.kind == jUndef || x.kind != v.kind:
		return tUndef
	case x.kind >= jArr:
		return triOf(same(x, v) == (op == "="))
	}
	return triOf(cmpOps[op](orderCmp(x, v)))
}
