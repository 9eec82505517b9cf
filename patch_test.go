package ttldb

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// patchBase is the document every case of the operations table patches.
const patchBase = `{"id":"p1","pk":"a","name":"bike","price":455.95,"inventory":{"quantity":15,"bins":[1,2]},"used":false,"tags":["r-series"],"n":null,"s":"str","a~b":1,"c/d":2}`

// patchCase is a case of the table of patch operations.
type patchCase struct {
	name string
	ops  []PatchOp
	want string // the body after the patch, or "" for an error
	err  error
}

// patchOperationCases is the table of patch operations, which
// TestPatchOperations applies, and TestPatchJSONLikeConstructors applies
// through their JSON form.
func patchOperationCases() []patchCase {
	big := strings.Repeat("x", MaxDocumentSize)
	deep := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	return []patchCase{
		// The example of Cosmos DB's documentation.
		{"cosmos example", []PatchOp{PatchAdd("/color", "silver"), PatchRemove("/used"), PatchSet("/price", 355.45), PatchIncrement("/inventory/quantity", 10), PatchAdd("/tags/-", "featured-bikes"), PatchMove("/color", "/inventory/color")},
			`{"id":"p1","pk":"a","name":"bike","price":355.45,"inventory":{"quantity":25,"bins":[1,2],"color":"silver"},"tags":["r-series","featured-bikes"],"n":null,"s":"str","a~b":1,"c/d":2}`, nil},

		// add
		{"add new member", []PatchOp{PatchAdd("/new", map[string]int{"x": 1})}, `{"id":"p1","pk":"a","name":"bike","price":455.95,"inventory":{"quantity":15,"bins":[1,2]},"used":false,"tags":["r-series"],"n":null,"s":"str","a~b":1,"c/d":2,"new":{"x":1}}`, nil},
		{"add existing member replaces in place", []PatchOp{PatchAdd("/name", "trike")}, strings.Replace(patchBase, `"bike"`, `"trike"`, 1), nil},
		{"add inserts into an array", []PatchOp{PatchAdd("/inventory/bins/0", 0)}, strings.Replace(patchBase, `[1,2]`, `[0,1,2]`, 1), nil},
		{"add at the length appends", []PatchOp{PatchAdd("/inventory/bins/2", 3)}, strings.Replace(patchBase, `[1,2]`, `[1,2,3]`, 1), nil},
		{"add past the length", []PatchOp{PatchAdd("/inventory/bins/3", 3)}, "", ErrInvalidPatch},
		{"add raw JSON", []PatchOp{PatchAdd("/n", json.RawMessage(` { "k" : [ true ] } `))}, strings.Replace(patchBase, `"n":null`, `"n":{"k":[true]}`, 1), nil},
		{"add invalid raw JSON", []PatchOp{PatchAdd("/n", []byte(`{"k":`))}, "", ErrInvalidPatch},
		{"add a value that does not encode", []PatchOp{PatchAdd("/n", math.Inf(1))}, "", ErrInvalidPatch},
		{"add under a missing parent", []PatchOp{PatchAdd("/missing/x", 1)}, "", ErrInvalidPatch},
		{"add through a string", []PatchOp{PatchAdd("/s/x", 1)}, "", ErrInvalidPatch},
		{"add through null", []PatchOp{PatchAdd("/n/x", 1)}, "", ErrInvalidPatch},
		{"escaped names", []PatchOp{PatchSet("/a~0b", 10), PatchSet("/c~1d", 20)}, strings.Replace(strings.Replace(patchBase, `"a~b":1`, `"a~b":10`, 1), `"c/d":2`, `"c/d":20`, 1), nil},
		{"a lone tilde", []PatchOp{PatchSet("/a~b", 1)}, "", ErrInvalidPatch},
		{"a name that needs escaping in JSON", []PatchOp{PatchAdd("/q\"\n", "v")}, strings.TrimSuffix(patchBase, "}") + `,"q\"\n":"v"}`, nil},

		// set
		{"set replaces an element", []PatchOp{PatchSet("/inventory/bins/1", 9)}, strings.Replace(patchBase, `[1,2]`, `[1,9]`, 1), nil},
		{"set appends at -", []PatchOp{PatchSet("/tags/-", "x")}, strings.Replace(patchBase, `["r-series"]`, `["r-series","x"]`, 1), nil},
		{"set creates a member", []PatchOp{PatchSet("/inventory/color", "red")}, strings.Replace(patchBase, `"bins":[1,2]}`, `"bins":[1,2],"color":"red"}`, 1), nil},

		// replace
		{"replace a member", []PatchOp{PatchReplace("/used", true)}, strings.Replace(patchBase, `"used":false`, `"used":true`, 1), nil},
		{"replace a missing member", []PatchOp{PatchReplace("/color", "red")}, "", ErrInvalidPatch},
		{"replace at -", []PatchOp{PatchReplace("/tags/-", "x")}, "", ErrInvalidPatch},
		{"replace past the end", []PatchOp{PatchReplace("/tags/1", "x")}, "", ErrInvalidPatch},

		// remove
		{"remove a member", []PatchOp{PatchRemove("/n")}, strings.Replace(patchBase, `"n":null,`, ``, 1), nil},
		{"remove an element shifts", []PatchOp{PatchRemove("/inventory/bins/0")}, strings.Replace(patchBase, `[1,2]`, `[2]`, 1), nil},
		{"remove a missing member", []PatchOp{PatchRemove("/color")}, "", ErrInvalidPatch},
		{"remove past the end", []PatchOp{PatchRemove("/tags/1")}, "", ErrInvalidPatch},
		{"remove with a leading zero", []PatchOp{PatchRemove("/tags/00")}, "", ErrInvalidPatch},

		// incr
		{"incr an integer", []PatchOp{PatchIncrement("/inventory/quantity", -20)}, strings.Replace(patchBase, `"quantity":15`, `"quantity":-5`, 1), nil},
		{"incr a float", []PatchOp{PatchIncrementFloat("/price", 0.05)}, strings.Replace(patchBase, `455.95`, `456`, 1), nil},
		{"incr an integer by a float", []PatchOp{PatchIncrementFloat("/inventory/quantity", 0.5)}, strings.Replace(patchBase, `"quantity":15`, `"quantity":15.5`, 1), nil},
		{"incr creates a member", []PatchOp{PatchIncrement("/count", 1)}, strings.TrimSuffix(patchBase, "}") + `,"count":1}`, nil},
		{"incr an element", []PatchOp{PatchIncrement("/inventory/bins/1", 1)}, strings.Replace(patchBase, `[1,2]`, `[1,3]`, 1), nil},
		{"incr a string", []PatchOp{PatchIncrement("/s", 1)}, "", ErrInvalidPatch},
		{"incr null", []PatchOp{PatchIncrement("/n", 1)}, "", ErrInvalidPatch},
		{"incr an object", []PatchOp{PatchIncrement("/inventory", 1)}, "", ErrInvalidPatch},
		{"incr past int64", []PatchOp{PatchSet("/big", math.MaxInt64), PatchIncrement("/big", 1)}, "", ErrInvalidPatch},
		{"incr by infinity", []PatchOp{PatchIncrementFloat("/price", math.Inf(1))}, "", ErrInvalidPatch},
		{"incr to infinity", []PatchOp{PatchSet("/f", 1.7e308), PatchIncrementFloat("/f", 1.7e308)}, "", ErrInvalidPatch},
		{"incr at -", []PatchOp{PatchIncrement("/tags/-", 1)}, "", ErrInvalidPatch},

		// move
		{"move a member", []PatchOp{PatchMove("/name", "/title")}, strings.Replace(patchBase, `"name":"bike",`, ``, 1)[:len(patchBase)-len(`"name":"bike",`)-1] + `,"title":"bike"}`, nil},
		{"move an element", []PatchOp{PatchMove("/inventory/bins/0", "/inventory/bins/-")}, strings.Replace(patchBase, `[1,2]`, `[2,1]`, 1), nil},
		{"move onto itself", []PatchOp{PatchMove("/s", "/s")}, patchBase, nil},
		{"move into itself", []PatchOp{PatchMove("/inventory", "/inventory/x")}, "", ErrInvalidPatch},
		{"move a missing member", []PatchOp{PatchMove("/color", "/x")}, "", ErrInvalidPatch},

		// paths a patch may not touch
		{"the id", []PatchOp{PatchSet("/id", "p2")}, "", ErrInvalidPatch},
		{"the partition key", []PatchOp{PatchSet("/pk", "b")}, "", ErrInvalidPatch},
		{"moving the partition key away", []PatchOp{PatchMove("/pk", "/x")}, "", ErrInvalidPatch},
		{"moving onto the id", []PatchOp{PatchMove("/s", "/id")}, "", ErrInvalidPatch},
		{"_ts", []PatchOp{PatchSet("/_ts", 1)}, "", ErrInvalidPatch},
		{"_etag", []PatchOp{PatchRemove("/_etag")}, "", ErrInvalidPatch},
		{"the whole document", []PatchOp{PatchSet("", map[string]string{"id": "p1"})}, "", ErrInvalidPatch},
		{"a path without /", []PatchOp{PatchSet("name", 1)}, "", ErrInvalidPatch},

		// the patch as a whole
		{"no operation", nil, "", ErrInvalidPatch},
		{"the zero PatchOp", []PatchOp{{}}, "", ErrInvalidPatch},
		{"eleven operations", make11(), "", ErrInvalidPatch},
		{"all or none: the second fails", []PatchOp{PatchSet("/name", "x"), PatchRemove("/color")}, "", ErrInvalidPatch},
		{"ten operations", make10(), strings.TrimSuffix(patchBase, "}") + `,"k":10}`, nil},
		{"operations see the earlier ones", []PatchOp{PatchAdd("/o", map[string]any{}), PatchAdd("/o/p", 1), PatchIncrement("/o/p", 1)}, strings.TrimSuffix(patchBase, "}") + `,"o":{"p":2}}`, nil},

		// the rules of any document (R2, R10)
		{"ttl set", []PatchOp{PatchSet("/ttl", 60)}, strings.TrimSuffix(patchBase, "}") + `,"ttl":60}`, nil},
		{"ttl zero", []PatchOp{PatchSet("/ttl", 0)}, "", ErrInvalidTTL},
		{"ttl a string", []PatchOp{PatchSet("/ttl", "60")}, "", ErrInvalidTTL},
		{"too large", []PatchOp{PatchSet("/big", big)}, "", ErrTooLarge},
		{"too deep", []PatchOp{PatchSet("/deep", json.RawMessage(deep))}, "", ErrInvalidDocument},
	}
}

// TestPatchOperations is the table of patch operations: what each makes of
// the document, or the error it gets, in which case the document, its etag
// and everything else are as they were.
func TestPatchOperations(t *testing.T) { // R14
	cases := patchOperationCases()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestCollection(t, "/pk", DefaultTTL{})
			before := mustCreate(t, c, patchBase)
			was := state(t, c)
			got, err := c.Patch(bg, StringKey("a"), "p1", tc.ops)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Equal(t, was, state(t, c), "a failed patch changed something")
				require.Equal(t, before.ETag(), mustGet(t, c, StringKey("a"), "p1").ETag())
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.Body())
			require.Equal(t, tc.want, mustGet(t, c, StringKey("a"), "p1").Body())
			require.NotEqual(t, before.ETag(), got.ETag())
			require.Equal(t, before.LSN()+1, got.LSN())
		})
	}
}

func make10() []PatchOp {
	ops := make([]PatchOp, 10)
	for i := range ops {
		ops[i] = PatchIncrement("/k", 1)
	}
	return ops
}

func make11() []PatchOp { return append(make10(), PatchIncrement("/k", 1)) }

// TestPatchErrorsNameTheFault checks that a patch's error says which
// operation failed and where.
func TestPatchErrorsNameTheFault(t *testing.T) { // R14
	c, _ := newTestCollection(t, "/pk", DefaultTTL{})
	mustCreate(t, c, patchBase)
	for _, tc := range []struct {
		ops  []PatchOp
		want []string
	}{
		{[]PatchOp{PatchSet("/name", 1), PatchIncrement("/s", 1)}, []string{"operation 2 of 2", "incr /s", "is a string, not a number"}},
		{[]PatchOp{PatchRemove("/inventory/bins/5")}, []string{"/inventory/bins/5", "past the end of an array of 2"}},
		{[]PatchOp{PatchSet("/s/x", 1)}, []string{"/s is a string, not an object or an array"}},
		{[]PatchOp{PatchReplace("/nope", 1)}, []string{"/nope does not exist"}},
		{[]PatchOp{PatchSet("/pk", "b")}, []string{"partition key", "/pk"}},
		{[]PatchOp{PatchSet("/tags/x", 1)}, []string{`"x" is not an array index`}},
	} {
		_, err := c.Patch(bg, StringKey("a"), "p1", tc.ops)
		require.ErrorIs(t, err, ErrInvalidPatch)
		for _, w := range tc.want {
			require.Contains(t, err.Error(), w)
		}
	}
}

// TestPatchIsAWrite checks that a patch restarts the countdown (R6), that
// patching /ttl changes the document's life (R2), that conditions and
// expiry apply as to a replace (R4, R10), and that the feed shows the
// patch as a replace (R11).
func TestPatchIsAWrite(t *testing.T) { // R2, R4, R6, R11, R14
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("patch", "/pk", &Options{DefaultTTL: TTLSeconds(10)})
		require.NoError(t, err)
		defer c.Close()
		pk := StringKey("a")
		d0, err := c.Create(bg, []byte(`{"id":"x","pk":"a","n":1}`))
		require.NoError(t, err)

		time.Sleep(8 * time.Second)
		d1, err := c.Patch(bg, pk, "x", []PatchOp{PatchIncrement("/n", 1)}, IfMatch(d0.ETag()))
		require.NoError(t, err)
		require.Equal(t, d0.TS()+8, d1.TS(), "a patch restarts the countdown (R6)")
		_, err = c.Patch(bg, pk, "x", []PatchOp{PatchIncrement("/n", 1)}, IfMatch(d0.ETag()))
		require.ErrorIs(t, err, ErrPreconditionFailed)

		time.Sleep(9 * time.Second) // 17 s after the create, 9 after the patch
		mustGet(t, c, pk, "x")
		d2, err := c.Patch(bg, pk, "x", []PatchOp{PatchSet("/ttl", 2)})
		require.NoError(t, err)
		require.Equal(t, `{"id":"x","pk":"a","n":2,"ttl":2}`, d2.Body())
		time.Sleep(2 * time.Second)
		_, err = c.Get(bg, pk, "x")
		require.ErrorIs(t, err, ErrNotFound, "a patched ttl of 2 s: gone at _ts + 2 (R4)")
		_, err = c.Patch(bg, pk, "x", []PatchOp{PatchSet("/ttl", -1)})
		require.ErrorIs(t, err, ErrNotFound, "an expired document cannot be patched back to life (R4)")
		_, err = c.Patch(bg, pk, "nope", []PatchOp{PatchSet("/a", 1)})
		require.ErrorIs(t, err, ErrNotFound)

		page, err := c.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes})
		require.NoError(t, err)
		var ops []string
		for _, ch := range page.Changes {
			ops = append(ops, ch.Op.String())
		}
		require.Equal(t, []string{"create", "replace", "replace"}, ops[:3])
	})
}

// TestPatchNestedPartitionKey checks the paths around a nested partition
// key: its parents and itself are refused, its siblings are not.
func TestPatchNestedPartitionKey(t *testing.T) { // R14
	c, _ := newTestCollection(t, "/tenant/id", DefaultTTL{})
	mustCreate(t, c, `{"id":"x","tenant":{"id":"t1","name":"acme"}}`)
	pk := StringKey("t1")
	for _, p := range []string{"/tenant", "/tenant/id"} {
		_, err := c.Patch(bg, pk, "x", []PatchOp{PatchSet(p, "t2")})
		require.ErrorIs(t, err, ErrInvalidPatch, p)
		_, err = c.Patch(bg, pk, "x", []PatchOp{PatchRemove(p)})
		require.ErrorIs(t, err, ErrInvalidPatch, p)
	}
	d, err := c.Patch(bg, pk, "x", []PatchOp{PatchSet("/tenant/name", "acme2")})
	require.NoError(t, err)
	require.Equal(t, `{"id":"x","tenant":{"id":"t1","name":"acme2"}}`, d.Body())

	// A collection partitioned by /id: the id is the partition key.
	c2, _ := newTestCollection(t, "/id", DefaultTTL{})
	mustCreate(t, c2, `{"id":"y","v":1}`)
	_, err = c2.Patch(bg, StringKey("y"), "y", []PatchOp{PatchSet("/id", "z")})
	require.ErrorIs(t, err, ErrInvalidPatch)
	d, err = c2.Patch(bg, StringKey("y"), "y", []PatchOp{PatchIncrement("/v", 1)})
	require.NoError(t, err)
	require.Equal(t, `{"id":"y","v":2}`, d.Body())
}

// TestPatchConcurrentIncrements checks that increments from many
// goroutines are atomic: none is lost.
func TestPatchConcurrentIncrements(t *testing.T) { // R14
	c, _ := newTestCollection(t, "/pk", DefaultTTL{})
	mustCreate(t, c, `{"id":"n","pk":"a","n":0}`)
	const workers, each = 8, 200
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var err error
			for range each {
				if _, e := c.Patch(bg, StringKey("a"), "n", []PatchOp{PatchIncrement("/n", 1)}); e != nil {
					err = errors.Join(err, e)
				}
			}
			errs <- err
		}()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
	require.Equal(t, `{"id":"n","pk":"a","n":1600}`, mustGet(t, c, StringKey("a"), "n").Body())
}

// TestTypedPatch checks the typed view's Patch: the patched document,
// decoded.
func TestTypedPatch(t *testing.T) { // R14
	c, _ := newTestCollection(t, "/CustomerId", TTLSeconds(3600))
	orders, err := NewTyped[salesOrder](c)
	require.NoError(t, err)
	_, err = orders.Create(bg, salesOrder{ID: "SO1", CustomerID: "c1", Total: 9.5})
	require.NoError(t, err)
	it, err := orders.Patch(bg, StringKey("c1"), "SO1", []PatchOp{PatchIncrementFloat("/total", 0.5), PatchSet("/ttl", 60)})
	require.NoError(t, err)
	sixty := 60
	require.Equal(t, salesOrder{ID: "SO1", CustomerID: "c1", Total: 10, TTL: &sixty}, it.Value)
	_, err = orders.Patch(bg, StringKey("c1"), "SO1", []PatchOp{PatchSet("/CustomerId", "c2")})
	require.ErrorIs(t, err, ErrInvalidPatch)
}
