// The benchmarks are split by workload; go test runs them in the order of
// their files' names, then of their declarations, and that order matters
// in a process that runs several of them on one cached store (see cached):
//
//   - bench_test.go: what the others share, and BenchmarkHeap, whose fill
//     makes the full store of the foreground workloads: it must run first;
//   - foreground_test.go: Write, Read, ReadScale, Mixed and RemovalNone on
//     that store, then DefaultTTL, which builds a store of its own;
//   - removal_test.go, stall_test.go: Removal10k, then Stall and Lag (the
//     slow group, whose operations build their own stores or wait on the
//     clock);
//   - writesize_test.go: WriteSize, on stores of other sizes (its own
//     process in the report).
package bench

import (
	"flag"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
// ttldb's variants run it too (writeKinds): ttldb_feed_off gives the heap
// of ttldb without the change feed's records.
func BenchmarkHeap(b *testing.B) {
	for _, k := range writeKinds() {
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

// TestStores runs every adapter, and every variant, through a small store:
// the same answers from all.
func TestStores(t *testing.T) {
	for _, k := range writeKinds() {
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
			if strings.HasPrefix(k.Name, "ttldb") {
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
