package bench

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/ttldb/ttldb"
)

// ---- the memory quota (R17): the heap a full collection takes, against its quota ----

// quotaDoc is the i'th document of BenchmarkQuotaMemory: 100 to 400 bytes
// of JSON, sizes spread as a cache's values are.
func quotaDoc(i int) []byte {
	return fmt.Appendf(nil, `{"id":"%s","n":%d,"s":"%s"}`, Key(i), i, filler[:40+(i*37)%300])
}

var filler = func() string {
	b := make([]byte, 400)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}()

// liveHeap returns the heap in use after two collections.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// BenchmarkQuotaMemory fills a collection whose quota in bytes holds about
// items() documents (1,000,000 by default) with a fifth more, under the
// evict policy (DefaultTTL an hour: every document is a candidate), so
// that it ends full, at its quota; then it measures the heap the
// collection takes (runtime.MemStats.HeapAlloc after a collection, less
// the same before the open) and compares it with the quota (R17: within
// 5%), twice: with the change feed off, and on with its default bound
// (DefaultFeedBytes of records), whose records the quota does not count:
// they are beside it, bounded by FeedOptions, and a delete's or a
// replace's record keeps the version it removed alive, so the heap is the
// quota plus up to about that bound. Metrics: docs, the documents left;
// quota-MB, counted-MB (Stats.QuotaBytes), heap-MB and feed-MB (the
// records' FeedStats.Bytes); heap-vs-quota-%,
// how far the heap is from the quota, and heap-vs-counted-%. Run with
// -benchtime 1x: each operation builds its own collection. cmd/report
// does not run it.
func BenchmarkQuotaMemory(b *testing.B) {
	ctx := context.Background()
	n := items()
	// What a document costs, on average, as the quota counts it: from a
	// sample of 10,000.
	sample, err := ttldb.NewCollection("sample", "/id", &ttldb.Options{Feed: ttldb.FeedOptions{Off: true}, ManualSweep: true,
		Quota: ttldb.QuotaOptions{MaxBytes: 1 << 50}})
	if err != nil {
		b.Fatal(err)
	}
	const probe = 10000
	for i := range probe {
		if _, err := sample.Create(ctx, quotaDoc(i)); err != nil {
			b.Fatal(err)
		}
	}
	s, err := sample.Stats(ctx)
	if err != nil {
		b.Fatal(err)
	}
	sample.Close()
	quota := s.QuotaBytes * int64(n) / probe
	for _, feed := range []struct {
		name string
		opts ttldb.FeedOptions
	}{{"feed=off", ttldb.FeedOptions{Off: true}}, {"feed=on", ttldb.FeedOptions{}}} {
		b.Run(feed.name, func(b *testing.B) { quotaMemory(b, n, quota, feed.opts) })
	}
}

// quotaMemory is BenchmarkQuotaMemory with the feed's options feed: it
// fills a collection of quota bytes with n documents and a fifth more.
func quotaMemory(b *testing.B, n int, quota int64, feed ttldb.FeedOptions) {
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		before := liveHeap()
		b.StartTimer()
		c, err := ttldb.NewCollection("bench", "/id", &ttldb.Options{
			DefaultTTL: ttldb.TTLSeconds(3600), Feed: feed, ManualSweep: true,
			Quota: ttldb.QuotaOptions{MaxBytes: quota, Policy: ttldb.QuotaEvictSoonest},
		})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n + n/5 {
			if _, err := c.Create(ctx, quotaDoc(i)); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		heap := liveHeap() - before
		st, err := c.Stats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var fs ttldb.FeedStats
		if !feed.Off {
			if fs, err = c.FeedStats(ctx); err != nil {
				b.Fatal(err)
			}
		}
		runtime.KeepAlive(c)
		c.Close()
		b.ReportMetric(float64(st.Live), "docs")
		b.ReportMetric(float64(st.Evicted), "evicted")
		b.ReportMetric(float64(quota)/1e6, "quota-MB")
		b.ReportMetric(float64(st.QuotaBytes)/1e6, "counted-MB")
		b.ReportMetric(float64(heap)/1e6, "heap-MB")
		b.ReportMetric(float64(fs.Bytes)/1e6, "feed-MB")
		b.ReportMetric(100*float64(heap-quota)/float64(quota), "heap-vs-quota-%")
		b.ReportMetric(100*float64(heap-st.QuotaBytes)/float64(st.QuotaBytes), "heap-vs-counted-%")
	}
}
