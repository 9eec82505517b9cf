package query

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func key(raw string) []byte {
	v, ok := FromJSON(raw)
	if !ok {
		panic(raw)
	}
	return AppendKey(nil, v)
}

func point(raw string) Range { k := key(raw); return Range{From: k, To: PrefixEnd(k)} }

func kind(k Kind) Range { f, t := KindKey(k); return Range{From: f, To: t} }

// The ranges of each sargable form, exactly.
func TestRangesForms(t *testing.T) {
	a := Path{{Name: "a"}}
	sp := AppendStringPrefixKey(nil, "ab")
	for _, tc := range []struct {
		where string
		want  []Range // nil: ok false
	}{
		{`c.a = 1`, []Range{point("1")}},
		{`1.0 = c.a`, []Range{point("1")}},
		{`c.a = @p`, []Range{point(`"x"`)}},
		{`c.a = null`, []Range{point("null")}},
		{`c.a = [1]`, []Range{kind(Array)}},
		{`c.a = undefined`, []Range{}},
		{`c.a != 1`, []Range{{From: kind(Number).From, To: key("1")}, {From: point("1").To, To: kind(Number).To}}},
		{`c.a != true`, []Range{point("false")}},
		{`c.a != null`, []Range{}},
		{`c.a != []`, []Range{}}, // undefined for arrays and objects: no row
		{`c.a < 1`, []Range{{From: kind(Number).From, To: key("1")}}},
		{`c.a <= 1`, []Range{{From: kind(Number).From, To: point("1").To}}},
		{`c.a > 1`, []Range{{From: point("1").To, To: kind(Number).To}}},
		{`c.a >= 1`, []Range{{From: key("1"), To: kind(Number).To}}},
		{`1 < c.a`, []Range{{From: point("1").To, To: kind(Number).To}}},
		{`"b" >= c.a`, []Range{{From: kind(String).From, To: point(`"b"`).To}}},
		{`c.a < true`, []Range{point("false")}},
		{`c.a < null`, []Range{}},
		{`c.a <= null`, []Range{point("null")}},
		{`c.a > []`, []Range{}},
		{`c.a IN (3, 1, "x", 1.0, undefined)`, []Range{point("1"), point("3"), point(`"x"`)}},
		{`c.a IN (1, c.b)`, nil},
		{`c.a NOT IN (1)`, nil},
		{`c.a BETWEEN 1 AND 3`, []Range{{From: key("1"), To: point("3").To}}},
		{`c.a BETWEEN 3 AND 1`, []Range{}},
		{`c.a BETWEEN 1 AND "3"`, []Range{}},
		{`c.a BETWEEN [] AND [1]`, []Range{}},
		{`c.a NOT BETWEEN 1 AND 3`, nil},
		{`c.a BETWEEN c.b AND 3`, nil},
		{`STARTSWITH(c.a, "ab")`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`STARTSWITH(c.a, "ab", false)`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`STARTSWITH(c.a, "ab", true)`, []Range{kind(String)}},
		{`STARTSWITH(c.a, "ab", c.b)`, []Range{kind(String)}},
		{`STARTSWITH(c.a, c.b)`, []Range{kind(String)}},
		{`STARTSWITH(c.a, 1)`, []Range{}},
		{`STARTSWITH(c.a, "")`, []Range{kind(String)}},
		{`ENDSWITH(c.a, "x")`, []Range{kind(String)}},
		{`CONTAINS(c.a, "x", true)`, []Range{kind(String)}},
		{`STARTSWITH("abc", c.a)`, nil},
		{`c.a LIKE "ab%"`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`c.a LIKE "ab_x"`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`c.a LIKE "ab[c-d]"`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`c.a LIKE "a!b%" ESCAPE "!"`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`c.a LIKE "ab"`, []Range{{From: sp, To: PrefixEnd(sp)}}},
		{`c.a LIKE "%ab"`, []Range{kind(String)}},
		{`c.a LIKE 1`, []Range{}},
		{`c.a LIKE "ab!" ESCAPE "!"`, []Range{}},
		{`c.a LIKE c.b`, nil},
		{`c.a NOT LIKE "ab%"`, nil},
		{`"ab" LIKE c.a`, nil},
		{`IS_DEFINED(c.a)`, []Range{{From: key("null")}}},
		{`IS_NULL(c.a)`, []Range{point("null")}},
		{`IS_BOOL(c.a)`, []Range{kind(Bool)}},
		{`IS_NUMBER(c.a)`, []Range{kind(Number)}},
		{`IS_STRING(c.a)`, []Range{kind(String)}},
		{`IS_ARRAY(c.a)`, []Range{kind(Array)}},
		{`IS_OBJECT(c.a)`, []Range{kind(Object)}},
		{`IS_PRIMITIVE(c.a)`, []Range{{From: key("null"), To: kind(String).To}}},
		{`ARRAY_CONTAINS(c.a, 1)`, []Range{kind(Array)}},
		{`ARRAY_CONTAINS([1], c.a)`, nil},
		{`ARRAY_LENGTH(c.a) = 1`, nil},
		{`IS_INTEGER(c.a)`, []Range{kind(Number)}},
		{`IS_FINITE_NUMBER(c.a)`, []Range{kind(Number)}},
		{`RegexMatch(c.a, "^x", "i")`, []Range{kind(String)}},
		{`StringEquals(c.a, "x", true)`, []Range{kind(String)}},
		{`ARRAY_CONTAINS_ANY(c.a, 1, 2)`, []Range{kind(Array)}},
		{`ARRAY_CONTAINS_ALL(c.a, 1)`, []Range{kind(Array)}},
		{`RegexMatch("x", c.a)`, nil},
		{`IIF(c.a, true, false)`, nil},
		{`ABS(c.a) = 1`, nil},
		{`c.a`, []Range{point("true")}},
		{`NOT c.a`, nil},
		{`NOT (c.a = 1)`, nil},
		{`c.a = 1 OR c.a = 2`, nil},
		{`c.a = c.b`, nil},
		{`c.b = 1`, nil},
		{`c.a.x = 1`, nil},
		{`c = 1`, nil},
		{`c.a > 1 AND c.a <= 3`, []Range{{From: point("1").To, To: point("3").To}}},
		{`c.a > 1 AND c.b = 2 AND (c.a < 3 AND c.a != 2)`, []Range{{From: point("1").To, To: key("2")}, {From: point("2").To, To: key("3")}}},
		{`c.a IN (1, 2, 3) AND c.a >= 2`, []Range{point("2"), point("3")}},
		{`c.a = 1 AND c.a = "1"`, []Range{}},
		{`IS_DEFINED(c.a) AND c.a <= null`, []Range{point("null")}},
		{`c.a = 1 AND (c.a = 2 OR true)`, []Range{point("1")}},
	} {
		q, err := Parse("SELECT * FROM c WHERE " + tc.where)
		require.NoError(t, err)
		params := map[string]string{}
		if len(q.Params()) > 0 {
			params["p"] = `"x"`
		}
		b, err := q.Bind(params)
		require.NoError(t, err)
		rs, ok := b.Ranges(a)
		if tc.want == nil {
			require.False(t, ok, tc.where)
			require.Nil(t, rs)
			continue
		}
		require.True(t, ok, tc.where)
		require.NotNil(t, rs, tc.where)
		require.Equal(t, fmt.Sprintf("%x", tc.want), fmt.Sprintf("%x", rs), tc.where)
		require.Contains(t, b.Paths(), a, tc.where)
	}
}

// Paths lists each sargable path once, in order; Ranges returns copies.
func TestPaths(t *testing.T) {
	b := bind(t, `SELECT * FROM c WHERE c.b = 1 AND c.a > 2 AND NOT (c.x = 1) AND c.b < 5 AND (c.y = 1 OR c.z = 1) AND c.t[0] = 1 AND c["a"] < 9`, nil)
	require.Equal(t, []Path{{{Name: "b"}}, {{Name: "a"}}, {{Name: "t"}, {IsIndex: true}}}, b.Paths())
	rs, ok := b.Ranges(Path{{Name: "b"}})
	require.True(t, ok)
	require.Equal(t, []Range{point("1")}, rs)
	rs2, _ := b.Ranges(Path{{Name: "b"}}) // b's ranges, read again: the same
	require.Equal(t, []Range{point("1")}, rs2)
	for _, p := range []Path{{{Name: "x"}}, {{Name: "y"}}, nil, {{Name: "t"}}} {
		_, ok := b.Ranges(p)
		require.False(t, ok, p.String())
	}
	require.Empty(t, bind(t, `SELECT * FROM c WHERE c.a = 1 OR c.b = 2`, nil).Paths())
}

// Random conjunctions over a few paths, and random documents: every
// document that matches has its key within the ranges at every path.
func TestRangesProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	values := []string{
		"null", "true", "false", "-2", "-1", "0", "-0", "0.5", "1", "1.0", "2", "1e2",
		`""`, `"a"`, `"ab"`, `"b"`, `"A"`, `"é"`, `"a\u0000"`, `"\ud800"`,
		`[]`, `[1]`, `[1,"a"]`, `["a"]`, `{}`, `{"k":1}`, `{"k":1,"j":2}`, `[{"k":1}]`,
	}
	value := func() string { return values[r.IntN(len(values))] }
	paths := []string{"c.a", "c.b", "c.u.v", "c.t", "c.t[0]"}
	var docs []Row
	for i := range 60 {
		var ms []string
		for _, name := range []string{"a", "b", "t"} {
			if r.IntN(5) > 0 {
				ms = append(ms, fmt.Sprintf("%q:%s", name, value()))
			}
		}
		switch r.IntN(3) {
		case 0:
			ms = append(ms, `"u":{"v":`+value()+`}`)
		case 1:
			ms = append(ms, `"u":`+value())
		}
		if r.IntN(3) == 0 {
			ms = append(ms, `"t":[`+value()+`,`+value()+`]`)
		}
		docs = append(docs, Row{Body: "{" + strings.Join(ms, ",") + "}", TS: int64(i), ETag: "x"})
	}
	for n := range 4000 {
		params := map[string]string{}
		constant := func() string {
			switch r.IntN(6) {
			case 0:
				name := fmt.Sprintf("p%d", len(params))
				params[name] = value()
				return "@" + name
			case 1:
				if v := value(); !strings.ContainsAny(v, `\`) {
					return "[" + v + "]"
				}
			case 2:
				return "undefined"
			}
			v := value()
			if r.IntN(10) == 0 && !strings.ContainsAny(v, `\`) { // a constant that is an expression
				return "(" + v + " ?? 0)"
			}
			if strings.ContainsAny(v, `\`) { // no lone surrogates in literals
				name := fmt.Sprintf("p%d", len(params))
				params[name] = v
				return "@" + name
			}
			return v
		}
		path := func() string {
			p := paths[r.IntN(len(paths))]
			switch r.IntN(12) { // an expression of the same value, which is no path
			case 0:
				return "[" + p + "][0]"
			case 1:
				return "{x: " + p + "}.x"
			case 2:
				return "(" + p + " ?? undefined)"
			}
			return p
		}
		var term func(depth int) string
		term = func(depth int) string {
			p := path()
			switch r.IntN(16) {
			case 0:
				return fmt.Sprintf("%s %sIN (%s, %s)", p, []string{"", "NOT "}[r.IntN(2)], constant(), constant())
			case 1:
				return fmt.Sprintf("%s %sBETWEEN %s AND %s", p, []string{"", "NOT "}[r.IntN(4)/3], constant(), constant())
			case 2:
				ic := []string{"", ", true", ", false", ""}[r.IntN(4)]
				if ic == "" && r.IntN(2) == 0 {
					ic = ", " + constant()
				}
				return fmt.Sprintf("STARTSWITH(%s, %s%s)", p, constant(), ic)
			case 3:
				return fmt.Sprintf("%s(%s, %s)", []string{"ENDSWITH", "CONTAINS"}[r.IntN(2)], p, constant())
			case 4:
				return fmt.Sprintf("%s(%s)", []string{"IS_DEFINED", "IS_NULL", "IS_BOOL", "IS_NUMBER", "IS_STRING", "IS_ARRAY", "IS_OBJECT", "IS_PRIMITIVE"}[r.IntN(8)], p)
			case 5:
				switch r.IntN(4) {
				case 0:
					return fmt.Sprintf("%s(%s)", []string{"IS_INTEGER", "IS_FINITE_NUMBER"}[r.IntN(2)], p)
				case 1:
					return fmt.Sprintf("%s(%s, %s, %s)", []string{"ARRAY_CONTAINS_ANY", "ARRAY_CONTAINS_ALL", "REGEXMATCH", "STRINGEQUALS"}[r.IntN(4)], p, constant(), constant())
				}
				return fmt.Sprintf("ARRAY_CONTAINS(%s, %s%s)", p, constant(), []string{"", ", true", ", false"}[r.IntN(3)])
			case 6:
				if depth < 2 {
					return "NOT (" + term(depth+1) + ")"
				}
			case 7:
				if depth < 2 {
					return "(" + term(depth+1) + " OR " + term(depth+1) + ")"
				}
			case 8:
				if depth < 2 {
					return "(" + term(depth+1) + " AND " + term(depth+1) + ")"
				}
			case 9:
				if r.IntN(2) == 0 {
					pats := []string{`"a%"`, `"a_"`, `"%"`, `"_"`, `"[a-b]%"`, `"a!%" ESCAPE "!"`, `"é%"`, `""`, `"A%"`}
					return fmt.Sprintf("%s %sLIKE %s", p, []string{"", "NOT "}[r.IntN(3)/2], pats[r.IntN(len(pats))])
				}
				return p
			case 10:
				return fmt.Sprintf("%s = %s", p, path())
			case 11:
				return fmt.Sprintf("%s %s %s", constant(), []string{"=", "!=", "<", "<=", ">", ">="}[r.IntN(6)], p)
			}
			return fmt.Sprintf("%s %s %s", p, []string{"=", "!=", "<>", "<", "<=", ">", ">="}[r.IntN(7)], constant())
		}
		terms := make([]string, 1+r.IntN(4))
		for i := range terms {
			terms[i] = term(0)
		}
		sql := "SELECT * FROM c WHERE " + strings.Join(terms, " AND ")
		q, err := Parse(sql)
		require.NoError(t, err, sql)
		b, err := q.Bind(params)
		require.NoError(t, err, sql)
		for _, p := range b.Paths() {
			rs, ok := b.Ranges(p)
			require.True(t, ok)
			for i, rg := range rs {
				require.False(t, empty(rg), "%s: an empty range", sql)
				if i > 0 {
					require.True(t, rs[i-1].To != nil && bytes.Compare(rs[i-1].To, rg.From) < 0, "%s: ranges %x overlap or touch", sql, rs)
				}
			}
		}
		matchIDs(t, b, docs, fmt.Sprintf("case %d: %s %v", n, sql, params))
	}
}

// normalize and intersect keep exactly the keys they should, checked on
// every short key over a small alphabet.
func TestRangeAlgebra(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var universe [][]byte
	for _, a := range []string{"", "0", "1", "2", "3"} {
		for _, b := range []string{"", "0", "1", "2", "3"} {
			if a != "" || b == "" {
				universe = append(universe, []byte(a+b))
			}
		}
	}
	randKey := func() []byte { return universe[r.IntN(len(universe))] }
	randList := func() []Range {
		rs := make([]Range, r.IntN(5))
		for i := range rs {
			rs[i] = Range{From: randKey()}
			if r.IntN(4) > 0 {
				rs[i].To = randKey()
			}
		}
		return rs
	}
	check := func(rs []Range) {
		require.NotNil(t, rs)
		for i, rg := range rs {
			require.False(t, empty(rg))
			if i > 0 {
				require.True(t, rs[i-1].To != nil && bytes.Compare(rs[i-1].To, rg.From) < 0, "%q", rs)
			}
		}
	}
	for range 20000 {
		a, b := randList(), randList()
		na, nb := normalize(a), normalize(b)
		check(na)
		check(nb)
		both := intersect(na, nb)
		check(both)
		for _, k := range universe {
			require.Equal(t, inRanges(k, a), inRanges(k, na), "normalize %q: %q", a, k)
			require.Equal(t, inRanges(k, a) && inRanges(k, b), inRanges(k, both), "%q and %q: %q", na, nb, k)
		}
	}
}
