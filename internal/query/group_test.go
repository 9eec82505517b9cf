package query

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// groups returns what b gives for rows, one result a line, in key order.
func groups(b *Bound, rows []Row) string {
	var g Groups
	for _, r := range rows {
		if b.Match(r) {
			b.AddToGroup(&g, r)
		}
	}
	var out []string
	for _, k := range g.Keys() {
		if res, ok := b.AppendGroup(nil, &g, k); ok {
			out = append(out, string(res))
		} else {
			out = append(out, "-")
		}
	}
	return strings.Join(out, "\n")
}

// R13: GROUP BY makes a group of the rows with the same values of its
// expressions (undefined is a value; 1 and 1.0 are one; arrays and objects
// by their text), and each group one result: its GROUP BY values and its
// aggregates, undefined ones left out; any expression of these, of
// aggregates and constants is an item (an object literal of them too).
func TestGroupBy(t *testing.T) {
	rows := evalRows()
	for _, tc := range []struct{ sql, want string }{
		{`SELECT c.n, COUNT(1) AS k FROM c WHERE IS_NUMBER(c.n) GROUP BY c.n`,
			`{"n":-2.5,"k":1}` + "\n" + `{"n":0,"k":2}` + "\n" + `{"n":1,"k":2}` + "\n" + `{"n":2,"k":1}` + "\n" + `{"n":3,"k":1}` + "\n" + `{"n":1e2,"k":1}`},
		{`SELECT COUNT(1) AS k, c.b FROM c GROUP BY c.b`,
			`{"k":5}` + "\n" + `{"k":1,"b":null}` + "\n" + `{"k":1,"b":false}` + "\n" + `{"k":2,"b":true}` + "\n" + `{"k":1,"b":"true"}`},
		{`SELECT VALUE COUNT(1) FROM c GROUP BY IS_DEFINED(c.tags)`, "5\n5"},
		{`SELECT VALUE c.tags FROM c WHERE IS_ARRAY(c.tags) GROUP BY c.tags`, `["a",1,true,null,[1],{"a":1}]` + "\n" + `["blue"]` + "\n" + `["red","blue"]` + "\n" + `["red"]` + "\n" + `[]`},
		{`SELECT IS_STRING(c.s) AS str, SUM(c.n) AS total, MAX(c.id) AS last, MIN(c.missing) FROM c GROUP BY IS_STRING(c.s)`,
			`{"str":false,"last":"f"}` + "\n" + `{"str":true,"total":104.5,"last":"j"}`},
		{`SELECT COUNT(1) FROM c WHERE c.id = "zz" GROUP BY c.n`, ``},
		{`SELECT VALUE {b: c.b, n: COUNT(1) * 10, m: MAX(c.id) || "!"} FROM c GROUP BY c.b`,
			`{"n":50,"m":"j!"}` + "\n" + `{"b":null,"n":10,"m":"c!"}` + "\n" + `{"b":false,"n":10,"m":"b!"}` + "\n" + `{"b":true,"n":20,"m":"g!"}` + "\n" + `{"b":"true","n":10,"m":"d!"}`},
		{`SELECT c.b ?? "none" AS b, IS_NULL(c.b) AS isNull FROM c GROUP BY c.b`,
			`{"b":"none","isNull":false}` + "\n" + `{"b":null,"isNull":true}` + "\n" + `{"b":false,"isNull":false}` + "\n" + `{"b":true,"isNull":false}` + "\n" + `{"b":"true","isNull":false}`},
	} {
		b := bind(t, tc.sql, nil)
		require.True(t, b.Grouped(), tc.sql)
		require.False(t, b.Aggregate(), tc.sql)
		require.Equal(t, tc.want, groups(b, rows), tc.sql)
	}
}
