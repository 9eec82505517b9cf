package bench

import (
	"flag"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

var (
	itemsFlag = flag.Int("items", 1_000_000, "items in a full store")
	probes    = flag.Int("lagprobes", 3, "items whose expiry lag one operation of BenchmarkLag measures, one after the other")
)

const (
	// longTTL is the TTL of the items that stay live during a workload.
	longTTL = time.Hour
	// manualLongTTL is the TTL of the live items of workload 4, whose
	// simulated clock (ttldb) moves two seconds per operation.
	manualLongTTL = 30 * 24 * time.Hour
	// liveReaders is how many live items the reader of workload 5 reads.
	liveReaders = 10_000
)

// items is the size of a full store.
func items() int { return *itemsFlag }

// ---- one full store per process ----

// slot keeps the full store of the latest benchmark, so that the workloads
// that do not change a store's size share one build. It holds one store at
// a time: a store's benchmarks must not pay for collecting another's heap.
var slot struct {
	key string
	s   Store
}

func cached(b *testing.B, key string, build func() Store) Store {
	b.Helper()
	if slot.key == key {
		return slot.s
	}
	dropCached()
	start := time.Now()
	s := build()
	b.Logf("built %s in %v", key, time.Since(start).Round(time.Millisecond))
	slot.key, slot.s = key, s
	return s
}

func dropCached() {
	if slot.s != nil {
		slot.s.Close()
	}
	slot.key, slot.s = "", nil
	runtime.GC()
}

// fillRates are the seconds per item of the latest fill of each store, for
// workload 5's deadline.
var fillRates sync.Map // kind name -> time.Duration per item

func timedFill(k Kind, s Store, n int, item func(i int, buf []byte) (string, []byte, time.Duration)) {
	start := time.Now()
	Fill(s, n, item)
	if n >= 10_000 {
		fillRates.Store(k.Name, time.Since(start)/time.Duration(n))
	}
}

// liveStore is a full store of items() items with a TTL of an hour, whose
// store removes expired items by itself (mode Live).
func liveStore(b *testing.B, k Kind) Store {
	n := items()
	return cached(b, "live/"+k.Name, func() Store {
		s := k.New(Config{Mode: Live, TTL: longTTL})
		keys, doc := Keys(n), DocFor(longTTL)
		timedFill(k, s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
			return keys[i], doc.Append(buf, i), longTTL
		})
		return s
	})
}

var sink atomic.Int64

// ---- workload 6: heap bytes per item beyond key and value ----

// BenchmarkHeap fills an empty store with 1,000,000 items (fresh keys, TTL
// an hour) and reports the growth of the live heap per item, less the bytes
// of the key and the value: the metric B/item. ttldb's value is the
// document; the _ts and _etag it adds count as overhead. An operation is
// one fill (ns/op, and fill-ns/item per item). The store it fills is then
// the full store of the foreground workloads that follow in the process.
func BenchmarkHeap(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			dropCached()
			n := items()
			doc := DocFor(longTTL)
			var perItem, fill float64
			var s Store
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if s != nil {
					s.Close()
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				s = k.New(Config{Mode: Live, TTL: longTTL})
				start := time.Now()
				timedFill(k, s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
					return Key(i), doc.Append(buf, i), longTTL
				})
				fill += float64(time.Since(start).Nanoseconds()) / float64(n)
				b.StopTimer()
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&after)
				if got := s.Resident(); got != n {
					b.Fatalf("the store holds %d items, want %d", got, n)
				}
				grown := float64(after.HeapAlloc) - float64(before.HeapAlloc)
				perItem += (grown - float64(n*(KeyLen+doc.Len()))) / float64(n)
			}
			b.ReportMetric(perItem/float64(b.N), "B/item")
			b.ReportMetric(fill/float64(b.N), "fill-ns/item")
			slot.key, slot.s = "live/"+k.Name, s
		})
	}
}

// ---- workload 1: write with a TTL into a full store ----

// BenchmarkWrite overwrites a random item of a full store with a new value
// and a TTL of an hour.
func BenchmarkWrite(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			n := items()
			s := liveStore(b, k)
			// Writes use the strings the store was loaded with: a peer's map
			// keeps the key string of its latest write, and reads later use
			// keys of their own (CallerKeys).
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
		})
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

// BenchmarkRemoval10k removes the 1% expired items (10,000 of 1,000,000)
// of a full store; the figure is the custom metric ns/sweep. One operation
// writes the expired items anew (untimed), lets them expire and removes
// them. Run it with a small fixed -benchtime (such as 1x): buntdb has no
// synchronous removal, so each of its operations waits for its next
// once-a-second pass.
func BenchmarkRemoval10k(b *testing.B) {
	for _, k := range Kinds {
		if !k.SyncRemoval && !k.ObservedRemoval {
			continue
		}
		b.Run(k.Name, func(b *testing.B) {
			n := items()
			m := n / 100
			s := cached(b, "manual/"+k.Name, func() Store {
				manualClock = NewClock(time.Now())
				s := k.New(Config{Mode: Manual, Clock: manualClock, TTL: manualLongTTL})
				keys, doc := Keys(n), DocFor(manualLongTTL)
				// The live 99%: every item but each hundredth.
				timedFill(k, s, n-m, func(i int, buf []byte) (string, []byte, time.Duration) {
					j := i + i/99 + 1
					return keys[j], doc.Append(buf, j), manualLongTTL
				})
				return s
			})
			clock := manualClock // the cached store's
			keys := Keys(n)
			// Peers: a real TTL of a nanosecond, so that every item has expired
			// when the write ends. ttldb: a ttl of one second and its simulated
			// clock moved on by two.
			const shortTTL = time.Nanosecond
			short := DocFor(shortTTL)
			var took time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			b.StopTimer()
			for range b.N {
				if bs, ok := s.(*buntStore); ok {
					bs.Expect(m)
				}
				Fill(s, m, func(i int, buf []byte) (string, []byte, time.Duration) {
					return keys[i*100], short.Append(buf, i*100), shortTTL
				})
				if got := s.Resident(); got != n {
					b.Fatalf("the store holds %d items, want %d", got, n)
				}
				if k.Name == "ttldb" {
					clock.Advance(2 * time.Second)
				} else {
					time.Sleep(time.Millisecond)
				}
				var removed int
				var d time.Duration
				if k.SyncRemoval {
					b.StartTimer()
					t := time.Now()
					removed = s.(Remover).RemoveExpired()
					d = time.Since(t)
					b.StopTimer()
				} else {
					removed, d = s.(*buntStore).AwaitPass()
				}
				if removed != m {
					b.Fatalf("removed %d items, want %d", removed, m)
				}
				took += d
			}
			b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "ns/sweep")
		})
	}
}

// manualClock is the simulated clock of the cached ttldb store of
// BenchmarkRemoval10k.
var manualClock *Clock

// ---- workload 5: the longest stall a reader sees during a mass expiry ----

// BenchmarkStall fills a store with 1,000,000 items that all expire at the
// same instant D, plus 10,000 live ones, and from one second before D reads
// the live items in a loop, timing every read, until the store has removed
// the expired items by its own means. Metrics: max-stall-ns, the longest
// read after D; quiet-max-ns, the longest in the second before D (the
// machine's own noise, as the operating system deschedules the reader too,
// and for go-cache its janitor's scan of the whole map); slow-reads/s and
// quiet-slow-reads/s, the reads over 1 ms per second of each window;
// sweep-ms, from D until the items were gone (polled every 100 ms); reads,
// how many reads the window after D had. golang-lru expirable has one TTL
// per cache, so its items expire over the time it took to write them, not
// at once. D is chosen from the store's fill rate; a fill that runs late is
// abandoned and tried once more with the rate it showed. Run it with
// -benchtime 1x: each operation builds its own store.
func BenchmarkStall(b *testing.B) {
	for _, k := range Kinds {
		b.Run(k.Name, func(b *testing.B) {
			dropCached()
			var sum stallResult
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
			}
			b.ReportMetric(float64(sum.stall.Nanoseconds()), "max-stall-ns")
			b.ReportMetric(float64(sum.quiet.Nanoseconds()), "quiet-max-ns")
			b.ReportMetric(float64(sum.sweep.Milliseconds())/float64(b.N), "sweep-ms")
			b.ReportMetric(float64(sum.reads)/float64(b.N), "reads")
			b.ReportMetric(float64(sum.slow)/sum.window.Seconds(), "slow-reads/s")
			if sum.quietWindow > 0 {
				b.ReportMetric(float64(sum.quietSlow)/sum.quietWindow.Seconds(), "quiet-slow-reads/s")
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
			ttl := time.Until(deadline)
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
				r.quiet = max(r.quiet, d)
				if d > slowRead {
					r.quietSlow++
				}
			} else {
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
	if r.sweep < 0 {
		b.Logf("%d expired items were still there %v after they expired", left, time.Since(deadline).Round(time.Millisecond))
		r.sweep = time.Since(deadline)
	}
	return r, 0
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

// TestDoc checks the documents the stores are given.
func TestDoc(t *testing.T) {
	d := DocFor(time.Hour)
	got := string(d.Append(nil, 42))
	if want := `{"id":"key:0000000042","ttl":3600,`; got[:len(want)] != want {
		t.Fatalf("doc = %s", got)
	}
	if d.Len() < 190 || d.Len() > 210 {
		t.Errorf("doc is %d bytes, want about 200", d.Len())
	}
	if Key(42) != "key:0000000042" {
		t.Errorf("Key(42) = %q", Key(42))
	}
}

// TestStores runs every adapter through a small store: the same answers
// from all.
func TestStores(t *testing.T) {
	for _, k := range Kinds {
		t.Run(k.Name, func(t *testing.T) {
			s := k.New(Config{Mode: Live, TTL: time.Hour})
			defer s.Close()
			doc := DocFor(time.Hour)
			Fill(s, 100, func(i int, buf []byte) (string, []byte, time.Duration) {
				return Key(i), doc.Append(buf, i), time.Hour
			})
			if got := s.Resident(); got != 100 {
				t.Fatalf("Resident = %d, want 100", got)
			}
			v, ok := s.Get(Key(7))
			if !ok {
				t.Fatal("Get(key 7) found nothing")
			}
			want := string(doc.Append(nil, 7))
			if k.Name == "ttldb" {
				want = want[:len(want)-1] // ttldb adds _ts and _etag
			}
			if len(v) < len(want) || v[:len(want)] != want {
				t.Errorf("Get = %s\nwant %s", v, want)
			}
			if _, ok := s.Get(Key(100)); ok {
				t.Error("Get of a missing key found something")
			}
		})
	}
}
