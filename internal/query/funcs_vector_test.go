package query

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// R13: VECTORDISTANCE as the Learn page "VectorDistance" documents it: two
// arrays of numbers, an optional brute-force boolean, optional options of
// which distanceFunction picks cosine (-1 to +1), dotproduct or euclidean
// (0 for equal vectors); cosine without options (ttldb has no container
// vector policy to take the default from). No score (undefined) for a
// vector that is no flat array of numbers, as the page says of a
// multi-dimensional one.
func TestVectorDistance(t *testing.T) {
	num := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		return f
	}
	for _, tc := range []struct {
		expr string
		want float64
	}{
		{`VectorDistance([1, 2, 3], [1, 2, 3])`, 1},
		{`VectorDistance([1, 0], [0, 1])`, 0},
		{`VectorDistance([1, 0], [-1, 0])`, -1},
		{`VectorDistance([1, 2, 3], [4, 5, 6])`, 32 / math.Sqrt(14*77)},
		{`VectorDistance([1, 2, 3], [4, 5, 6], false, {distanceFunction: "cosine"})`, 32 / math.Sqrt(14*77)},
		{`VectorDistance([1, 2, 3], [4, 5, 6], true, {distanceFunction: "dotproduct"})`, 32},
		{`VectorDistance([1, 2, 3], [4, 5, 6], false, {distanceFunction: "euclidean", dataType: "float32"})`, math.Sqrt(27)},
		{`VectorDistance([1, 2, 3], [1, 2, 3], false, {distanceFunction: "Euclidean"})`, 0},
		{`VectorDistance([1, 2], [3, 4], false, {distanceFunction: "DotProduct", searchListSizeMultiplier: 10})`, 11},
	} {
		require.InDelta(t, tc.want, num(value(t, tc.expr)), 1e-15, tc.expr)
	}
	for _, expr := range []string{
		`VectorDistance([1, 2], [1, 2, 3])`,
		`VectorDistance([[1, 2]], [[1, 2]])`,
		`VectorDistance([1, "2"], [1, 2])`,
		`VectorDistance([], [])`,
		`VectorDistance("a", [1])`,
		`VectorDistance(undefined, [1])`,
		`VectorDistance([0, 0], [1, 1])`, // cosine of a zero vector
	} {
		require.Equal(t, "-", value(t, expr), expr)
	}
	rows := []Row{{Body: `{"id":"a","v":[1,2,3]}`}, {Body: `{"id":"b","v":[3,2,1]}`}, {Body: `{"id":"c","v":"x"}`}}
	require.Equal(t, `{"id":"a","score":0}`+"\n"+`{"id":"b","score":2.8284271247461903}`+"\n"+`{"id":"c"}`,
		results(bind(t, `SELECT c.id, VectorDistance(c.v, [1, 2, 3], false, {distanceFunction: "euclidean"}) AS score FROM c`, nil), rows))
}

// R13: VECTORDISTANCE's arguments the page documents are checked where
// the query is parsed: a literal brute-force flag is a boolean, the
// options an object literal of the documented members and values.
func TestVectorDistanceErrors(t *testing.T) {
	for _, tc := range []struct {
		sql string
		msg string
	}{
		{`SELECT VALUE VectorDistance([1])`, `VECTORDISTANCE takes 2 to 4 arguments, not 1`},
		{`SELECT VALUE VectorDistance([1], [1], 1)`, `third argument says whether to use brute force: true or false, not 1`},
		{`SELECT VALUE VectorDistance([1], [1], false, "cosine")`, `fourth argument is an object literal of options`},
		{`SELECT VALUE VectorDistance([1], [1], false, {distanceFunction: "manhattan"})`, `distanceFunction is "cosine", "dotproduct" or "euclidean", not "manhattan"`},
		{`SELECT VALUE VectorDistance([1], [1], false, {distanceFunction: 1})`, `distanceFunction is "cosine"`},
		{`SELECT VALUE VectorDistance([1], [1], false, {dataType: "float64"})`, `dataType is "float32", "float16", "int8" or "uint8", not "float64"`},
		{`SELECT VALUE VectorDistance([1], [1], false, {metric: "cosine"})`, `VECTORDISTANCE has no option "metric"`},
		{`SELECT VALUE VectorDistance([1], [1], false, {searchListSizeMultiplier: "x"})`, `searchListSizeMultiplier is a number`},
		{`SELECT VALUE c.id FROM c WHERE VectorDistance(c.v, [1], false, {distanceFunction: c.f}) > 0`, `option distanceFunction takes a literal`},
	} {
		require.Contains(t, parseError(t, tc.sql).Msg, tc.msg, tc.sql)
	}
}
