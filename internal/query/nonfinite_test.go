package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: NaN and Infinity are literals, as the sample scripts tostring and
// stringtonumber use them (ToString(NaN) is "NaN", ToString(Infinity)
// "Infinity", StringToNumber of either undefined); spelled as JavaScript
// does, and only where no alias of that name is in scope. JSON has no
// such numbers: a result writes them null, as 1/0 already is.
func TestNonFiniteLiterals(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`ToString(NaN)`, `"NaN"`},
		{`ToString(Infinity)`, `"Infinity"`},
		{`ToString(-Infinity)`, `"-Infinity"`},
		{`StringToNumber(NaN)`, `-`},
		{`StringToNumber(Infinity)`, `-`},
		{`IS_NUMBER(NaN)`, `true`},
		{`IS_FINITE_NUMBER(Infinity)`, `false`},
		{`Infinity > 1e308`, `true`},
		{`NaN = NaN`, `false`},
		{`Infinity`, `null`},
	} {
		require.Equal(t, tc.want, value(t, tc.expr), tc.expr)
	}
	rows := []Row{{Body: `{"id":"a","x":1}`}}
	require.Equal(t, `1`, results(bind(t, `SELECT VALUE NaN.x FROM NaN`, nil), rows))
	require.Equal(t, `{"id":"a","x":1,"_ts":0,"_etag":""}`, results(bind(t, `SELECT VALUE NaN FROM NaN`, nil), rows))
	require.Equal(t, `"Infinity"`, results(bind(t, `SELECT VALUE ToString(Infinity) FROM c`, nil), rows))
	for _, sql := range []string{`SELECT VALUE nan`, `SELECT VALUE INFINITY`, `SELECT VALUE NaN.x`, `SELECT VALUE Infinity FROM c WHERE NaN.x = 1`} {
		require.Contains(t, parseError(t, sql).Error(), "is not defined", sql)
	}
}
