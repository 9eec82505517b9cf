package query

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// refValue is a value as the reference order sees it.
type refValue struct {
	json string // "" for undefined (the member left out)
	rank int    // undefined 0, null 1, false 2, true 3, number 4, string 5, array 6, object 7
	num  float64
	str  string
}

// sortValues are values of every kind, with the order's corner cases.
var sortValues = []refValue{
	{json: "", rank: 0},
	{json: `"\ud800"`, rank: 0}, // no Unicode text: undefined
	{json: "null", rank: 1},
	{json: "false", rank: 2},
	{json: "true", rank: 3},
	{json: "-1e400", rank: 4, num: math.Inf(-1)},
	{json: "-1e300", rank: 4, num: -1e300},
	{json: "-2.5", rank: 4, num: -2.5},
	{json: "-1", rank: 4, num: -1},
	{json: "-5e-324", rank: 4, num: -5e-324},
	{json: "-0", rank: 4, num: 0},
	{json: "0", rank: 4, num: 0},
	{json: "0.0", rank: 4, num: 0},
	{json: "5e-324", rank: 4, num: 5e-324},
	{json: "1", rank: 4, num: 1},
	{json: "1.0", rank: 4, num: 1},
	{json: "1.5", rank: 4, num: 1.5},
	{json: "1e2", rank: 4, num: 100},
	{json: "1e300", rank: 4, num: 1e300},
	{json: "1e400", rank: 4, num: math.Inf(1)},
	{json: `""`, rank: 5, str: ""},
	{json: `"\u0000"`, rank: 5, str: "\x00"},
	{json: `"\u0000\u0000"`, rank: 5, str: "\x00\x00"},
	{json: `"\u0001"`, rank: 5, str: "\x01"},
	{json: `"A"`, rank: 5, str: "A"},
	{json: `"a"`, rank: 5, str: "a"},
	{json: `"a\u0000"`, rank: 5, str: "a\x00"},
	{json: `"a\u0000b"`, rank: 5, str: "a\x00b"},
	{json: `"a\u0001"`, rank: 5, str: "a\x01"},
	{json: `"ab"`, rank: 5, str: "ab"},
	{json: `"b"`, rank: 5, str: "b"},
	{json: `"é"`, rank: 5, str: "é"},
	{json: `"\u00e9"`, rank: 5, str: "é"},
	{json: `"😀"`, rank: 5, str: "😀"},
	{json: `"\uffff"`, rank: 5, str: "\uffff"},
	{json: `[]`, rank: 6},
	{json: `[1]`, rank: 6},
	{json: `["a",{}]`, rank: 6},
	{json: `{}`, rank: 7},
	{json: `{"a":1}`, rank: 7},
}

// refCompare is the reference order: by kind, then numbers by value,
// strings by bytes; arrays are equal among themselves, objects too.
func refCompare(a, b refValue) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	switch a.rank {
	case 4:
		return cmp.Compare(a.num, b.num)
	case 5:
		return strings.Compare(a.str, b.str)
	}
	return 0
}

func sign(c int) int { return cmp.Compare(c, 0) }

// The sort keys order rows as ORDER BY does, ascending and descending, by
// one item or two.
func TestSortKey(t *testing.T) {
	type row struct {
		r    Row
		x, y refValue
	}
	var rows []row
	for i, x := range sortValues {
		for _, y := range []refValue{sortValues[0], sortValues[2], sortValues[11], sortValues[14], sortValues[25], sortValues[36]} {
			var members []string
			if x.json != "" {
				members = append(members, `"x":`+x.json)
			}
			if y.json != "" {
				members = append(members, `"y":`+y.json)
			}
			body := "{" + strings.Join(members, ",") + "}"
			rows = append(rows, row{Row{Body: body, TS: int64(i), ETag: "e"}, x, y})
		}
	}
	for _, tc := range []struct {
		order      string
		descX      bool
		descY      bool
		secondItem bool
	}{
		{"c.x", false, false, false},
		{"c.x ASC", false, false, false},
		{"c.x DESC", true, false, false},
		{"c.x, c.y DESC", false, true, true},
		{"c.x DESC, c.y", true, false, true},
		{"c.x DESC, c.y DESC", true, true, true},
		{"c.x ASC, c.y ASC", false, false, true},
	} {
		b := bind(t, "SELECT * FROM c ORDER BY "+tc.order, nil)
		order := b.OrderBy()
		require.Len(t, order, map[bool]int{false: 1, true: 2}[tc.secondItem])
		require.Equal(t, Path{{Name: "x"}}, order[0].Path)
		require.Equal(t, tc.descX, order[0].Desc)
		keys := make([][]byte, len(rows))
		for i, r := range rows {
			keys[i] = b.AppendSortKey([]byte("pre"), r.r)
			require.True(t, bytes.HasPrefix(keys[i], []byte("pre")))
			keys[i] = keys[i][3:]
		}
		for i, a := range rows {
			if !tc.descX && !tc.secondItem {
				require.Equal(t, AppendKey(nil, a.r.Value(Path{{Name: "x"}})), keys[i], "the key of an index on the path")
			}
			for j, b := range rows {
				want := refCompare(a.x, b.x)
				if tc.descX {
					want = -want
				}
				if want == 0 && tc.secondItem {
					want = refCompare(a.y, b.y)
					if tc.descY {
						want = -want
					}
				}
				got := sign(bytes.Compare(keys[i], keys[j]))
				require.Equal(t, want, got, "ORDER BY %s: %s vs %s", tc.order, a.r.Body, b.r.Body)
			}
		}
	}
}

// OrderBy returns a copy; without ORDER BY, nothing.
func TestOrderBy(t *testing.T) {
	b := bind(t, `SELECT * FROM c ORDER BY c.a.b, c["x y"][1] DESC`, nil)
	o := b.OrderBy()
	require.Equal(t, []Order{{Path: Path{{Name: "a"}, {Name: "b"}}}, {Path: Path{{Name: "x y"}, {Index: 1, IsIndex: true}}, Desc: true}}, o)
	o[0].Desc = true
	require.False(t, b.OrderBy()[0].Desc)
	b = bind(t, `SELECT * FROM c`, nil)
	require.Empty(t, b.OrderBy())
	require.Empty(t, b.AppendSortKey(nil, Row{Body: `{}`}))
	require.Equal(t, fmt.Sprint(-1, 0, -1), fmt.Sprint(b.Top(), b.Offset(), b.Limit()))
}
