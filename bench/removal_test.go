package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// ---- workload 4: physical removal of 10,000 expired items ----

// BenchmarkRemoval10k removes the 1% expired items (10,000 of 1,000,000)
// of a full store; the figure is the custom metric ns/sweep. One operation
// writes the expired items anew (untimed), lets them expire and removes
// them. Run it with a small fixed -benchtime (such as 1x): buntdb has no
// synchronous removal, so each of its operations waits for its next
// once-a-second pass.
func BenchmarkRemoval10k(b *testing.B) {
	for _, k := range append(Kinds[:len(Kinds):len(Kinds)], listedTTLDB) {
		if !k.SyncRemoval && !k.ObservedRemoval {
			continue
		}
		b.Run(k.Name, func(b *testing.B) {
			n := items()
			m := n / 100
			s := cached(b, "manual/"+k.Name, func() Store {
				manualClocks[k.Name] = NewClock(time.Now())
				s := k.New(Config{Mode: Manual, Clock: manualClocks[k.Name], TTL: manualLongTTL})
				keys, doc := Keys(n), DocFor(manualLongTTL)
				// The live 99%: every item but each hundredth.
				timedFill(k, s, n-m, func(i int, buf []byte) (string, []byte, time.Duration) {
					j := i + i/99 + 1
					return keys[j], doc.Append(buf, j), manualLongTTL
				})
				return s
			})
			clock := manualClocks[k.Name] // the cached store's
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
				if strings.HasPrefix(k.Name, "ttldb") {
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

// manualClocks are the simulated clocks of the cached ttldb stores of
// BenchmarkRemoval10k, by store.
var manualClocks = map[string]*Clock{}

// BenchmarkFirstList times the first listing of a full store of ttldb, which
// builds the key order (a page of one document: the rest of a page costs
// what any listing's does). Each operation fills a new store, untimed. Run it
// with a small fixed -benchtime (such as 1x).
func BenchmarkFirstList(b *testing.B) {
	b.Run("ttldb", func(b *testing.B) {
		n := items()
		keys, doc := Keys(n), DocFor(longTTL)
		var took time.Duration
		b.ReportAllocs()
		b.StopTimer()
		for range b.N {
			s := newTTLDB(Config{Mode: Live, TTL: longTTL}).(*ttldbStore)
			Fill(s, n, func(i int, buf []byte) (string, []byte, time.Duration) {
				return keys[i], doc.Append(buf, i), longTTL
			})
			b.StartTimer()
			t := time.Now()
			p, err := s.c.List(bg, ttldb.Query{Limit: 1})
			took += time.Since(t)
			b.StopTimer()
			if err != nil || len(p.Documents) != 1 {
				b.Fatalf("List: %d documents, %v", len(p.Documents), err)
			}
			s.Close()
		}
		b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "ns/list")
	})
}
