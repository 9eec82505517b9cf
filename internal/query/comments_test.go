package query

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: -- starts a comment that runs to the end of the line, as the
// service reads it (Azure/azure-cosmos-db-emulator-docker issue 272,
// microsoft/vscode-cosmosdb issue 2414), anywhere white space may stand
// but in a string; /* is refused, as the service refuses it (SC1001).
func TestComments(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"1 -- one", `1`},
		{"1--1", `1`},
		{"1 --", `1`},
		{"1 -- a\n+ 2", `3`},
		{"1 -- a\r+ 2 -- b\r\n* 3", `7`},
		{"-- first\n4", `4`},
		{"1 - -1", `2`},
		{"'a--b'", `"a--b"`},
		{"\"--\" -- \"x\"", `"--"`},
		{"[1, -- one\n2]", `[1,2]`},
	} {
		require.Equal(t, tc.want, value(t, tc.expr), tc.expr)
	}
	b := bind(t, "-- the query\nSELECT VALUE c.a -- its value\nFROM c -- each document\nWHERE c.a > 1 -- only some", nil)
	require.Equal(t, "2\n3", results(b, []Row{{Body: `{"a":1}`}, {Body: `{"a":2}`}, {Body: `{"a":3}`}}))
	for _, tc := range []struct {
		sql          string
		line, column int
		msg          string
	}{
		{"SELECT VALUE 1 /* one */", 1, 16, "/* is no comment in Cosmos SQL"},
		{"SELECT -- all\nFROM c", 2, 1, `expected`},
		{"SELECT VALUE -- nothing", 1, 24, `expected an expression, found the end of the query`},
	} {
		e := parseError(t, tc.sql)
		require.Contains(t, e.Msg, tc.msg, tc.sql)
		require.Equal(t, tc.line, e.Line, tc.sql)
		require.Equal(t, tc.column, e.Column, tc.sql)
	}
}
