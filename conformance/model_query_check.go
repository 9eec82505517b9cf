package conformance

// The model's answer to a query (R13), and the checks of the library's:
// the rows read page by page, with QueryAll or with a Cursor, a misused
// continuation token, and the plan.

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// Answering and checking queries.

// answer is the model's results of q; amb when they depend on an odd
// value.
func (h *modelHarness) answer(q *mSQL) ([]jv, bool) {
	keys, docs := h.liveJV(q.part) // R4: the live documents only
	type row struct {
		k   mKey
		d   jv
		e   jv // with JOIN t IN c.path: the element t
		ord []jv
	}
	var rows []row
	for i, d := range docs {
		elems := []jv{{}} // without JOIN, one row a document
		if q.join != nil {
			a, amb := d.at(q.join) // JOIN: a row for each element of an array; none of anything else
			if amb || a.odd {
				return nil, true
			}
			elems = a.arr
		}
		for _, e := range elems {
			t, amb := tTrue, false
			if q.where != nil {
				t, amb = q.where.eval(d, e)
			}
			rw := row{k: keys[i], d: d, e: e}
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
	}
	if q.sel == selGroup || q.sel == selAgg {
		docs := make([]jv, len(rows))
		for i, rw := range rows {
			docs[i] = rw.d
		}
		if q.sel == selAgg {
			return answerAgg(q, docs)
		}
		return answerGroups(q, docs)
	}
	if q.sel == selCount {
		n := jv{kind: jNum, n: float64(len(rows)), raw: strconv.Itoa(len(rows))}
		if q.countTimes > 0 {
			k := len(rows) * q.countTimes
			n = jv{kind: jNum, n: float64(k), raw: strconv.Itoa(k)}
		}
		if q.countName != "" {
			n = jv{kind: jObj, obj: []jMember{{q.countName, n}}, raw: `{"` + q.countName + `":` + n.raw + "}"}
		}
		return []jv{n}, false
	}
	if len(q.order) > 0 {
		sign := map[bool]int{false: 1, true: -1}
		slices.SortStableFunc(rows, func(a, b row) int { // a document's rows in its product's order
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
		case q.sel == selElem:
			want = append(want, rw.e)
		case q.sel == selObject:
			want = append(want, objectOf(rw.k.id, v))
		case q.sel == selStar || q.sel == selValue && v.kind != jUndef: // VALUE of undefined is no result
			want = append(want, v)
		}
	}
	if q.distinct { // one of each value, as = compares them
		var out []jv
		for _, w := range want {
			if !slices.ContainsFunc(out, func(o jv) bool { return same(o, w) }) {
				out = append(out, w)
			}
		}
		want = out
	}
	if q.countAll {
		return []jv{{kind: jNum, n: float64(len(want)), raw: strconv.Itoa(len(want))}}, false
	}
	return want, false
}

// sameSet reports whether got and want hold the same values, in any
// order: DISTINCT's results without an order the model predicts.
func sameSet(got, want []jv) bool {
	if len(got) != len(want) {
		return false
	}
	used := make([]bool, len(want))
	for _, g := range got {
		i := slices.IndexFunc(want, func(w jv) bool { return same(g, w) })
		for i >= 0 && used[i] {
			j := slices.IndexFunc(want[i+1:], func(w jv) bool { return same(g, w) })
			if j < 0 {
				i = -1
			} else {
				i += 1 + j
			}
		}
		if i < 0 {
			return false
		}
		used[i] = true
	}
	return true
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
	got, err := h.readSQL(q, s, class, h.resultBound(q)) // no more results than rows, or COUNT's one
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
	gv := make([]jv, len(got))
	for i, r := range got {
		gs[i] = fmt.Sprintf("%.120s", r)
		g, err := parseJV(string(r))
		if err != nil {
			return "", fmt.Errorf("result #%d: %v", i, err)
		}
		gv[i] = g
		diff = diff || !q.distinct && q.group == nil && !same(g, want[i])
	}
	if q.distinct || q.group != nil { // DISTINCT, GROUP BY: the same values, each once, in ttldb's order, which the model does not predict
		diff = !sameSet(gv, want)
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

// resultBound is the most results q may give: a row a document, or with a
// JOIN one an element of the document's array; COUNT's one; two more.
func (h *modelHarness) resultBound(q *mSQL) int {
	n := len(h.m.docs) + 2
	if q.join != nil {
		_, docs := h.liveJV(nil)
		for _, d := range docs {
			a, _ := d.at(q.join)
			n += len(a.arr)
		}
	}
	return n
}
