package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// funcRow is the document the function tests evaluate on.
const funcRow = `{"id":"a","s":"AdventureWorks","n":37.752,"price":155.23478,"neg":-2.5,"arr":[70,86,92,99,85,90,82],"obj":{"a":"12345","b":"67890"},"emoji":"a😀b","nul":null,"t":true}`

// funcCase is an expression and its value as SELECT VALUE writes it; "-"
// for undefined.
type funcCase struct{ expr, want string }

// evalFunc returns the value of expr on funcRow, with the parameters it
// uses taken from params.
func evalFunc(t *testing.T, expr string, params map[string]string) string {
	t.Helper()
	b := bindUsed(t, `SELECT VALUE `+expr+` FROM c`, params)
	return results(b, []Row{{Body: funcRow, TS: 1, ETag: "e"}})
}

// checkFuncs checks each case.
func checkFuncs(t *testing.T, cases []funcCase, params map[string]string) {
	t.Helper()
	for _, tc := range cases {
		require.Equal(t, tc.want, evalFunc(t, tc.expr, params), tc.expr)
	}
}

// The type checks and conditionals (R13).
func TestFuncsType(t *testing.T) { // R13
	params := map[string]string{"o": `{"name":"Alice","age":20}`, "big": `18446744073709551615`, "inf": `1e400`}
	checkFuncs(t, []funcCase{
		// The sample corpus's is-finite-number (8.9 / 0.0 needs arithmetic:
		// SQRT(-1.0) and a number beyond float64 stand for it).
		{`IS_FINITE_NUMBER(1234.567)`, `true`},
		{`IS_FINITE_NUMBER(SQRT(-1.0))`, `false`},
		{`IS_FINITE_NUMBER(@inf)`, `false`},
		{`IS_FINITE_NUMBER("1")`, `false`},
		{`IS_FINITE_NUMBER(c.missing)`, `false`},
		// The sample corpus's is-integer.
		{`IS_INTEGER(3454.123)`, `false`},
		{`IS_INTEGER(5523432)`, `true`},
		{`IS_INTEGER(-9223372036854775808)`, `true`},
		{`IS_INTEGER(9223372036854775807)`, `true`},
		{`IS_INTEGER(18446744073709551615)`, `false`},
		{`IS_INTEGER(@big)`, `false`},
		{`IS_INTEGER("1")`, `false`},
		{`IS_INTEGER(@inf)`, `false`},
		// The sample corpus's iif, and iif-fields.
		{`IIF(true, 123, 456)`, `123`},
		{`IIF(false, 123, 456)`, `456`},
		{`IIF(123, 123, 456)`, `456`},
		{`IIF("ABC", 123, 456)`, `456`},
		{`IIF([1,2,3], 123, 456)`, `456`},
		{`IIF(@o, 123, 456)`, `456`},
		{`IIF(c.missing, 1, 2)`, `2`},
		{`IIF(c.t, c.s, 2)`, `"AdventureWorks"`},
		{`IIF(c.t, c.missing, 2)`, `-`},
		// The sample corpus's choose.
		{`CHOOSE(1, "adventure", "works", true, [1])`, `"adventure"`},
		{`CHOOSE(4, "adventure", "works", true, [1])`, `[1]`},
		{`CHOOSE(5, "adventure", "works", true, [1])`, `-`},
		{`CHOOSE(0, "a")`, `-`},
		{`CHOOSE(1.5, "a")`, `-`},
		{`CHOOSE("1", "a")`, `-`},
	}, params)
}

// The conversions (R13).
func TestFuncsConvert(t *testing.T) { // R13
	params := map[string]string{"o": `{ "department": "Bicycles" }`, "inf": `1e400`, "ninf": `-1e400`}
	checkFuncs(t, []funcCase{
		// The sample corpus's tostring.
		{`ToString(125)`, `"125"`},
		{`ToString(0.1234)`, `"0.1234"`},
		{`ToString(false)`, `"false"`},
		{`ToString([ 1, 2, 3 ])`, `"[1,2,3]"`},
		{`ToString(@o)`, `"{\"department\":\"Bicycles\"}"`},
		{`ToString("Hello World")`, `"Hello World"`},
		{`ToString(undefined)`, `-`},
		{`ToString(SQRT(-1))`, `"NaN"`},
		{`ToString(@inf)`, `"Infinity"`},
		{`ToString(@ninf)`, `"-Infinity"`},
		// The service's TOSTRING(2049537175849502700), recorded in the .NET
		// SDK's offline query engine (BuiltinFunctionEvaluator.cs).
		{`ToString(2049537175849502700)`, `"2.0495371758495027e+018"`},
		// What that model gives elsewhere (no sample shows these).
		{`ToString(1e21)`, `"1e+021"`},
		{`ToString(1e15)`, `"1e+015"`},
		{`ToString(123456789012345)`, `"123456789012345"`},
		{`ToString(16331239353195370)`, `"1.633123935319537e+016"`},
		{`ToString(0.0001)`, `"0.0001"`},
		{`ToString(0.00001)`, `"1e-005"`},
		{`ToString(-0)`, `"-0"`},
		{`ToString(0)`, `"0"`},
		{`ToString(null)`, `"null"`},
		{`ToString(c.n)`, `"37.752"`},
		// The sample corpus's stringtoarray.
		{`StringToArray("[]")`, `[]`},
		{`StringToArray('[ "coats", "gloves", "hats" ]')`, `["coats","gloves","hats"]`},
		{`StringToArray('[ { "types": [ "coats", "gloves" ] }, [ "hats" ], 76, false, null ]')`, `[{"types":["coats","gloves"]},["hats"],76,false,null]`},
		{`StringToArray("[ 'coats', 'gloves', 'hats' ]")`, `-`},
		{`StringToArray(undefined)`, `-`},
		{`StringToArray(null)`, `-`},
		{`StringToArray("{}")`, `-`},
		{`StringToArray("[1] x")`, `-`},
		// The sample corpus's stringtoboolean.
		{`StringToBoolean("true")`, `true`},
		{`StringToBoolean("true  ")`, `true`},
		{`StringToBoolean("  false")`, `false`},
		{`StringToBoolean("  false  ")`, `false`},
		{`StringToBoolean(true)`, `-`},
		{`StringToBoolean(undefined)`, `-`},
		{`StringToBoolean(null)`, `-`},
		{`StringToBoolean("True")`, `-`},
		// The sample corpus's stringtonull.
		{`StringToNull("null")`, `null`},
		{`StringToNull("null  ")`, `null`},
		{`StringToNull("  null")`, `null`},
		{`StringToNull("  null  ")`, `null`},
		{`StringToNull("NULL")`, `-`},
		{`StringToNull("Null")`, `-`},
		{`StringToNull(null)`, `-`},
		{`StringToNull(undefined)`, `-`},
		// The sample corpus's stringtonumber.
		{`StringToNumber("100")`, `100`},
		{`StringToNumber("3.14")`, `3.14`},
		{`StringToNumber("   60   ")`, `60`},
		{`StringToNumber("-1.79769e+308")`, `-1.79769e+308`},
		{`StringToNumber("Hello")`, `-`},
		{`StringToNumber(undefined)`, `-`},
		{`StringToNumber(null)`, `-`},
		{`StringToNumber("0x10")`, `-`},
		{`StringToNumber("Infinity")`, `-`},
		{`StringToNumber("01")`, `-`},
		{`StringToNumber("1.")`, `-`},
		{`StringToNumber("+1")`, `-`},
		// The sample corpus's stringtoobject.
		{`StringToObject("{}")`, `{}`},
		{`StringToObject('{"isAvailable": true}')`, `{"isAvailable":true}`},
		{`StringToObject('{"division": {"name": "Sales"}}')`, `{"division":{"name":"Sales"}}`},
		{`StringToObject("{'price': 27.55}")`, `-`},
		{`StringToObject("[]")`, `-`},
		{`StringToObject(1)`, `-`},
		{`IS_OBJECT(StringToObject('{"a":1}'))`, `true`},
	}, params)
}

// A function call allocates nothing of its own: Match of a WHERE clause of
// calls on a row allocates nothing (R13; a row given to the functions by
// pointer would escape to the heap, once a row).
func TestFuncsNoAlloc(t *testing.T) { // R13
	b := bind(t, `SELECT * FROM c WHERE STARTSWITH(c.s, "Adv") AND IS_DEFINED(c.n) AND LENGTH(c.s) > 2 AND ABS(c.neg) = 2.5 AND ARRAY_CONTAINS(c.arr, 82) AND IIF(c.t, true, false)`, nil)
	row := Row{Body: funcRow, TS: 1, ETag: "e"}
	require.True(t, b.Match(row))
	require.Zero(t, testing.AllocsPerRun(100, func() { b.Match(row) }))
}
