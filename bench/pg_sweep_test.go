package bench

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- the sweep while writers run (issue 29: "writers never waiting
// longer than one batch") ----

const (
	// sweepLive is the documents the writers upsert (ids 0 to 999,
	// BenchmarkPG's documents, TTL an hour), filled before the rounds.
	sweepLive = 1_000
	// sweepDocs is the documents of a round's backlog: TTL one second,
	// written in batches of sweepPer, expired before the sweep.
	sweepDocs = 4_000
	// sweepPer is the documents of one batch of the backlog's fill, all
	// in one partition.
	sweepPer = 100
	// sweepBase is how long the writers run alone, for the figures
	// without a sweep.
	sweepBase = 500 * time.Millisecond
	// sweepWarm is how long the writers run, unmeasured, before.
	sweepWarm = 200 * time.Millisecond
)

// BenchmarkPGSweep measures, per store (mem, dir with SyncAlways, pg; see
// BenchmarkPG), the sweep of a backlog of 4,000 expired documents (TTL 1
// s, all expired, ManualSweep) by one Sweep call while g writers (1, 16)
// upsert the collection's 1,000 live documents, and the same writers
// alone for half a second before it (after 0.2 s unmeasured). Each round (b.N of them, one with
// -benchtime 1x) writes its backlog, waits in real time until Stats counts
// it expired (1-2 s), runs the writers alone, then the writers and the
// Sweep. It reports:
//
//   - swept/s: the documents Sweep deleted over its time;
//   - sweep-ms: Sweep's time; batch-ms: that over its batches (of
//     ttldb.DefaultSweepBatch documents, 16 for the backlog), a batch's
//     mean time, the bound of a writer's wait that issue 29 sets;
//   - wbase/s and wsweep/s: the writers' writes per second alone and
//     during the Sweep (the writes that ended within it);
//   - base-p50-ns, base-p99-ns, base-max-ns, sweep-p50-ns, ...: their
//     writes' times, alone and during the Sweep.
func BenchmarkPGSweep(b *testing.B) {
	for _, store := range pgMeasureStores {
		b.Run(store, func(b *testing.B) {
			dropCached()
			c, _, analyze := openMeasured(b, store, ttldb.Options{
				Name: "sweep", PartitionKeyPath: "/pk", DefaultTTL: ttldb.TTLNoDefault(), ManualSweep: true,
			})
			defer func() {
				if err := c.Close(); err != nil {
					b.Errorf("Close: %v", err)
				}
			}()
			docs := newGroupDocs()
			fillBatches(b, c, 0, sweepLive, pgPart, func(i int) ttldb.PartitionKey { return pgPartitions()[i/pgPart] },
				func(dst []byte, i int) []byte { return appendPGDoc(docs, dst, i) })
			analyze()
			round := 0
			for _, g := range []int{1, pgWriters} {
				b.Run(measuredName(g), func(b *testing.B) {
					var m sweepFigures
					for range b.N {
						round++
						sweepRound(b, c, g, round, &m)
					}
					m.report(b)
				})
			}
		})
	}
}

// sweepFigures adds up the rounds of one sub-benchmark.
type sweepFigures struct {
	swept        int
	sweep        time.Duration
	base, during durations
	baseDur      time.Duration
}

// report reports the figures of the rounds (BenchmarkPGSweep).
func (m *sweepFigures) report(b *testing.B) {
	if m.sweep > 0 {
		b.ReportMetric(float64(m.swept)/m.sweep.Seconds(), "swept/s")
		b.ReportMetric(m.sweep.Seconds()*1000/float64(b.N), "sweep-ms")
		batches := (sweepDocs + ttldb.DefaultSweepBatch - 1) / ttldb.DefaultSweepBatch
		b.ReportMetric(m.sweep.Seconds()*1000/float64(b.N*batches), "batch-ms")
		b.ReportMetric(float64(len(m.during))/m.sweep.Seconds(), "wsweep/s")
	}
	if m.baseDur > 0 {
		b.ReportMetric(float64(len(m.base))/m.baseDur.Seconds(), "wbase/s")
	}
	m.base.report(b, "base")
	m.during.report(b, "sweep")
}

// expDocs returns the documents of backlogs: BenchmarkPG's document of
// item i with the id "exp:" and ten digits, TTL one second, in partition
// "g-" and i / sweepPer.
func expDocs() func(dst []byte, i int) []byte {
	d := newGroupDocs()
	d.tmpl = bytes.Replace(d.tmpl, []byte(`"id":"key:`), []byte(`"id":"exp:`), 1) // the same length: idAt holds
	d.tmpl = bytes.Replace(d.tmpl, []byte(`"ttl":3600`), []byte(`"ttl":1`), 1)    // after the digits
	return func(dst []byte, i int) []byte {
		n := len(dst)
		dst = append(dst, d.tmpl...)
		putDigits(dst[n+d.idAt:n+d.idAt+10], i)
		putDigits(dst[n+d.pkAt:n+d.pkAt+10], i/sweepPer)
		return dst
	}
}

// expPartition is the partition of backlog document i (expDocs).
func expPartition(i int) ttldb.PartitionKey {
	var b [12]byte
	return ttldb.StringKey(string(appendKey(b[:0], "g-", i/sweepPer)))
}

// sweepRound runs one round of BenchmarkPGSweep on c, adding to m.
func sweepRound(b *testing.B, c *ttldb.Collection, g, round int, m *sweepFigures) {
	b.StopTimer()
	first := round * 1_000_000 // ids of no other round, nor of the live documents
	fillBatches(b, c, first, sweepDocs, sweepPer, expPartition, expDocs())
	waitExpired(b, c, sweepDocs)
	// The writers alone, after a warm-up that makes the pool's
	// connections (the fill used one): without it, the first round's
	// 16 writers waited for them (p99 288 ms).
	stop := make(chan struct{})
	done := startSweepWriters(b, c, g, stop, nil)
	time.Sleep(sweepWarm)
	close(stop)
	done()
	stop = make(chan struct{})
	done = startSweepWriters(b, c, g, stop, nil)
	time.Sleep(sweepBase)
	close(stop)
	spans := done()
	m.baseDur += sweepBase
	for _, s := range spans {
		m.base = append(m.base, s.end.Sub(s.start))
	}
	// The writers and the sweep, once each writer has written once.
	stop = make(chan struct{})
	var started sync.WaitGroup
	started.Add(g)
	done = startSweepWriters(b, c, g, stop, &started)
	started.Wait()
	b.StartTimer()
	t0 := time.Now()
	n, err := c.Sweep(bg)
	t1 := time.Now()
	b.StopTimer()
	close(stop)
	spans = done()
	if err != nil {
		b.Fatalf("Sweep: %v", err)
	}
	if n != sweepDocs {
		b.Logf("Sweep deleted %d documents, want the %d of the backlog", n, sweepDocs)
	}
	m.swept += n
	m.sweep += t1.Sub(t0)
	for _, s := range spans {
		if !s.end.Before(t0) && !s.end.After(t1) {
			m.during = append(m.during, s.end.Sub(s.start))
		}
	}
}

// waitExpired waits in real time, at most 10 s, until c's Stats count n
// expired documents.
func waitExpired(b *testing.B, c *ttldb.Collection, n int) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := c.Stats(bg)
		if err != nil {
			b.Fatalf("Stats: %v", err)
		}
		if st.Expired >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("after 10 s, Stats counts %d expired documents, want %d", st.Expired, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// span is the start and the end of one write.
type span struct{ start, end time.Time }

// startSweepWriters starts g writers upserting random live documents of
// c until stop closes; each calls started.Done (when not nil) after its
// first write. done waits for them and returns their writes' spans.
func startSweepWriters(b *testing.B, c *ttldb.Collection, g int, stop <-chan struct{}, started *sync.WaitGroup) (done func() []span) {
	docs := newGroupDocs()
	out := make([][]span, g)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for w := range g {
		wg.Go(func() {
			r := newRNG(uint64(100 + w))
			buf := make([]byte, 0, 256)
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				buf = appendPGDoc(docs, buf[:0], r.intn(sweepLive))
				t0 := time.Now()
				_, err := c.UpsertJSON(bg, buf)
				t1 := time.Now()
				if k == 0 && started != nil {
					started.Done()
				}
				if err != nil {
					if !failed.Swap(true) {
						b.Errorf("UpsertJSON: %v", err)
					}
					if k > 0 || started == nil {
						return
					}
					<-stop
					return
				}
				out[w] = append(out[w], span{t0, t1})
			}
		})
	}
	return func() []span {
		wg.Wait()
		var all []span
		for _, s := range out {
			all = append(all, s...)
		}
		return all
	}
}
