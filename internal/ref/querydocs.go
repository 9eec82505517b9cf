package ref

import (
	"encoding/json"
	"fmt"
	"strings"
)

// QueryDocs are the documents of the query tests, the root package's and
// the conformance suite's: kinds of every sort at the same paths, missing
// members, nulls, nesting and arrays, in partitions "eu", "us" and "ap".
var QueryDocs = []string{
	`{"id":"ord-1","pk":"eu","status":"open","total":10,"region":"eu","user":{"name":"Ann"},"tags":["a","b"],"email":"a@x"}`,
	`{"id":"ord-2","pk":"eu","status":"open","total":10.0,"region":"us","user":{"name":"Bob"},"tags":["b"]}`,
	`{"id":"ord-3","pk":"us","status":"closed","total":25.5,"region":"us","user":{"name":"Cid"},"email":null}`,
	`{"id":"ord-4","pk":"us","status":"open","total":"12","region":"ap","tags":[]}`,
	`{"id":"inv-1","pk":"eu","status":"open","total":3,"region":"eu","odd key":1}`,
	`{"id":"inv-2","pk":"ap","status":null,"total":-7,"region":"eu","user":{"name":"Éva"},"flag":true}`,
	`{"id":"inv-3","pk":"ap","total":100,"flag":false}`,
	`{"id":"x","pk":"ap","status":true,"total":null,"user":"plain"}`,
}

// PointCapDocs are 1,300 documents in which the equality st = "open"
// matches more than the 1,024 index items a point read of the in-process
// engine takes before it prefers the index on an ORDER BY path: /v holds
// numbers, strings and nulls, and is missing from every thirteenth.
func PointCapDocs() []string {
	var docs []string
	for i := range 1300 {
		v := fmt.Sprint(i % 17)
		switch {
		case i%11 == 0:
			v = "null"
		case i%5 == 0:
			v = fmt.Sprintf(`"s%d"`, i%3)
		}
		st := map[bool]string{true: `"closed"`, false: `"open"`}[i%7 == 0]
		if i%13 == 0 {
			docs = append(docs, fmt.Sprintf(`{"id":"%04d","pk":"p%d","st":%s}`, (i*7919)%1300, i%4, st))
			continue
		}
		docs = append(docs, fmt.Sprintf(`{"id":"%04d","pk":"p%d","st":%s,"v":%s}`, (i*7919)%1300, i%4, st, v))
	}
	return docs
}

// ResultIDs returns, for each query result, the document's id when the
// result is a whole stored document (it has an id and an _etag), or the
// result's text otherwise: what the query tests compare.
func ResultIDs(results []json.RawMessage) []string {
	out := []string{}
	for _, r := range results {
		var v struct {
			ID *string `json:"id"`
		}
		if json.Unmarshal(r, &v) == nil && v.ID != nil && strings.Contains(string(r), `"_etag"`) {
			out = append(out, *v.ID)
		} else {
			out = append(out, string(r))
		}
	}
	return out
}
