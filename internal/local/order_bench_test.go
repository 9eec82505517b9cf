package local

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkKeyOrderBuildUnderWriters times the first listing of a
// collection of n documents (TTLDB_ORDER_DOCS, 1,000,000 by default), which
// builds the key order (order.go), with no writer and with GOMAXPROCS
// writers that never pause: each upserts a new key, overwrites an existing
// one and deletes a key it created 1,000 rounds before, one after the
// other, so that two writes in three change the order the build must catch
// up with. It reports the time to the first List (first-list-ms), the
// writes made meanwhile, and the writers' latency (p99 and max, µs) during
// the build and during as long a time before it, with no build. A build
// that has not ended after TTLDB_ORDER_CAP seconds (60 by default) is
// reported as capped: its writers stop, and it ends. It runs on real time:
// run it alone,
//
//	go test -run '^$' -bench KeyOrderBuildUnderWriters -benchtime 1x .
func BenchmarkKeyOrderBuildUnderWriters(b *testing.B) {
	n := envInt("TTLDB_ORDER_DOCS", 1_000_000)
	limit := time.Duration(envInt("TTLDB_ORDER_CAP", 60)) * time.Second
	for _, writers := range []int{0, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("n=%d/writers=%d", n, writers), func(b *testing.B) {
			for b.Loop() {
				r := measureOrderBuild(b, n, writers, limit)
				b.ReportMetric(float64(r.build.Microseconds())/1000, "first-list-ms")
				b.ReportMetric(float64(r.writes), "writes-during")
				b.ReportMetric(float64(r.read.Microseconds())/1000, "read-ms")
				b.ReportMetric(float64(r.sorted.Microseconds())/1000, "sorted-ms")
				b.ReportMetric(float64(r.backlog), "backlog")
				b.ReportMetric(float64(r.readHolds), "read-holds")
				b.ReportMetric(float64(r.applyHolds), "apply-holds")
				if r.capped {
					b.ReportMetric(1, "capped")
				}
				if writers > 0 {
					b.ReportMetric(pct(r.during, 99), "p99-during-µs")
					b.ReportMetric(pct(r.during, 100), "max-during-µs")
					b.ReportMetric(pct(r.before, 99), "p99-before-µs")
					b.ReportMetric(pct(r.before, 100), "max-before-µs")
				}
			}
		})
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// pct returns the p-th percentile of ds, in µs.
func pct(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := min(len(ds)-1, len(ds)*p/100)
	return float64(ds[i].Nanoseconds()) / 1000
}

type orderBuildResult struct {
	build          time.Duration // to the first List
	capped         bool          // the writers were stopped for the build to end
	read, sorted   time.Duration // to the end of the read of the key map, and of the sort
	backlog        int           // changes noted by the end of the sort
	readHolds      int
	applyHolds     int
	writes         int64 // made during the build
	before, during []time.Duration
}

func measureOrderBuild(b *testing.B, n, writers int, limit time.Duration) orderBuildResult {
	b.StopTimer()
	c, _ := benchCollection(b, n)
	const (
		phaseBefore = iota
		phaseDuring
		phaseAfter
	)
	var phase atomic.Int32
	var writes atomic.Int64
	lats := make([][2][]time.Duration, writers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			const maxSamples = 1 << 22
			timed := func(op func() error) {
				p := phase.Load()
				start := time.Now()
				if err := op(); err != nil {
					panic(err)
				}
				if p < phaseAfter && len(lats[w][p]) < maxSamples {
					lats[w][p] = append(lats[w][p], time.Since(start))
				}
				if p == phaseDuring {
					writes.Add(1)
				}
			}
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := n + w*100_000_000 + i
				doc, old := benchDoc(k), benchDoc(r.IntN(n))
				timed(func() error { _, err := c.Upsert(bg, doc); return err })
				timed(func() error { _, err := c.Upsert(bg, old); return err })
				if i >= 1000 {
					pk, id := StringKey(fmt.Sprint("p", (k-1000)%100)), fmt.Sprintf("key:%010d", k-1000)
					timed(func() error { return c.Delete(bg, pk, id) })
				}
			}
		})
	}
	var r orderBuildResult
	if writers > 0 {
		time.Sleep(time.Second) // writes before the build, for the latency without one
	}
	phase.Store(phaseDuring)
	listed := make(chan error, 1)
	start := time.Now()
	orderHook = func(hc *collection) {
		if hc == c.local {
			r.read = time.Since(start)
		}
	}
	orderHoldHook = func(hc *collection, read, applied int) {
		if hc != c.local {
			return
		}
		if read > 0 {
			r.readHolds++
			return
		}
		if r.applyHolds++; r.applyHolds == 1 {
			r.sorted = time.Since(start)
			c.local.mu.Lock()
			if b := c.local.prim.order.build; b != nil {
				r.backlog = b.changes.n + applied
			}
			c.local.mu.Unlock()
		}
	}
	defer func() { c.local.building.Wait(); orderHook, orderHoldHook = nil, nil }()
	b.StartTimer()
	go func() {
		_, err := c.List(bg, Query{Limit: 10})
		listed <- err
	}()
	select {
	case err := <-listed:
		if err != nil {
			b.Fatal(err)
		}
	case <-time.After(limit):
		r.capped = true
		close(stop)
		wg.Wait()
		if err := <-listed; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	r.build = time.Since(start)
	phase.Store(phaseAfter)
	r.writes = writes.Load()
	if !r.capped {
		close(stop)
		wg.Wait()
	}
	for w := range lats {
		r.before = append(r.before, lats[w][phaseBefore]...)
		r.during = append(r.during, lats[w][phaseDuring]...)
	}
	c.Close()
	b.StartTimer()
	return r
}

// BenchmarkBucketMove moves an entry from one second's bucket to another's,
// as a write of a document due at another second does, in an index of
// 100,000 entries over 1,000 seconds.
func BenchmarkBucketMove(b *testing.B) {
	bs := newBuckets()
	es := make([]*entry, 100_000)
	at := make([]int64, len(es))
	for i := range es {
		es[i], at[i] = &entry{}, int64(i%1000)
		bs.add(es[i], at[i])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		j := i % len(es)
		bs.remove(es[j], at[j])
		at[j] = (at[j] + 7) % 1000
		bs.add(es[j], at[j])
		i += 7919
	}
}

// BenchmarkKeyOrder measures what the key order costs: building it for the
// first listing of a collection of n documents (each operation drops it
// and builds it again), and a create with and without it (order.go).
func BenchmarkKeyOrder(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprint("build/n=", n), func(b *testing.B) {
			c, _ := benchCollection(b, n)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				c.local.mu.Lock()
				c.local.prim.order.reset()
				c.local.mu.Unlock()
				b.StartTimer()
				if _, err := c.List(bg, Query{Limit: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, listed := range []bool{false, true} {
		b.Run(fmt.Sprint("create/listed=", listed), func(b *testing.B) {
			c, _ := benchCollection(b, 100_000)
			if listed {
				if _, err := c.List(bg, Query{Limit: 1}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := c.Create(bg, benchDoc(100_000+i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// benchDoc is a document of about 200 bytes, like bench/'s.
func benchDoc(i int) []byte {
	return fmt.Appendf(nil, `{"id":"key:%010d","pk":"p%d","ttl":3600,"user":"someone@example.com","kind":"session","roles":["reader","writer"],"note":"%0100d"}`, i, i%100, i)
}

// benchCollection returns a collection of n documents of benchDoc, and the
// documents.
func benchCollection(b *testing.B, n int) (*Collection, [][]byte) {
	b.Helper()
	c, err := NewCollection("bench", "/pk", &Options{DefaultTTL: TTLNoDefault()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	docs := make([][]byte, n)
	for i := range docs {
		docs[i] = benchDoc(i)
		if _, err := c.Create(bg, docs[i]); err != nil {
			b.Fatal(err)
		}
	}
	return c, docs
}
