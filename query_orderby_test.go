package ttldb

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// vectorDocs are documents with vectors whose similarity to [1,2,3] the
// tests below order.
var vectorDocs = []string{
	`{"id":"a","pk":"p","name":"a","vector":[3,2,1]}`,  // cosine 10/14
	`{"id":"b","pk":"p","name":"b","vector":[1,2,3]}`,  // cosine 1
	`{"id":"c","pk":"p","name":"c","vector":[1,2,4]}`,  // cosine 17/sqrt(14*21)
	`{"id":"d","pk":"p","name":"d"}`,                   // no vector: undefined
	`{"id":"e","pk":"q","name":"e","vector":[-1,0,0]}`, // cosine -1/sqrt(14)
	`{"id":"f","pk":"q","name":"f","vector":[2,4,6]}`,  // cosine 1, as b
}

// R13: ORDER BY VectorDistance(...) sorts the most similar first, as the
// Learn page "VectorDistance" has it ("ORDER BY ... to sort VectorDistance
// scores in order from most similar to least", with no ASC or DESC; the
// sample corpus's vectordistance script gives cosine scores 0.89 then
// 0.75): descending scores for cosine (the default) and dotproduct,
// ascending for euclidean. A document without a vector has an undefined
// score, which sorts as ORDER BY sorts undefined: last when descending,
// first when ascending. Equal scores come in key order, in the direction
// of the first ORDER BY item (b and f: f first, its key the greater). TOP, OFFSET, pages
// of 1 and 2 results (tokens resume by the score) and cursors give the
// same order, with an index on /name or without.
func TestOrderByVectorDistance(t *testing.T) { // R13
	for _, indexes := range [][]string{nil, {"/name"}} {
		c, _ := edgeCollection(t, vectorDocs, indexes...)
		for _, tc := range []struct {
			text string
			want string
		}{
			{`SELECT VALUE c.name FROM c ORDER BY VectorDistance(c.vector, [1,2,3])`, `"f","b","c","a","e","d"`},
			{`SELECT TOP 3 VALUE c.name FROM c ORDER BY VectorDistance(c.vector, [1,2,3])`, `"f","b","c"`},
			{`SELECT VALUE c.name FROM c ORDER BY VectorDistance(c.vector, [1,2,3]) OFFSET 1 LIMIT 3`, `"b","c","a"`},
			{`SELECT VALUE c.name FROM c ORDER BY VectorDistance(c.vector, [1,2,3], false, {distanceFunction: "dotproduct"})`, `"f","c","b","a","e","d"`},
			{`SELECT VALUE c.name FROM c ORDER BY VectorDistance(c.vector, [1,2,3], true, {distanceFunction: "Euclidean"})`, `"d","b","c","a","f","e"`},
			{`SELECT VALUE c.name FROM c WHERE c.name != "b" ORDER BY VectorDistance(c.vector, [1,2,3]), c.name`, `"f","c","a","e","d"`},
			{`SELECT VALUE c.name FROM c ORDER BY c.pk DESC, VectorDistance([1,2,3], c.vector)`, `"f","e","b","c","a","d"`},
			{`SELECT DISTINCT VALUE c.pk FROM c ORDER BY VectorDistance(c.vector, [1,2,3])`, `"p","q"`},
			{`SELECT VALUE v FROM c.vector v ORDER BY VectorDistance(v, [1,2,3])`, `[2,4,6],[1,2,3],[1,2,4],[3,2,1],[-1,0,0]`},
			{`SELECT c.name, VectorDistance(c.vector, [1,2,3]) AS s FROM c WHERE c.name IN ("a", "b") ORDER BY VectorDistance(c.vector, [1,2,3])`,
				`{"name":"b","s":1},{"name":"a","s":0.7142857142857143}`},
		} {
			for _, n := range []int{1, 2} {
				require.Equal(t, "["+tc.want+"]", "["+strings.Join(joinPages(t, c, tc.text, n), ",")+"]", "%s, indexes %v", tc.text, indexes)
			}
		}
	}
}

// R13: the ORDER BY forms the service refuses are refused, with its
// reason: an expression that is no path of the document but
// VectorDistance ("ORDER BY item expression could not be mapped to a
// document path", error 2206: dotnet/efcore issues 16150, 27037), a path
// or a VectorDistance of a JOIN's alias ("Order-by over correlated
// collections is not supported": Azure/azure-cosmos-dotnet-v2 issues 314,
// 679), and ASC or DESC after VectorDistance, which sorts the most similar
// first.
func TestOrderByRefusedForms(t *testing.T) {
	c, _ := edgeCollection(t, vectorDocs)
	for _, tc := range []struct{ text, msg string }{
		{`SELECT * FROM c ORDER BY LENGTH(c.name)`, "could not be mapped to a document path"},
		{`SELECT * FROM c ORDER BY c.a || c.b`, "could not be mapped to a document path"},
		{`SELECT * FROM c ORDER BY (VectorDistance(c.vector, [1,2,3]))`, "could not be mapped to a document path"},
		{`SELECT c.id FROM c JOIN t IN c.tags ORDER BY t.name`, "correlated collections"},
		{`SELECT c.id FROM c JOIN t IN c.tags ORDER BY VectorDistance(t.v, [1])`, "correlated collections"},
		{`SELECT VALUE t FROM t IN c.tags ORDER BY t.name`, "correlated collections"},
		{`SELECT * FROM c ORDER BY VectorDistance(c.vector, [1,2,3]) DESC`, "takes no DESC: it sorts the most similar first"},
		{`SELECT * FROM c ORDER BY VectorDistance(c.vector, [1,2,3]) asc`, "takes no ASC"},
		{`SELECT * FROM c ORDER BY VectorDistance(c.vector, ARRAY(SELECT VALUE 1))`, "a subquery in ORDER BY is not supported"},
	} {
		_, err := c.Query(bg, SQL{Text: tc.text})
		require.ErrorIs(t, err, ErrInvalidQuery, tc.text)
		require.ErrorContains(t, err, tc.msg, tc.text)
	}
}
