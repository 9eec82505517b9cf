package bench

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/tidwall/buntdb"
	"github.com/ttldb/ttldb"
)

// ---- durability (R12, issue 13): the disk group ----
//
// Stores on disk, in a directory under out/ (the repository's disk, not a
// tmpfs, so that a sync costs what it costs), removed after each
// benchmark: ttldb with Options.Dir, buntdb with a file. Their own process
// in the report (the disk group), after the others: the file's name makes
// go test run them last.

// durableItems is the size of the stores of BenchmarkDurable: a tenth of
// -items.
func durableItems() int { return max(items()/10, 1) }

// durableDir makes an empty directory for a store on disk.
func durableDir(b *testing.B) string {
	b.Helper()
	dir, err := os.MkdirTemp("out", "disk-")
	if err != nil {
		if err := os.MkdirAll("out", 0o755); err != nil {
			b.Fatal(err)
		}
		if dir, err = os.MkdirTemp("out", "disk-"); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// diskStore is a store on disk for the durability workloads.
type diskStore interface {
	Set(key string, doc []byte)
	Close()
}

type ttldbDisk struct{ c *ttldb.Collection }

func (s ttldbDisk) Set(_ string, doc []byte) {
	if _, err := s.c.UpsertJSON(bg, doc); err != nil {
		panic(err)
	}
}

func (s ttldbDisk) Close() {
	if err := s.c.Close(); err != nil {
		panic(err)
	}
}

// openTTLDBDisk opens ttldb on dir with policy; an empty dir is in memory.
func openTTLDBDisk(dir string, policy ttldb.SyncPolicy) ttldbDisk {
	c, err := ttldb.NewCollection("bench", "/id", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault(), Dir: dir, Sync: policy})
	if err != nil {
		panic(err)
	}
	return ttldbDisk{c}
}

type buntDisk struct{ db *buntdb.DB }

func (s buntDisk) Set(key string, doc []byte) {
	v := string(doc)
	err := s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(key, v, &buntdb.SetOptions{Expires: true, TTL: longTTL})
		return err
	})
	if err != nil {
		panic(err)
	}
}

func (s buntDisk) Close() {
	if err := s.db.Close(); err != nil {
		panic(err)
	}
}

// openBuntDisk opens buntdb's file in dir with policy.
func openBuntDisk(dir string, policy buntdb.SyncPolicy) buntDisk {
	db, err := buntdb.Open(filepath.Join(dir, "bunt.db"))
	if err != nil {
		panic(err)
	}
	var c buntdb.Config
	if err := db.ReadConfig(&c); err != nil {
		panic(err)
	}
	c.SyncPolicy = policy
	if err := db.SetConfig(c); err != nil {
		panic(err)
	}
	return buntDisk{db}
}

// pebbleDisk is cockroachdb/pebble, an LSM key-value store, as a peer of
// the durable writes (issue 31): a plain Set of the same documents under
// their keys, with no expiry, no change feed and no JSON (what ttldb does
// beyond it is its own cost). sync is pebble.Sync (the write returns once
// its WAL is synced, pebble grouping the syncs of concurrent writers) or
// pebble.NoSync.
type pebbleDisk struct {
	db   *pebble.DB
	sync *pebble.WriteOptions
}

func (s pebbleDisk) Set(key string, doc []byte) {
	if err := s.db.Set([]byte(key), doc, s.sync); err != nil {
		panic(err)
	}
}

func (s pebbleDisk) Close() {
	if err := s.db.Close(); err != nil {
		panic(err)
	}
}

// openPebbleDisk opens pebble in dir with its default options, each Set
// synced or not.
func openPebbleDisk(dir string, sync bool) pebbleDisk {
	db, err := pebble.Open(filepath.Join(dir, "pebble"), &pebble.Options{Logger: quietPebble{}})
	if err != nil {
		panic(err)
	}
	w := pebble.NoSync
	if sync {
		w = pebble.Sync
	}
	return pebbleDisk{db, w}
}

// quietPebble is pebble's Logger without its notes of routine work
// ("Found 0 WALs"), which would break the benchmark's output; errors and
// fatal ones still reach the test's output.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any) {}

func (quietPebble) Errorf(format string, args ...any) { pebble.DefaultLogger.Errorf(format, args...) }

func (quietPebble) Fatalf(format string, args ...any) { pebble.DefaultLogger.Fatalf(format, args...) }

// fillDisk writes n items into a store opened by open with its fastest
// policy, closes it, and opens it again for the workload.
func fillDisk(n int, open func(fast bool) diskStore) diskStore {
	s := open(true)
	keys, doc := Keys(n), DocFor(longTTL)
	buf := make([]byte, 0, 256)
	for i := range n {
		buf = doc.Append(buf[:0], i)
		s.Set(keys[i], buf)
	}
	s.Close()
	return open(false)
}

// BenchmarkDurable overwrites a random item of a store on disk of a tenth
// of -items (100,000 items), TTL an hour, as Write does in memory:
// ttldb/everysecond and buntdb/everysecond (a sync a second, in the
// background), ttldb_mem/everysecond (ttldb in memory, the same writes: the
// cost of durability side by side), and ttldb/always/g=1, g=16 and
// buntdb's (a sync before each call returns; 1 or 16 goroutines writing at
// once, b.N writes in all: ns/op is the time per write of the whole, and
// writes/s its rate); pebble/always/g=1 and g=16 are cockroachdb/pebble's
// plain synced Set of the same documents, issue 31's peer for durable
// writes.
func BenchmarkDurable(b *testing.B) {
	n := durableItems()
	ttldbOpen := func(dir string, policy ttldb.SyncPolicy) func(bool) diskStore {
		return func(fast bool) diskStore {
			if fast {
				return openTTLDBDisk(dir, ttldb.SyncNever)
			}
			return openTTLDBDisk(dir, policy)
		}
	}
	buntOpen := func(dir string, policy buntdb.SyncPolicy) func(bool) diskStore {
		return func(fast bool) diskStore {
			if fast {
				return openBuntDisk(dir, buntdb.Never)
			}
			return openBuntDisk(dir, policy)
		}
	}
	pebbleOpen := func(dir string) func(bool) diskStore {
		return func(fast bool) diskStore { return openPebbleDisk(dir, !fast) }
	}
	cases := []struct {
		name string
		g    int
		open func(dir string) func(bool) diskStore
	}{
		{"ttldb/everysecond", 1, func(dir string) func(bool) diskStore { return ttldbOpen(dir, ttldb.SyncEverySecond) }},
		{"ttldb_mem/everysecond", 1, func(string) func(bool) diskStore { return ttldbOpen("", 0) }},
		{"buntdb/everysecond", 1, func(dir string) func(bool) diskStore { return buntOpen(dir, buntdb.EverySecond) }},
		{"ttldb/always/g=1", 1, func(dir string) func(bool) diskStore { return ttldbOpen(dir, ttldb.SyncAlways) }},
		{"buntdb/always/g=1", 1, func(dir string) func(bool) diskStore { return buntOpen(dir, buntdb.Always) }},
		{"ttldb/always/g=16", 16, func(dir string) func(bool) diskStore { return ttldbOpen(dir, ttldb.SyncAlways) }},
		{"buntdb/always/g=16", 16, func(dir string) func(bool) diskStore { return buntOpen(dir, buntdb.Always) }},
		{"pebble/always/g=1", 1, func(dir string) func(bool) diskStore { return pebbleOpen(dir) }},
		{"pebble/always/g=16", 16, func(dir string) func(bool) diskStore { return pebbleOpen(dir) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dropCached()
			s := fillDisk(n, c.open(durableDir(b)))
			defer s.Close()
			keys, doc := Keys(n), DocFor(longTTL)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for w := range c.g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := newRNG(uint64(10 + w))
					buf := make([]byte, 0, 256)
					for i := w; i < b.N; i += c.g {
						j := r.intn(n)
						buf = doc.Append(buf[:0], j)
						s.Set(keys[j], buf)
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
		})
	}
}

// BenchmarkReopen opens a store on disk of -items items (1,000,000) that a
// previous process wrote and closed, and reads one item: the time until
// the store serves reads. ttldb/log replays the log of the fill (no
// compaction ran); ttldb/snapshot loads a snapshot (Compact ran before
// Close); buntdb/log loads buntdb's file, a log of its commands.
func BenchmarkReopen(b *testing.B) {
	n := items()
	keys := Keys(n)
	for _, c := range []string{"ttldb/log", "ttldb/snapshot", "buntdb/log"} {
		b.Run(c, func(b *testing.B) {
			dropCached()
			dir := durableDir(b)
			var open func() (get func(string) bool, close func())
			switch c {
			case "buntdb/log":
				fillDisk(n, func(fast bool) diskStore { return openBuntDisk(dir, buntdb.Never) }).Close()
				open = func() (func(string) bool, func()) {
					s := openBuntDisk(dir, buntdb.EverySecond)
					return func(k string) bool {
						return s.db.View(func(tx *buntdb.Tx) error { _, err := tx.Get(k); return err }) == nil
					}, s.Close
				}
			default:
				s := fillDisk(n, func(bool) diskStore { return openTTLDBDisk(dir, ttldb.SyncNever) }).(ttldbDisk)
				if c == "ttldb/snapshot" {
					if err := s.c.Compact(b.Context()); err != nil {
						b.Fatal(err)
					}
				}
				s.Close()
				open = func() (func(string) bool, func()) {
					s := openTTLDBDisk(dir, ttldb.SyncEverySecond)
					return func(k string) bool { _, err := s.c.Get(bg, ttldb.StringKey(k), k); return err == nil }, s.Close
				}
			}
			runtime.GC()
			b.ResetTimer()
			for range b.N {
				get, closeIt := open()
				if !get(keys[n/2]) {
					b.Fatalf("%s: item %s missing after the reopen", c, keys[n/2])
				}
				b.StopTimer()
				closeIt()
				runtime.GC()
				b.StartTimer()
			}
			b.ReportMetric(float64(n), "items")
		})
	}
}
