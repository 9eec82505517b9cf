package bench

import (
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- workload 1: write with a TTL into a full store ----

// BenchmarkWrite overwrites a random item of a full store with a new value
// and a TTL of an hour; also for ttldb's variants (ttldb_feed_off: the
// change feed off).
func BenchmarkWrite(b *testing.B) {
	for _, k := range writeKinds() {
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

// ---- the change feed (R11): reading it whole ----

// feedPageLimit is the page size of BenchmarkFeedRead's reads.
const feedPageLimit = 1000

// feedReadSizes are the sizes of BenchmarkFeedRead's stores: a tenth of
// -items and -items, 100,000 and 1,000,000 by default. cmd/report names the
// sub-benchmarks from -items the same way.
func feedReadSizes() []int { return []int{max(items()/10, 1), items()} }

// BenchmarkFeedRead reads ttldb's whole change feed, ttldb only (the peers
// have none): on full stores of the feedReadSizes (those of WriteSize's
// writes, filled once per process and size, the feed in its default
// setting), an operation reads the feed from its beginning, feedPageLimit
// changes a page, following the continuations until a page says there is
// no more. Sub-benchmarks ttldb/n=<size>/latest, the LatestVersion feed:
// every document once (metrics ns/doc, allocs/doc, B/doc); and
// ttldb/n=<size>/all, the AllVersionsAndDeletes feed: the records the
// default retention keeps of the fill's writes (ns/change, allocs/change,
// B/change, and changes, how many it read).
//
// It runs in the fast group, after the workloads that share the full store
// of Heap, which it drops, and before DefaultTTL, which builds its own.
func BenchmarkFeedRead(b *testing.B) {
	b.Run("ttldb", func(b *testing.B) {
		for _, n := range feedReadSizes() {
			b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
				b.Run("latest", func(b *testing.B) {
					c := sizedStore(b, Kinds[0], n).(*ttldbStore).c
					feedRead(b, c, ttldb.LatestVersion, n)
				})
				b.Run("all", func(b *testing.B) {
					c := sizedStore(b, Kinds[0], n).(*ttldbStore).c
					feedRead(b, c, ttldb.AllVersionsAndDeletes, -1)
				})
			})
		}
	})
}

// feedRead is the loop of BenchmarkFeedRead: b.N reads of c's whole feed in
// mode, each of want changes (-1: as many as the first read).
func feedRead(b *testing.B, c *ttldb.Collection, mode ttldb.FeedMode, want int) {
	unit := "doc"
	if mode == ttldb.AllVersionsAndDeletes {
		unit = "change"
	}
	var before, after runtime.MemStats
	total := 0
	b.ReportAllocs()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		n, err := readWholeFeed(c, mode)
		if err != nil {
			b.Fatal(err)
		}
		if want < 0 {
			want = n
		}
		if n != want || n == 0 {
			b.Fatalf("the %v feed read %d changes, want %d", mode, n, want)
		}
		total += n
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/"+unit)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(total), "allocs/"+unit)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(total), "B/"+unit)
	if mode == ttldb.AllVersionsAndDeletes {
		b.ReportMetric(float64(want), "changes")
	}
}

// readWholeFeed reads c's feed in mode from its beginning, feedPageLimit
// changes a page, until a page says there is no more, and returns the
// changes read. It looks at each change, as a consumer would. An
// all-versions read from the beginning, which the retention has dropped
// (ttldb.ErrFeedTrimmed), starts again from the oldest change kept, as the error
// says.
func readWholeFeed(c *ttldb.Collection, mode ttldb.FeedMode) (int, error) {
	q := ttldb.FeedQuery{Mode: mode, Limit: feedPageLimit}
	n, total := 0, 0
	for {
		page, err := c.ReadFeed(bg, q)
		var trimmed *ttldb.TrimmedError
		if n == 0 && q.Continuation == "" && errors.As(err, &trimmed) {
			q.Continuation = trimmed.Continuation
			continue
		}
		if err != nil {
			return n, err
		}
		for i := range page.Changes {
			total += len(page.Changes[i].ID)
		}
		n += len(page.Changes)
		if !page.More {
			sink.Add(int64(total))
			return n, nil
		}
		q.Continuation = page.Continuation
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
			if err := c.SetDefaultTTL(bg, settings[i&1]); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if got, err := c.Count(bg, ttldb.Query{}); err != nil || got != n {
			b.Fatalf("Count = %d, %v; want %d", got, err, n)
		}
	})
}
