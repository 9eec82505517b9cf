package ttldb

import (
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSweeperBacklog measures how far the background sweeper falls
// behind writers that never stop (R5): under DefaultTTL 1 s, each writer
// creates new documents as fast as it can for a few seconds of real time
// (TTLDB_BACKLOG_SECONDS, 6 by default), with and without a goroutine that
// lists the whole collection over and over. It reports the most expired
// documents held at once (backlog-docs), that count in seconds of writes
// (backlog-s: it over the writes per second; the bound to keep is about 1),
// the writes per second, and the most heap in use. It runs on real time, so
// it is a benchmark, not a test; run it alone:
//
//	go test -run '^$' -bench SweeperBacklog -benchtime 1x .
func BenchmarkSweeperBacklog(b *testing.B) {
	secs := 6.0
	if s, err := strconv.ParseFloat(os.Getenv("TTLDB_BACKLOG_SECONDS"), 64); err == nil && s > 0 {
		secs = s
	}
	for _, writers := range []int{1, 2, 4} {
		for _, lister := range []bool{false, true} {
			b.Run(fmt.Sprintf("writers=%d/lister=%v", writers, lister), func(b *testing.B) {
				for b.Loop() {
					r := measureBacklog(b, writers, lister, time.Duration(secs*float64(time.Second)))
					b.ReportMetric(r.backlogSeconds, "backlog-s")
					b.ReportMetric(float64(r.most), "backlog-docs")
					b.ReportMetric(r.writesPerSecond, "writes/s")
					b.ReportMetric(float64(r.heap)/(1<<20), "heap-MiB")
				}
			})
		}
	}
}

type backlogResult struct {
	most            int     // the most expired documents held at one sample
	backlogSeconds  float64 // most over the writes per second
	writesPerSecond float64
	heap            uint64 // the most heap in use at one sample
}

func measureBacklog(b *testing.B, writers int, lister bool, run time.Duration) backlogResult {
	c, err := NewCollection("backlog", "/pk", &Options{DefaultTTL: TTLSeconds(1)})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	var writes atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			var buf []byte
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				buf = fmt.Appendf(buf[:0], `{"id":"w%d-%d","pk":"p%d","v":"%0100d"}`, w, i, i%64, i)
				if _, err := c.Create(bg, buf); err != nil {
					panic(err)
				}
				writes.Add(1)
			}
		})
	}
	if lister {
		wg.Go(func() {
			for {
				for _, err := range c.All(bg, Query{}) {
					if err != nil {
						panic(err)
					}
				}
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	var r backlogResult
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	start := time.Now()
	for time.Since(start) < run {
		time.Sleep(100 * time.Millisecond)
		st, err := c.Stats(bg)
		if err != nil {
			b.Fatal(err)
		}
		metrics.Read(heap)
		r.most = max(r.most, st.Expired)
		r.heap = max(r.heap, heap[0].Value.Uint64())
	}
	close(stop)
	wg.Wait()
	r.writesPerSecond = float64(writes.Load()) / time.Since(start).Seconds()
	r.backlogSeconds = float64(r.most) / r.writesPerSecond
	return r
}
