package ttldb

import (
	"errors"
	"runtime"
	"testing"
)

// Micro-benchmarks of the change feed (R11) on a collection of
// feedBenchDocs documents of about 200 bytes (benchDoc). bench/ measures
// the same at 100,000 and 1,000,000 documents against the write without
// the feed (BenchmarkWrite/ttldb_feed_off, BenchmarkFeedRead). Each
// benchmark fills its collection once, untimed:
//
//	go test -run '^$' -bench '^BenchmarkFeed' -benchmem
//	go test -run '^$' -bench '^BenchmarkFeed' -benchtime 3x   # a quick look

// feedBenchDocs is the size of the collections of the feed benchmarks.
const feedBenchDocs = 100_000

// feedPageLimit is the page size of the feed reads.
const feedPageLimit = 1000

// BenchmarkFeedWrite upserts the documents of a collection of
// feedBenchDocs in turn, with the feed in its default setting (feed_on: the
// records of DefaultFeedBytes kept) and off (feed_off).
func BenchmarkFeedWrite(b *testing.B) {
	for _, v := range []struct {
		name string
		feed FeedOptions
	}{{"feed_on", FeedOptions{}}, {"feed_off", FeedOptions{Off: true}}} {
		b.Run(v.name, func(b *testing.B) {
			c, docs := benchCollectionWith(b, feedBenchDocs, v.feed)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := c.Upsert(bg, docs[i%len(docs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkFeedReadLatest reads the whole latest-version feed of a
// collection of feedBenchDocs, feedPageLimit changes a page, following the
// continuations: an operation is the whole feed. Metrics: ns/doc and
// allocs/doc, B/doc.
func BenchmarkFeedReadLatest(b *testing.B) {
	c, _ := benchCollectionWith(b, feedBenchDocs, FeedOptions{})
	benchFeedRead(b, c, LatestVersion, feedBenchDocs)
}

// BenchmarkFeedReadAll reads the whole all-versions-and-deletes feed of a
// collection of feedBenchDocs creates, all of them kept: ns/change and
// allocs/change, B/change.
func BenchmarkFeedReadAll(b *testing.B) {
	c, _ := benchCollectionWith(b, feedBenchDocs, FeedOptions{})
	benchFeedRead(b, c, AllVersionsAndDeletes, feedBenchDocs)
}

func benchFeedRead(b *testing.B, c *Collection, mode FeedMode, want int) {
	b.Helper()
	unit := "doc"
	if mode == AllVersionsAndDeletes {
		unit = "change"
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	total := 0
	for b.Loop() {
		n, err := readWholeFeed(c, mode)
		if err != nil {
			b.Fatal(err)
		}
		if n != want {
			b.Fatalf("the %v feed read %d changes, want %d", mode, n, want)
		}
		total += n
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/"+unit)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(total), "allocs/"+unit)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(total), "B/"+unit)
}

// readWholeFeed reads c's feed in mode from its beginning, feedPageLimit
// changes a page, until a page says there is no more, and returns the
// changes read. An
// all-versions read from the beginning, which the retention has dropped
// (ErrFeedTrimmed), starts again from the oldest change kept, as the error
// says.
func readWholeFeed(c *Collection, mode FeedMode) (int, error) {
	q := FeedQuery{Mode: mode, Limit: feedPageLimit}
	n := 0
	for {
		page, err := c.ReadFeed(bg, q)
		var trimmed *TrimmedError
		if n == 0 && q.Continuation == "" && errors.As(err, &trimmed) {
			q.Continuation = trimmed.Continuation
			continue
		}
		if err != nil {
			return n, err
		}
		n += len(page.Changes)
		if !page.More {
			return n, nil
		}
		q.Continuation = page.Continuation
	}
}
