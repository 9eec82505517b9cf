package query

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// Bind refuses parameters missing, unused, not JSON, or that do not fit
// TOP (a subquery's too), OFFSET or LIMIT, naming the parameter (R13).
func TestBindErrors(t *testing.T) { // R13
	for _, tc := range []struct {
		sql    string
		params map[string]string
		msg    string
	}{
		{`SELECT * FROM c WHERE c.s = @s`, nil, `parameter @s has no value`},
		{`SELECT * FROM c WHERE c.s = @s AND c.t = @t`, map[string]string{"s": "1"}, `parameter @t has no value`},
		{`SELECT * FROM c`, map[string]string{"x": "1"}, `parameter @x is not used by the query: a typo?`},
		{`SELECT * FROM c WHERE c.s = @s`, map[string]string{"s": "1", "S": "1", "b": "2"}, `parameter @S is not used by the query: a typo?`},
		{`SELECT * FROM c WHERE c.s = @s`, map[string]string{"s": "1", "@s": "1"}, `parameter @@s is not used`},
		{`SELECT * FROM c WHERE c.s = @s`, map[string]string{"s": "{"}, `parameter @s: its value "{" is not valid JSON`},
		{`SELECT * FROM c WHERE c.s = @s`, map[string]string{"s": ""}, `parameter @s: its value "" is not valid JSON`},
		{`SELECT * FROM c WHERE c.s = @s`, map[string]string{"s": "1 2"}, `is not valid JSON`},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": "-1"}, `parameter @n of TOP is -1: it must be an integer from 0 to 2147483647`},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": "1.5"}, `parameter @n of TOP is 1.5`},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": "2147483648"}, `parameter @n of TOP is 2147483648`},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": `"5"`}, `parameter @n of TOP is "5"`},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": `null`}, `parameter @n of TOP is null`},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": `1e400`}, `parameter @n of TOP is 1e400`},
		{`SELECT * FROM c OFFSET @o LIMIT 1`, map[string]string{"o": `[1]`}, `parameter @o of OFFSET is [1]`},
		{`SELECT * FROM c OFFSET 1 LIMIT @l`, map[string]string{"l": `true`}, `parameter @l of LIMIT is true`},
		// A subquery's TOP, at any depth, as the query's own (a review
		// found these read as no result).
		{`SELECT VALUE x FROM (SELECT TOP @n VALUE c.id FROM c) x`, map[string]string{"n": "-1"}, `parameter @n of TOP is -1`},
		{`SELECT VALUE x FROM (SELECT TOP @n VALUE c.id FROM c) x`, map[string]string{"n": "1e12"}, `parameter @n of TOP is 1e12`},
		{`SELECT VALUE ARRAY(SELECT TOP @n VALUE t FROM t IN c.tags) FROM c`, map[string]string{"n": `"2"`}, `parameter @n of TOP is "2"`},
		{`SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE EXISTS(SELECT TOP @n VALUE 1))`, map[string]string{"n": "1.5"}, `parameter @n of TOP is 1.5`},
	} {
		q, err := Parse(tc.sql)
		require.NoError(t, err, tc.sql)
		b, err := q.Bind(tc.params)
		require.Nil(t, b)
		require.Error(t, err, tc.sql)
		require.Contains(t, err.Error(), tc.msg, tc.sql)
		var pe *Error
		require.False(t, errors.As(err, &pe), "a bind error is no parse error")
	}
}

// TOP, OFFSET and LIMIT, from literals or parameters; parameters of any
// JSON layout.
func TestBindValues(t *testing.T) {
	for _, tc := range []struct {
		sql                  string
		params               map[string]string
		top, offset, limit   int
		wantMatch, wantNoMat string
	}{
		{`SELECT TOP 5 * FROM c`, nil, 5, 0, -1, `{}`, ``},
		{`SELECT TOP 0 * FROM c`, nil, 0, 0, -1, `{}`, ``},
		{`SELECT TOP 2147483647 * FROM c`, nil, 2147483647, 0, -1, `{}`, ``},
		{`SELECT TOP @n * FROM c`, map[string]string{"n": "1e1"}, 10, 0, -1, `{}`, ``},
		{`SELECT * FROM c OFFSET 3 LIMIT 20`, nil, -1, 3, 20, `{}`, ``},
		{`SELECT * FROM c OFFSET @o LIMIT @l`, map[string]string{"o": "2.0", "l": "0"}, -1, 2, 0, `{}`, ``},
		{`SELECT * FROM c OFFSET @o LIMIT @o`, map[string]string{"o": "7"}, -1, 7, 7, `{}`, ``},
		{`SELECT * FROM c WHERE c.a = @a`, map[string]string{"a": " { \"x\" : [ 1 , \"y z\" ] } "}, -1, 0, -1, `{"a":{"x":[1,"y z"]}}`, `{"a":{"x":[1,"y  z"]}}`},
		{`SELECT * FROM c WHERE c.a = @a`, map[string]string{"a": `"\u00e9\n"`}, -1, 0, -1, `{"a":"é\n"}`, `{"a":"é"}`},
		{`SELECT * FROM c WHERE c.a = @a OR c.a != @a`, map[string]string{"a": `"\ud800"`}, -1, 0, -1, ``, `{"a":"\ud800"}`},
	} {
		q, err := Parse(tc.sql)
		require.NoError(t, err, tc.sql)
		b, err := q.Bind(tc.params)
		require.NoError(t, err, tc.sql)
		require.Equal(t, []int{tc.top, tc.offset, tc.limit}, []int{b.Top(), b.Offset(), b.Limit()}, tc.sql)
		if tc.wantMatch != "" {
			require.True(t, b.Match(Row{Body: tc.wantMatch}), tc.sql)
		}
		if tc.wantNoMat != "" {
			require.False(t, b.Match(Row{Body: tc.wantNoMat}), tc.sql)
		}
	}
	// One Query binds many times, each Bound with its own values.
	q, err := Parse(`SELECT VALUE @v FROM c WHERE c.a = @v`)
	require.NoError(t, err)
	b1, err := q.Bind(map[string]string{"v": "1"})
	require.NoError(t, err)
	b2, err := q.Bind(map[string]string{"v": `"x"`})
	require.NoError(t, err)
	res, ok := b1.AppendResult(nil, Row{Body: `{"a":1}`})
	require.True(t, ok)
	require.Equal(t, "1", string(res))
	require.False(t, b2.Match(Row{Body: `{"a":1}`}))
	require.True(t, b2.Match(Row{Body: `{"a":"x"}`}))
}

// A Query binds, and a Bound runs, from many goroutines at once.
func TestConcurrentUse(t *testing.T) {
	q, err := Parse(`SELECT c.id, LOWER(c.s) AS s, [@p] AS p FROM c WHERE c.n >= @p AND IS_DEFINED(c.id) ORDER BY c.n DESC, c.s`)
	require.NoError(t, err)
	b, err := q.Bind(map[string]string{"p": "0"})
	require.NoError(t, err)
	rows := evalRows()
	want := results(b, rows)
	done := make(chan string)
	for i := range 4 {
		go func() {
			own, err := q.Bind(map[string]string{"p": "0"})
			if err != nil {
				done <- err.Error()
				return
			}
			var out string
			for range 50 {
				for _, r := range rows {
					_ = b.AppendSortKey(nil, r)
				}
				_, _ = b.Ranges(Path{{Name: "n"}})
				_ = b.Paths()
				if i%2 == 0 {
					out = results(b, rows)
				} else {
					out = results(own, rows)
				}
			}
			done <- out
		}()
	}
	for range 4 {
		require.Equal(t, want, <-done)
	}
}
