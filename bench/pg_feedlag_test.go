package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- feed lag: from a write's return to a watcher's sight of its record ----

// lagPause is how long each writer of BenchmarkPGFeedLag waits between
// its writes.
const lagPause = time.Millisecond

// BenchmarkPGFeedLag measures, per store (mem, dir with SyncAlways, pg;
// see BenchmarkPG), the time from the return of an UpsertJSON to the
// moment a WatchFeed (all versions, from the LSN before the first write)
// yields its record, while g writers (1, 16) share b.N upserts of random
// documents of 1,000, each writer waiting lagPause between its writes (a
// load the in-process stores hold without a backlog of records for the
// watcher; unpaced, their lag was the watcher's backlog, 1-16 ms). On pg the watcher reads through a second
// handle, opened by URL on the same collection with a pool of its own, as
// another process would; the in-process stores have one handle a
// collection, so there it watches the writers' handle. A record the
// watcher yields before its write returned (in process, where the
// watcher may run first) counts as lag 0. It reports lag-p50-ns,
// lag-p99-ns and lag-max-ns over every write, and ops/s, the writes'.
func BenchmarkPGFeedLag(b *testing.B) {
	for _, store := range pgMeasureStores {
		b.Run(store, func(b *testing.B) {
			dropCached()
			opts := ttldb.Options{Name: "lag", PartitionKeyPath: "/pk", DefaultTTL: ttldb.TTLNoDefault(), ManualSweep: true}
			c, u, analyze := openMeasured(b, store, opts)
			defer func() {
				if err := c.Close(); err != nil {
					b.Errorf("Close: %v", err)
				}
			}()
			docs := newGroupDocs()
			fillBatches(b, c, 0, sweepLive, pgPart, func(i int) ttldb.PartitionKey { return pgPartitions()[i/pgPart] },
				func(dst []byte, i int) []byte { return appendPGDoc(docs, dst, i) })
			analyze()
			watched := c
			if store == "pg" {
				o := opts
				o.DefaultTTL = ttldb.DefaultTTL{} // the stored one
				w, err := ttldb.Open(bg, u, &o)
				if err != nil {
					b.Fatalf("Open of the watcher's handle: %v", err)
				}
				defer func() {
					if err := w.Close(); err != nil {
						b.Errorf("Close of the watcher's handle: %v", err)
					}
				}()
				watched = w
			}
			for _, g := range []int{1, pgWriters} {
				b.Run(measuredName(g), func(b *testing.B) { feedLag(b, c, watched, g) })
			}
		})
	}
}

// feedLag runs one figure of BenchmarkPGFeedLag: g writers on c, the
// watcher on w.
func feedLag(b *testing.B, c, w *ttldb.Collection, g int) {
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	from := c.LastLSN()
	// The watcher notes when it sees each LSN, and the highest it saw,
	// until ctx ends (once it has seen the writers' last).
	var hi atomic.Uint64
	seen := map[uint64]time.Time{}
	watchDone := make(chan error, 1)
	go func() {
		for ch, err := range w.WatchFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: from}) {
			if err != nil {
				watchDone <- err
				return
			}
			seen[ch.LSN] = time.Now()
			hi.Store(ch.LSN)
		}
		watchDone <- nil
	}()
	type wrote struct {
		lsn uint64
		at  time.Time
	}
	out := make([][]wrote, g)
	docs := newGroupDocs()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for wr := range g {
		wg.Go(func() {
			r := newRNG(uint64(200 + wr))
			buf := make([]byte, 0, 256)
			for k := wr; k < b.N; k += g {
				buf = appendPGDoc(docs, buf[:0], r.intn(sweepLive))
				d, err := c.UpsertJSON(bg, buf)
				if err != nil {
					b.Errorf("UpsertJSON: %v", err)
					return
				}
				out[wr] = append(out[wr], wrote{d.LSN(), time.Now()})
				time.Sleep(lagPause)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	opsPerSecond(b, start)
	var top uint64
	for _, o := range out {
		for _, x := range o {
			top = maxU(top, x.lsn)
		}
	}
	// Each record's time was taken as the watcher saw it: this poll only
	// says when to stop it.
	for hi.Load() < top && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	watchErr := ctx.Err()
	cancel()
	if err := <-watchDone; err != nil && watchErr == nil && ctx.Err() == nil {
		b.Fatalf("WatchFeed: %v", err)
	}
	if watchErr != nil {
		b.Fatalf("after a minute, the watcher saw LSN %d, want %d", hi.Load(), top)
	}
	var lags durations
	for _, o := range out {
		for _, x := range o {
			t, ok := seen[x.lsn]
			if !ok {
				b.Fatalf("the watcher never saw LSN %d (it watched from %d to %d)", x.lsn, from, top)
			}
			lags = append(lags, max0(t.Sub(x.at)))
		}
	}
	lags.report(b, "lag")
}

// maxU is the larger of a and b.
func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// max0 is d, or 0 for a negative d.
func max0(d time.Duration) time.Duration { return max(d, 0) }
