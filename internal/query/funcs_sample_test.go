package query

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The sample corpus's queries of functions on documents, each with its
// seed documents and the service's results (Azure-Samples/
// cosmos-db-nosql-query-samples, scripts/<name>), run whole: functions in
// SELECT items, SELECT VALUE and WHERE (R13).
func TestFuncsSampleQueries(t *testing.T) { // R13
	for _, tc := range []struct {
		name, sql string
		docs      []string
		want      []string
	}{
		{"iif-fields",
			"SELECT\n    p.name,\n    IIF(p.onSale, p.pricing.sale, p.pricing.msrp) AS price\nFROM\n    products p\nWHERE\n    p.category = \"camp-utensils\"",
			[]string{
				`{"id":"68719519221","name":"Estrel Set Cutlery","onSale":true,"category":"camp-utensils","pricing":{"msrp":55.95,"sale":30.85}}`,
				`{"id":"68719520367","name":"Willagno Spork","onSale":false,"category":"camp-utensils","pricing":{"msrp":20.15,"sale":12.55}}`,
			},
			[]string{`{"name":"Estrel Set Cutlery","price":30.85}`, `{"name":"Willagno Spork","price":20.15}`}},
		{"numberbin-field",
			"SELECT\n    p.name,\n    NumberBin(p.price, 0.01) AS price\nFROM\n    products p\nWHERE\n    p.category = \"portable-cooking\"",
			[]string{`{"id":"8086446321","name":"Ignis Cooking System","price":155.23478,"category":"portable-cooking"}`},
			[]string{`{"name":"Ignis Cooking System","price":155.23}`}},
		{"regexmatch-field",
			"SELECT VALUE\n    p.name\nFROM\n    products p\nWHERE\n    p.category = \"winter-coats\" AND    \n    RegexMatch(p.name, \" coat{1}\")",
			[]string{
				`{"id":"6875157296","name":"Tecozow coat","category":"winter-coats"}`,
				`{"id":"8286303747","name":"Bladnick coat","category":"winter-coats"}`,
				`{"id":"8739627712","name":"Anidin heavy jacket","category":"winter-coats"}`,
			},
			[]string{`"Tecozow coat"`, `"Bladnick coat"`}},
		{"setintersect-field",
			"SELECT\n    p.name,\n    SetIntersect(p.colors, p.inStockColors) AS availableColors\nFROM\n    products p\nWHERE\n    p.category = \"modern-vests\"",
			[]string{`{"id":"5688704115","name":"Snowilla vest","inStockColors":["Rhino","Finch"],"colors":["Finch","Mine Shaft","Rhino"],"category":"modern-vests"}`},
			[]string{`{"name":"Snowilla vest","availableColors":["Rhino","Finch"]}`}},
		{"setunion-field",
			"SELECT\n    p.name,    \n    SetUnion(p.colors[0].values, p.colors[1].values) AS allColors\nFROM\n    products p\nWHERE\n    p.category = \"seasonal-coats\"",
			[]string{`{"id":"7799732288","name":"Malsca coat","category":"seasonal-coats","colors":[{"season":"Winter","values":["Cutty Sark","Horizon","Russet","Fuscous"]},{"season":"Summer","values":["Fuscous","Horizon","Tacha"]}]}`},
			[]string{`{"name":"Malsca coat","allColors":["Cutty Sark","Horizon","Russet","Fuscous","Tacha"]}`}},
	} {
		var rows []Row
		for _, d := range tc.docs {
			rows = append(rows, Row{Body: d, TS: 1, ETag: "e"})
		}
		require.Equal(t, strings.Join(tc.want, "\n"), results(bind(t, tc.sql, nil), rows), tc.name)
	}
}
