package ttldb

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/btree"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a settable clock for tests that need no goroutines.
type fakeClock struct{ t time.Time }

func (f *fakeClock) Now() time.Time          { return f.t }
func (f *fakeClock) Advance(d time.Duration) { f.t = f.t.Add(d) }

// newTestCollection returns a collection on a fake clock at Unix second
// 1,000,000, without a background sweeper, closed when the test ends.
func newTestCollection(t *testing.T, path string, def DefaultTTL) (*Collection, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", path, &Options{DefaultTTL: def, Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, clk
}

func mustCreate(t *testing.T, c *Collection, doc string) Document {
	t.Helper()
	d, err := c.Create([]byte(doc))
	require.NoError(t, err, doc)
	return d
}

// state is everything a caller can observe of a collection, to check that a
// rejected call changed nothing.
func state(t *testing.T, c *Collection) string {
	t.Helper()
	var b strings.Builder
	for d, err := range c.All(Query{}) {
		require.NoError(t, err)
		b.WriteString(d.JSON() + "\n")
	}
	st, err := c.Stats()
	require.NoError(t, err)
	fmt.Fprintf(&b, "%+v %v %v", st, c.DefaultTTL(), c.IndexingMode())
	return b.String()
}

func TestCreateGetRoundTrip(t *testing.T) { // R2, R10
	c, _ := newTestCollection(t, "/customerId", TTLOff())
	d := mustCreate(t, c, ` { "id" : "o1", "customerId" : "c1", "ttl" : 10, "items" : [ 1, { "sku" : "\u00e9" } ] } `)
	assert.Equal(t, `{"id":"o1","customerId":"c1","ttl":10,"items":[1,{"sku":"\u00e9"}],"_ts":1000000,"_etag":"`+d.ETag()+`"}`, d.JSON())
	assert.Equal(t, "o1", d.ID())
	assert.Equal(t, StringKey("c1"), d.PartitionKey())
	assert.Equal(t, int64(1_000_000), d.TS())
	assert.Equal(t, time.Unix(1_000_000, 0), d.Timestamp())
	assert.Len(t, d.ETag(), etagLen)
	ttl, ok := d.TTL()
	assert.True(t, ok)
	assert.Equal(t, 10, ttl)

	got, err := c.Get(StringKey("c1"), "o1")
	require.NoError(t, err)
	assert.Equal(t, d.JSON(), got.JSON())
	assert.Equal(t, d.JSON(), string(got.AppendJSON(nil)))
	assert.Equal(t, d.JSON(), got.String())
	assert.Equal(t, `{"id":"o1","customerId":"c1","ttl":10,"items":[1,{"sku":"\u00e9"}]}`, got.Body())
	assert.Equal(t, "pre"+d.JSON(), string(got.AppendJSON([]byte("pre"))))

	var order struct {
		ID   string `json:"id"`
		TTL  *int   `json:"ttl,omitempty"`
		TS   int64  `json:"_ts"`
		ETag string `json:"_etag"`
	}
	require.NoError(t, got.Decode(&order))
	assert.Equal(t, "o1", order.ID)
	assert.Equal(t, 10, *order.TTL)
	assert.Equal(t, d.TS(), order.TS)
	assert.Equal(t, d.ETag(), order.ETag)
}

func TestReadsDoNotAllocate(t *testing.T) {
	c, _ := newTestCollection(t, "/id", TTLNoDefault())
	want := `{"id":"k","ttl":60,"v":"` + strings.Repeat("x", 200) + `"}`
	mustCreate(t, c, want)
	var body string
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		d, err := c.Get(StringKey("k"), "k")
		if err != nil {
			panic(err)
		}
		body = d.Body()
	}), "Get and Body")
	assert.Equal(t, want, body)
	d, _ := c.Get(StringKey("k"), "k")
	buf := make([]byte, 0, 512)
	assert.Zero(t, testing.AllocsPerRun(100, func() { buf = d.AppendJSON(buf[:0]) }), "AppendJSON into room")
	assert.Equal(t, d.JSON(), string(buf))
	tag := d.ETag()
	other := "1" + tag[1:]
	if tag[0] == '1' {
		other = "2" + tag[1:]
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		if !d.d.hasETag(tag) || d.d.hasETag(other) || d.d.hasETag(tag[1:]) {
			panic("hasETag")
		}
	}), "etag comparison")
}

func TestInputKinds(t *testing.T) { // R2, R10
	type order struct {
		ID         string `json:"id"`
		CustomerID string `json:"customerId"`
		TTL        *int   `json:"ttl,omitempty"`
	}
	ten := 10
	c, _ := newTestCollection(t, "/customerId", TTLNoDefault())
	for i, in := range []any{
		[]byte(`{"id":"a0","customerId":"c"}`),
		json.RawMessage(`{"id":"a1","customerId":"c"}`),
		order{ID: "a2", CustomerID: "c", TTL: &ten},
		&order{ID: "a3", CustomerID: "c"},
		map[string]any{"id": "a4", "customerId": "c", "ttl": nil},
	} {
		d, err := c.Create(in)
		require.NoError(t, err, "%T", in)
		assert.Equal(t, fmt.Sprintf("a%d", i), d.ID())
	}
	// A struct without omitempty writes "ttl":null: it inherits (R2), and is
	// stored as written.
	d, err := c.Create(struct {
		ID  string `json:"id"`
		TTL *int   `json:"ttl"`
	}{ID: "a5"})
	require.NoError(t, err)
	assert.Contains(t, d.JSON(), `"ttl":null`)
	_, ok := d.TTL()
	assert.False(t, ok)
	// No inherited default is ever written into a document (R2).
	d, _ = c.Get(StringKey("c"), "a3")
	assert.NotContains(t, d.JSON(), "ttl")
}

func TestSystemPropertiesAreTheLibrarys(t *testing.T) { // R10
	c, clk := newTestCollection(t, "/pk", TTLOff())
	d := mustCreate(t, c, `{"_ts":1,"id":"a","_etag":"mine","pk":"p","_ts":2}`)
	assert.Equal(t, `{"id":"a","pk":"p","_ts":1000000,"_etag":"`+d.ETag()+`"}`, d.JSON())
	clk.Advance(1500 * time.Millisecond)
	_, err := c.Replace(d.JSON() + "") // a string is not JSON text
	require.ErrorIs(t, err, ErrInvalidDocument)
	d2, err := c.Replace([]byte(d.JSON()))
	require.NoError(t, err)
	assert.Equal(t, int64(1_000_001), d2.TS(), "_ts is the floor of the write time")
	assert.NotEqual(t, d.ETag(), d2.ETag())
	assert.Equal(t, `{"id":"a","pk":"p","_ts":1000001,"_etag":"`+d2.ETag()+`"}`, d2.JSON())
}

func TestCRUD(t *testing.T) { // R10
	c, clk := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")

	_, err := c.Replace([]byte(`{"id":"a","pk":"p"}`))
	require.ErrorIs(t, err, ErrNotFound, "replace of an absent document")
	a := mustCreate(t, c, `{"id":"a","pk":"p","v":1}`)
	_, err = c.Create([]byte(`{"id":"a","pk":"p","v":2}`))
	require.ErrorIs(t, err, ErrConflict)
	assert.Contains(t, err.Error(), `"a"`)

	clk.Advance(time.Second)
	r, err := c.Replace([]byte(`{"id":"a","pk":"p","v":3}`))
	require.NoError(t, err)
	assert.Contains(t, r.JSON(), `"v":3`)
	assert.Equal(t, a.TS()+1, r.TS())

	u, err := c.Upsert([]byte(`{"id":"b","pk":"p"}`))
	require.NoError(t, err, "upsert creates")
	u2, err := c.Upsert([]byte(`{"id":"b","pk":"p","v":4}`))
	require.NoError(t, err, "upsert replaces")
	assert.NotEqual(t, u.ETag(), u2.ETag())

	clk.Advance(time.Second)
	tch, err := c.Touch(pk, "a")
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(r.JSON(), fmt.Sprintf(`"_ts":%d,"_etag":"%s"`, r.TS(), r.ETag()), fmt.Sprintf(`"_ts":%d,"_etag":"%s"`, tch.TS(), tch.ETag()), 1), tch.JSON())
	assert.Equal(t, r.TS()+1, tch.TS())

	require.NoError(t, c.Delete(pk, "a"))
	_, err = c.Get(pk, "a")
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, c.Delete(pk, "a"), ErrNotFound)
	_, err = c.Touch(pk, "a")
	require.ErrorIs(t, err, ErrNotFound)
	n, err := c.Count(Query{})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

func TestETags(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")
	seen := map[string]bool{}
	d := mustCreate(t, c, `{"id":"a","pk":"p"}`)
	seen[d.ETag()] = true
	writes := []func(etag string) (Document, error){
		func(e string) (Document, error) { return c.Replace([]byte(`{"id":"a","pk":"p","w":1}`), IfMatch(e)) },
		func(e string) (Document, error) { return c.Upsert([]byte(`{"id":"a","pk":"p","w":2}`), IfMatch(e)) },
		func(e string) (Document, error) { return c.Touch(pk, "a", IfMatch(e)) },
	}
	for i, w := range writes {
		before := state(t, c)
		_, err := w("not-the-etag")
		require.ErrorIs(t, err, ErrPreconditionFailed, "write %d", i)
		assert.Contains(t, err.Error(), "not-the-etag")
		assert.Equal(t, before, state(t, c), "a failed if-match changes nothing")

		next, err := w(d.ETag())
		require.NoError(t, err, "write %d", i)
		assert.False(t, seen[next.ETag()], "every write has a fresh etag")
		seen[next.ETag()] = true
		d = next
	}
	require.ErrorIs(t, c.Delete(pk, "a", IfMatch("stale")), ErrPreconditionFailed)
	require.NoError(t, c.Delete(pk, "a", IfMatch(d.ETag())))

	// Conditional writes against a missing document: not found (R4).
	_, err := c.Upsert([]byte(`{"id":"a","pk":"p"}`), IfMatch(d.ETag()))
	require.ErrorIs(t, err, ErrNotFound)
	_, err = c.Replace([]byte(`{"id":"a","pk":"p"}`), IfMatch(d.ETag()))
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorIs(t, c.Delete(pk, "a", IfMatch(d.ETag())), ErrNotFound)

	// The zero WriteOption adds no condition; the last IfMatch wins.
	_, err = c.Upsert([]byte(`{"id":"a","pk":"p"}`), WriteOption{})
	require.NoError(t, err)
	_, err = c.Touch(pk, "a", IfMatch("x"), IfMatch(""))
	require.ErrorIs(t, err, ErrPreconditionFailed)
}

func TestPartitionKeys(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/tenant/id", TTLOff())
	docs := map[string]PartitionKey{
		`{"id":"x","tenant":{"id":"t1"}}`:       StringKey("t1"),
		`{"id":"x","tenant":{"id":"t2"}}`:       StringKey("t2"),
		`{"id":"x","tenant":{"id":7}}`:          NumberKey(7),
		`{"id":"x","tenant":{"id":true}}`:       BoolKey(true),
		`{"id":"x","tenant":{"id":false}}`:      BoolKey(false),
		`{"id":"x","tenant":{"id":null}}`:       NullKey(),
		`{"id":"x","tenant":{}}`:                NoPartitionKey(),
		`{"id":"x","tenant":{"id":"a\u0000b"}}`: StringKey("a\x00b"),
		`{"id":"x","tenant":{"\u0069d":"t3"}}`:  StringKey("t3"),
	}
	for doc, pk := range docs {
		d := mustCreate(t, c, doc)
		assert.Equal(t, pk, d.PartitionKey(), doc)
		got, err := c.Get(pk, "x")
		require.NoError(t, err, doc)
		assert.Equal(t, d.JSON(), got.JSON())
	}
	n, _ := c.Count(Query{})
	assert.Equal(t, len(docs), n, "the same id in different partitions is a different document")

	// 7 and 7.0 are one partition; a missing path is the none partition,
	// whatever stands in its place.
	_, err := c.Create([]byte(`{"id":"x","tenant":{"id":7.0}}`))
	require.ErrorIs(t, err, ErrConflict)
	_, err = c.Create([]byte(`{"id":"x","tenant":"flat"}`))
	require.ErrorIs(t, err, ErrConflict)

	k, err := PartitionKeyOf(7)
	require.NoError(t, err)
	assert.Equal(t, NumberKey(7), k)
	for v, want := range map[any]PartitionKey{nil: NullKey(), "s": StringKey("s"), true: BoolKey(true), json.Number("2.5"): NumberKey(2.5), uint8(3): NumberKey(3)} {
		k, err := PartitionKeyOf(v)
		require.NoError(t, err)
		assert.Equal(t, want, k)
	}
	assert.Equal(t, `"t1"`, StringKey("t1").String())
	assert.Equal(t, "none", NoPartitionKey().String())
	assert.Equal(t, "null", NullKey().String())
	assert.Equal(t, "7", NumberKey(7).String())
	assert.True(t, NoPartitionKey().IsNone())
	v, ok := NumberKey(2).Value()
	assert.True(t, ok)
	assert.Equal(t, 2.0, v)
}

func TestKeyEncodingRoundTrip(t *testing.T) {
	keys := []PartitionKey{NoPartitionKey(), NullKey(), BoolKey(false), BoolKey(true),
		NumberKey(math.Inf(-1) / math.Inf(1)), NumberKey(-1e300), NumberKey(-1), NumberKey(0), NumberKey(0.5), NumberKey(1e300),
		StringKey(""), StringKey("\x00"), StringKey("\x00\x00"), StringKey("a"), StringKey("a\x00"), StringKey("a\x00b"), StringKey("ab"), StringKey("b")}
	keys[4] = NumberKey(-math.MaxFloat64)
	var prev string
	for i, k := range keys {
		enc := string(k.appendEncoded(nil))
		back, ok := decodePartitionKey(enc)
		require.True(t, ok, k)
		assert.Equal(t, k, back)
		full := enc + "id"
		e, id, ok := splitKey(full)
		require.True(t, ok)
		assert.Equal(t, enc, e)
		assert.Equal(t, "id", id)
		if i > 0 {
			assert.Less(t, prev, enc, "the encoding sorts like the values: %v", k)
		}
		prev = enc
	}
	assert.Equal(t, string(NumberKey(0).appendEncoded(nil)), string(NumberKey(math.Copysign(0, -1)).appendEncoded(nil)))
}

func TestPartitionedByID(t *testing.T) { // R4, R10
	c, clk := newTestCollection(t, "/id", TTLSeconds(60))
	ids := []string{"b", "a", "é", "a b", "z", "key:0000000042"}
	for _, id := range ids {
		d := mustCreate(t, c, `{"id":"`+id+`","n":1}`)
		assert.Equal(t, StringKey(id), d.PartitionKey())
		assert.Equal(t, id, d.ID())
		assert.Equal(t, string(StringKey(id).appendEncoded(nil)), d.d.key(), "the id is not stored twice")
	}
	_, err := c.Create([]byte(`{"id":"a","n":2}`))
	require.ErrorIs(t, err, ErrConflict)
	assert.Contains(t, err.Error(), `document "a" in partition "a"`)

	// Only the id's own partition key finds the document.
	for _, pk := range []PartitionKey{StringKey("a"), StringKey("b"), StringKey("a\x00"), StringKey(""), NumberKey(1), NoPartitionKey(), NullKey()} {
		d, err := c.Get(pk, "a")
		if pk == StringKey("a") {
			require.NoError(t, err)
			assert.Equal(t, `{"id":"a","n":1}`, d.Body())
			continue
		}
		require.ErrorIs(t, err, ErrNotFound, "%v", pk)
		require.ErrorIs(t, c.Delete(pk, "a"), ErrNotFound, "%v", pk)
		_, err = c.Touch(pk, "a")
		require.ErrorIs(t, err, ErrNotFound, "%v", pk)
	}

	// Writes and Touch keep the key form.
	d, err := c.Upsert([]byte(`{"n":3,"id":"a"}`))
	require.NoError(t, err)
	_, err = c.Replace([]byte(`{"id":"a","n":4}`), IfMatch("0000000000000000"))
	require.ErrorIs(t, err, ErrPreconditionFailed)
	assert.Contains(t, err.Error(), `document "a" in partition "a"`)
	clk.Advance(30 * time.Second)
	d2, err := c.Touch(StringKey("a"), "a")
	require.NoError(t, err)
	assert.Equal(t, d.Body(), d2.Body())
	assert.Equal(t, "a", d2.ID())
	assert.Equal(t, StringKey("a"), d2.PartitionKey())
	require.NoError(t, c.Delete(StringKey("b"), "b"))

	// Listing: by id order, one partition per id, pages resume by token.
	var got []string
	q := Query{Limit: 1}
	for {
		page, err := c.List(q)
		require.NoError(t, err)
		for _, d := range page.Documents {
			got = append(got, d.ID())
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	assert.Equal(t, []string{"a", "a b", "key:0000000042", "z", "é"}, got)
	pk := StringKey("z")
	page, err := c.List(Query{Partition: &pk})
	require.NoError(t, err)
	require.Len(t, page.Documents, 1)
	assert.Equal(t, "z", page.Documents[0].ID())

	// Expiry as anywhere else (R4): "a" was touched, the rest were not.
	clk.Advance(30 * time.Second)
	n, err := c.Count(Query{})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	swept, err := c.Sweep()
	require.NoError(t, err)
	assert.Equal(t, 4, swept)
}

func TestListing(t *testing.T) { // R4, R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for _, doc := range []string{
		`{"id":"b","pk":"p2","n":1}`, `{"id":"a","pk":"p2","n":2}`, `{"id":"c","pk":"p1","n":3}`,
		`{"id":"a","pk":"p1","n":4}`, `{"id":"z","n":5}`, `{"id":"m","pk":3,"n":6}`,
	} {
		mustCreate(t, c, doc)
	}
	keys := func(docs []Document) []string {
		var out []string
		for _, d := range docs {
			out = append(out, d.PartitionKey().String()+"/"+d.ID())
		}
		return out
	}
	page, err := c.List(Query{})
	require.NoError(t, err)
	assert.Equal(t, []string{"none/z", "3/m", `"p1"/a`, `"p1"/c`, `"p2"/a`, `"p2"/b`}, keys(page.Documents), "key order: partition, then id")
	assert.Empty(t, page.Continuation)

	p1 := StringKey("p1")
	page, err = c.List(Query{Partition: &p1})
	require.NoError(t, err)
	assert.Equal(t, []string{`"p1"/a`, `"p1"/c`}, keys(page.Documents))

	even := func(d Document) bool {
		var v struct{ N int }
		return d.Decode(&v) == nil && v.N%2 == 0
	}
	n, err := c.Count(Query{Filter: even})
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	n, err = c.Count(Query{Partition: &p1, Filter: even})
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	// Pages of 2 visit every document once, and the last page has no token.
	var all []string
	q := Query{Limit: 2}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		page, err := c.List(q)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(page.Documents), 2)
		all = append(all, keys(page.Documents)...)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	assert.Equal(t, []string{"none/z", "3/m", `"p1"/a`, `"p1"/c`, `"p2"/a`, `"p2"/b`}, all)

	// A filtered page: the token resumes after the last document returned.
	page, err = c.List(Query{Filter: even, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"3/m"}, keys(page.Documents))
	page, err = c.List(Query{Filter: even, Limit: 5, Continuation: page.Continuation})
	require.NoError(t, err)
	assert.Equal(t, []string{`"p1"/a`, `"p2"/a`}, keys(page.Documents))

	// All honours Limit and Continuation.
	var got []string
	for d, err := range c.All(Query{Limit: 3, Continuation: encodeToken(string(StringKey("p1").appendEncoded(nil)) + "a")}) {
		require.NoError(t, err)
		got = append(got, d.PartitionKey().String()+"/"+d.ID())
	}
	assert.Equal(t, []string{`"p1"/c`, `"p2"/a`, `"p2"/b`}, got)

	// A token from one partition is refused for another.
	page, err = c.List(Query{Partition: &p1, Limit: 1})
	require.NoError(t, err)
	p2 := StringKey("p2")
	_, err = c.List(Query{Partition: &p2, Continuation: page.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation)
}

func TestListingHidesExpired(t *testing.T) { // R4
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	mustCreate(t, c, `{"id":"b","pk":"p","ttl":20}`)
	mustCreate(t, c, `{"id":"c","pk":"p","ttl":-1}`)
	clk.Advance(10 * time.Second)
	page, err := c.List(Query{})
	require.NoError(t, err)
	require.Len(t, page.Documents, 2)
	assert.Equal(t, "b", page.Documents[0].ID())
	n, _ := c.Count(Query{})
	assert.Equal(t, 2, n)
	pk := StringKey("p")
	n, _ = c.Count(Query{Partition: &pk})
	assert.Equal(t, 2, n)
	st, _ := c.Stats()
	assert.Equal(t, Stats{Live: 2, Expired: 1}, st)
}

func TestAllIsASnapshot(t *testing.T) { // R4
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	for i := range 100 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%03d","pk":"p"}`, i))
	}
	seen := 0
	for d, err := range c.All(Query{}) {
		require.NoError(t, err)
		seen++
		if seen == 1 {
			// While the iteration runs: more writes, deletes, and a mass
			// expiry swept away. The iteration sees none of it, and the
			// collection can be called from inside the loop.
			for i := range 50 {
				mustCreate(t, c, fmt.Sprintf(`{"id":"e%03d","pk":"p"}`, i))
				require.NoError(t, c.Delete(StringKey("p"), fmt.Sprintf("d%03d", 99-i)))
			}
			clk.Advance(time.Minute)
			n, err := c.Sweep()
			require.NoError(t, err)
			assert.Equal(t, 100, n)
			assert.Equal(t, "d000", d.ID())
		}
	}
	assert.Equal(t, 100, seen)
}

func TestZeroDocument(t *testing.T) {
	var d Document
	assert.Empty(t, d.ID())
	assert.Empty(t, d.JSON())
	assert.Empty(t, d.ETag())
	assert.Zero(t, d.TS())
	assert.True(t, d.PartitionKey().IsNone())
	_, ok := d.TTL()
	assert.False(t, ok)
	require.ErrorIs(t, d.Decode(&struct{}{}), ErrNotFound)
}

func TestDefaultTTLValues(t *testing.T) { // R1
	for _, tc := range []struct {
		d    DefaultTTL
		json string
	}{{TTLOff(), "null"}, {DefaultTTL{}, "null"}, {TTLNoDefault(), "-1"}, {TTLSeconds(-1), "-1"}, {TTLSeconds(1), "1"}, {TTLSeconds(MaxTTL), "2147483647"}} {
		b, err := json.Marshal(tc.d)
		require.NoError(t, err)
		assert.Equal(t, tc.json, string(b))
		var back DefaultTTL
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tc.d, back)
	}
	assert.Equal(t, "off", TTLOff().String())
	assert.Equal(t, "-1", TTLNoDefault().String())
	n, on := TTLSeconds(30).Seconds()
	assert.Equal(t, int64(30), n)
	assert.True(t, on)
	_, on = DefaultTTL{}.Seconds()
	assert.False(t, on, "the zero DefaultTTL is off")
	var back DefaultTTL
	require.NoError(t, json.Unmarshal([]byte("10.0"), &back))
	assert.Equal(t, TTLSeconds(10), back)
}

func TestExactInt(t *testing.T) { // R2
	for raw, want := range map[string]int64{
		"0": 0, "-0": 0, "10": 10, "10.0": 10, "1e1": 10, "1E+1": 10, "100e-2": 1, "-1": -1, "-1.000": -1,
		"-10e-1": -1, "0.0e99999999999": 0, "2147483647": 2147483647, "2147483647.000": 2147483647, "9999999999": 9999999999,
	} {
		got, ok := exactInt([]byte(raw))
		assert.True(t, ok, raw)
		assert.Equal(t, want, got, raw)
	}
	// Exponents too long to read cannot cancel a long fraction or a long
	// run of zeros: 0.000...1e10000000 is 10^9000000, not 1.
	huge := "0." + strings.Repeat("0", 999_999) + "1e10000000"
	tiny := "1" + strings.Repeat("0", 1_200_000) + "e-12000000"
	for _, raw := range []string{huge, tiny} {
		_, ok := exactInt([]byte(raw))
		assert.False(t, ok, "%.20s... (%d bytes)", raw, len(raw))
	}
	for _, raw := range []string{"10.5", "1e-1", "2147483647.0000000001", "99999999999", "1e10", "1e999999999999", "", "-", "1.", ".5", "1e", "01x", "NaN"} {
		_, ok := exactInt([]byte(raw))
		assert.False(t, ok, raw)
	}
}

// TestBadInput: every rejected input returns an error matching one
// sentinel, whose text names the value, and changes nothing.
func TestBadInput(t *testing.T) { // R1, R2, R8, R10
	deep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth) // 129 levels with the document
	big := `{"id":"big","pk":"p","s":"` + strings.Repeat("x", MaxDocumentSize) + `"}`
	long := strings.Repeat("i", MaxIDLength+1)
	longPK := strings.Repeat("k", MaxPartitionKeyLength+1)

	type row struct {
		name string
		call func(c *Collection) error
		want error
		text string // what the message must name
	}
	create := func(doc string) func(c *Collection) error {
		return func(c *Collection) error { _, err := c.Create([]byte(doc)); return err }
	}
	upsert := func(doc string) func(c *Collection) error {
		return func(c *Collection) error { _, err := c.Upsert([]byte(doc)); return err }
	}
	rows := []row{
		// R1
		{"DefaultTTL 0", func(c *Collection) error { return c.SetDefaultTTL(TTLSeconds(0)) }, ErrInvalidTTL, "DefaultTTL 0"},
		{"DefaultTTL -2", func(c *Collection) error { return c.SetDefaultTTL(TTLSeconds(-2)) }, ErrInvalidTTL, "-2"},
		{"DefaultTTL over max", func(c *Collection) error { return c.SetDefaultTTL(TTLSeconds(MaxTTL + 1)) }, ErrInvalidTTL, "2147483648"},
		{"DefaultTTL min int", func(c *Collection) error { return c.SetDefaultTTL(TTLSeconds(math.MinInt64)) }, ErrInvalidTTL, "-9223372036854775808"},
		// R2, on every write
		{"ttl 0", create(`{"id":"n","pk":"p","ttl":0}`), ErrInvalidTTL, "ttl 0"},
		{"ttl -2", upsert(`{"id":"a","pk":"p","ttl":-2}`), ErrInvalidTTL, "ttl -2"},
		{"ttl over max", create(`{"id":"n","pk":"p","ttl":2147483648}`), ErrInvalidTTL, "2147483648"},
		{"ttl fraction", upsert(`{"id":"a","pk":"p","ttl":10.5}`), ErrInvalidTTL, "10.5"},
		{"ttl tiny fraction", create(`{"id":"n","pk":"p","ttl":2147483646.0000000001}`), ErrInvalidTTL, "2147483646.0000000001"},
		{"ttl string", create(`{"id":"n","pk":"p","ttl":"10"}`), ErrInvalidTTL, `"10"`},
		{"ttl bool", create(`{"id":"n","pk":"p","ttl":true}`), ErrInvalidTTL, "true"},
		{"ttl object", create(`{"id":"n","pk":"p","ttl":{}}`), ErrInvalidTTL, "{}"},
		{"ttl array", create(`{"id":"n","pk":"p","ttl":[10]}`), ErrInvalidTTL, "[10]"},
		{"ttl on replace", func(c *Collection) error { _, err := c.Replace([]byte(`{"id":"a","pk":"p","ttl":0}`)); return err }, ErrInvalidTTL, "ttl 0"},
		// R10: ids
		{"id missing", create(`{"pk":"p"}`), ErrInvalidID, "no id"},
		{"id empty", create(`{"id":"","pk":"p"}`), ErrInvalidID, "empty"},
		{"id number", create(`{"id":42,"pk":"p"}`), ErrInvalidID, "42"},
		{"id null", create(`{"id":null,"pk":"p"}`), ErrInvalidID, "null"},
		{"id too long", create(`{"id":"` + long + `","pk":"p"}`), ErrInvalidID, "1024 bytes"},
		{"id slash", create(`{"id":"a/b","pk":"p"}`), ErrInvalidID, `"a/b"`},
		{"id backslash", create(`{"id":"a\\b","pk":"p"}`), ErrInvalidID, `a\\b`},
		{"id question", create(`{"id":"a?b","pk":"p"}`), ErrInvalidID, `"a?b"`},
		{"id hash", create(`{"id":"a#b","pk":"p"}`), ErrInvalidID, `"a#b"`},
		{"id control", create(`{"id":"a\u0001b","pk":"p"}`), ErrInvalidID, "control"},
		{"id C1 control", create(`{"id":"a\u0085b","pk":"p"}`), ErrInvalidID, "control"},
		{"get id slash", func(c *Collection) error { _, err := c.Get(StringKey("p"), "a/b"); return err }, ErrInvalidID, `"a/b"`},
		{"delete id empty", func(c *Collection) error { return c.Delete(StringKey("p"), "") }, ErrInvalidID, "empty"},
		{"touch id invalid UTF-8", func(c *Collection) error { _, err := c.Touch(StringKey("p"), "a\xff"); return err }, ErrInvalidID, "UTF-8"},
		// R10: partition keys
		{"pk object", create(`{"id":"n","pk":{"a":1}}`), ErrInvalidPartitionKey, `{"a":1}`},
		{"pk array", create(`{"id":"n","pk":[1]}`), ErrInvalidPartitionKey, "[1]"},
		{"pk too long", create(`{"id":"n","pk":"` + longPK + `"}`), ErrInvalidPartitionKey, "2049 bytes"},
		{"pk number out of range", create(`{"id":"n","pk":1e400}`), ErrInvalidPartitionKey, "1e400"},
		{"get pk too long", func(c *Collection) error { _, err := c.Get(StringKey(longPK), "a"); return err }, ErrInvalidPartitionKey, "2049 bytes"},
		{"get pk NaN", func(c *Collection) error { _, err := c.Get(NumberKey(math.NaN()), "a"); return err }, ErrInvalidPartitionKey, "NaN"},
		{"get pk invalid UTF-8", func(c *Collection) error { _, err := c.Get(StringKey("\xff"), "a"); return err }, ErrInvalidPartitionKey, "UTF-8"},
		{"pk of Go type", func(c *Collection) error { _, err := PartitionKeyOf([]int{1}); return err }, ErrInvalidPartitionKey, "[]int"},
		{"list pk too long", func(c *Collection) error { k := StringKey(longPK); _, err := c.List(Query{Partition: &k}); return err }, ErrInvalidPartitionKey, "2049 bytes"},
		// R10: documents
		{"array", create(`[{"id":"n"}]`), ErrInvalidDocument, "array"},
		{"string", create(`"x"`), ErrInvalidDocument, "string"},
		{"number", create(`12`), ErrInvalidDocument, "number"},
		{"null", create(`null`), ErrInvalidDocument, "null"},
		{"empty", create(``), ErrInvalidDocument, "empty"},
		{"trailing comma", create(`{"id":"n","pk":"p",}`), ErrInvalidDocument, "byte 19"},
		{"unterminated", create(`{"id":"n","pk":"p"`), ErrInvalidDocument, "end of input"},
		{"after the object", create(`{"id":"n","pk":"p"} x`), ErrInvalidDocument, `"x"`},
		{"single quotes", create(`{'id':'n'}`), ErrInvalidDocument, "byte 1"},
		{"bad escape", create(`{"id":"n","s":"\x"}`), ErrInvalidDocument, "escape"},
		{"raw control character", create("{\"id\":\"n\",\"s\":\"a\nb\"}"), ErrInvalidDocument, "control character"},
		{"invalid UTF-8", create("{\"id\":\"n\",\"s\":\"\xff\"}"), ErrInvalidDocument, "UTF-8"},
		{"bad number", create(`{"id":"n","v":01}`), ErrInvalidDocument, "byte 15"},
		{"bad literal", create(`{"id":"n","v":tru}`), ErrInvalidDocument, `"true"`},
		{"duplicate id", create(`{"id":"n","id":"m"}`), ErrInvalidDocument, `"id" appears twice`},
		{"duplicate ttl", create(`{"id":"n","ttl":1,"ttl":2}`), ErrInvalidDocument, `"ttl" appears twice`},
		{"too deep", create(`{"id":"n","d":` + deep + `}`), ErrInvalidDocument, "128 levels"},
		{"too large", create(big), ErrTooLarge, "2097152"},
		{"Go string", func(c *Collection) error { _, err := c.Create(`{"id":"n"}`); return err }, ErrInvalidDocument, "[]byte"},
		{"nil", func(c *Collection) error { _, err := c.Create(nil); return err }, ErrInvalidDocument, "nil"},
		{"channel", func(c *Collection) error { _, err := c.Create(make(chan int)); return err }, ErrInvalidDocument, "chan int"},
		{"nil map", func(c *Collection) error { _, err := c.Upsert(map[string]any(nil)); return err }, ErrInvalidDocument, "null"},
		// R10: etags and keys
		{"if-match", func(c *Collection) error {
			_, err := c.Replace([]byte(`{"id":"a","pk":"p","v":9}`), IfMatch("old"))
			return err
		}, ErrPreconditionFailed, `"old"`},
		{"create existing", create(`{"id":"a","pk":"p","v":9}`), ErrConflict, `"a"`},
		// R8 and other settings
		{"indexing none with TTL", func(c *Collection) error { return c.SetIndexingMode(IndexingNone) }, ErrInvalidOption, "R8"},
		{"unknown indexing mode", func(c *Collection) error { return c.SetIndexingMode(IndexingMode(9)) }, ErrInvalidOption, "9"},
		{"negative limit", func(c *Collection) error { _, err := c.List(Query{Limit: -1}); return err }, ErrInvalidOption, "-1"},
		{"garbage token", func(c *Collection) error { _, err := c.List(Query{Continuation: "%%%"}); return err }, ErrInvalidContinuation, "%%%"},
		{"damaged token", func(c *Collection) error { _, err := c.List(Query{Continuation: "AWFiYw"}); return err }, ErrInvalidContinuation, "AWFiYw"},
		{"token of no kind", func(c *Collection) error { _, err := c.List(Query{Continuation: encodeToken("\x00")}); return err }, ErrInvalidContinuation, "no document key"},
		{"token of unknown kind", func(c *Collection) error { _, err := c.List(Query{Continuation: encodeToken("\xffz")}); return err }, ErrInvalidContinuation, "no document key"},
		{"token without id", func(c *Collection) error { _, err := c.List(Query{Continuation: encodeToken("\x01")}); return err }, ErrInvalidContinuation, "no document key"},
		{"token of a key List cannot issue", func(c *Collection) error {
			_, err := c.List(Query{Continuation: encodeToken(string(StringKey(strings.Repeat("k", 70_000)).appendEncoded(nil)) + "a")})
			return err
		}, ErrInvalidContinuation, "no document key"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			c, _ := newTestCollection(t, "/pk", TTLSeconds(3600))
			mustCreate(t, c, `{"id":"a","pk":"p","v":1}`)
			before := state(t, c)
			var err error
			require.NotPanics(t, func() { err = r.call(c) })
			require.ErrorIs(t, err, r.want)
			for _, other := range []error{ErrNotFound, ErrConflict, ErrPreconditionFailed, ErrInvalidTTL, ErrInvalidID, ErrInvalidPartitionKey, ErrInvalidDocument, ErrTooLarge, ErrInvalidOption, ErrInvalidContinuation, ErrClosed} {
				if other != r.want {
					assert.False(t, errors.Is(err, other), "also matches %v", other)
				}
			}
			assert.Contains(t, err.Error(), r.text)
			assert.Equal(t, before, state(t, c), "a rejected call changes nothing")
		})
	}
}

func TestBadOptions(t *testing.T) { // R1, R8
	for _, tc := range []struct {
		name, path string
		opts       *Options
		want       error
		text       string
	}{
		{"", "/pk", nil, ErrInvalidOption, "empty"},
		{"a/b", "/pk", nil, ErrInvalidOption, `"a/b"`},
		{strings.Repeat("n", MaxNameLength+1), "/pk", nil, ErrInvalidOption, "256 bytes"},
		{"c", "pk", nil, ErrInvalidOption, `"pk"`},
		{"c", "", nil, ErrInvalidOption, `""`},
		{"c", "/a//b", nil, ErrInvalidOption, "empty segment"},
		{"c", "/_ts", nil, ErrInvalidOption, "system property"},
		{"c", "/_etag/x", nil, ErrInvalidOption, "system property"},
		{"c", "/", nil, ErrInvalidOption, "empty segment"},
		{"c", "/pk", &Options{DefaultTTL: TTLSeconds(0)}, ErrInvalidTTL, "DefaultTTL 0"},
		{"c", "/pk", &Options{DefaultTTL: TTLSeconds(MaxTTL + 1)}, ErrInvalidTTL, "2147483648"},
		{"c", "/pk", &Options{DefaultTTL: TTLNoDefault(), Indexing: IndexingNone}, ErrInvalidOption, "R8"},
		{"c", "/pk", &Options{Indexing: 7}, ErrInvalidOption, "7"},
		{"c", "/pk", &Options{SweepBatch: -1}, ErrInvalidOption, "-1"},
	} {
		c, err := NewCollection(tc.name, tc.path, tc.opts)
		require.ErrorIs(t, err, tc.want, "%q %q %+v", tc.name, tc.path, tc.opts)
		assert.Contains(t, err.Error(), tc.text)
		assert.Nil(t, c)
	}
	for _, in := range []string{"0", "1.5", `"10"`, "true", "{}", "-2", "2147483648", "nope", ""} {
		d := TTLSeconds(5)
		err := d.UnmarshalJSON([]byte(in))
		require.ErrorIs(t, err, ErrInvalidTTL, in)
		assert.Equal(t, TTLSeconds(5), d, "a rejected value leaves the DefaultTTL unchanged")
	}
	_, err := json.Marshal(TTLSeconds(0))
	require.ErrorIs(t, err, ErrInvalidTTL)
}

func TestIndexingMode(t *testing.T) { // R8
	c, err := NewCollection("kv", "/pk", &Options{Indexing: IndexingNone, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, IndexingNone, c.IndexingMode())
	require.ErrorIs(t, c.SetDefaultTTL(TTLNoDefault()), ErrInvalidOption)
	assert.Equal(t, TTLOff(), c.DefaultTTL())
	require.NoError(t, c.SetDefaultTTL(TTLOff()), "off is allowed with mode none")
	require.NoError(t, c.SetIndexingMode(IndexingConsistent))
	require.NoError(t, c.SetDefaultTTL(TTLSeconds(5)))
	require.ErrorIs(t, c.SetIndexingMode(IndexingNone), ErrInvalidOption)
	assert.Equal(t, IndexingConsistent, c.IndexingMode())
	assert.Equal(t, "none", IndexingNone.String())
	assert.Equal(t, "consistent", IndexingConsistent.String())
	assert.Equal(t, "kv", c.Name())
	assert.Equal(t, "/pk", c.PartitionKeyPath())
}

// TestLimitsExactly: a document exactly at each limit is accepted; one byte
// or one level over is rejected (R10).
func TestLimitsExactly(t *testing.T) { // R10
	c, _ := newTestCollection(t, "/pk", TTLOff())
	prefix, suffix := `{"id":"big","s":"`, `"}`
	atSize := prefix + strings.Repeat("x", MaxDocumentSize-len(prefix)-len(suffix)) + suffix
	require.Len(t, atSize, MaxDocumentSize)
	_, err := c.Create([]byte(atSize))
	require.NoError(t, err)
	_, err = c.Create([]byte(strings.Replace(atSize, `"big"`, `"big2"`, 1)))
	require.ErrorIs(t, err, ErrTooLarge)

	nest := func(levels int) string { // the document itself is level 1
		return `{"id":"deep` + fmt.Sprint(levels) + `","d":` + strings.Repeat("[", levels-1) + "1" + strings.Repeat("]", levels-1) + "}"
	}
	mustCreate(t, c, nest(MaxDepth))
	_, err = c.Create([]byte(nest(MaxDepth + 1)))
	require.ErrorIs(t, err, ErrInvalidDocument)

	id := strings.Repeat("é", MaxIDLength/2) + "x" // 1023 bytes
	require.Len(t, id, MaxIDLength)
	mustCreate(t, c, `{"id":"`+id+`"}`)
	_, err = c.Create([]byte(`{"id":"` + id + `x"}`))
	require.ErrorIs(t, err, ErrInvalidID)

	pk := strings.Repeat("k", MaxPartitionKeyLength)
	mustCreate(t, c, `{"id":"a","pk":"`+pk+`"}`)
	_, err = c.Get(StringKey(pk), "a")
	require.NoError(t, err)
	_, err = c.Create([]byte(`{"id":"a","pk":"` + pk + `k"}`))
	require.ErrorIs(t, err, ErrInvalidPartitionKey)
}

func TestExpiresAt(t *testing.T) { // R3, R7
	c, _ := newTestCollection(t, "/pk", TTLSeconds(100))
	inherit := mustCreate(t, c, `{"id":"a"}`)
	own := mustCreate(t, c, `{"id":"b","ttl":5}`)
	never := mustCreate(t, c, `{"id":"c","ttl":-1}`)
	ts := time.Unix(inherit.TS(), 0)
	check := func(d Document, want time.Time, wantOK bool) {
		t.Helper()
		at, ok := c.ExpiresAt(d)
		assert.Equal(t, wantOK, ok, d.ID())
		assert.Equal(t, want, at, d.ID())
	}
	check(inherit, ts.Add(100*time.Second), true)
	check(own, ts.Add(5*time.Second), true)
	check(never, time.Time{}, false)
	require.NoError(t, c.SetDefaultTTL(TTLNoDefault()))
	check(inherit, time.Time{}, false)
	check(own, ts.Add(5*time.Second), true)
	require.NoError(t, c.SetDefaultTTL(TTLOff()))
	check(own, time.Time{}, false)
	check(Document{}, time.Time{}, false)
}

// TestExpiresAtAfterExpiry: a document that expired keeps the instant it
// expired at, whatever DefaultTTL becomes (R7).
func TestExpiresAtAfterExpiry(t *testing.T) { // R7
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	inherit := mustCreate(t, c, `{"id":"a"}`)
	own := mustCreate(t, c, `{"id":"b","ttl":5}`)
	ts := time.Unix(inherit.TS(), 0)
	clk.Advance(15 * time.Second)
	for _, def := range []DefaultTTL{TTLNoDefault(), TTLSeconds(1000), TTLOff(), TTLSeconds(3)} {
		require.NoError(t, c.SetDefaultTTL(def))
		at, ok := c.ExpiresAt(inherit)
		assert.True(t, ok, def)
		assert.Equal(t, ts.Add(10*time.Second), at, "DefaultTTL %v", def)
		at, ok = c.ExpiresAt(own)
		assert.True(t, ok, def)
		assert.Equal(t, ts.Add(5*time.Second), at, "DefaultTTL %v", def)
	}
	require.NoError(t, c.Close())
	_, ok := c.ExpiresAt(own)
	assert.False(t, ok, "after Close")
}

// TestZeroCollection: a Collection not made by NewCollection reports
// ErrClosed and never panics.
func TestZeroCollection(t *testing.T) {
	var c Collection
	require.NotPanics(t, func() {
		_, err := c.Create([]byte(`{"id":"a"}`))
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Get(NoPartitionKey(), "a")
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, c.Delete(NoPartitionKey(), "a"), ErrClosed)
		_, err = c.List(Query{})
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Count(Query{})
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Stats()
		require.ErrorIs(t, err, ErrClosed)
		_, err = c.Sweep()
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, c.SetDefaultTTL(TTLOff()), ErrClosed)
		for _, err := range c.All(Query{}) {
			require.ErrorIs(t, err, ErrClosed)
		}
		_, ok := c.ExpiresAt(Document{})
		assert.False(t, ok)
		require.NoError(t, c.Close())
		require.NoError(t, c.Close())
	})
}

func TestDecodeErrors(t *testing.T) {
	c, _ := newTestCollection(t, "/pk", TTLOff())
	d := mustCreate(t, c, `{"id":"a","n":"not a number"}`)
	var v struct{ N int }
	err := d.Decode(&v)
	require.ErrorIs(t, err, ErrInvalidDocument)
	var typeErr *json.UnmarshalTypeError
	require.ErrorAs(t, err, &typeErr, "encoding/json's error is wrapped too")
	assert.Contains(t, err.Error(), `"a"`)
}

// TestTTLIsPerDocument: TTL applies to a whole document, never to a part of
// it; a "ttl" below the root is plain data. To expire part of a document,
// keep it in a linked document with its own ttl (R9).
func TestTTLIsPerDocument(t *testing.T) { // R9
	c, clk := newTestCollection(t, "/orderId", TTLNoDefault())
	mustCreate(t, c, `{"id":"order","orderId":"o1","payment":{"ttl":1,"card":"4111"}}`)
	mustCreate(t, c, `{"id":"order-draft","orderId":"o1","notes":[{"ttl":"not a number"}]}`)
	mustCreate(t, c, `{"id":"order-payment","orderId":"o1","card":"4111","ttl":5}`)
	clk.Advance(5 * time.Second)
	for _, id := range []string{"order", "order-draft"} {
		d, err := c.Get(StringKey("o1"), id)
		require.NoError(t, err, "a nested ttl does not expire %s", id)
		_, own := d.TTL()
		assert.False(t, own)
	}
	_, err := c.Get(StringKey("o1"), "order-payment")
	require.ErrorIs(t, err, ErrNotFound, "the linked document expires on its own")
}

// TestDocMapCollisions drives a docMap whose hashes collide all the time
// (two bits of hash) against a plain map.
func TestDocMapCollisions(t *testing.T) {
	m := newDocMap()
	m.mask = 3
	want := map[string]*doc{}
	r := rand.New(rand.NewPCG(1, 2))
	for step := range 20000 {
		key := fmt.Sprintf("k%d", r.IntN(64))
		switch r.IntN(3) {
		case 0, 1:
			d := newDoc(key, keyLayout{}, "{}", 0, int64(step), uint64(step))
			m.put(d)
			want[key] = d
		case 2:
			_, had := want[key]
			require.Equal(t, had, m.remove(key), "remove %q at step %d", key, step)
			delete(want, key)
		}
		require.Equal(t, len(want), m.len(), "step %d", step)
		if step%100 == 0 {
			for i := range 64 {
				key := fmt.Sprintf("k%d", i)
				require.Same(t, want[key], m.get([]byte(key)), "get %q at step %d", key, step)
			}
			for k := range m.clash {
				cur := m.byHash[m.hash(k)]
				require.NotNil(t, cur, "%q is in clash while its slot is free", k)
				require.NotEqual(t, k, cur.key())
			}
		}
	}
	assert.Positive(t, len(m.clash), "the test made hashes collide")
}

// TestExpiryItemOrder: expiry trees order by instant, with every document
// an item of its own, also where the packed sort key ties: instants beyond
// its range, and etag numbers alike in their low bits.
func TestExpiryItemOrder(t *testing.T) {
	var docs []*doc
	tag := uint64(1)
	for _, ts := range []int64{math.MinInt64 / 2, expAtMin - 2, expAtMin - 1, expAtMin, -1, 0, 1, expAtMax, expAtMax + 1, expAtMax + 2, math.MaxInt64 / 2} {
		for _, ttl := range []int32{ttlInherit, 1, 2} {
			for _, hi := range []uint64{0, 1 << expTagBits, 5 << expTagBits} { // same low bits
				docs = append(docs, newDoc("k", keyLayout{}, "{}", ttl, ts, hi|tag))
			}
			tag++
		}
	}
	x := newExpiryIndex(TTLOff())
	r := rand.New(rand.NewPCG(3, 4))
	for _, i := range r.Perm(len(docs)) {
		x.add(docs[i])
	}
	for _, tr := range []*btree.BTreeG[expItem]{x.own, x.inherit} {
		var prev *doc
		tr.Ascend(func(it expItem) bool {
			if prev != nil {
				require.LessOrEqual(t, expAt(prev), expAt(it.d))
			}
			prev = it.d
			return true
		})
	}
	require.Equal(t, len(docs), x.own.Len()+x.inherit.Len(), "no two documents compare equal")
	for _, i := range r.Perm(len(docs)) {
		x.remove(docs[i])
	}
	require.Zero(t, x.own.Len()+x.inherit.Len(), "every item is found again to be removed")
}

// TestExtremeClocks: a clock far beyond any real date counts as the bound
// maxClock, so that no instant overflows; documents behave as usual.
func TestExtremeClocks(t *testing.T) { // R3, R4
	for _, sec := range []int64{-maxClock - 5, -maxClock, maxClock, maxClock + 5, math.MaxInt64 / 2} {
		clk := &fakeClock{t: time.Unix(sec, 0)}
		c, err := NewCollection("x", "/pk", &Options{DefaultTTL: TTLSeconds(MaxTTL), Now: clk.Now, ManualSweep: true})
		require.NoError(t, err)
		own := mustCreate(t, c, `{"id":"own","ttl":2147483647}`)
		inherit := mustCreate(t, c, `{"id":"inherit"}`)
		want := min(max(sec, -maxClock), maxClock)
		assert.Equal(t, want, own.TS(), "clock %d", sec)
		for _, d := range []Document{own, inherit} {
			at, ok := c.ExpiresAt(d)
			assert.True(t, ok)
			assert.Equal(t, want+MaxTTL, at.Unix(), "clock %d", sec)
		}
		clk.Advance(MaxTTL * time.Second)
		n, err := c.Sweep()
		require.NoError(t, err)
		if min(sec+MaxTTL, maxClock) >= want+MaxTTL {
			assert.Equal(t, 2, n, "clock %d: both expired", sec)
		} else {
			assert.Zero(t, n, "clock %d: time stands still at the bound", sec)
		}
		c.Close()
	}
}

// TestBadKeyThatIsTheID: a partition key equal to the id is checked once,
// and still reported as a bad partition key first (R10).
func TestBadKeyThatIsTheID(t *testing.T) { // R10
	for _, path := range []string{"/pk", "/id"} {
		c, _ := newTestCollection(t, path, TTLOff())
		long := strings.Repeat("a", MaxPartitionKeyLength+1)
		for _, s := range []string{"\xff", long} {
			_, err := c.Get(StringKey(s), s)
			assert.ErrorIs(t, err, ErrInvalidPartitionKey, "%s: %.10q", path, s)
		}
		_, err := c.Get(StringKey("a/b"), "a/b") // a valid string key, a bad id
		assert.ErrorIs(t, err, ErrInvalidID, path)
		_, err = c.Get(StringKey(strings.Repeat("a", MaxIDLength+1)), strings.Repeat("a", MaxIDLength+1))
		assert.ErrorIs(t, err, ErrInvalidID, path)
	}
	assert.Equal(t, 32, docHeader, "a document's header")
	assert.Equal(t, 16, int(unsafe.Sizeof(expItem{})), "an expiry item")
}
