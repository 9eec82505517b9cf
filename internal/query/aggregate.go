package query

import (
	"math"
	"strconv"
	"strings"
)

// aggKind is the aggregate of a SELECT clause that is one.
type aggKind uint8

const (
	aggCount aggKind = iota
	aggSum
	aggAvg
	aggMin
	aggMax
)

// aggNameOf are the aggregates' names, by kind.
var aggNameOf = [...]string{"COUNT", "SUM", "AVG", "MIN", "MAX"}

// aggNames are the aggregates by upper-case name.
var aggNames = map[string]aggKind{"COUNT": aggCount, "SUM": aggSum, "AVG": aggAvg, "MIN": aggMin, "MAX": aggMax}

// Aggregation is the state of a query's aggregates over the rows added to
// it with [Bound.Accumulate]. The zero Aggregation has seen no row.
type Aggregation struct {
	s []aggState // by the aggregates' idx
}

// aggState is one aggregate's state over the rows added to it.
type aggState struct {
	n    int64   // COUNT: the defined values; SUM, AVG: the numbers added
	sum  float64 // SUM, AVG: the sum, and the error of its roundings
	comp float64
	bad  bool   // SUM, AVG: a value that is no number; MIN, MAX: an array or an object
	best Value  // MIN, MAX: the least or greatest value so far; undefined: none yet
	raw  string // MIN, MAX: best's JSON text, a copy
}

// Accumulate adds r, a row that matches, to a: its value of each
// aggregate's argument, which undefined leaves out. Its cost is that of
// evaluating the arguments; it allocates on the first row only. A
// subquery beyond a limit sets r.Err (Each returns it).
func (b *Bound) Accumulate(a *Aggregation, r Row) { b.accumulateAll(b.q, a, &r) }

// accumulateAll adds r to each aggregate of a, those of q (the Bound's
// query or one of its subqueries).
func (b *Bound) accumulateAll(q *Query, a *Aggregation, r *Row) {
	if a.s == nil {
		a.s = make([]aggState, len(q.aggs))
	}
	for i, e := range q.aggs {
		b.accumulate(e.agg, e.args[0], &a.s[i], r)
	}
}

// accumulate adds the value of e for r to a, an aggregate of kind agg.
func (b *Bound) accumulate(agg aggKind, e *expr, a *aggState, r *Row) {
	v := b.eval(e, r)
	if v.Kind == Undefined {
		return
	}
	switch agg {
	case aggCount:
		a.n++
	case aggSum, aggAvg:
		if v.Kind != Number {
			a.bad = true
			return
		}
		a.n++
		// Neumaier's summation: the sum as if rounded once, in any order
		// of the rows (nearly always), as the service's order is not
		// ttldb's, and AVG the exact mean rounded once.
		t := a.sum + v.Num
		if math.Abs(a.sum) >= math.Abs(v.Num) {
			a.comp += (a.sum - t) + v.Num
		} else {
			a.comp += (v.Num - t) + a.sum
		}
		a.sum = t
	default:
		if v.Kind == Array || v.Kind == Object {
			a.bad = true
			return
		}
		// Of equal values written otherwise (-0 and 0, 1 and 1.0, "<" and
		// "\u003c"), the least text, so that the result does not depend on
		// the order the rows come in, which an index changes.
		c := compareScalars(v.Value, a.best)
		if a.best.Kind == Undefined || agg == aggMin && c < 0 || agg == aggMax && c > 0 {
			a.raw = string(appendVal(nil, v, r))
			a.best, _ = FromJSON(a.raw)
		} else if c == 0 && (v.Kind == Number || v.Kind == String) {
			if raw := appendVal(nil, v, r); string(raw) < a.raw {
				a.raw = string(raw)
			}
		}
	}
}

// compareScalars orders two values of MIN and MAX: null < booleans <
// numbers < strings, as the documentation has it, then by value within a
// kind (strings by their bytes).
func compareScalars(x, y Value) int {
	if x.Kind != y.Kind {
		return int(x.Kind) - int(y.Kind)
	}
	switch x.Kind {
	case Bool:
		return boolInt(x.Bool) - boolInt(y.Bool)
	case Number:
		switch {
		case x.Num < y.Num:
			return -1
		case x.Num > y.Num:
			return 1
		}
	case String:
		return strings.Compare(x.Str, y.Str)
	}
	return 0
}

// AppendAggregate appends the one result of a query with aggregates and
// no GROUP BY over the rows a holds: the SELECT clause with each aggregate
// its value. COUNT of no row is 0, SUM 0; AVG, MIN and MAX of none are
// undefined, as are SUM and AVG of a value that is no number and MIN and
// MAX of an array or an object: an object leaves the member out, and
// SELECT VALUE of undefined gives no result (false).
func (b *Bound) AppendAggregate(dst []byte, a *Aggregation) ([]byte, bool) {
	return b.AppendResult(dst, Row{agg: &aggRow{aggs: aggValues(b.q, a)}})
}

// aggValues returns the values of a's aggregates, those of q (the Bound's
// query or one of its subqueries), by idx.
func aggValues(q *Query, a *Aggregation) []val {
	vs := make([]val, len(q.aggs))
	for i, e := range q.aggs {
		var st aggState
		if i < len(a.s) {
			st = a.s[i]
		}
		if raw := st.result(e.agg); raw != nil {
			v, _ := FromJSON(string(raw))
			vs[i] = val{Value: v, raw: string(raw)}
		}
	}
	return vs
}

// result returns a's value as an aggregate of kind agg, as JSON; nil when
// it is undefined.
func (a *aggState) result(agg aggKind) []byte {
	var v []byte
	switch agg {
	case aggCount:
		v = strconv.AppendInt(nil, a.n, 10)
	case aggSum:
		if !a.bad {
			v = appendNumber(nil, a.sum+a.comp)
		}
	case aggAvg:
		if !a.bad && a.n > 0 {
			// The mean of the exact sum, rounded once: q, then what the
			// division left over, exact by a fused multiply-add.
			n := float64(a.n)
			q := a.sum / n
			q += (math.FMA(-q, n, a.sum) + a.comp) / n
			v = appendNumber(nil, q)
		}
	default:
		if !a.bad && a.best.Kind != Undefined {
			v = []byte(a.raw)
		}
	}
	return v
}
