package conformance

// The model's key space, the values its generator draws from, valid and
// invalid (R2, R10), and the error classes the model predicts.

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// The key space and the values the generator draws from.

// modelPart is a partition and the JSON literals that write it.
type modelPart struct {
	pk   mPK
	lits []string
}

var modelNone = modelPart{pk: mPK{kind: mkNone}}

// modelPartitions: each sequence uses the none partition and two of these.
var modelPartitions = []modelPart{
	{mPK{kind: mkNull}, []string{"null"}},
	{mPK{kind: mkFalse}, []string{"false"}},
	{mPK{kind: mkTrue}, []string{"true"}},
	{mPK{kind: mkNumber, num: 0}, []string{"0", "-0", "0.0", "0e5"}},
	{mPK{kind: mkNumber, num: 2.5}, []string{"2.5", "25e-1", "2.50"}},
	{mPK{kind: mkNumber, num: -3}, []string{"-3", "-3.0", "-3E0"}},
	{mPK{kind: mkString, str: "a"}, []string{`"a"`, `"\u0061"`}},
	{mPK{kind: mkString, str: ""}, []string{`""`}},
	{mPK{kind: mkString, str: "a\x00b"}, []string{`"a\u0000b"`}},
	{mPK{kind: mkString, str: "é"}, []string{`"é"`, `"\u00e9"`}},
	{mPK{kind: mkString, str: "B"}, []string{`"B"`}},
}

// modelID is an id and the JSON literals that write it.
type modelID struct {
	id   string
	lits []string
}

// modelIDs are the ids, with the JSON literals that write them.
var modelIDs = []modelID{
	{"a", []string{`"a"`, `"\u0061"`}},
	{"B", []string{`"B"`}},
	{"aa", []string{`"aa"`}},
	{"é", []string{`"é"`, `"\u00e9"`}},
	{"1", []string{`"1"`}},
	{"z~", []string{`"z~"`}},
}

// modelIDPathIDs are more ids for the collections partitioned by /id,
// where an id is also a partition key (a string): each written with and
// without escapes, which must all give one id and one partition. (Not
// '<', '>' or '&', which encoding/json escapes in the Go-value payloads.)
var modelIDPathIDs = []modelID{
	{`a"b`, []string{`"a\"b"`, `"a\u0022b"`}},
	{"😀", []string{`"😀"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`}},
	{"x y", []string{`"x y"`, `"x\u0020y"`}},
	{"ÿ~", []string{`"ÿ~"`, `"\u00ff~"`, `"\u00FF\u007e"`}},
}

// Invalid values (R2, R10) and the class of error they must get.
var (
	modelBadTTLs = []string{"0", "-0", "0.0", "-2", "-5", "10.5", "1e-1", "2147483648", "2147483647.5",
		"1e10", "1e400", `"10"`, `"-1"`, "true", "false", "{}", "[]", "[5]", `{"n":5}`}
	modelBadIDLits = []string{`""`, `"a/b"`, `"a\\b"`, `"a?b"`, `"a#b"`, `"a\u0001"`, `"\u007f"`,
		`"a\u0085"`, "42", "null", "true", "{}", `["a"]`, `"` + strings.Repeat("x", ttldb.MaxIDLength+1) + `"`}
	modelBadIDs = []string{"", "a/b", `a\b`, "a?", "#", "\x01", "\x7f", "a\u0085", "\xff",
		strings.Repeat("x", ttldb.MaxIDLength+1)}
	modelBadPKLits = []string{`{"a":1}`, "[1]", "[]", "{}", `"` + strings.Repeat("p", 3000) + `"`}
	// With the path /id, the id is the partition key: values that would
	// be good or bad partition keys, none of them a good id (R10: the id
	// is a string of at most 1023 bytes).
	modelBadIDPKLits = append([]string{"42", "-3.0", "0", "null", "true", "false", `"a/b"`, `""`,
		`"` + strings.Repeat("q", ttldb.MaxIDLength+1) + `"`}, modelBadPKLits...)
	// With the path /id, values of a "pk" member, which is then ordinary
	// data, good partition key or not.
	modelOrdinaryPKs = []string{`"a"`, `"B"`, `"zz"`, "1", "-3", "null", "true", `{"pk":"a"}`,
		`{"a":1}`, "[1]", "[]", `"` + strings.Repeat("p", 3000) + `"`}
	modelBadPKs = []ttldb.PartitionKey{ttldb.NumberKey(math.NaN()), ttldb.NumberKey(math.Inf(1)),
		ttldb.StringKey("\xff"), ttldb.StringKey(strings.Repeat("p", 3000))}
	modelNotObjects = []string{"[1,2]", `"s"`, "42", "null", "true", "", "  "}
	modelBadJSON    = []string{`{"id":"a"`, `{"id":"a",}`, `{id:"a"}`, `{"id":"a"} x`, `{"id":"a","v":01}`,
		`{"id":"a","v":.5}`, `{"id":"a\x"}`, `{"id":"a","v":tru}`, "{\"id\":\"a\tb\"}", `{"id" "a"}`}
)

// modelFilters are the Query filters: each as the library runs it and as
// the model runs it.
var modelFilters = []struct {
	name  string
	lib   func(c *ttldb.Collection) func(ttldb.Document) bool
	model func(mKey, *mDoc) bool
}{
	{"none", nil, nil},
	{"id<b", func(*ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { return d.ID() < "b" }
	}, func(k mKey, _ *mDoc) bool { return k.id < "b" }},
	{"own ttl", func(*ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { _, ok := d.TTL(); return ok }
	}, func(_ mKey, d *mDoc) bool { return d.ttl.kind == ttlNever || d.ttl.kind == ttlSeconds }},
	{"even _ts", func(*ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { return d.TS()%2 == 0 }
	}, func(_ mKey, d *mDoc) bool { return d.ts%2 == 0 }},
	// A filter may call the collection (Query.Filter): every listed
	// document is live, so Get finds it.
	{"Get inside", func(c *ttldb.Collection) func(ttldb.Document) bool {
		return func(d ttldb.Document) bool { _, err := c.Get(bg, d.PartitionKey(), d.ID()); return err == nil }
	}, func(mKey, *mDoc) bool { return true }},
}

// modelSentinels are the sentinel errors; every error must match exactly one.
var modelSentinels = []struct {
	class string
	err   error
}{
	{classNotFound, ttldb.ErrNotFound}, {classConflict, ttldb.ErrConflict},
	{classPrecondition, ttldb.ErrPreconditionFailed}, {classInvalidTTL, ttldb.ErrInvalidTTL},
	{classInvalidID, ttldb.ErrInvalidID}, {classInvalidPK, ttldb.ErrInvalidPartitionKey},
	{classInvalidDoc, ttldb.ErrInvalidDocument}, {classTooLarge, ttldb.ErrTooLarge},
	{classInvalidOpt, ttldb.ErrInvalidOption}, {classInvalidToken, ttldb.ErrInvalidContinuation},
	{classClosed, ttldb.ErrClosed}, {classInvalidPatch, ttldb.ErrInvalidPatch},
	{classInvalidBatch, ttldb.ErrInvalidBatch}, {classInvalidQuery, ttldb.ErrInvalidQuery},
}

// errClass names the one sentinel err matches.
func errClass(err error) (string, error) {
	if err == nil {
		return okClass, nil
	}
	var found []string
	for _, s := range modelSentinels {
		if errors.Is(err, s.err) {
			found = append(found, s.class)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("error %q matches %d sentinels %v, want exactly one", err, len(found), found)
	}
	return found[0], nil
}

// inputClasses are errors about the input. A closed collection reports
// ErrClosed instead: every call after Close returns it, whatever its input.
var inputClasses = map[string]bool{classInvalidTTL: true, classInvalidID: true, classInvalidPK: true,
	classInvalidDoc: true, classTooLarge: true, classInvalidOpt: true, classInvalidToken: true, classInvalidQuery: true}
