package bench

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- the online backup (R17): its time, and what it costs the writers ----

// BenchmarkBackup fills a durable collection with items() documents, then
// times, side by side, a writer's upserts for as long as a backup takes:
// first without a backup (the baseline), then while Collection.Backup
// writes the collection to io.Discard. Metrics: backup-ms, the backup's
// time; MB, its size; max-write-us and p999-write-us, the longest and the
// 99.9th percentile upsert during the backup; base-max-write-us and
// base-p999-write-us, the same without it; writes, during the backup. Run
// with -benchtime 1x: each operation builds its own collection.
func BenchmarkBackup(b *testing.B) {
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		c, err := ttldb.NewCollection("bench", "/id", &ttldb.Options{Dir: b.TempDir(), DefaultTTL: ttldb.TTLSeconds(3600)})
		if err != nil {
			b.Fatal(err)
		}
		n := items()
		for i := range n {
			if _, err := c.Upsert(ctx, fmt.Appendf(nil, `{"id":"%s","n":%d,"s":"some text of the document"}`, Key(i), i)); err != nil {
				b.Fatal(err)
			}
		}
		writer := func(stop *atomic.Bool) []time.Duration {
			var lat []time.Duration
			for i := 0; !stop.Load(); i++ {
				t0 := time.Now()
				if _, err := c.Upsert(ctx, fmt.Appendf(nil, `{"id":"%s","n":%d,"s":"written meanwhile"}`, Key(i*7%n), i)); err != nil {
					b.Error(err)
					return lat
				}
				lat = append(lat, time.Since(t0))
			}
			return lat
		}
		run := func(during func()) []time.Duration {
			var stop atomic.Bool
			done := make(chan []time.Duration)
			go func() { done <- writer(&stop) }()
			during()
			stop.Store(true)
			return <-done
		}
		b.StartTimer()
		var info ttldb.BackupInfo
		var took time.Duration
		with := run(func() {
			t0 := time.Now()
			info, err = c.Backup(ctx, io.Discard)
			took = time.Since(t0)
		})
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		base := run(func() { time.Sleep(took) }) // the baseline: as long, without a backup
		c.Close()
		b.ReportMetric(float64(took.Milliseconds()), "backup-ms")
		b.ReportMetric(float64(info.Bytes)/1e6, "MB")
		b.ReportMetric(float64(len(with)), "writes")
		b.ReportMetric(us(pct(with, 1)), "max-write-us")
		b.ReportMetric(us(pct(with, 0.999)), "p999-write-us")
		b.ReportMetric(us(pct(base, 1)), "base-max-write-us")
		b.ReportMetric(us(pct(base, 0.999)), "base-p999-write-us")
		b.ReportMetric(float64(len(base)), "base-writes")
	}
}

// pct returns the q-quantile of ds (1: the largest).
func pct(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[min(int(q*float64(len(ds))), len(ds)-1)]
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
