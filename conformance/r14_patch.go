package conformance

// R14's patch: the table of operations (applied directly and through
// their JSON form), the errors that name the fault, a patch as a write,
// nested partition keys, concurrent increments and Typed's Patch. Moved
// from the root package's patch_test.go and patchjson_test.go.

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// r14PatchBase is the document every case of the operations table patches.
const r14PatchBase = `{"id":"p1","pk":"a","name":"bike","price":455.95,"inventory":{"quantity":15,"bins":[1,2]},"used":false,"tags":["r-series"],"n":null,"s":"str","a~b":1,"c/d":2}`

// r14PatchCase is a case of the table of patch operations.
type r14PatchCase struct {
	name string
	ops  []ttldb.PatchOp
	want string // the body after the patch, or "" for an error
	err  error
}

// r14PatchCases is the table of patch operations, which
// checkPatchOperations applies, and checkPatchJSONLikeConstructors through
// their JSON form.
func r14PatchCases() []r14PatchCase {
	big := strings.Repeat("x", ttldb.MaxDocumentSize)
	deep := strings.Repeat("[", ttldb.MaxDepth) + strings.Repeat("]", ttldb.MaxDepth)
	return []r14PatchCase{
		// The example of Cosmos DB's documentation.
		{"cosmos example", []ttldb.PatchOp{ttldb.PatchAdd("/color", "silver"), ttldb.PatchRemove("/used"), ttldb.PatchSet("/price", 355.45), ttldb.PatchIncrement("/inventory/quantity", 10), ttldb.PatchAdd("/tags/-", "featured-bikes"), ttldb.PatchMove("/color", "/inventory/color")},
			`{"id":"p1","pk":"a","name":"bike","price":355.45,"inventory":{"quantity":25,"bins":[1,2],"color":"silver"},"tags":["r-series","featured-bikes"],"n":null,"s":"str","a~b":1,"c/d":2}`, nil},

		// add
		{"add new member", []ttldb.PatchOp{ttldb.PatchAdd("/new", map[string]int{"x": 1})}, `{"id":"p1","pk":"a","name":"bike","price":455.95,"inventory":{"quantity":15,"bins":[1,2]},"used":false,"tags":["r-series"],"n":null,"s":"str","a~b":1,"c/d":2,"new":{"x":1}}`, nil},
		{"add existing member replaces in place", []ttldb.PatchOp{ttldb.PatchAdd("/name", "trike")}, strings.Replace(r14PatchBase, `"bike"`, `"trike"`, 1), nil},
		{"add inserts into an array", []ttldb.PatchOp{ttldb.PatchAdd("/inventory/bins/0", 0)}, strings.Replace(r14PatchBase, `[1,2]`, `[0,1,2]`, 1), nil},
		{"add at the length appends", []ttldb.PatchOp{ttldb.PatchAdd("/inventory/bins/2", 3)}, strings.Replace(r14PatchBase, `[1,2]`, `[1,2,3]`, 1), nil},
		{"add past the length", []ttldb.PatchOp{ttldb.PatchAdd("/inventory/bins/3", 3)}, "", ttldb.ErrInvalidPatch},
		{"add raw JSON", []ttldb.PatchOp{ttldb.PatchAdd("/n", json.RawMessage(` { "k" : [ true ] } `))}, strings.Replace(r14PatchBase, `"n":null`, `"n":{"k":[true]}`, 1), nil},
		{"add invalid raw JSON", []ttldb.PatchOp{ttldb.PatchAdd("/n", []byte(`{"k":`))}, "", ttldb.ErrInvalidPatch},
		{"add a value that does not encode", []ttldb.PatchOp{ttldb.PatchAdd("/n", math.Inf(1))}, "", ttldb.ErrInvalidPatch},
		{"add under a missing parent", []ttldb.PatchOp{ttldb.PatchAdd("/missing/x", 1)}, "", ttldb.ErrInvalidPatch},
		{"add through a string", []ttldb.PatchOp{ttldb.PatchAdd("/s/x", 1)}, "", ttldb.ErrInvalidPatch},
		{"add through null", []ttldb.PatchOp{ttldb.PatchAdd("/n/x", 1)}, "", ttldb.ErrInvalidPatch},
		{"escaped names", []ttldb.PatchOp{ttldb.PatchSet("/a~0b", 10), ttldb.PatchSet("/c~1d", 20)}, strings.Replace(strings.Replace(r14PatchBase, `"a~b":1`, `"a~b":10`, 1), `"c/d":2`, `"c/d":20`, 1), nil},
		{"a lone tilde", []ttldb.PatchOp{ttldb.PatchSet("/a~b", 1)}, "", ttldb.ErrInvalidPatch},
		{"a name that needs escaping in JSON", []ttldb.PatchOp{ttldb.PatchAdd("/q\"\n", "v")}, strings.TrimSuffix(r14PatchBase, "}") + `,"q\"\n":"v"}`, nil},

		// set
		{"set replaces an element", []ttldb.PatchOp{ttldb.PatchSet("/inventory/bins/1", 9)}, strings.Replace(r14PatchBase, `[1,2]`, `[1,9]`, 1), nil},
		{"set appends at -", []ttldb.PatchOp{ttldb.PatchSet("/tags/-", "x")}, strings.Replace(r14PatchBase, `["r-series"]`, `["r-series","x"]`, 1), nil},
		{"set creates a member", []ttldb.PatchOp{ttldb.PatchSet("/inventory/color", "red")}, strings.Replace(r14PatchBase, `"bins":[1,2]}`, `"bins":[1,2],"color":"red"}`, 1), nil},

		// replace
		{"replace a member", []ttldb.PatchOp{ttldb.PatchReplace("/used", true)}, strings.Replace(r14PatchBase, `"used":false`, `"used":true`, 1), nil},
		{"replace a missing member", []ttldb.PatchOp{ttldb.PatchReplace("/color", "red")}, "", ttldb.ErrInvalidPatch},
		{"replace at -", []ttldb.PatchOp{ttldb.PatchReplace("/tags/-", "x")}, "", ttldb.ErrInvalidPatch},
		{"replace past the end", []ttldb.PatchOp{ttldb.PatchReplace("/tags/1", "x")}, "", ttldb.ErrInvalidPatch},

		// remove
		{"remove a member", []ttldb.PatchOp{ttldb.PatchRemove("/n")}, strings.Replace(r14PatchBase, `"n":null,`, ``, 1), nil},
		{"remove an element shifts", []ttldb.PatchOp{ttldb.PatchRemove("/inventory/bins/0")}, strings.Replace(r14PatchBase, `[1,2]`, `[2]`, 1), nil},
		{"remove a missing member", []ttldb.PatchOp{ttldb.PatchRemove("/color")}, "", ttldb.ErrInvalidPatch},
		{"remove past the end", []ttldb.PatchOp{ttldb.PatchRemove("/tags/1")}, "", ttldb.ErrInvalidPatch},
		{"remove with a leading zero", []ttldb.PatchOp{ttldb.PatchRemove("/tags/00")}, "", ttldb.ErrInvalidPatch},

		// incr
		{"incr an integer", []ttldb.PatchOp{ttldb.PatchIncrement("/inventory/quantity", -20)}, strings.Replace(r14PatchBase, `"quantity":15`, `"quantity":-5`, 1), nil},
		{"incr a float", []ttldb.PatchOp{ttldb.PatchIncrementFloat("/price", 0.05)}, strings.Replace(r14PatchBase, `455.95`, `456`, 1), nil},
		{"incr an integer by a float", []ttldb.PatchOp{ttldb.PatchIncrementFloat("/inventory/quantity", 0.5)}, strings.Replace(r14PatchBase, `"quantity":15`, `"quantity":15.5`, 1), nil},
		{"incr creates a member", []ttldb.PatchOp{ttldb.PatchIncrement("/count", 1)}, strings.TrimSuffix(r14PatchBase, "}") + `,"count":1}`, nil},
		{"incr an element", []ttldb.PatchOp{ttldb.PatchIncrement("/inventory/bins/1", 1)}, strings.Replace(r14PatchBase, `[1,2]`, `[1,3]`, 1), nil},
		{"incr a string", []ttldb.PatchOp{ttldb.PatchIncrement("/s", 1)}, "", ttldb.ErrInvalidPatch},
		{"incr null", []ttldb.PatchOp{ttldb.PatchIncrement("/n", 1)}, "", ttldb.ErrInvalidPatch},
		{"incr an object", []ttldb.PatchOp{ttldb.PatchIncrement("/inventory", 1)}, "", ttldb.ErrInvalidPatch},
		{"incr past int64", []ttldb.PatchOp{ttldb.PatchSet("/big", math.MaxInt64), ttldb.PatchIncrement("/big", 1)}, "", ttldb.ErrInvalidPatch},
		{"incr by infinity", []ttldb.PatchOp{ttldb.PatchIncrementFloat("/price", math.Inf(1))}, "", ttldb.ErrInvalidPatch},
		{"incr to infinity", []ttldb.PatchOp{ttldb.PatchSet("/f", 1.7e308), ttldb.PatchIncrementFloat("/f", 1.7e308)}, "", ttldb.ErrInvalidPatch},
		{"incr at -", []ttldb.PatchOp{ttldb.PatchIncrement("/tags/-", 1)}, "", ttldb.ErrInvalidPatch},

		// move
		{"move a member", []ttldb.PatchOp{ttldb.PatchMove("/name", "/title")}, strings.Replace(r14PatchBase, `"name":"bike",`, ``, 1)[:len(r14PatchBase)-len(`"name":"bike",`)-1] + `,"title":"bike"}`, nil},
		{"move an element", []ttldb.PatchOp{ttldb.PatchMove("/inventory/bins/0", "/inventory/bins/-")}, strings.Replace(r14PatchBase, `[1,2]`, `[2,1]`, 1), nil},
		{"move onto itself", []ttldb.PatchOp{ttldb.PatchMove("/s", "/s")}, r14PatchBase, nil},
		{"move into itself", []ttldb.PatchOp{ttldb.PatchMove("/inventory", "/inventory/x")}, "", ttldb.ErrInvalidPatch},
		{"move a missing member", []ttldb.PatchOp{ttldb.PatchMove("/color", "/x")}, "", ttldb.ErrInvalidPatch},

		// paths a patch may not touch
		{"the id", []ttldb.PatchOp{ttldb.PatchSet("/id", "p2")}, "", ttldb.ErrInvalidPatch},
		{"the partition key", []ttldb.PatchOp{ttldb.PatchSet("/pk", "b")}, "", ttldb.ErrInvalidPatch},
		{"moving the partition key away", []ttldb.PatchOp{ttldb.PatchMove("/pk", "/x")}, "", ttldb.ErrInvalidPatch},
		{"moving onto the id", []ttldb.PatchOp{ttldb.PatchMove("/s", "/id")}, "", ttldb.ErrInvalidPatch},
		{"_ts", []ttldb.PatchOp{ttldb.PatchSet("/_ts", 1)}, "", ttldb.ErrInvalidPatch},
		{"_etag", []ttldb.PatchOp{ttldb.PatchRemove("/_etag")}, "", ttldb.ErrInvalidPatch},
		{"the whole document", []ttldb.PatchOp{ttldb.PatchSet("", map[string]string{"id": "p1"})}, "", ttldb.ErrInvalidPatch},
		{"a path without /", []ttldb.PatchOp{ttldb.PatchSet("name", 1)}, "", ttldb.ErrInvalidPatch},

		// the patch as a whole
		{"no operation", nil, "", ttldb.ErrInvalidPatch},
		{"the zero ttldb.PatchOp", []ttldb.PatchOp{{}}, "", ttldb.ErrInvalidPatch},
		{"eleven operations", r14Ops(11), "", ttldb.ErrInvalidPatch},
		{"all or none: the second fails", []ttldb.PatchOp{ttldb.PatchSet("/name", "x"), ttldb.PatchRemove("/color")}, "", ttldb.ErrInvalidPatch},
		{"ten operations", r14Ops(10), strings.TrimSuffix(r14PatchBase, "}") + `,"k":10}`, nil},
		{"operations see the earlier ones", []ttldb.PatchOp{ttldb.PatchAdd("/o", map[string]any{}), ttldb.PatchAdd("/o/p", 1), ttldb.PatchIncrement("/o/p", 1)}, strings.TrimSuffix(r14PatchBase, "}") + `,"o":{"p":2}}`, nil},

		// the rules of any document (R2, R10)
		{"ttl set", []ttldb.PatchOp{ttldb.PatchSet("/ttl", 60)}, strings.TrimSuffix(r14PatchBase, "}") + `,"ttl":60}`, nil},
		{"ttl zero", []ttldb.PatchOp{ttldb.PatchSet("/ttl", 0)}, "", ttldb.ErrInvalidTTL},
		{"ttl a string", []ttldb.PatchOp{ttldb.PatchSet("/ttl", "60")}, "", ttldb.ErrInvalidTTL},
		{"too large", []ttldb.PatchOp{ttldb.PatchSet("/big", big)}, "", ttldb.ErrTooLarge},
		{"too deep", []ttldb.PatchOp{ttldb.PatchSet("/deep", json.RawMessage(deep))}, "", ttldb.ErrInvalidDocument},
	}
}

// r14Ops is n increments of /k by 1.
func r14Ops(n int) []ttldb.PatchOp {
	ops := make([]ttldb.PatchOp, n)
	for i := range ops {
		ops[i] = ttldb.PatchIncrement("/k", 1)
	}
	return ops
}

// R14: the table of patch operations: what each makes of the document, or
// the error it gets, in which case the document, its etag and everything
// else are as they were; a patch takes the next LSN. The cases share a
// collection, each writing the base document again first.
func checkPatchOperations(t *testing.T, h Harness) {
	c, _ := ruleOpen(t, h, "/pk", ttldb.Options{})
	for _, tc := range r14PatchCases() {
		t.Run(tc.name, func(t *testing.T) {
			before, err := c.Upsert(bg, []byte(r14PatchBase))
			require.NoError(t, err)
			was := ruleState(t, c)
			got, err := c.Patch(bg, ttldb.StringKey("a"), "p1", tc.ops)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, was, ruleState(t, c), "a failed patch changed something")
				now, err := c.Get(bg, ttldb.StringKey("a"), "p1")
				require.NoError(t, err)
				require.Equal(t, before.ETag(), now.ETag())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.Body())
			now, err := c.Get(bg, ttldb.StringKey("a"), "p1")
			require.NoError(t, err)
			require.Equal(t, tc.want, now.Body())
			require.NotEqual(t, before.ETag(), got.ETag())
			require.Equal(t, before.LSN()+1, got.LSN())
		})
	}
}

// R14: the table of patch operations through their JSON form (MarshalJSON,
// then ParsePatch) does what the constructors do; where either refuses an
// operation, Patch refuses it too.
func checkPatchJSONLikeConstructors(t *testing.T, h Harness) {
	c, _ := ruleOpen(t, h, "/pk", ttldb.Options{})
	for _, tc := range r14PatchCases() {
		t.Run(tc.name, func(t *testing.T) {
			text, err := json.Marshal(tc.ops)
			if err != nil {
				require.ErrorIs(t, err, ttldb.ErrInvalidPatch)
				require.ErrorIs(t, tc.err, ttldb.ErrInvalidPatch, "MarshalJSON refuses an operation Patch takes")
				return
			}
			ops, err := ttldb.ParsePatch(text)
			if err != nil {
				require.ErrorIs(t, err, ttldb.ErrInvalidPatch)
				require.ErrorIs(t, tc.err, ttldb.ErrInvalidPatch, "ParsePatch refuses %s, which Patch takes", text)
				return
			}
			_, err = c.Upsert(bg, []byte(r14PatchBase))
			require.NoError(t, err)
			got, err := c.Patch(bg, ttldb.StringKey("a"), "p1", ops)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err, "%s", text)
				return
			}
			require.NoError(t, err, "%s", text)
			require.Equal(t, tc.want, got.Body(), "%s", text)
		})
	}
}

// R14: a patch's error says which operation failed and where.
func checkPatchErrorsNameTheFault(t *testing.T, h Harness) {
	c, _ := ruleOpen(t, h, "/pk", ttldb.Options{})
	ruleCreate(t, c, r14PatchBase)
	for _, tc := range []struct {
		ops  []ttldb.PatchOp
		want []string
	}{
		{[]ttldb.PatchOp{ttldb.PatchSet("/name", 1), ttldb.PatchIncrement("/s", 1)}, []string{"operation 2 of 2", "incr /s", "is a string, not a number"}},
		{[]ttldb.PatchOp{ttldb.PatchRemove("/inventory/bins/5")}, []string{"/inventory/bins/5", "past the end of an array of 2"}},
		{[]ttldb.PatchOp{ttldb.PatchSet("/s/x", 1)}, []string{"/s is a string, not an object or an array"}},
		{[]ttldb.PatchOp{ttldb.PatchReplace("/nope", 1)}, []string{"/nope does not exist"}},
		{[]ttldb.PatchOp{ttldb.PatchSet("/pk", "b")}, []string{"partition key", "/pk"}},
		{[]ttldb.PatchOp{ttldb.PatchSet("/tags/x", 1)}, []string{`"x" is not an array index`}},
	} {
		_, err := c.Patch(bg, ttldb.StringKey("a"), "p1", tc.ops)
		require.ErrorIs(t, err, ttldb.ErrInvalidPatch)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w)
		}
	}
}

// R14, R10: a patched document that breaks R10 (size, depth) is refused
// with an error that names the document; a raw value that is not valid
// UTF-8 is a malformed operation, ErrInvalidPatch.
func checkPatchResultErrorsNameTheDocument(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	ruleCreate(t, c, `{"id":"x","pk":"p"}`)
	for _, op := range []ttldb.PatchOp{
		ttldb.PatchSet("/s", strings.Repeat("y", ttldb.MaxDocumentSize)),
		ttldb.PatchSet("/d", json.RawMessage(strings.Repeat("[", 130)+strings.Repeat("]", 130))),
		ttldb.PatchSet("/u", json.RawMessage("\"\xff\"")),
	} {
		_, err := c.Patch(bg, ttldb.StringKey("p"), "x", []ttldb.PatchOp{op})
		require.Error(t, err)
		require.Contains(t, err.Error(), `"x"`, "the error of %v names the document patched: %v", op, err)
	}
	_, err := c.Patch(bg, ttldb.StringKey("p"), "x", []ttldb.PatchOp{ttldb.PatchSet("/u", json.RawMessage("\"\xff\""))})
	require.ErrorIs(t, err, ttldb.ErrInvalidPatch, "a value that is not valid JSON is a malformed operation: %v", err)
}

// R14, R2, R4, R6, R11: a patch restarts the countdown (R6); patching /ttl
// changes the document's life (R2); conditions and expiry apply as to a
// replace (R4, R10); the feed shows the patch as a replace (R11).
func checkPatchIsAWrite(t *testing.T, h Harness) {
	c, clk := ruleOpenTTL(t, h, "/pk", ttldb.TTLSeconds(10))
	pk := ttldb.StringKey("a")
	d0, err := c.Create(bg, []byte(`{"id":"x","pk":"a","n":1}`))
	require.NoError(t, err)

	clk.Advance(8 * time.Second)
	d1, err := c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchIncrement("/n", 1)}, ttldb.IfMatch(d0.ETag()))
	require.NoError(t, err)
	require.Equal(t, d0.TS()+8, d1.TS(), "a patch restarts the countdown (R6)")
	_, err = c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchIncrement("/n", 1)}, ttldb.IfMatch(d0.ETag()))
	require.ErrorIs(t, err, ttldb.ErrPreconditionFailed)

	clk.Advance(9 * time.Second) // 17 s after the create, 9 after the patch
	_, err = c.Get(bg, pk, "x")
	require.NoError(t, err)
	d2, err := c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchSet("/ttl", 2)})
	require.NoError(t, err)
	require.Equal(t, `{"id":"x","pk":"a","n":2,"ttl":2}`, d2.Body())
	clk.Advance(2 * time.Second)
	_, err = c.Get(bg, pk, "x")
	require.ErrorIs(t, err, ttldb.ErrNotFound, "a patched ttl of 2 s: gone at _ts + 2 (R4)")
	_, err = c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchSet("/ttl", -1)})
	require.ErrorIs(t, err, ttldb.ErrNotFound, "an expired document cannot be patched back to life (R4)")
	_, err = c.Patch(bg, pk, "nope", []ttldb.PatchOp{ttldb.PatchSet("/a", 1)})
	require.ErrorIs(t, err, ttldb.ErrNotFound)

	chs, _ := ruleReadFeed(t, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes})
	require.GreaterOrEqual(t, len(chs), 3)
	require.Equal(t, []string{`create x "a"`, `replace x "a"`, `replace x "a"`}, ruleSummary(chs[:3]), "a patch is a replace")
}

// R14: around a nested partition key, its parents and itself may not be
// patched, its siblings may; partitioned by /id, the id may not be.
func checkPatchNestedPartitionKey(t *testing.T, h Harness) {
	c, _ := ruleOpen(t, h, "/tenant/id", ttldb.Options{})
	ruleCreate(t, c, `{"id":"x","tenant":{"id":"t1","name":"acme"}}`)
	pk := ttldb.StringKey("t1")
	for _, p := range []string{"/tenant", "/tenant/id"} {
		_, err := c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchSet(p, "t2")})
		require.ErrorIs(t, err, ttldb.ErrInvalidPatch, p)
		_, err = c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchRemove(p)})
		require.ErrorIs(t, err, ttldb.ErrInvalidPatch, p)
	}
	d, err := c.Patch(bg, pk, "x", []ttldb.PatchOp{ttldb.PatchSet("/tenant/name", "acme2")})
	require.NoError(t, err)
	require.Equal(t, `{"id":"x","tenant":{"id":"t1","name":"acme2"}}`, d.Body())

	c2, _ := ruleOpen(t, h, "/id", ttldb.Options{})
	ruleCreate(t, c2, `{"id":"y","v":1}`)
	_, err = c2.Patch(bg, ttldb.StringKey("y"), "y", []ttldb.PatchOp{ttldb.PatchSet("/id", "z")})
	require.ErrorIs(t, err, ttldb.ErrInvalidPatch)
	d, err = c2.Patch(bg, ttldb.StringKey("y"), "y", []ttldb.PatchOp{ttldb.PatchIncrement("/v", 1)})
	require.NoError(t, err)
	require.Equal(t, `{"id":"y","v":2}`, d.Body())
}

// R14, R10: increments from many goroutines are atomic: none is lost.
func checkPatchConcurrentIncrements(t *testing.T, h Harness) {
	c, _ := ruleOpen(t, h, "/pk", ttldb.Options{})
	ruleCreate(t, c, `{"id":"n","pk":"a","n":0}`)
	const workers, each = 8, 100
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var err error
			for range each {
				if _, e := c.Patch(bg, ttldb.StringKey("a"), "n", []ttldb.PatchOp{ttldb.PatchIncrement("/n", 1)}); e != nil {
					err = errors.Join(err, e)
				}
			}
			errs <- err
		}()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
	d, err := c.Get(bg, ttldb.StringKey("a"), "n")
	require.NoError(t, err)
	require.Equal(t, `{"id":"n","pk":"a","n":800}`, d.Body())
}

// r14Order is the shape of the Cosmos DB documentation's C# SalesOrder,
// whose ttl is a nullable int left out when null.
type r14Order struct {
	ID         string  `json:"id"`
	CustomerID string  `json:"CustomerId"`
	Total      float64 `json:"total"`
	TTL        *int    `json:"ttl,omitempty"`
}

// r14Counter is a typed document that a patch can make undecodable.
type r14Counter struct {
	ID string `json:"id"`
	PK string `json:"pk"`
	N  int    `json:"n"`
}

// R14: Typed's Patch gives the patched document, decoded; it refuses a
// result that would not decode into T before it writes, so that its error
// changes nothing and a retry cannot apply an increment twice.
func checkTypedPatch(t *testing.T, h Harness) {
	c, _ := ruleOpenTTL(t, h, "/CustomerId", ttldb.TTLSeconds(3600))
	orders, err := ttldb.NewTyped[r14Order](c)
	require.NoError(t, err)
	_, err = orders.Create(bg, r14Order{ID: "SO1", CustomerID: "c1", Total: 9.5})
	require.NoError(t, err)
	it, err := orders.Patch(bg, ttldb.StringKey("c1"), "SO1", []ttldb.PatchOp{ttldb.PatchIncrementFloat("/total", 0.5), ttldb.PatchSet("/ttl", 60)})
	require.NoError(t, err)
	sixty := 60
	require.Equal(t, r14Order{ID: "SO1", CustomerID: "c1", Total: 10, TTL: &sixty}, it.Value)
	_, err = orders.Patch(bg, ttldb.StringKey("c1"), "SO1", []ttldb.PatchOp{ttldb.PatchSet("/CustomerId", "c2")})
	require.ErrorIs(t, err, ttldb.ErrInvalidPatch)

	c2, _ := ruleOpenTTL(t, h, "/pk", ttldb.TTLOff())
	tc, err := ttldb.NewTyped[r14Counter](c2)
	require.NoError(t, err)
	_, err = tc.Create(bg, r14Counter{ID: "x", PK: "p", N: 1})
	require.NoError(t, err)
	lsn := c2.LastLSN()
	_, err = tc.Patch(bg, ttldb.StringKey("p"), "x", []ttldb.PatchOp{ttldb.PatchIncrement("/m", 1), ttldb.PatchSet("/n", "one")})
	if err != nil {
		d, _ := c2.Get(bg, ttldb.StringKey("p"), "x")
		require.Equal(t, lsn, c2.LastLSN(), "Typed.Patch returned %q, and the patch was applied: %s", err, d.Body())
	}
}
