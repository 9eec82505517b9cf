package conformance

// Queries in Cosmos SQL and secondary indexes (R13) in the model-based test
// of model_test.go.
//
// The model answers a query from its documents with the spec's semantics
// alone: the live documents in key order (R4, R10); WHERE in three-valued
// logic (values of different types never compare, numbers as doubles,
// strings by their bytes, undefined is not null); ORDER BY in Cosmos's
// order across types, ties in key order in the direction of the first item;
// then TOP or OFFSET ... LIMIT, then SELECT. The results, read in pages of
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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb"
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
	vals []jv
	subs []*mCond
}

// eval is the condition's value on the document d; amb when it depends on
// an odd value.
func (c *mCond) eval(d jv) (tri, bool) {
	switch c.op {
	case "not":
		t, amb := c.subs[0].eval(d)
		return tTrue - t, amb
	case "and", "or":
		a, amb1 := c.subs[0].eval(d)
		b, amb2 := c.subs[1].eval(d)
		if c.op == "or" {
			return max(a, b), amb1 || amb2
		}
		return min(a, b), amb1 || amb2
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

// ---------------------------------------------------------------------------
// Drawing queries.

// Kinds of SELECT clause.
const (
	selID    = iota // SELECT VALUE c.id
	selValue        // SELECT VALUE <path>: no result where it is undefined
	selStar         // SELECT *: the document, _ts and _etag included
	selCount        // SELECT VALUE COUNT(1), SELECT COUNT(1) [AS n]
)

type mOrder struct {
	path []qStep
	desc bool
}

// mSQL is a query step: the query, how it is read, and what the model
// needs to answer it.
type mSQL struct {
	sql              ttldb.SQL
	prepare          bool   // run it as Prepared
	how              string // "pages", "all" or "cursor"
	class            string // the error its input must get
	part             *mPK   // the partition, nil: all
	sel              int
	selPath          []qStep
	countName        string // the member COUNT(1) is named by, "" for VALUE
	where            *mCond
	order            []mOrder
	top, offset, lim int             // TOP top, OFFSET offset LIMIT lim; -1: none
	ptrs             []string        // the pointers of the paths WHERE and ORDER BY read: the indexes a plan may name
	vkeys            []string        // the keys of the Params WHERE compares with
	plan             ttldb.QueryPlan // the first page's plan, or the cursor's
}

// modelQueryLits are parameter values besides those of the documents.
var modelQueryLits = []string{"null", "true", "false", "0", "-0", "1", "7", "2.5", "100", "1e2", "-3", "999",
	"9223372036854775807", `"s"`, `"soon"`, `"a"`, `"é"`, `""`, `"B"`, `"zz"`, `"7"`, `"1"`, "[]", "{}",
	"[1,2,3]", `[1,{"ttl":0}]`, `{"x":1,"y":[1,2]}`, `{"x":1,"pk":"a"}`}

// modelQueryPaths are paths besides the documents': missing, through a
// scalar, array positions, escapes.
var modelQueryPaths = [][]qStep{
	{{name: "nope"}}, {{name: "v"}, {name: "x"}}, {{name: "sub"}, {name: "x"}, {index: 1, isIdx: true}},
	{{name: "sub"}, {name: "x"}, {index: 1, isIdx: true}, {name: "ttl"}}, {{name: "_ts"}}, {{name: "id"}},
	{{name: "t"}, {name: "pk"}}, {{name: "a/b"}}, {{name: "m~n"}}, {{name: "arr"}, {index: 0, isIdx: true}},
}

// identRE and sqlKeywords: the members c.name may name; sqlKeywordRE: the
// keywords and functions the queries use.
var (
	identRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	sqlKeywords = " SELECT TOP VALUE FROM AS WHERE ORDER BY ASC DESC OFFSET LIMIT AND OR NOT IN BETWEEN TRUE " +
		"FALSE NULL UNDEFINED JOIN GROUP DISTINCT EXISTS LIKE ESCAPE ARRAY "
	sqlKeywordRE = regexp.MustCompile(`\b(SELECT|TOP|VALUE|COUNT|AS|FROM|WHERE|NOT|AND|OR|BETWEEN|IN|IS_DEFINED|` +
		`IS_NULL|STARTSWITH|ORDER|BY|ASC|DESC|OFFSET|LIMIT)\b`)
)

// The escapes of JSON Pointers: ~0 is '~', ~1 is '/'.
var (
	ptrEscape   = strings.NewReplacer("~", "~0", "/", "~1")
	ptrUnescape = strings.NewReplacer("~1", "/", "~0", "~")
	ptrEscapes  = strings.NewReplacer("~0", "", "~1", "")
)

// pointer is the JSON Pointer of p, if it has no array position.
func pointer(p []qStep) (string, bool) {
	var b strings.Builder
	for _, s := range p {
		if s.isIdx {
			return "", false
		}
		b.WriteString("/" + ptrEscape.Replace(s.name))
	}
	return b.String(), true
}

// pointerPath is the path of a well-formed JSON Pointer of member names.
func pointerPath(ptr string) []qStep {
	var p []qStep
	for _, seg := range strings.Split(ptr[1:], "/") {
		p = append(p, qStep{name: ptrUnescape.Replace(seg)})
	}
	return p
}

// liveJV is the live documents in the partition (nil: all) as queries read
// them, in key order.
func (h *modelHarness) liveJV(part *mPK) ([]mKey, []jv) {
	keys := h.m.list(part, nil, nil)
	docs := make([]jv, len(keys))
	for i, k := range keys {
		docs[i] = h.docJV(h.m.docs[k])
	}
	return keys, docs
}

// docPaths are the paths of the documents' members, of the members of
// their objects and of the first element of their arrays, sorted.
func docPaths(docs []jv) [][]qStep {
	set := map[string][]qStep{}
	add := func(p ...qStep) { set[fmt.Sprint(p)] = p }
	for _, d := range docs {
		for _, m := range d.obj {
			add(qStep{name: m.name})
			for _, c := range m.v.obj {
				add(qStep{name: m.name}, qStep{name: c.name})
			}
			if len(m.v.arr) > 0 {
				add(qStep{name: m.name}, qStep{isIdx: true})
			}
		}
	}
	var out [][]qStep
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, set[k])
	}
	return out
}

// sqlGen draws one query.
type sqlGen struct {
	h     *modelHarness
	q     *mSQL
	docs  []jv      // the live documents, whose values parameters are drawn from
	paths [][]qStep // their paths
}

func (g *sqlGen) pathSQL(p []qStep) string {
	var b strings.Builder
	b.WriteString("c")
	for _, s := range p {
		switch {
		case s.isIdx:
			fmt.Fprintf(&b, "[%d]", s.index)
		case identRE.MatchString(s.name) && !strings.Contains(sqlKeywords, " "+strings.ToUpper(s.name)+" ") && g.h.r.IntN(4) > 0:
			b.WriteString("." + s.name)
		default:
			b.WriteString("[" + jsonString(s.name) + "]")
		}
	}
	return b.String()
}

// path draws a path: often one an index is on, else mostly one of the
// documents'. One WHERE or ORDER BY reads (read) is one a plan may name.
func (g *sqlGen) path(read bool) []qStep {
	r := g.h.r
	p := pick(r, modelQueryPaths)
	switch n := r.IntN(20); {
	case n < 7 && len(g.h.m.indexes) > 0:
		p = pointerPath(pick(r, g.h.m.indexes))
	case n < 18 && len(g.paths) > 0:
		p = pick(r, g.paths)
	}
	if ptr, ok := pointer(p); ok && read {
		g.q.ptrs = append(g.q.ptrs, ptr)
	}
	return p
}

func anyKind(jv) bool       { return true }
func scalarKind(v jv) bool  { return v.kind < jArr }
func orderedKind(v jv) bool { return v.kind == jBool || v.kind == jNum || v.kind == jStr }

// value draws a value that fits, mostly one a document has at p.
func (g *sqlGen) value(p []qStep, fits func(jv) bool) jv {
	r := g.h.r
	var vs []jv
	for _, d := range g.docs {
		if v, amb := d.at(p); !amb && !v.odd && v.kind != jUndef && fits(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) > 0 && r.IntN(4) > 0 {
		v := pick(r, vs)
		if v.kind == jNum && r.IntN(3) == 0 { // the same double, written otherwise
			v.raw = strconv.FormatFloat(v.n, pick(r, []byte{'e', 'E', 'f'}), -1, 64)
		}
		return v
	}
	for {
		lit := pick(r, modelQueryLits)
		if r.IntN(4) == 0 {
			lit = strconv.Itoa(r.IntN(1000))
		}
		if v, _ := parseJV(lit); fits(v) {
			return v
		}
	}
}

// param adds a parameter of value v, as JSON text (a string sometimes with
// an escape) or a Go value, under its name with or without '@'.
func (g *sqlGen) param(v jv, compared bool) string {
	r := g.h.r
	name := fmt.Sprintf("p%d", len(g.q.sql.Params))
	key := name
	if r.IntN(3) == 0 {
		key = "@" + name
	}
	text := v.raw
	if v.kind == jStr && v.s != "" && v.s[0] < utf8.RuneSelf && r.IntN(3) == 0 {
		text = fmt.Sprintf(`"\u%04x`, v.s[0]) + jsonString(v.s[1:])[1:]
	}
	var val any = json.RawMessage(text)
	if r.IntN(4) == 0 {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if err := dec.Decode(&val); err != nil {
			panic(err)
		}
	}
	if g.q.sql.Params == nil {
		g.q.sql.Params = map[string]any{}
	}
	if g.q.sql.Params[key] = val; compared {
		g.q.vkeys = append(g.q.vkeys, key)
	}
	return "@" + name
}

// cond draws a WHERE condition: comparisons of a path with parameters,
// type tests, and NOT, AND, OR of them. Under NOT (scalar), only those the
// spec leaves in no doubt: no STARTSWITH, no arrays or objects compared
// (whether = of arrays of unlike elements is false or undefined, it does
// not say), BETWEEN bounds in order.
func (g *sqlGen) cond(depth int, scalar bool) (*mCond, string) {
	r := g.h.r
	switch n := r.IntN(20); {
	case n < 4 && depth == 0:
		a, as := g.cond(1, scalar)
		b, bs := g.cond(1, scalar)
		op := []string{"and", "and", "and", "or"}[n]
		return &mCond{op: op, subs: []*mCond{a, b}}, "(" + as + ") " + strings.ToUpper(op) + " (" + bs + ")"
	case n < 6 && !scalar:
		a, as := g.cond(1, true)
		return &mCond{op: "not", subs: []*mCond{a}}, "NOT (" + as + ")"
	}
	p := g.path(true)
	ps := g.pathSQL(p)
	c := &mCond{op: "=", path: p}
	values := anyKind
	if scalar {
		values = scalarKind
	}
	switch n := r.IntN(100); {
	case n < 35:
		if c.vals = []jv{g.value(p, values)}; r.IntN(6) == 0 {
			return c, g.param(c.vals[0], true) + " = " + ps
		}
	case n < 43:
		c.op, c.vals = "!=", []jv{g.value(p, scalarKind)}
	case n < 63:
		c.op, c.vals = pick(r, []string{"<", "<=", ">", ">="}), []jv{g.value(p, orderedKind)}
	case n < 71:
		lo := g.value(p, orderedKind)
		hi := g.value(p, func(v jv) bool { return v.kind == lo.kind })
		if orderCmp(lo, hi) > 0 && (scalar || r.IntN(3) > 0) {
			lo, hi = hi, lo
		}
		c.op, c.vals = "between", []jv{lo, hi}
		return c, fmt.Sprintf("%s BETWEEN %s AND %s", ps, g.param(lo, true), g.param(hi, true))
	case n < 81:
		c.op = "in"
		var ns []string
		for range 1 + r.IntN(3) {
			c.vals = append(c.vals, g.value(p, values))
			ns = append(ns, g.param(c.vals[len(c.vals)-1], true))
		}
		return c, ps + " IN (" + strings.Join(ns, ", ") + ")"
	case n < 88:
		c.op = "defined"
		return c, "IS_DEFINED(" + ps + ")"
	case n < 93 || scalar:
		c.op = "null"
		return c, "IS_NULL(" + ps + ")"
	default:
		c.op = "starts"
		v := g.value(p, func(v jv) bool { return v.kind == jStr })
		if cut := v.s[:r.IntN(len(v.s)+1)]; utf8.ValidString(cut) && r.IntN(2) == 0 {
			v.s, v.raw = cut, jsonString(cut) // a prefix
		}
		c.vals = []jv{v}
		return c, "STARTSWITH(" + ps + ", " + g.param(v, true) + ")"
	}
	return c, ps + " " + c.op + " " + g.param(c.vals[0], true)
}

// genSQL draws a query step: a SELECT clause, maybe WHERE, ORDER BY, TOP
// or OFFSET ... LIMIT, a partition (sometimes a bad one), sometimes a
// defect, and how to read it: in pages, with QueryAll, or with a Cursor.
func (h *modelHarness) genSQL() modelStep {
	r := h.r
	_, docs := h.liveJV(nil)
	q := &mSQL{top: -1, offset: -1, how: pick(r, []string{"pages", "pages", "pages", "all", "cursor"})}
	g := &sqlGen{h: h, q: q, docs: docs, paths: docPaths(docs)}
	pdesc := "all"
	if n := r.IntN(40); n >= 26 && n < 39 {
		p := pick(r, h.parts).pk
		if live := h.m.list(nil, nil, nil); h.idPath && len(live) > 0 && r.IntN(2) == 0 {
			p = pick(r, live).pk
		}
		if n >= 37 { // maybe never used
			p = pick(r, []mPK{{kind: mkString, str: "zz"}, {kind: mkNumber, num: 99}})
		}
		pk := h.pkGo(p)
		q.sql.Partition, q.part, pdesc = &pk, &p, fmt.Sprintf("%.30s", pkName(p))
	} else if n == 39 {
		pk := pick(r, modelBadPKs)
		q.sql.Partition, q.class, pdesc = &pk, classInvalidPK, fmt.Sprintf("%.20v (bad)", pk)
	}

	text := "SELECT "
	q.sel = pick(r, []int{selID, selID, selID, selID, selID, selValue, selValue, selStar, selCount, selCount})
	if r.IntN(20) < 3 && q.sel != selCount && q.sel != selValue {
		q.top = r.IntN(5)
		text += fmt.Sprintf("TOP %d ", q.top)
	}
	switch q.sel {
	case selID:
		text += "VALUE c.id"
	case selValue:
		q.selPath = g.path(false)
		text += "VALUE " + g.pathSQL(q.selPath)
	case selStar:
		text += "*"
	case selCount:
		q.countName = pick(r, []string{"", "$1", "n"})
		text += map[string]string{"": "VALUE "}[q.countName] + "COUNT(1)" +
			map[string]string{"n": " AS n"}[q.countName]
	}
	text += " FROM c"
	if r.IntN(20) < 13 {
		c, w := g.cond(0, false)
		q.where, text = c, text+" WHERE "+w
	}
	if q.sel != selCount && r.IntN(10) < 4 {
		var items []string
		for range 1 + r.IntN(5)/4 {
			dir := pick(r, []string{"", " ASC", " DESC", " DESC"})
			o := mOrder{path: g.path(true), desc: dir == " DESC"}
			q.order, items = append(q.order, o), append(items, g.pathSQL(o.path)+dir)
		}
		text += " ORDER BY " + strings.Join(items, ", ")
	}
	if q.top < 0 && q.sel != selCount && q.sel != selValue && r.IntN(10) == 0 {
		q.offset, q.lim = r.IntN(4), r.IntN(5)
		text += fmt.Sprintf(" OFFSET %d LIMIT %d", q.offset, q.lim)
	}
	if r.IntN(5) == 0 { // keywords and function names in any case (R13)
		text = sqlKeywordRE.ReplaceAllStringFunc(text, pick(r, []func(string) string{strings.ToLower,
			func(w string) string { return w[:1] + strings.ToLower(w[1:]) }}))
	}
	if q.sql.Text = text; q.how == "pages" {
		q.sql.MaxItems = r.IntN(5)
	}
	if q.class == okClass && r.IntN(25) == 0 { // one defect
		q.class = classInvalidQuery
		switch {
		case len(q.sql.Params) > 0 && r.IntN(3) == 0: // every use needs a value
			delete(q.sql.Params, pick(r, slices.Sorted(maps.Keys(q.sql.Params))))
		case r.IntN(2) == 0: // and every value a use
			if q.sql.Params == nil {
				q.sql.Params = map[string]any{}
			}
			q.sql.Params["unused"] = 1
		default:
			q.sql.MaxItems, q.class, q.how = -1, classInvalidOpt, "pages"
		}
	}
	q.prepare = r.IntN(5) == 0
	var ps []string
	for _, k := range slices.Sorted(maps.Keys(q.sql.Params)) {
		b, _ := json.Marshal(q.sql.Params[k])
		ps = append(ps, fmt.Sprintf("%s=%s", k, b))
	}
	desc := fmt.Sprintf("Query %q params{%s} partition=%s maxItems=%d via %s prepared=%v",
		q.sql.Text, strings.Join(ps, " "), pdesc, q.sql.MaxItems, q.how, q.prepare)
	return modelStep{desc, func() (string, error) {
		res, err := h.runSQL(q)
		if err != nil {
			err = fmt.Errorf("%s: %v", desc, err)
		}
		return res, err
	}}
}

// ---------------------------------------------------------------------------
// Answering and checking queries.

// answer is the model's results of q; amb when they depend on an odd
// value.
func (h *modelHarness) answer(q *mSQL) ([]jv, bool) {
	keys, docs := h.liveJV(q.part) // R4: the live documents only
	type row struct {
		k   mKey
		d   jv
		ord []jv
	}
	var rows []row
	for i, d := range docs {
		t, amb := tTrue, false
		if q.where != nil {
			t, amb = q.where.eval(d)
		}
		rw := row{k: keys[i], d: d}
		for _, o := range q.order {
			v, a := d.at(o.path)
			rw.ord, amb = append(rw.ord, v), amb || a || v.odd && v.kind == jNum
		}
		if amb {
			return nil, true
		} else if t == tTrue { // WHERE keeps a row only when its condition is true
			rows = append(rows, rw)
		}
	}
	if q.sel == selCount {
		n := jv{kind: jNum, n: float64(len(rows)), raw: strconv.Itoa(len(rows))}
		if q.countName != "" {
			n = jv{kind: jObj, obj: []jMember{{q.countName, n}}, raw: `{"` + q.countName + `":` + n.raw + "}"}
		}
		return []jv{n}, false
	}
	if len(q.order) > 0 {
		sign := map[bool]int{false: 1, true: -1}
		slices.SortFunc(rows, func(a, b row) int {
			for i, o := range q.order {
				if c := orderCmp(a.ord[i], b.ord[i]); c != 0 {
					return c * sign[o.desc]
				}
			}
			return cmpKey(a.k, b.k) * sign[q.order[0].desc] // ties in key order, as the first item goes
		})
	}
	if q.top >= 0 {
		rows = rows[:min(q.top, len(rows))]
	}
	if q.offset >= 0 {
		rows = rows[min(q.offset, len(rows)):]
		rows = rows[:min(q.lim, len(rows))]
	}
	var want []jv
	for _, rw := range rows {
		v, amb := rw.d.at(q.selPath)
		if amb || v.odd && q.sel != selID {
			return nil, true
		}
		switch {
		case q.sel == selID:
			want = append(want, jv{kind: jStr, s: rw.k.id, raw: jsonString(rw.k.id)})
		case q.sel == selStar || q.sel == selValue && v.kind != jUndef: // VALUE of undefined is no result
			want = append(want, v)
		}
	}
	return want, false
}

// runSQL runs a query step, and compares its results with the model's.
func (h *modelHarness) runSQL(q *mSQL) (string, error) {
	s := q.sql
	if q.prepare {
		p, err := ttldb.Prepare(s.Text)
		if err != nil || p.Text() != s.Text {
			return "", fmt.Errorf("Prepare: %v", err)
		}
		s.Prepared, s.Text = p, ""
	}
	class := q.class
	if class == okClass && h.m.closed {
		class = classClosed
	}
	want, amb := h.answer(q)
	got, err := h.readSQL(q, s, class, len(h.m.docs)+2) // no more results than documents, or COUNT's one
	if err != nil || class != okClass {
		return orOK(class), err
	}
	res := fmt.Sprintf("ok %d results", len(got))
	if q.plan.Index != "" {
		res += fmt.Sprintf(" by index %s ordered=%v", q.plan.Index, q.plan.Ordered)
	}
	if amb {
		return res + " (not predicted: an odd value)", nil
	}
	gs, ws := make([]string, len(got)), make([]string, len(want))
	diff := len(got) != len(want)
	for i, r := range got {
		gs[i] = fmt.Sprintf("%.120s", r)
		g, err := parseJV(string(r))
		if err != nil {
			return "", fmt.Errorf("result #%d: %v", i, err)
		}
		diff = diff || !same(g, want[i])
	}
	if diff {
		for i, w := range want {
			ws[i] = fmt.Sprintf("%.120s", w.raw)
		}
		return "", fmt.Errorf("plan %+v, indexes %q:\n  got  %d results %s\n  want %d results %s",
			q.plan, h.m.indexes, len(got), strings.Join(gs, " "), len(want), strings.Join(ws, " "))
	}
	return res, nil
}

// readSQL reads a query's results as q.how says: page by page, MaxItems
// changing between pages (0: the rest), sometimes trying a page's token
// with another query; with QueryAll; or with a Cursor, n results at a time.
// It checks each plan, and keeps the first page's, or the cursor's.
func (h *modelHarness) readSQL(q *mSQL, s ttldb.SQL, class string, bound int) ([]json.RawMessage, error) {
	r := h.r
	var out []json.RawMessage
	switch q.how {
	case "all":
		var errs []error
		for res, err := range h.c.QueryAll(bg, s) {
			if err != nil {
				errs = append(errs, err)
			} else {
				out = append(out, slices.Clone(res)) // valid until the next one
			}
		}
		if class != okClass && (len(errs) != 1 || len(out) > 0) || class == okClass && len(errs) > 0 {
			return nil, fmt.Errorf("QueryAll: %d results and errors %v, want %s", len(out), errs, orOK(class))
		} else if class != okClass {
			return nil, h.checkErr("QueryAll", errs[0], class, "")
		}
		return out, nil
	case "cursor":
		cur, err := h.c.OpenQuery(bg, s)
		if e := h.checkErr("OpenQuery", err, class, ""); e != nil || err != nil {
			return nil, e
		}
		defer cur.Close()
		for {
			if _, err := cur.Next(bg, 0); r.IntN(15) == 0 && !errors.Is(err, ttldb.ErrInvalidOption) {
				return nil, fmt.Errorf("Cursor.Next(0): %v, want ErrInvalidOption", err)
			}
			n := 1 + r.IntN(4)
			got, err := cur.Next(bg, n)
			if out = append(out, got...); err != nil || len(got) > n || len(out) > bound {
				return nil, fmt.Errorf("Cursor.Next(%d): %d results, %v", n, len(got), err)
			}
			if len(got) < n { // fewer only when the results run out, and then none
				if more, err := cur.Next(bg, 1); len(more) > 0 || err != nil {
					return nil, fmt.Errorf("Cursor.Next after the last result: %d results, %v", len(more), err)
				}
				break
			}
		}
		if q.plan = cur.Plan(); h.checkPlan("Cursor.Plan", q, q.plan) != nil {
			return nil, h.checkPlan("Cursor.Plan", q, q.plan)
		}
		if err, again := cur.Close(), cur.Close(); err != nil || again != nil {
			return nil, fmt.Errorf("Cursor.Close: %v, then %v", err, again)
		}
		if _, err := cur.Next(bg, 1); !errors.Is(err, ttldb.ErrClosed) {
			return nil, fmt.Errorf("Cursor.Next after Close: %v, want ErrClosed", err)
		}
		return out, nil
	}
	for page := 0; page <= bound; page++ {
		p, err := h.c.Query(bg, s)
		if e := h.checkErr("Query", err, class, ""); e != nil || err != nil {
			return nil, e
		}
		class = okClass
		op := fmt.Sprintf("page %d (MaxItems %d)", page, s.MaxItems)
		switch {
		case s.MaxItems > 0 && len(p.Results) > s.MaxItems, s.MaxItems == 0 && p.Continuation != "":
			return nil, fmt.Errorf("%s: %d results, continuation %q", op, len(p.Results), p.Continuation)
		case page == 0: // Explain says what the first page reads
			q.plan = p.Plan
			if x, err := h.c.Explain(bg, s); err != nil || x.Index != p.Plan.Index || x.Ordered != p.Plan.Ordered {
				return nil, fmt.Errorf("Explain: %+v, %v; the first page's plan %+v", x, err, p.Plan)
			}
		}
		if err := h.checkPlan(op, q, p.Plan); err != nil {
			return nil, err
		}
		if out = append(out, p.Results...); p.Continuation == "" {
			return out, nil
		}
		if err := h.misuseToken(q, s, p.Continuation); err != nil {
			return nil, fmt.Errorf("%s: %v", op, err)
		}
		s.Continuation = p.Continuation
		if r.IntN(3) == 0 { // a token takes another MaxItems
			s.MaxItems = r.IntN(4)
		}
	}
	return nil, fmt.Errorf("more than %d pages", bound)
}

// misuseToken sometimes resumes s with its token tok, but for another
// query: the token binds to the query's text, parameters and partition
// (R13).
func (h *modelHarness) misuseToken(q *mSQL, s ttldb.SQL, tok string) error {
	r := h.r
	s.Continuation = tok
	how := "another partition"
	switch n := r.IntN(18); {
	case n > 2:
		return nil
	case n == 0 && len(q.vkeys) > 0:
		s.Params = maps.Clone(s.Params)
		s.Params[pick(r, q.vkeys)] = json.RawMessage(`"other"`)
		how = "other parameters"
	case n == 1:
		s.Continuation, how = pick(r, []string{"x", "AAAAAAAA", tok[:len(tok)/2]}), "a made-up token"
	case s.Partition != nil:
		s.Partition = nil
	default:
		pk := h.pkGo(pick(r, h.parts).pk)
		s.Partition = &pk
	}
	_, err := h.c.Query(bg, s)
	return h.checkErr("Query with the token of another query ("+how+")", err, classInvalidToken, "")
}

// checkPlan checks a query's plan: an index it reads is one of the
// collection's, on a path WHERE or ORDER BY reads, and gives ORDER BY's
// order only when on the first ORDER BY path.
func (h *modelHarness) checkPlan(op string, q *mSQL, p ttldb.QueryPlan) error {
	first := ""
	if len(q.order) > 0 {
		first, _ = pointer(q.order[0].path)
	}
	if p.Index != "" && (!slices.Contains(h.m.indexes, p.Index) || !slices.Contains(q.ptrs, p.Index)) ||
		p.Ordered && p.Index != first || p.Matched < 0 || p.Examined < p.Matched {
		return fmt.Errorf("%s: plan %+v; the collection's indexes %q, the paths WHERE and ORDER BY read %q",
			op, p, h.m.indexes, q.ptrs)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Indexes.

// modelIndexPaths are index paths besides the documents': missing members,
// escapes, nested and system ones; modelBadIndexPaths are not JSON
// Pointers of member names.
var (
	modelIndexPaths = []string{"/nope", "/a~1b", "/m~0n", "/sub/x", "/sub/ttl", "/t/pk", "/t/x", "/_ts",
		"/_etag", "/id", "/pk", "/v", "/v/0", "/n", "/arr", "/sub"}
	modelBadIndexPaths = []string{"", "v", "/", "/v/", "//v", "/v~2", "/v~", "sub/x", "/~", "v/"}
)

// badIndexPath says whether ptr is no JSON Pointer of member names: those
// start with '/', escape '~' as ~0 and '/' as ~1, and are not empty (the
// library refuses the pointer of the member named "", as it does //).
func badIndexPath(ptr string) bool {
	return !strings.HasPrefix(ptr, "/") || slices.ContainsFunc(strings.Split(ptr[1:], "/"), func(seg string) bool {
		return seg == "" || strings.Contains(ptrEscapes.Replace(seg), "~")
	})
}

// indexPath draws an index path: an existing index's (n < exists of 20),
// one of the documents' members, of modelIndexPaths, or a bad one.
func (h *modelHarness) indexPath(exists int) (string, bool) {
	r := h.r
	ptr := pick(r, modelIndexPaths)
	switch n := r.IntN(20); {
	case n < 2:
		ptr = pick(r, modelBadIndexPaths)
	case n < 2+exists && len(h.m.indexes) > 0:
		ptr = pick(r, h.m.indexes)
	case n < 16:
		_, docs := h.liveJV(nil)
		for _, p := range docPaths(docs) {
			if s, ok := pointer(p); ok && r.IntN(4) == 0 {
				ptr = s
			}
		}
	}
	return ptr, badIndexPath(ptr)
}

// indexOp predicts CreateIndex (create) or DropIndex of ptr, and applies it
// to the model: bad when ptr is no JSON Pointer of member names, canceled
// when CreateIndex's context has ended.
func (m *model) indexOp(create bool, ptr string, bad, canceled bool) string {
	has := slices.Contains(m.indexes, ptr)
	switch {
	case canceled:
		return classCanceled // R16: a call whose context is done does nothing, whatever else is wrong
	case m.closed:
		return classClosed // whatever the path, as every call after Close
	case bad:
		return classInvalidOpt
	case create && (m.noIndex || has):
		return classInvalidOpt // R8: mode none keeps no index; one index on a path
	case !create && !has:
		return classNotFound
	case create:
		m.indexes = append(m.indexes, ptr)
	default:
		m.indexes = slices.DeleteFunc(m.indexes, func(p string) bool { return p == ptr })
	}
	return okClass
}

// genIndexOp creates an index, sometimes on a path that has one or with a
// context that has ended, or drops one, mostly one that exists. Indexes()
// is checked after every step (checkInvariants).
func (h *modelHarness) genIndexOp(create bool) modelStep {
	ptr, bad := h.indexPath(map[bool]int{true: 4, false: 13}[create])
	canceled := create && h.r.IntN(12) == 0
	desc := fmt.Sprintf("DropIndex(%q)", ptr)
	if create {
		desc = fmt.Sprintf("CreateIndex(%q) canceled=%v", ptr, canceled)
	}
	return modelStep{desc, func() (string, error) {
		var err error
		if create {
			ctx, cancel := context.WithCancel(context.Background())
			if canceled {
				cancel()
			}
			err = h.c.CreateIndex(ctx, ptr)
			cancel()
		} else {
			err = h.c.DropIndex(bg, ptr)
		}
		op, want := strings.Fields(desc)[0], h.m.indexOp(create, ptr, bad, canceled)
		switch {
		case want == classCanceled && !errors.Is(err, context.Canceled):
			return "", fmt.Errorf("%s: %v, want context.Canceled", op, err)
		case want == classCanceled:
			return want, nil
		}
		return orOK(want), h.checkErr(op, err, want, "")
	}}
}

// drawIndexes draws the Options.Indexes of a collection being opened.
func (h *modelHarness) drawIndexes() []string {
	var out []string
	for range h.r.IntN(3) {
		if p := pick(h.r, modelIndexPaths); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
