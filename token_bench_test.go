package ttldb

import (
	"fmt"
	"testing"
)

// BenchmarkPageByToken reads one document a page from a continuation
// token, in a collection of 100: the cost of opening and sealing a token
// is most of it. Sub-benchmarks: a listing, of all partitions and of one,
// a query with a parameter, and the change feed.
func BenchmarkPageByToken(b *testing.B) {
	c, err := NewCollection("bench", "/pk", &Options{ManualSweep: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for i := range 100 {
		if _, err := c.Create(bg, fmt.Appendf(nil, `{"id":"d%03d","pk":"p%d","n":%d}`, i, i%2, i)); err != nil {
			b.Fatal(err)
		}
	}
	p := StringKey("p0")
	for _, bc := range []struct {
		name string
		page func(tok string) (string, error)
	}{
		{"list", func(tok string) (string, error) {
			page, err := c.List(bg, Query{Limit: 1, Continuation: tok})
			return page.Continuation, err
		}},
		{"list_partition", func(tok string) (string, error) {
			page, err := c.List(bg, Query{Partition: &p, Limit: 1, Continuation: tok})
			return page.Continuation, err
		}},
		{"query", func(tok string) (string, error) {
			page, err := c.Query(bg, SQL{Text: "SELECT * FROM c WHERE c.n >= @n", Params: map[string]any{"@n": 0}, MaxItems: 1, Continuation: tok})
			return page.Continuation, err
		}},
		{"feed", func(tok string) (string, error) {
			page, err := c.ReadFeed(bg, FeedQuery{Limit: 1, Continuation: tok})
			return page.Continuation, err
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			first, err := bc.page("")
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := bc.page(first); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(first)), "token-chars")
		})
	}
}
