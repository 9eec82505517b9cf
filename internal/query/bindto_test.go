package query

import (
	"bytes"
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
	// A string given as itself (IsStr) binds as its JSON does.
	require.NoError(t, q.BindTo(&b, []Param{{Name: "n", JSON: `1`, Compact: true}, {Name: "v", IsStr: true, Str: "x y"}}, time.Time{}))
	fresh, err := q.Bind(map[string]string{"v": `"x y"`, "n": "1"})
	require.NoError(t, err)
	for _, p := range fresh.Paths() {
		want, _ := fresh.Ranges(p)
		got, _ := b.Ranges(p)
		require.Equal(t, want, got, "at %v", p)
	}
	for _, body := range []string{`{"a":"x y","b":1}`, `{"a":"x","b":1}`} {
		wantRes, _ := fresh.AppendResult(nil, Row{Body: body})
		gotRes, _ := b.AppendResult(nil, Row{Body: body})
		require.Equal(t, fresh.Match(Row{Body: body}), b.Match(Row{Body: body}), body)
		require.Equal(t, string(wantRes), string(gotRes), body)
	}
	top, err := Parse(`SELECT TOP @n * FROM c`)
	require.NoError(t, err)
	require.ErrorContains(t, top.BindTo(&b, []Param{{Name: "n", IsStr: true, Str: "5"}}, time.Time{}), `parameter @n of TOP is "5": it must be an integer`)
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

// TestExact: where Exact says the WHERE clause is one equality on a path,
// a row matches exactly when its value's key at the path is in Ranges'
// one range, for values of every kind, numbers written alike or not,
// strings with NUL and escapes; and Exact says it of no other clause (R13:
// a query gives the same rows with or without an index, which then skips
// the recheck).
func TestExact(t *testing.T) { // R13
	values := []string{"null", "true", "false", "0", "-0", "1", "1.0", "1e0", "2", "-1.5", "1e400", `""`, `"a"`, `"a\u0000"`, `"a\u0000b"`,
		`"é"`, `"\u00e9"`, `"\ud800"`, `[]`, `[1]`, `[2]`, `{}`, `{"k":1}`, `{"k":2}`}
	p := Path{{Name: "a"}}
	for _, sql := range []string{`SELECT * FROM c WHERE c.a = @v`, `SELECT * FROM c WHERE @v = c.a`, `SELECT c.id FROM c WHERE (c.a = @v)`} {
		q, err := Parse(sql)
		require.NoError(t, err)
		for _, v := range values {
			b, err := q.Bind(map[string]string{"v": v})
			require.NoError(t, err)
			if !b.Exact(p) {
				kind, _ := FromJSON(v)
				require.True(t, kind.Kind == Undefined || kind.Kind >= Array, "%s with %s: not exact", sql, v)
				continue
			}
			rs, ok := b.Ranges(p)
			require.True(t, ok)
			require.Len(t, rs, 1)
			for _, w := range values {
				r := Row{Body: `{"a":` + w + `}`}
				key := AppendKey(nil, r.Value(p))
				in := bytes.Compare(key, rs[0].From) >= 0 && (rs[0].To == nil || bytes.Compare(key, rs[0].To) < 0)
				require.Equal(t, b.Match(r), in, "%s with %s, on %s", sql, v, r.Body)
			}
		}
	}
	for _, sql := range []string{
		`SELECT * FROM c WHERE c.a = @v AND c.b = 1`, `SELECT * FROM c WHERE c.a = @v OR c.a = 2`, `SELECT * FROM c WHERE c.a != @v`,
		`SELECT * FROM c WHERE c.a >= @v`, `SELECT * FROM c WHERE c.a IN (@v)`, `SELECT * FROM c WHERE c.b = @v`, `SELECT * FROM c WHERE c.a.b = @v`,
		`SELECT * FROM c WHERE NOT (c.a = @v)`, `SELECT * FROM c WHERE c.a = [@v]`, `SELECT * FROM c WHERE c.a = c.b AND @v = 1`,
		`SELECT c.id FROM c JOIN t IN c.t WHERE c.a = @v`, `SELECT * FROM c.x WHERE x.a = @v`, `SELECT * FROM x IN c.t WHERE x.a = @v`,
		`SELECT * FROM c WHERE LOWER(c.a) = @v`, `SELECT * FROM c WHERE c.a = @v + 0`, `SELECT * FROM c WHERE c.a = (SELECT VALUE @v)`,
	} {
		q, err := Parse(sql)
		require.NoError(t, err, sql)
		b, err := q.Bind(map[string]string{"v": "1"})
		require.NoError(t, err, sql)
		require.False(t, b.Exact(p), sql)
	}
}
