package ttldb

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

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
	page, err := c.List(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, []string{"none/z", "3/m", `"p1"/a`, `"p1"/c`, `"p2"/a`, `"p2"/b`}, keys(page.Documents), "key order: partition, then id")
	require.Empty(t, page.Continuation)

	p1 := StringKey("p1")
	page, err = c.List(bg, Query{Partition: &p1})
	require.NoError(t, err)
	require.Equal(t, []string{`"p1"/a`, `"p1"/c`}, keys(page.Documents))

	even := func(d Document) bool {
		var v struct{ N int }
		return d.Decode(&v) == nil && v.N%2 == 0
	}
	n, err := c.Count(bg, Query{Filter: even})
	require.NoError(t, err)
	require.Equal(t, 3, n)
	n, err = c.Count(bg, Query{Partition: &p1, Filter: even})
	require.NoError(t, err)
	require.Equal(t, 1, n)

	// Pages of 2 visit every document once, and the last page has no token.
	var all []string
	q := Query{Limit: 2}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		page, err := c.List(bg, q)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Documents), 2)
		all = append(all, keys(page.Documents)...)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	require.Equal(t, []string{"none/z", "3/m", `"p1"/a`, `"p1"/c`, `"p2"/a`, `"p2"/b`}, all)

	// A filtered page: the token resumes after the last document returned.
	page, err = c.List(bg, Query{Filter: even, Limit: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"3/m"}, keys(page.Documents))
	page, err = c.List(bg, Query{Filter: even, Limit: 5, Continuation: page.Continuation})
	require.NoError(t, err)
	require.Equal(t, []string{`"p1"/a`, `"p2"/a`}, keys(page.Documents))

	// All honours Limit and Continuation.
	var got []string
	for d, err := range c.All(bg, Query{Limit: 3, Continuation: tokenFor(c, nil, string(StringKey("p1").appendEncoded(nil))+"a")}) {
		require.NoError(t, err)
		got = append(got, d.PartitionKey().String()+"/"+d.ID())
	}
	require.Equal(t, []string{`"p1"/c`, `"p2"/a`, `"p2"/b`}, got)

	// A token from one partition is refused for another.
	page, err = c.List(bg, Query{Partition: &p1, Limit: 1})
	require.NoError(t, err)
	p2 := StringKey("p2")
	_, err = c.List(bg, Query{Partition: &p2, Continuation: page.Continuation})
	require.ErrorIs(t, err, ErrInvalidContinuation)
}

func TestListingHidesExpired(t *testing.T) { // R4
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	mustCreate(t, c, `{"id":"b","pk":"p","ttl":20}`)
	mustCreate(t, c, `{"id":"c","pk":"p","ttl":-1}`)
	clk.Advance(10 * time.Second)
	page, err := c.List(bg, Query{})
	require.NoError(t, err)
	require.Len(t, page.Documents, 2)
	require.Equal(t, "b", page.Documents[0].ID())
	n, _ := c.Count(bg, Query{})
	require.Equal(t, 2, n)
	pk := StringKey("p")
	n, _ = c.Count(bg, Query{Partition: &pk})
	require.Equal(t, 2, n)
	st, _ := c.Stats(bg)
	require.Equal(t, Stats{Live: 2, Expired: 1}, st)
}

func TestAllIsASnapshot(t *testing.T) { // R4
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	for i := range 100 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%03d","pk":"p"}`, i))
	}
	seen := 0
	for d, err := range c.All(bg, Query{}) {
		require.NoError(t, err)
		seen++
		if seen == 1 {
			// While the iteration runs: more writes, deletes, and a mass
			// expiry swept away. The iteration sees none of it, and the
			// collection can be called from inside the loop.
			for i := range 50 {
				mustCreate(t, c, fmt.Sprintf(`{"id":"e%03d","pk":"p"}`, i))
				require.NoError(t, c.Delete(bg, StringKey("p"), fmt.Sprintf("d%03d", 99-i)))
			}
			clk.Advance(time.Minute)
			n, err := c.Sweep(bg)
			require.NoError(t, err)
			require.Equal(t, 100, n)
			require.Equal(t, "d000", d.ID())
		}
	}
	require.Equal(t, 100, seen)
}

// tokenFor makes the token c issues to a listing of part (nil: all
// partitions) whose page ended with the document of key.
func tokenFor(c *Collection, part *PartitionKey, key string) string {
	prefix := ""
	if part != nil {
		prefix = string(part.appendEncoded(nil))
	}
	return sealToken(scopeOf(c, readList, part != nil, prefix), key)
}

// TestTokensBoundToTheirListing: a continuation token is taken only by the
// collection and the query shape that issued it; any other refuses it with
// ErrInvalidContinuation, where it used to skip documents silently.
func TestTokensBoundToTheirListing(t *testing.T) { // R4, R10
	strs, _ := newTestCollection(t, "/pk", TTLOff())
	nums, _ := newTestCollection(t, "/pk", TTLOff())
	byID, _ := newTestCollection(t, "/id", TTLOff())
	for i := range 5 {
		mustCreate(t, strs, fmt.Sprintf(`{"id":"s%d","pk":"p"}`, i))
		mustCreate(t, nums, fmt.Sprintf(`{"id":"n%d","pk":%d}`, i, i))
		mustCreate(t, byID, fmt.Sprintf(`{"id":"i%d"}`, i))
	}
	p := StringKey("p")
	fromStrs, err := strs.List(bg, Query{Limit: 2})
	require.NoError(t, err)
	fromPartition, err := strs.List(bg, Query{Partition: &p, Limit: 2})
	require.NoError(t, err)
	fromByID, err := byID.List(bg, Query{Limit: 2})
	require.NoError(t, err)
	n0 := NumberKey(0)
	for _, tc := range []struct {
		name string
		c    *Collection
		q    Query
		want string
	}{
		{"a string-partitioned collection's token on a number-partitioned one", nums, Query{Continuation: fromStrs.Continuation}, `issued by another collection named "test"`},
		{"a /id collection's token on a /pk one", strs, Query{Continuation: fromByID.Continuation}, `issued by another collection named "test"`},
		{"a listing of all partitions' token on one partition", strs, Query{Partition: &p, Continuation: fromStrs.Continuation}, "for a listing of all partitions, not of one"},
		{"a partition's token on all partitions", strs, Query{Continuation: fromPartition.Continuation}, "for a listing of one partition, not of all"},
		{"a partition's token on another partition", nums, Query{Partition: &n0, Continuation: fromPartition.Continuation}, `issued by another collection named "test"`},
	} {
		before := state(t, tc.c)
		_, err := tc.c.List(bg, tc.q)
		require.ErrorIs(t, err, ErrInvalidContinuation, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
		for _, err := range tc.c.All(bg, tc.q) {
			require.ErrorIs(t, err, ErrInvalidContinuation, tc.name)
		}
		require.Equal(t, before, state(t, tc.c))
	}
	// The issuing query, with another Limit, resumes where the page ended.
	page, err := strs.List(bg, Query{Partition: &p, Continuation: fromPartition.Continuation, Limit: 10})
	require.NoError(t, err)
	require.Len(t, page.Documents, 3)
}
