package ttldb

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTokenErrorsNameTheDifference: a continuation token given to a read
// other than the one that issued it is refused with ErrInvalidContinuation
// whose text says what differs: another collection of the same name
// (another instance: in another directory, or made again), with both ids;
// another collection of another name; another kind of read; another
// partition, query text or parameter values, each named; a token of an
// earlier version. The messages used to say "another collection than
// "orders"" to a collection named orders, and "another kind, mode or
// partition" when only the query's text or a parameter changed. A durable
// collection reopened still takes its tokens.
func TestTokenErrorsNameTheDifference(t *testing.T) { // R10, R13
	fill := func(c *Collection) *Collection {
		for i := range 6 {
			mustCreate(t, c, fmt.Sprintf(`{"id":"d%d","pk":"p%d","n":%d}`, i, i%2, i))
		}
		return c
	}
	open := func(name string, o *Options) *Collection {
		c, err := NewCollection(name, "/pk", o)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	orders := fill(open("orders", &Options{}))
	remade := fill(open("orders", &Options{})) // another instance of the name
	users := fill(open("users", &Options{}))
	dirA, dirB := t.TempDir(), t.TempDir()
	durableA := fill(open("orders", &Options{Dir: dirA}))
	durableB := fill(open("orders", &Options{Dir: dirB}))

	p0, p1 := StringKey("p0"), StringKey("p1")
	list := func(c *Collection, q Query) string {
		q.Limit = 1
		page, err := c.List(bg, q)
		require.NoError(t, err)
		require.NotEmpty(t, page.Continuation)
		return page.Continuation
	}
	query := func(c *Collection, q SQL) string {
		q.MaxItems = 1
		page, err := c.Query(bg, q)
		require.NoError(t, err)
		require.NotEmpty(t, page.Continuation)
		return page.Continuation
	}
	all := SQL{Text: "SELECT * FROM c"}
	byN := func(n int) SQL { return SQL{Text: "SELECT * FROM c WHERE c.n >= @n", Params: map[string]any{"@n": n}} }
	feed, err := orders.ReadFeed(bg, FeedQuery{Limit: 1})
	require.NoError(t, err)
	// A token of version 2, the one before: 8 bytes of collection, 8 of
	// shape, a key, and the CRC-32.
	v2 := binary.BigEndian.AppendUint64([]byte{2}, orders.tokenID)
	v2 = binary.BigEndian.AppendUint64(append(v2, make([]byte, 8)...), 0)
	v2 = binary.BigEndian.AppendUint32(v2, crc32.ChecksumIEEE(v2))

	for _, tc := range []struct {
		name string
		use  func() error
		want string
	}{
		{"a listing's token on another instance of the name", func() error {
			_, err := remade.List(bg, Query{Continuation: list(orders, Query{})})
			return err
		}, fmt.Sprintf(`was issued by another collection named "orders" (its id %016x, this one's %016x): another instance of the name, such as one in another directory, or one made again since`, orders.tokenID, remade.tokenID)},
		{"a token of one directory's collection on another's of the same name", func() error {
			_, err := durableB.Query(bg, SQL{Text: all.Text, Continuation: query(durableA, all)})
			return err
		}, fmt.Sprintf(`was issued by another collection named "orders" (its id %016x, this one's %016x)`, durableA.tokenID, durableB.tokenID)},
		{"a feed token on another instance of the name", func() error {
			_, err := remade.ReadFeed(bg, FeedQuery{Continuation: feed.Continuation})
			return err
		}, `was issued by another collection named "orders"`},
		{"a token on a collection of another name", func() error {
			_, err := users.List(bg, Query{Continuation: list(orders, Query{})})
			return err
		}, `was issued by another collection than "users", of another name`},
		{"a query's token with another text", func() error {
			_, err := orders.Query(bg, SQL{Text: "SELECT * FROM c WHERE c.n >= 0", Continuation: query(orders, all)})
			return err
		}, "was issued for a query with another text: resume with the query that issued it"},
		{"a query's token with another parameter value", func() error {
			q := byN(1)
			q.Continuation = query(orders, byN(0))
			_, err := orders.Query(bg, q)
			return err
		}, "was issued for a query with other parameter values: resume with the query that issued it"},
		{"a query's token with another text and parameter value", func() error {
			q := byN(1)
			q.Continuation = query(orders, all)
			_, err := orders.Query(bg, q)
			return err
		}, "was issued for a query with another text and with other parameter values"},
		{"a query's token on another partition", func() error {
			_, err := orders.Query(bg, SQL{Text: all.Text, Partition: &p1, Continuation: query(orders, SQL{Text: all.Text, Partition: &p0})})
			return err
		}, "was issued for a query of another partition: resume with the query that issued it"},
		{"a query's token of all partitions on one", func() error {
			_, err := orders.Query(bg, SQL{Text: all.Text, Partition: &p1, Continuation: query(orders, all)})
			return err
		}, "was issued for a query of all partitions, not of one"},
		{"a listing's token of a partition on all", func() error {
			_, err := orders.List(bg, Query{Continuation: list(orders, Query{Partition: &p0})})
			return err
		}, "was issued for a listing of one partition, not of all"},
		{"a query's token on a listing", func() error {
			_, err := orders.List(bg, Query{Continuation: query(orders, all)})
			return err
		}, "was issued for a query (Query), not a listing (List, All): resume with the call that issued it"},
		{"a listing's token on a query", func() error {
			_, err := orders.Query(bg, SQL{Text: all.Text, Continuation: list(orders, Query{})})
			return err
		}, "was issued for a listing (List, All), not a query (Query)"},
		{"a feed token on a listing", func() error {
			_, err := orders.List(bg, Query{Continuation: feed.Continuation})
			return err
		}, "was issued for the change feed in mode LatestVersion, not a listing (List, All)"},
		{"a token of the version before", func() error {
			_, err := orders.List(bg, Query{Continuation: base64.RawURLEncoding.EncodeToString(v2)})
			return err
		}, "was issued by an earlier version of ttldb: start the read again, without it"},
	} {
		err := tc.use()
		require.ErrorIs(t, err, ErrInvalidContinuation, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
	}

	// The directory's collection, reopened, takes the tokens issued before.
	tok := query(durableA, all)
	require.NoError(t, durableA.Close())
	again := open("orders", &Options{Dir: dirA})
	page, err := again.Query(bg, SQL{Text: all.Text, Continuation: tok})
	require.NoError(t, err)
	require.Len(t, page.Results, 5)
}
