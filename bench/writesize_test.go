package bench

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"
)

// ---- workload 1 at other sizes: write with a TTL into a small and a large store ----

// writeSizes are the store sizes of BenchmarkWriteSize: a hundredth of
// -items and five times it, 10,000 and 5,000,000 by default. cmd/report
// names the sub-benchmarks from -items the same way.
func writeSizes() []int { return []int{max(items()/100, 1), 5 * items()} }

// BenchmarkWriteSize is BenchmarkWrite (overwrite a random item with a new
// value and a TTL of an hour) on full stores of the writeSizes:
// sub-benchmarks <store>/n=10000 and <store>/n=5000000, for the stores
// and ttldb's variants (writeKinds). Each store is filled once per
// process, the small one first, and brought to at least -items writes
// (warmStore); the large one replaces it.
// Besides the usual figures it reports gc-cycles, the garbage collections
// completed during the timed writes: in a large heap a collection comes
// only every few million writes, so a short run may catch none.
func BenchmarkWriteSize(b *testing.B) {
	for _, k := range writeKinds() {
		b.Run(k.Name, func(b *testing.B) {
			for _, n := range writeSizes() {
				b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
					s := warmStore(b, k, n)
					gc0 := gcCycles()
					writes(b, s, n)
					b.StopTimer()
					b.ReportMetric(float64(gcCycles()-gc0), "gc-cycles")
				})
			}
		})
	}
}

// sizedStore is a full store of n items loaded with Keys(n), TTL an hour,
// the store of workload 1 at size n, as its fill leaves it.
func sizedStore(b *testing.B, k Kind, n int) Store { return writtenStore(b, k, n, n) }

// warmStore is sizedStore written into, untimed, as BenchmarkWrite writes,
// until it has taken at least -items writes in all, as many as the fill of
// -items gives the store of BenchmarkWrite before its timing starts
// (nothing more for a store that large). Without them, the timed writes
// into a small store would include the one-time growth of what a store
// keeps of its past writes (ttldb's change feed keeps up to 64 MiB of
// older versions), and with it the operating system's first touch of every
// new page of the heap, which costs 12-17 µs per 4 KiB page on the shared
// virtual machines the report runs on: about 0.5 s of ttldb's first
// million writes at 10,000, against a few tens of milliseconds on a usual
// host.
func warmStore(b *testing.B, k Kind, n int) Store { return writtenStore(b, k, n, max(items(), n)) }

// writtenStore is a store of n items filled, then written into until it
// has taken total writes. It logs the fill's and the writes' time and the
// heap they left (after a collection).
func writtenStore(b *testing.B, k Kind, n, total int) Store {
	return cached(b, "size"+strconv.Itoa(n)+"/writes"+strconv.Itoa(total)+"/"+k.Name, func() Store {
		s := k.New(Config{Mode: Live, TTL: longTTL})
		keys, doc := Keys(n), DocFor(longTTL)
		start := time.Now()
		Fill(s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
			return keys[i], doc.Append(buf, i), longTTL
		})
		took := time.Since(start)
		start = time.Now()
		buf, r := make([]byte, 0, 256), newRNG(3)
		for range total - n {
			j := r.intn(n)
			buf = doc.Append(buf[:0], j)
			s.Set(keys[j], buf, longTTL)
		}
		wrote := time.Since(start)
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.Logf("filled %s with %d items in %v (%.2f µs per item), then wrote %d in %v; heap %.0f MB, from the OS %.0f MB",
			k.Name, n, took.Round(time.Millisecond), float64(took.Nanoseconds())/float64(n)/1e3,
			total-n, wrote.Round(time.Millisecond), float64(ms.HeapAlloc)/(1<<20), float64(ms.Sys)/(1<<20))
		return s
	})
}

// gcCycles is the number of garbage collections the process has completed.
func gcCycles() uint64 {
	m := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}
