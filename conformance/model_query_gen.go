package conformance

// The model's queries (R13), drawn at random: paths and values the live
// documents hold, WHERE clauses, ORDER BY, TOP, OFFSET ... LIMIT and
// SELECT, and the step that runs one.

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// Drawing queries.

// Kinds of SELECT clause.
const (
	selID     = iota // SELECT VALUE c.id
	selValue         // SELECT VALUE <path>: no result where it is undefined
	selStar          // SELECT *: the document, _ts and _etag included
	selCount         // SELECT VALUE COUNT(1), SELECT COUNT(1) [AS n], and COUNT(1) inside an expression
	selElem          // SELECT VALUE t, of FROM c JOIN t IN c.path
	selGroup         // GROUP BY a path (model_query_group.go)
	selObject        // {"a": c.id, "b": <path>}, a literal or a select list (model_query_project.go)
	selAgg           // MIN, MAX, SUM or AVG of a path (model_query_agg.go)
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
	countTimes       int    // SELECT VALUE COUNT(1) * countTimes; 0: none
	where            *mCond
	order            []mOrder
	top, offset, lim int             // TOP top, OFFSET offset LIMIT lim; -1: none
	ptrs             []string        // the pointers of the paths WHERE and ORDER BY read: the indexes a plan may name
	vkeys            []string        // the keys of the Params WHERE compares with
	join             []qStep         // JOIN t IN c.join; nil: none
	distinct         bool            // SELECT DISTINCT
	countAll         bool            // SELECT VALUE COUNT(1) FROM (the DISTINCT query) x: its results counted, over every document at once (R13)
	group            []qStep         // GROUP BY this path (model_query_group.go); nil: none
	groupForm        int             // its SELECT's form: groupCount, groupObject or groupValue
	aggFn            string          // selAgg's aggregate: MIN, MAX, SUM or AVG
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
		`IS_NULL|STARTSWITH|MIN|MAX|SUM|AVG|ORDER|GROUP|BY|ASC|DESC|OFFSET|LIMIT|JOIN|DISTINCT|EXISTS)\b`)
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
	h      *modelHarness
	q      *mSQL
	docs   []jv      // the live documents, whose values parameters are drawn from
	paths  [][]qStep // their paths
	elems  []jv      // with a JOIN, the elements of the documents' arrays it joins
	epaths [][]qStep // and their paths, the element itself first
	inElem bool      // values are drawn from elems
	exists *[]qStep  // within an EXISTS subquery over this array path: elems and epaths are its
}

func (g *sqlGen) pathSQL(p []qStep) string { return g.rootedSQL("c", p) }

// rootedSQL writes p from the alias root.
func (g *sqlGen) rootedSQL(root string, p []qStep) string {
	var b strings.Builder
	b.WriteString(root)
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

// condSQL writes p from the alias root for a WHERE condition: as
// rootedSQL does, but that a step is sometimes an index computed from a
// parameter, c[@p1] with p1 "name" or 0 (R13: the service's grammar takes
// any expression in brackets), which no index serves and which gives what
// the literal step gives.
func (g *sqlGen) condSQL(root string, p []qStep) string {
	r := g.h.r
	if len(p) == 0 || r.IntN(6) > 0 {
		return g.rootedSQL(root, p)
	}
	i := r.IntN(len(p))
	k := jv{kind: jStr, s: p[i].name, raw: jsonString(p[i].name)}
	if p[i].isIdx {
		k = jv{kind: jNum, n: float64(p[i].index), raw: strconv.Itoa(p[i].index)}
	}
	return g.rootedSQL(root, p[:i]) + "[" + g.param(k, false) + "]" + g.rootedSQL("", p[i+1:])
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
	docs := g.docs
	if g.inElem {
		docs = g.elems
	}
	for _, d := range docs {
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
	q.sel = pick(r, []int{selID, selID, selID, selID, selID, selValue, selValue, selStar, selCount, selCount, selGroup, selObject, selAgg})
	if arrs := arrayPaths(docs); q.sel != selGroup && len(arrs) > 0 && r.IntN(5) == 0 { // JOIN t IN c.path (R13)
		q.join = pick(r, arrs)
		for _, d := range docs {
			if a, _ := d.at(q.join); a.kind == jArr {
				g.elems = append(g.elems, a.arr...)
			}
		}
		g.epaths = append([][]qStep{{}}, docPaths(g.elems)...)
		q.sel = pick(r, []int{selID, selElem, selElem, selValue, selCount})
	}
	if q.sel != selCount && q.sel != selStar && q.sel != selGroup && q.sel != selAgg && r.IntN(6) == 0 { // DISTINCT (R13): no TOP nor OFFSET, whose results depend on an order the model leaves open
		q.distinct = true
		text += "DISTINCT "
		q.countAll = q.sel == selValue && q.join == nil && r.IntN(3) == 0
	}
	if r.IntN(20) < 3 && q.sel != selCount && q.sel != selValue && q.sel != selGroup && q.sel != selAgg && !q.distinct {
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
		switch q.countName = pick(r, []string{"", "$1", "n", "", "n"}); {
		case r.IntN(4) > 0:
			text += map[string]string{"": "VALUE "}[q.countName] + "COUNT(1)" +
				map[string]string{"n": " AS n"}[q.countName]
		case q.countName == "n": // an aggregate inside an object literal
			text += "VALUE {n: COUNT(1)}"
		default: // an aggregate inside arithmetic
			q.countName, q.countTimes = "", 2+r.IntN(3)
			text += fmt.Sprintf("VALUE COUNT(1) * %d", q.countTimes)
		}
	case selElem:
		text += "VALUE t"
	case selObject:
		text += g.objectSelect()
	case selAgg:
		text += g.aggSelect()
	}
	groupBy := ""
	if q.sel == selGroup {
		var sel string
		sel, groupBy = g.groupSelect()
		text += sel
	}
	text += " FROM c"
	if q.join != nil && r.IntN(3) == 0 { // the same rows through a subquery (R13, JOIN (SELECT ...))
		text += " JOIN (SELECT VALUE t FROM t IN " + g.pathSQL(q.join) + ") t"
	} else if q.join != nil {
		text += " JOIN t IN " + g.pathSQL(q.join)
	}
	if r.IntN(8) == 0 { // a comment, to the end of the line (R13)
		text += pick(r, []string{" -- the documents\n", "-- c.n = 1 ORDER BY c.x\r\n", "\n--\n"})
	}
	if r.IntN(20) < 13 {
		c, w := g.cond(0, false)
		q.where, text = c, text+" WHERE "+w
	}
	text += groupBy
	if q.countAll {
		text = "SELECT VALUE COUNT(1) FROM (" + text + ") x"
	}
	if q.sel != selCount && q.sel != selGroup && q.sel != selAgg && !q.countAll && r.IntN(10) < 4 {
		var items []string
		for range 1 + r.IntN(5)/4 {
			dir := pick(r, []string{"", " ASC", " DESC", " DESC"})
			o := mOrder{path: g.path(true), desc: dir == " DESC"}
			q.order, items = append(q.order, o), append(items, g.pathSQL(o.path)+dir)
		}
		text += " ORDER BY " + strings.Join(items, ", ")
	}
	if q.top < 0 && q.sel != selCount && q.sel != selValue && q.sel != selGroup && q.sel != selAgg && !q.distinct && r.IntN(10) == 0 {
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
