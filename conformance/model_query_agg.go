package conformance

// Aggregates of a path in the model's queries (R13):
//
//	SELECT VALUE MIN(p) FROM c [WHERE ...]      (MAX, SUM, AVG likewise)
//	SELECT MIN(p) AS m FROM c [WHERE ...]       {"m": value}, or {} when undefined
//
// Over the values of p in the rows WHERE keeps, undefined ones left out:
// MIN and MAX order null < false < true < numbers < strings (strings by
// their bytes), and are undefined over none or over any array or object;
// SUM and AVG are undefined when a value is no number, SUM of none is 0,
// AVG of none undefined. SELECT VALUE of undefined gives no result. A sum
// the model cannot make exactly (a value that is no integer, or beyond
// 2^40) is not predicted: ttldb sums with compensation, the model does
// not.

import (
	"math"
	"strconv"
)

// aggSelect draws an aggregate's function and path, and returns its text
// after SELECT.
func (g *sqlGen) aggSelect() string {
	q := g.q
	q.aggFn = pick(g.h.r, []string{"MIN", "MAX", "SUM", "AVG", "MIN", "MAX"})
	q.selPath = g.path(q.aggFn == "MIN" || q.aggFn == "MAX") // an index on it may answer MIN and MAX
	if ix := g.h.m.indexes; (q.aggFn == "MIN" || q.aggFn == "MAX") && len(ix) > 0 && g.h.r.IntN(2) == 0 {
		// Half of them on an indexed path, which the index then answers
		// (unless a partition or another index's filter): g.path alone
		// drew one a third of the time, and few were read by index.
		ptr := pick(g.h.r, ix)
		q.selPath, q.ptrs = pointerPath(ptr), append(q.ptrs, ptr)
	}
	text := q.aggFn + "(" + g.pathSQL(q.selPath) + ")"
	if g.h.r.IntN(2) == 0 {
		q.countName = "m"
		return text + " AS m"
	}
	q.countName = ""
	return "VALUE " + text
}

// answerAgg is the model's result of an aggregate query over the rows of
// docs, and amb when it is not predicted.
func answerAgg(q *mSQL, docs []jv) ([]jv, bool) {
	var best jv
	var sum float64
	n, bad := 0, false
	for _, d := range docs {
		v, amb := d.at(q.selPath)
		switch {
		case amb || v.odd:
			return nil, true
		case v.kind == jUndef:
			continue
		case q.aggFn == "SUM" || q.aggFn == "AVG":
			if v.kind != jNum {
				bad = true
				continue
			}
			if v.n != math.Trunc(v.n) || math.Abs(v.n) > 1<<40 {
				return nil, true
			}
			sum += v.n
		case v.kind == jArr || v.kind == jObj:
			bad = true
		case n == 0 || q.aggFn == "MIN" && orderCmp(v, best) < 0 || q.aggFn == "MAX" && orderCmp(v, best) > 0:
			best = v
		}
		n++
	}
	var res jv // undefined
	switch {
	case bad:
	case q.aggFn == "SUM":
		res = jv{kind: jNum, n: sum, raw: strconv.FormatFloat(sum, 'g', -1, 64)}
	case q.aggFn == "AVG" && n > 0:
		avg := sum / float64(n)
		res = jv{kind: jNum, n: avg, raw: strconv.FormatFloat(avg, 'g', -1, 64)}
	case (q.aggFn == "MIN" || q.aggFn == "MAX") && n > 0:
		res = best
	}
	switch {
	case q.countName != "" && res.kind == jUndef:
		return []jv{{kind: jObj, raw: "{}"}}, false
	case q.countName != "":
		return []jv{{kind: jObj, obj: []jMember{{q.countName, res}}, raw: `{"` + q.countName + `":` + res.raw + "}"}}, false
	case res.kind == jUndef:
		return nil, false
	}
	return []jv{res}, false
}
