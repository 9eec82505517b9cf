package query

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBindTo: binding again into one Bound gives what a fresh Bind of the
// same values gives, nothing of the earlier binding's (values, ranges,
// paths), and once its room has grown, an equality on compact parameters
// binds without an allocation (R13: a query's rows are those of its
// parameters; issue 31's allocations).
func TestBindTo(t *testing.T) { // R13
	q, err := Parse(`SELECT VALUE @v FROM c WHERE c.a = @v AND c.b >= @n`)
	require.NoError(t, err)
	var b Bound
	for _, ps := range [][2]string{{`"x"`, `1`}, {`2`, `"yy"`}, {`"a\u0000b"`, `null`}, {`"x"`, `1`}} {
		require.NoError(t, q.BindTo(&b, []Param{{Name: "n", JSON: ps[1], Compact: true}, {Name: "v", JSON: ps[0]}}, time.Time{}))
		fresh, err := q.Bind(map[string]string{"v": ps[0], "n": ps[1]})
		require.NoError(t, err)
		require.Equal(t, fresh.Paths(), b.Paths(), ps)
		for _, p := range fresh.Paths() {
			want, _ := fresh.Ranges(p)
			got, _ := b.Ranges(p)
			require.Equal(t, want, got, "%v at %v", ps, p)
		}
		for _, body := range []string{`{"a":"x","b":1}`, `{"a":2,"b":"yy"}`, `{"a":"a\u0000b","b":null}`, `{"a":"x","b":0}`} {
			wantRes, wantOK := fresh.AppendResult(nil, Row{Body: body})
			gotRes, gotOK := b.AppendResult(nil, Row{Body: body})
			require.Equal(t, fresh.Match(Row{Body: body}), b.Match(Row{Body: body}), "%v on %s", ps, body)
			require.Equal(t, string(wantRes)+" "+boolStr(wantOK), string(gotRes)+" "+boolStr(gotOK), "%v on %s", ps, body)
		}
	}
	require.Error(t, q.BindTo(&b, []Param{{Name: "v", JSON: `1`, Compact: true}}, time.Time{}))
	eq, err := Parse(`SELECT * FROM c WHERE c.a = @v AND c.b = @n`)
	require.NoError(t, err)
	params := []Param{{Name: "v", JSON: `"s-0000042"`, Compact: true}, {Name: "n", JSON: `7`, Compact: true}}
	require.Zero(t, testing.AllocsPerRun(100, func() { _ = eq.BindTo(&b, params, time.Time{}) }))
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
