package bench

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- workload 1: write with a TTL into a full store ----

// BenchmarkWrite overwrites a random item of a full store with a new value
// and a TTL of an hour.
func BenchmarkWrite(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			writes(b, liveStore(b, k), items())
		})
	}
}

// writes is the loop of workload 1 (BenchmarkWrite, BenchmarkWriteSize):
// b.N overwrites of a random item of s, a store of n items loaded with
// Keys(n), with a TTL of an hour.
func writes(b *testing.B, s Store, n int) {
	// Writes use the strings the store was loaded with: a peer's map keeps
	// the key string of its latest write, and reads later use keys of their
	// own (CallerKeys).
	keys, doc := Keys(n), DocFor(longTTL)
	buf := make([]byte, 0, 256)
	r := newRNG(1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		j := r.intn(n)
		buf = doc.Append(buf[:0], j)
		s.Set(keys[j], buf, longTTL)
	}
}

// ---- workload 2: point read of a live item ----

// BenchmarkRead reads a random live item of a full store and takes its
// value, as a server would: it looks the key up with a string of its own and
// copies the value out (ttldb: Document.Body, the document as written, which
// does not allocate).
func BenchmarkRead(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			n := items()
			s := liveStore(b, k)
			keys := CallerKeys(n)
			r := newRNG(2)
			misses, total := 0, 0
			out := make([]byte, 0, 512)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				v, ok := s.Get(keys[r.intn(n)])
				if !ok {
					misses++
				}
				out = append(out[:0], v...) // the reader uses the value
				total += len(out)
			}
			b.StopTimer()
			sink.Add(int64(total))
			if misses > 0 {
				b.Fatalf("%d of %d reads missed a live item", misses, b.N)
			}
		})
	}
}

// ---- workload 2b: point reads by 1, 2, 4 and 8 goroutines at once ----

// readScaleGoroutines are the numbers of goroutines of BenchmarkReadScale.
var readScaleGoroutines = []int{1, 2, 4, 8}

// BenchmarkReadScale runs the reads of BenchmarkRead (a random live item of
// the full store, a key string of its own, the value copied out) from g
// goroutines at once, all reads, no writes: sub-benchmarks <store>/g=1, 2,
// 4 and 8. The b.N reads are shared out evenly; the goroutines start
// together and each times its own share. Metrics: ns/read, the time a read
// takes as one goroutine sees it (the goroutines' times added up, divided
// by the reads); reads/s, all the goroutines' reads per second of wall
// time. ns/op is the wall time per read, 1e9 / reads/s.
func BenchmarkReadScale(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			for _, g := range readScaleGoroutines {
				b.Run("g="+strconv.Itoa(g), func(b *testing.B) {
					readScale(b, liveStore(b, k), items(), g)
				})
			}
		})
	}
}

func readScale(b *testing.B, s Store, n, g int) {
	keys := CallerKeys(n)
	type share struct {
		took                 time.Duration
		reads, misses, total int
	}
	shares := make([]share, g)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range g {
		quota := b.N / g
		if i < b.N%g {
			quota++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newRNG(uint64(300 + i))
			out := make([]byte, 0, 512)
			misses, total := 0, 0
			<-start
			t0 := time.Now()
			for range quota {
				v, ok := s.Get(keys[r.intn(n)])
				if !ok {
					misses++
				}
				out = append(out[:0], v...) // the reader uses the value
				total += len(out)
			}
			shares[i] = share{time.Since(t0), quota, misses, total}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	b.StopTimer()
	var took time.Duration
	reads, misses := 0, 0
	for _, sh := range shares {
		took += sh.took
		reads += sh.reads
		misses += sh.misses
		sink.Add(int64(sh.total))
	}
	if misses > 0 {
		b.Fatalf("%d of %d reads missed a live item", misses, reads)
	}
	b.ReportMetric(float64(took.Nanoseconds())/float64(reads), "ns/read")
	b.ReportMetric(float64(reads)/wall.Seconds(), "reads/s")
}

// ---- workload 3: 90% read, 10% write, from all cores ----

var seeds atomic.Uint64

// BenchmarkMixed runs GOMAXPROCS goroutines, each reading a random live
// item nine times in ten and overwriting one (TTL an hour) once in ten.
func BenchmarkMixed(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			n := items()
			s := liveStore(b, k)
			keys, asked, doc := Keys(n), CallerKeys(n), DocFor(longTTL)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				r := newRNG(seeds.Add(1) + 100)
				buf := make([]byte, 0, 256)
				out := make([]byte, 0, 512)
				total := 0
				for pb.Next() {
					j := r.intn(n)
					if r.next()%10 == 0 {
						buf = doc.Append(buf[:0], j)
						s.Set(keys[j], buf, longTTL)
						continue
					}
					v, _ := s.Get(asked[j])
					out = append(out[:0], v...)
					total += len(out)
				}
				sink.Add(int64(total))
			})
		})
	}
}

// ---- workload 4: physical removal of expired items ----

// BenchmarkRemovalNone triggers a removal pass on a full store in which
// nothing has expired. Only stores with a synchronous removal have it.
func BenchmarkRemovalNone(b *testing.B) {
	for _, k := range Kinds {
		if !k.SyncRemoval {
			continue
		}
		b.Run(k.Name, func(b *testing.B) {
			s := liveStore(b, k).(Remover)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if n := s.RemoveExpired(); n != 0 {
					b.Fatalf("removed %d items, none had expired", n)
				}
			}
		})
	}
}

// ---- workload 7: changing ttldb's DefaultTTL on a full collection ----

// BenchmarkDefaultTTL changes the DefaultTTL of a collection of 1,000,000
// documents that inherit it, between one and two hours. The peers have no
// such setting: golang-lru's one TTL, go-cache's default expiration and
// ttlcache's default TTL are fixed when the cache is made, and buntdb has
// none.
func BenchmarkDefaultTTL(b *testing.B) {
	b.Run("ttldb", func(b *testing.B) {
		n := items()
		var c *ttldb.Collection
		s := cached(b, "inherit/ttldb", func() Store {
			col, err := ttldb.NewCollection("bench", "/id", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(3600)})
			if err != nil {
				b.Fatal(err)
			}
			s := &ttldbStore{c: col}
			doc := NewDoc(0) // no ttl: the documents inherit DefaultTTL
			Fill(s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
				return "", doc.Append(buf, i), 0
			})
			return s
		})
		c = s.(*ttldbStore).c
		settings := [2]ttldb.DefaultTTL{ttldb.TTLSeconds(7200), ttldb.TTLSeconds(3600)}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if err := c.SetDefaultTTL(settings[i&1]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if got, err := c.Count(ttldb.Query{}); err != nil || got != n {
			b.Fatalf("Count = %d, %v; want %d", got, err, n)
		}
	})
}
