package bench

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// ---- workload 5: the longest stall a reader sees during a mass expiry ----

// BenchmarkStall fills a store with 1,000,000 items that all expire at the
// same instant D, plus 10,000 live ones, and from one second before D (the
// quiet second) reads the live items in a loop, timing every read, until
// the store has removed the expired items by its own means. Metrics:
//
//   - max-stall-ns: the longest read after D; quiet-max-ns: the longest in
//     the quiet second (the machine's own noise, as the operating system
//     deschedules the reader too, and for go-cache its janitor's scan of
//     the whole map);
//   - slow-reads/s, quiet-slow-reads/s: the reads over 1 ms per second of
//     each window;
//   - blocked-frac: the fraction of the reader's time after D that went to
//     waiting. With m the median read of the quiet second (quiet-p50-ns):
//     the time the reads after D took beyond m, each max(0, d-m), less
//     what as many reads took beyond m in the quiet second, divided by the
//     time from D to the end of the reader's last read; 0 when reads take
//     as long as when idle (negative sums count as 0);
//   - quiet-blocked-frac: the time the quiet second's reads took beyond m,
//     divided by that second: what blocked-frac leaves out as noise;
//   - sweep-ms: from D until the items were gone (polled every 100 ms);
//     reads: how many reads the window after D had.
//
// golang-lru expirable has one TTL per cache, so its items expire over the
// time it took to write them, not at once. D is chosen from the store's
// fill rate; a fill that runs late is abandoned and tried once more with
// the rate it showed. Run it with -benchtime 1x: each operation builds its
// own store.
func BenchmarkStall(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			dropCached()
			var sum stallResult
			baselines := 0 // operations with a quiet second to compare with
			b.ReportAllocs()
			for range b.N {
				r := massExpiry(b, k)
				sum.stall, sum.quiet = max(sum.stall, r.stall), max(sum.quiet, r.quiet)
				sum.sweep += r.sweep
				sum.window += r.window
				sum.quietWindow += r.quietWindow
				sum.reads += r.reads
				sum.slow += r.slow
				sum.quietSlow += r.quietSlow
				if r.quietReads > 0 { // the baseline of blocked-frac
					sum.blocked += r.blocked
					sum.quietBlocked += r.quietBlocked
					sum.quietMedian += r.quietMedian
					sum.blockedWindow += r.window
					baselines++
				}
			}
			b.ReportMetric(float64(sum.stall.Nanoseconds()), "max-stall-ns")
			b.ReportMetric(float64(sum.quiet.Nanoseconds()), "quiet-max-ns")
			b.ReportMetric(float64(sum.sweep.Milliseconds())/float64(b.N), "sweep-ms")
			b.ReportMetric(float64(sum.reads)/float64(b.N), "reads")
			b.ReportMetric(float64(sum.slow)/sum.window.Seconds(), "slow-reads/s")
			if sum.quietWindow > 0 {
				b.ReportMetric(float64(sum.quietSlow)/sum.quietWindow.Seconds(), "quiet-slow-reads/s")
			}
			if baselines > 0 && sum.blockedWindow > 0 {
				b.ReportMetric(max(sum.blocked.Seconds(), 0)/sum.blockedWindow.Seconds(), "blocked-frac")
				b.ReportMetric(sum.quietBlocked.Seconds()/sum.quietWindow.Seconds(), "quiet-blocked-frac")
				b.ReportMetric(float64(sum.quietMedian.Nanoseconds())/float64(baselines), "quiet-p50-ns")
			}
		})
	}
}

// slowRead is the latency above which workload 5 counts a read as slow.
const slowRead = time.Millisecond

type stallResult struct {
	stall, quiet           time.Duration // the longest read after D, before D
	sweep                  time.Duration // D to all removed
	window, quietWindow    time.Duration // how long the reader read after D, before D
	reads, slow, quietSlow int64
	quietReads             int64         // reads before D
	quietMedian            time.Duration // the median read before D
	blocked                time.Duration // the reads' time beyond quietMedian after D, less the quiet second's rate of it
	quietBlocked           time.Duration // the reads' time beyond quietMedian before D
	blockedWindow          time.Duration // in sums: the window of the operations with a quiet median
}

func massExpiry(b *testing.B, k Kind) stallResult {
	b.StopTimer()
	defer b.StartTimer()
	n := items()
	v, ok := fillRates.Load(k.Name)
	if !ok {
		s := k.New(Config{Mode: Live, TTL: longTTL})
		doc := DocFor(longTTL)
		timedFill(k, s, min(n, 100_000), func(i int, buf []byte) (string, []byte, time.Duration) {
			return Key(i), doc.Append(buf, i), longTTL
		})
		s.Close()
		v, _ = fillRates.Load(k.Name)
	}
	rate := v.(time.Duration)
	for attempt := 1; ; attempt++ {
		r, late := tryMassExpiry(b, k, n, rate)
		if late == 0 {
			return r
		}
		if attempt == 2 {
			b.Skipf("the fill ran late twice (%v per item): no figure", late)
		}
		b.Logf("the fill ran late (%v per item, %v estimated): trying again", late, rate)
		rate = late
	}
}

// tryMassExpiry runs workload 5 once, with a deadline planned from the fill
// rate. When the fill runs too late to leave the reader its quiet second, it
// gives up and returns the rate it saw.
func tryMassExpiry(b *testing.B, k Kind, n int, rate time.Duration) (r stallResult, late time.Duration) {
	budget := 2*rate*time.Duration(n) + 2*time.Second
	start := time.Now()
	// D is a whole second: ttldb's expiry is in whole seconds.
	deadline := start.Add(budget).Truncate(time.Second).Add(time.Second)
	s := k.New(Config{Mode: Live, TTL: deadline.Sub(start)})
	defer s.Close()
	keys := Keys(n)
	const chunk = 50_000
	for lo := 0; lo < n; lo += chunk {
		Fill(s, min(chunk, n-lo), func(i int, buf []byte) (string, []byte, time.Duration) {
			ttl := untilWhole(deadline)
			return keys[lo+i], DocFor(ttl).Append(buf, lo+i), ttl
		})
		if time.Until(deadline) < 1200*time.Millisecond {
			return r, time.Since(start) / time.Duration(lo+chunk)
		}
	}
	live := make([]string, liveReaders)
	liveDoc := DocFor(longTTL)
	Fill(s, liveReaders, func(i int, buf []byte) (string, []byte, time.Duration) {
		live[i] = Key(n + i)
		return live[i], liveDoc.Append(buf, n+i), longTTL
	})
	b.Logf("filled %d items in %v; they expire at %v", n, time.Since(start).Round(time.Millisecond), deadline.Format("15:04:05.000"))
	runtime.GC()
	time.Sleep(time.Until(deadline.Add(-time.Second)))

	var stop atomic.Bool
	done := make(chan struct{})
	quietH, sweepH := new(latencies), new(latencies)
	go func() {
		defer close(done)
		dl := deadline.UnixNano()
		first := time.Now()
		var t1 time.Time
		for i := 0; !stop.Load(); i++ {
			t0 := time.Now()
			s.Get(live[i%len(live)])
			t1 = time.Now()
			d := t1.Sub(t0)
			if t0.UnixNano() < dl {
				quietH.add(d)
				r.quiet = max(r.quiet, d)
				if d > slowRead {
					r.quietSlow++
				}
			} else {
				sweepH.add(d)
				r.stall = max(r.stall, d)
				r.reads++
				if d > slowRead {
					r.slow++
				}
			}
		}
		r.quietWindow = max(deadline.Sub(first), 0)
		r.window = t1.Sub(deadline)
	}()
	time.Sleep(time.Until(deadline))
	limit := deadline.Add(budget + 5*time.Second)
	r.sweep = -1
	left := 0
	for time.Now().Before(limit) {
		time.Sleep(100 * time.Millisecond)
		if left = s.Resident() - liveReaders; left <= 0 {
			r.sweep = time.Since(deadline)
			break
		}
	}
	stop.Store(true)
	<-done
	// blocked: the reads' time beyond the quiet median after D, less what
	// as many reads spent beyond it in the quiet second (reads vary about
	// their median when nothing blocks them).
	r.quietReads = quietH.n
	r.quietMedian = quietH.median()
	r.quietBlocked = quietH.beyond(r.quietMedian)
	r.blocked = sweepH.beyond(r.quietMedian)
	if r.quietReads > 0 {
		r.blocked -= time.Duration(float64(r.quietBlocked) * float64(sweepH.n) / float64(r.quietReads))
	}
	if r.sweep < 0 {
		b.Logf("%d expired items were still there %v after they expired", left, time.Since(deadline).Round(time.Millisecond))
		r.sweep = time.Since(deadline)
	}
	return r, 0
}

// untilWhole returns the time until deadline, a whole second, at a moment
// at least secondGuard before the clock's next whole second: it waits past
// the second's turn first when it is closer. ttldb counts a ttl, rounded up
// to whole seconds, from the second of the write (_ts): a write made in the
// second after the one its ttl was computed in would expire a second after
// the deadline, and the sweep would seem to last a second more, the reads
// of that quiet second diluting the time blocked.
func untilWhole(deadline time.Time) time.Duration {
	ttl := time.Until(deadline)
	if frac := ttl % time.Second; frac < secondGuard {
		time.Sleep(frac + time.Millisecond)
		ttl = time.Until(deadline)
	}
	return ttl
}

// secondGuard is how long before a second's turn untilWhole waits past it:
// longer than a write takes, even one the garbage collector pauses.
const secondGuard = 10 * time.Millisecond

// latencies counts read times in buckets of 1 ns up to histMax, and the
// longer ones with the exact sum of their times, so that blocked-frac can
// be computed once the quiet second's median is known, without keeping
// every read or allocating while the reader reads.
type latencies struct {
	counts   [histMax]uint32
	n, over  int64         // all reads; those of histMax or more
	overTime time.Duration // the time of those
}

const histMax = 1 << 16 // 65.5 µs: far above any store's median read

func (h *latencies) add(d time.Duration) {
	h.n++
	if d < histMax {
		h.counts[d]++
		return
	}
	h.over++
	h.overTime += d
}

// median returns the median read time (the lower middle one of an even
// count), 0 without reads; at most histMax.
func (h *latencies) median() time.Duration {
	half, seen := (h.n+1)/2, int64(0)
	for d, c := range h.counts {
		if seen += int64(c); seen >= half && h.n > 0 {
			return time.Duration(d)
		}
	}
	return histMax
}

// beyond returns the sum, over the reads, of the time each took beyond m.
func (h *latencies) beyond(m time.Duration) time.Duration {
	var sum time.Duration
	for d := m + 1; d < histMax; d++ {
		sum += time.Duration(h.counts[d]) * (d - m)
	}
	return sum + h.overTime - time.Duration(h.over)*min(m, histMax)
}

// ---- workload 8: expiry lag when idle ----

// BenchmarkLag writes one item with a TTL of one second into an idle, empty
// store and times how long after its expiry the store physically removed
// it, -lagprobes items one after the other per operation, each written at
// a random phase of the second. Metrics: lag-ns (mean) and max-lag-ns. The expiry instant is
// the store's own where it tells it (ttldb, go-cache, ttlcache, buntdb),
// else the write time plus the TTL. Run it with -benchtime 1x.
func BenchmarkLag(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			dropCached()
			const ttl = time.Second
			s := k.New(Config{Mode: Live, TTL: ttl})
			defer s.Close()
			doc := DocFor(ttl)
			var sum, worst time.Duration
			count := 0
			b.ReportAllocs()
			b.StopTimer()
			for range b.N {
				for p := range *probes {
					lag := probeLag(b, s, doc, items()+p, ttl)
					sum += lag
					worst = max(worst, lag)
					count++
				}
			}
			b.ReportMetric(float64(sum.Nanoseconds())/float64(count), "lag-ns")
			b.ReportMetric(float64(worst.Nanoseconds()), "max-lag-ns")
		})
	}
}

func probeLag(b *testing.B, s Store, doc *Doc, i int, ttl time.Duration) time.Duration {
	// Write at a random phase: a store that removes on a fixed tick would
	// otherwise see every probe at the same point of its period.
	time.Sleep(time.Duration(lagRNG.intn(int(time.Second))))
	key := Key(i)
	base := s.Resident()
	w := time.Now()
	s.Set(key, doc.Append(nil, i), ttl)
	at := w.Add(ttl)
	if e, ok := s.(Expirer); ok {
		if t, ok := e.ExpiresAt(key); ok {
			at = t
		}
	}
	// Sleep until shortly before the expiry, then poll without sleeping (a
	// sleep may overshoot by milliseconds on a busy machine) until 20 ms
	// after it, then every 100 µs. The lag is the time of the first poll
	// that finds the item gone: an upper bound, by the time between polls.
	time.Sleep(time.Until(at.Add(-20 * time.Millisecond)))
	spinUntil, limit := at.Add(20*time.Millisecond), at.Add(5*time.Second)
	for s.Resident() > base {
		now := time.Now()
		switch {
		case now.After(limit):
			b.Fatalf("%s: item %s was not removed 5 s after it expired", b.Name(), key)
		case now.Before(spinUntil):
			runtime.Gosched()
		default:
			time.Sleep(100 * time.Microsecond)
		}
	}
	return time.Since(at)
}

var lagRNG = newRNG(uint64(time.Now().UnixNano()))
