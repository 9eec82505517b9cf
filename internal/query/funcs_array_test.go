package query

import "testing"

// The array and set functions, with the sample corpus's and the Learn
// reference's facts (R13).
func TestFuncsArray(t *testing.T) { // R13
	params := map[string]string{
		"shirts":  `[{"category": "shirts", "color": "blue"}]`,
		"cat":     `{"category": "shirts"}`,
		"colors":  `["Finch", "Mine Shaft", "Rhino"]`,
		"inStock": `["Rhino", "Finch"]`,
		"winter":  `["Cutty Sark", "Horizon", "Russet", "Fuscous"]`,
		"summer":  `["Fuscous", "Horizon", "Tacha"]`,
		"kv":      `{"a": "12345", "b": "67890"}`,
	}
	checkFuncs(t, []funcCase{
		// array-concat
		{`ARRAY_CONCAT(["apples", "strawberries"], ["bananas"])`, `["apples","strawberries","bananas"]`},
		{`ARRAY_CONCAT([], [1], c.arr)`, `[1,70,86,92,99,85,90,82]`}, {`ARRAY_CONCAT([1], "a")`, `-`},
		// array-slice
		{`ARRAY_SLICE(c.arr, 0)`, `[70,86,92,99,85,90,82]`},
		{`ARRAY_SLICE(c.arr, 1)`, `[86,92,99,85,90,82]`},
		{`ARRAY_SLICE(c.arr, -1)`, `[82]`},
		{`ARRAY_SLICE(c.arr, -2)`, `[90,82]`},
		{`ARRAY_SLICE(c.arr, 0, 3)`, `[70,86,92]`},
		{`ARRAY_SLICE(c.arr, 0, 12)`, `[70,86,92,99,85,90,82]`},
		{`ARRAY_SLICE(c.arr, 3, 5)`, `[99,85,90,82]`},
		{`ARRAY_SLICE(c.arr, -2, 1)`, `[90]`},
		{`ARRAY_SLICE(c.arr, -100, 1)`, `[70]`}, {`ARRAY_SLICE(c.arr, 7)`, `[]`}, {`ARRAY_SLICE(c.arr, 0, 0)`, `[]`},
		{`ARRAY_SLICE(c.arr, 0.5)`, `-`}, {`ARRAY_SLICE(c.arr, 0, "1")`, `-`}, {`ARRAY_SLICE("abc", 0)`, `-`},
		// array-contains (the Learn reference), array_length
		{`ARRAY_CONTAINS(["coats", "jackets", "sweatshirts"], "coats")`, `true`},
		{`ARRAY_CONTAINS(["coats", "jackets", "sweatshirts"], "hoodies")`, `false`},
		{`ARRAY_CONTAINS(@shirts, @cat)`, `false`},
		{`ARRAY_CONTAINS(@shirts, @cat, true)`, `true`},
		{`ARRAY_LENGTH(c.arr)`, `7`}, {`ARRAY_LENGTH(c.s)`, `-`},
		// array-contains-all and -any (the Learn reference)
		{`ARRAY_CONTAINS_ALL([1, true, "3", [1,2,3]], 1, true, "3", [1,2,3])`, `true`},
		{`ARRAY_CONTAINS_ALL([1, 2, 3, 4], 2, 3, 4, 5)`, `false`},
		{`ARRAY_CONTAINS_ALL([1, 2, 3, 4], 1, undefined)`, `-`},
		{`ARRAY_CONTAINS_ALL([1, 2, 3, 4], 5, 6, 7, 8)`, `false`},
		{`ARRAY_CONTAINS_ALL([], 1, 2, 3)`, `false`},
		{`ARRAY_CONTAINS_ALL([1, 2, 3, 4], 5, undefined)`, `false`},
		{`ARRAY_CONTAINS_ANY([1, true, "3", [1,2,3]], 1, true, "3", [1,2,3])`, `true`},
		{`ARRAY_CONTAINS_ANY([1, 2, 3, 4], 2, 3, 4, 5)`, `true`},
		{`ARRAY_CONTAINS_ANY([1, 2, 3, 4], 1, undefined)`, `true`},
		{`ARRAY_CONTAINS_ANY([1, 2, 3, 4], 5, 6, 7, 8)`, `false`},
		{`ARRAY_CONTAINS_ANY([], 1, 2, 3)`, `false`},
		{`ARRAY_CONTAINS_ANY([1, 2, 3, 4], 5, undefined)`, `-`},
		{`ARRAY_CONTAINS_ANY("1", 1)`, `-`},
		// setintersect, setintersect-field
		{`SetIntersect([1, 2, 3, 4], [3, 4, 5, 6])`, `[3,4]`},
		{`SetIntersect([1, 2, 3, 4], [])`, `[]`},
		{`SetIntersect([1, 2, 3, 4], [1, 1, 1, 1])`, `[1]`},
		{`SetIntersect([1, 2, 3, 4], ["A", "B"])`, `[]`},
		{`SetIntersect([1, 2, "A", "B"], ["A", 1])`, `["A",1]`},
		{`SetIntersect(@colors, @inStock)`, `["Rhino","Finch"]`},
		{`SetIntersect([1], 1)`, `-`},
		// setunion, setunion-field
		{`SetUnion([1, 2, 3, 4], [3, 4, 5, 6])`, `[1,2,3,4,5,6]`},
		{`SetUnion([1, 2, 3, 4], [])`, `[1,2,3,4]`},
		{`SetUnion([1, 2, 3, 4], [1, 1, 1, 1])`, `[1,2,3,4]`},
		{`SetUnion([1, 2, "A", "B"], ["A", 1])`, `[1,2,"A","B"]`},
		{`SetUnion(@winter, @summer)`, `["Cutty Sark","Horizon","Russet","Fuscous","Tacha"]`},
		{`SetUnion([1, 1.0, [1]], [[1.0]])`, `[1,[1]]`},
		{`SetUnion(null, [])`, `-`},
		// objecttoarray, objecttoarray-key-value
		{`ObjectToArray(@kv)`, `[{"k":"a","v":"12345"},{"k":"b","v":"67890"}]`},
		{`ObjectToArray(@kv, "key", "value")`, `[{"key":"a","value":"12345"},{"key":"b","value":"67890"}]`},
		{`ObjectToArray(c.obj, "key")`, `[{"key":"a","v":"12345"},{"key":"b","v":"67890"}]`},
		{`ObjectToArray(StringToObject("{}"))`, `[]`},
		{`ObjectToArray(c.arr)`, `-`}, {`ObjectToArray(@kv, 1)`, `-`},
	}, params)
}
