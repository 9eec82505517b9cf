package jsonscan

import "strings"

// Seeds are texts that exercise the intake, valid and not: white space,
// system properties to drop, members noted twice, escapes, bad UTF-8,
// numbers and literals cut short, the nesting limit and one past it, and a
// session document of many short members. They seed the fuzz targets of
// this package and of ttldb (FuzzFastScan, FuzzDocument); only tests call
// it, so it is not in a program's binary.
func Seeds() [][]byte {
	seeds := []string{
		`{"id":"a"}`,
		` { "id" : "a" , "pk" : "x" , "ttl" : 10 } `,
		"\t{\"id\":\"a\",\r\n\"ttl\":null}\n",
		`{"id":"a","ttl":-1,"pk":-0}`,
		`{"id":"a","ttl":1e1,"pk":1.5e300}`,
		`{"id":"a","ttl":10.5}`,
		`{"id":"a","ttl":0}`,
		`{"id":"a","ttl":"10"}`,
		`{"id":"a","ttl":2147483648}`,
		`{"_ts":5,"id":"a","_etag":"x","b":[1,{"c":null,"_ts":1}],"ttl":2147483647}`,
		`{"id":"a","_ts":1,"_ts":2,"_etag":3,"_etag":4}`,
		`{"id":"deep","_etag":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
		`{"id":"a","id":"b"}`,
		`{"id":"a","ttl":1,"ttl":1}`,
		`{"i\u0064":"a","\u0074tl":5,"p\u006b":true}`,
		`{"id":"a","dup":1,"dup":[2],"dup":{"dup":3,"dup":4}}`,
		`{"id":"a/b"}`,
		`{"id":""}`,
		`{"id":1}`,
		`{"id":null}`,
		`{"pk":"x"}`,
		`{"id":"a\u007f"}`,
		`{"id":"a\u0085"}`,
		`{"id":"\u00e9\u2028\ud83d\ude00"}`,
		`{"id":"\ud800"}`, `{"id":"\udc00\ud800"}`, `{"id":"a","pk":"\udfff"}`, `{"id":"\ud83d\ude00","pk":"\ud800\\udc00"}`,
		`{"id":"a","pk":{"x":1}}`,
		`{"id":"a","pk":[1]}`,
		`{"id":"a","pk":1e400}`,
		`{"id":"a","pk":1e-400}`,
		`{"id":"a","pk":"\u0000\u0000"}`,
		`{"id":"a","a":{"b":"k","b":"j"}}`,
		`{"id":"a","a":{"b":2.5,"c":{"b":1}}}`,
		`{"id":"a","a":{"\u0062":false},"b":null}`,
		`{"id":"a","a":[{"b":1}]}`,
		`{"id":"a","a":"b"}`,
		`{"id":"a","x":"\u2028<>&\/\b\f\n\r\t\"\\"}`,
		`{"id":"a"} x`,
		`{"id":"a"}{}`,
		`{"id":"a",}`,
		`{"id":"a","n":01}`,
		`{"id":"a","n":-}`,
		`{"id":"a","n":1.}`,
		`{"id":"a","n":.5}`,
		`{"id":"a","n":tru}`,
		`{"id":"a","s":"\x"}`,
		`{"id":"a","s":"\u12"}`,
		"{\"id\":\"a\",\"s\":\"\x01\"}",
		"{\"id\":\"\xff\"}",
		"{\"id\":\"a\",\"s\":\"\xed\xa0\x80\"}",
		"\xef\xbb\xbf{\"id\":\"a\"}",
		`[]`,
		`"x"`,
		`null`,
		``,
		` `,
		`{}`,
		`{`,
		`{"id":"a","x":[]}`,
		SessionDoc,
	}
	var out [][]byte
	for _, s := range seeds {
		out = append(out, []byte(s))
	}
	// Nested 128 and 129 levels deep (R10).
	for _, depth := range []int{MaxDepth, MaxDepth + 1} {
		out = append(out, []byte(`{"id":"a","x":`+strings.Repeat("[", depth-1)+strings.Repeat("]", depth-1)+`}`))
	}
	return out
}

// SessionDoc is the document of ttldb's benchmarks: many short members, as a
// session or a token record has.
const SessionDoc = `{"id":"key:0000000042","ttl":3600,"type":"session","user":"u-4711","tenant":"acme",` +
	`"status":"active","roles":["reader","writer"],` +
	`"createdAt":"2026-11-21T22:24:00Z","device":{"os":"linux","app":"b/1"}}`
