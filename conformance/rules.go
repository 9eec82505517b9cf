package conformance

// Helpers of the rule checks (r10_*.go, r11_*.go, r13_*.go, r14_*.go):
// the unit tests of single rules that moved here from the root package,
// written against the public API so that every engine is held to them.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb"
)

// ruleEpoch is where a rule check's clock starts: Unix second 1,000,000,
// as the root's unit tests had it, so that their _ts figures stay.
var ruleEpoch = time.Unix(1_000_000, 0)

// ruleOpen opens a new collection on h with the partition-key path and
// opts, on a clock of its own at ruleEpoch that only the check moves, with
// ManualSweep: nothing is deleted but by Sweep.
func ruleOpen(t *testing.T, h Harness, path string, opts ttldb.Options) (*ttldb.Collection, *clock) {
	t.Helper()
	clk := newClock(ruleEpoch)
	opts.Now, opts.ManualSweep = clk.Now, true
	c, err := h.Open(t, "test", path, &opts)
	require.NoError(t, err)
	return c, clk
}

// ruleOpenTTL is ruleOpen with only a DefaultTTL.
func ruleOpenTTL(t *testing.T, h Harness, path string, def ttldb.DefaultTTL) (*ttldb.Collection, *clock) {
	t.Helper()
	return ruleOpen(t, h, path, ttldb.Options{DefaultTTL: def})
}

// ruleCreate creates doc, which must succeed.
func ruleCreate(t testing.TB, c *ttldb.Collection, doc string) ttldb.Document {
	t.Helper()
	d, err := c.Create(bg, []byte(doc))
	require.NoError(t, err, doc)
	return d
}

// ruleState is everything a caller can observe of a collection, to check
// that a refused call changed nothing.
func ruleState(t *testing.T, c *ttldb.Collection) string {
	t.Helper()
	var b strings.Builder
	for d, err := range c.All(bg, ttldb.Query{}) {
		require.NoError(t, err)
		b.WriteString(d.JSON() + "\n")
	}
	st, err := c.Stats(bg)
	require.NoError(t, err)
	fmt.Fprintf(&b, "%+v %v %v %v %d", st, c.DefaultTTL(), c.IndexingMode(), c.Indexes(), c.LastLSN())
	return b.String()
}

// ruleReadFeed reads q's feed page by page until no more is left, and
// returns the changes and the last continuation.
func ruleReadFeed(t *testing.T, c *ttldb.Collection, q ttldb.FeedQuery) ([]ttldb.Change, string) {
	t.Helper()
	var all []ttldb.Change
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100_000, "the feed ends")
		page, err := c.ReadFeed(bg, q)
		require.NoError(t, err)
		require.NotEmpty(t, page.Continuation, "a page always says where to resume")
		all = append(all, page.Changes...)
		q.Continuation, q.AfterLSN, q.FromNow, q.FromOldest = page.Continuation, 0, false, false
		if !page.More {
			return all, page.Continuation
		}
	}
}

// ruleSummary is each change in a line: op, id, partition key, and
// whether TTL-expired.
func ruleSummary(chs []ttldb.Change) []string {
	var s []string
	for _, ch := range chs {
		line := fmt.Sprintf("%v %s %v", ch.Op, ch.ID, ch.PartitionKey)
		if ch.TimeToLiveExpired {
			line += " ttl-expired"
		}
		s = append(s, line)
	}
	return s
}

// ruleLSNs is the LSN of each change.
func ruleLSNs(chs []ttldb.Change) []uint64 {
	var s []uint64
	for _, ch := range chs {
		s = append(s, ch.LSN)
	}
	return s
}
