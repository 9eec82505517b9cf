package bench

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"github.com/jellydator/ttlcache/v3"
	gocache "github.com/patrickmn/go-cache"
	"github.com/tidwall/buntdb"
)

// Store is the adapter every store implements, so that each workload is
// written once.
type Store interface {
	// Set writes the item key with the value doc, expiring after ttl. doc
	// comes from DocFor(ttl) (or a Doc whose ttl matches): ttldb reads the
	// id and the ttl from it, the peers store its bytes as an opaque value
	// and take key and ttl as arguments.
	Set(key string, doc []byte, ttl time.Duration)
	// Get returns the value of a live item.
	Get(key string) (string, bool)
	// Resident is the number of items the store physically holds, live or
	// expired but not yet removed.
	Resident() int
	// Close releases the store: stops what can be stopped and drops the
	// items so that their memory is freed.
	Close()
}

// Loader fills a store faster than one Set at a time (buntdb: one write
// transaction per batch, as its docs advise for bulk loads).
type Loader interface {
	Load(n int, item func(i int, buf []byte) (key string, doc []byte, ttl time.Duration))
}

// Remover removes the expired items synchronously and says how many it
// removed. buntdb, which has none, is observed instead (buntStore.AwaitPass).
type Remover interface {
	RemoveExpired() int
}

// Expirer tells when an item expires, for stores that expose it; for the
// others the harness takes the write time plus the TTL.
type Expirer interface {
	ExpiresAt(key string) (time.Time, bool)
}

// Mode says how a store removes expired items.
type Mode int

const (
	// Live: the store removes expired items by itself, configured the way
	// its documentation recommends.
	Live Mode = iota
	// Manual: the harness triggers removal (workload 4): ttldb with
	// ManualSweep and a simulated clock, go-cache without a janitor,
	// ttlcache without Start. buntdb has no synchronous removal: its
	// background pass is observed through OnExpiredSync.
	Manual
)

// Config configures a store for one workload.
type Config struct {
	Mode Mode
	// Clock is ttldb's simulated clock in Manual mode.
	Clock *Clock
	// TTL is golang-lru expirable's one TTL for the whole cache: it ignores
	// the TTL given to Set.
	TTL time.Duration
}

// Kind is one store under test.
type Kind struct {
	// Name is the sub-benchmark name.
	Name string
	// Display is the name in the report.
	Display string
	// SyncRemoval: the store can remove expired items on demand (workload 4).
	SyncRemoval bool
	// ObservedRemoval: the store has no synchronous removal, but its
	// background pass can be timed (buntdb, workload 4 with 10,000 expired).
	ObservedRemoval bool
	New             func(Config) Store
}

// Kinds are the stores, ttldb first.
var Kinds = []Kind{
	{Name: "ttldb", Display: "ttldb", SyncRemoval: true, New: newTTLDB},
	{Name: "buntdb", Display: "buntdb", ObservedRemoval: true, New: newBunt},
	{Name: "gocache", Display: "go-cache", SyncRemoval: true, New: newGoCache},
	{Name: "ttlcache", Display: "ttlcache", SyncRemoval: true, New: newTTLCache},
	{Name: "expirable", Display: "golang-lru expirable", New: newExpirable},
}

// Variants are ttldb in other settings, measured against ttldb itself in
// the workloads that ask for them (Heap, Write, WriteSize: writeKinds; the
// listed variant in Removal10k too), not against the peers. The report
// runs them as stores of their own.
var Variants = []Kind{
	// The change feed off (R11: Options.Feed.Off), to measure what the
	// feed in its default setting costs a write and the heap.
	{Name: "ttldb_feed_off", Display: "ttldb, feed off", SyncRemoval: true, New: newTTLDBFeedOff},
	listedTTLDB,
}

// listedTTLDB is ttldb listed once as it opens, so that it keeps the key
// order of listings from the start, as a collection that is listed or
// queried does: to measure what the order costs writes, removals and the
// heap, which ttldb, never listed here, does not pay.
var listedTTLDB = Kind{Name: "ttldb_listed", Display: "ttldb, listed", SyncRemoval: true, New: newTTLDBListed}

// writeKinds are the stores and the variants of the write workloads and
// of Heap, whose store the write workload takes over.
func writeKinds() []Kind { return append(Kinds[:len(Kinds):len(Kinds)], Variants...) }

// Clock is a simulated clock for ttldb (Options.Now).
type Clock struct{ ns atomic.Int64 }

// NewClock returns a clock that reads t until advanced.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.ns.Store(t.UnixNano())
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// ---- buntdb ----

// buntStore is an in-memory buntdb (":memory:"); each item is set with
// SetOptions{Expires: true, TTL: ttl}, which its once-a-second background
// pass removes. In Manual mode an OnExpiredSync callback deletes each item,
// as the pass itself does when no callback is set, and notes when the pass
// deleted its first item and its expected last.
type buntStore struct {
	db *buntdb.DB

	expect  atomic.Int64 // how many items the next pass should remove
	removed atomic.Int64 // removed by the current pass
	first   atomic.Int64 // UnixNano of the pass's first deletion
	last    atomic.Int64 // UnixNano of its expect-th deletion
}

// buntBatch is how many items Load writes in one transaction.
const buntBatch = 10_000

func newBunt(cfg Config) Store {
	db, err := buntdb.Open(":memory:")
	if err != nil {
		panic(err)
	}
	s := &buntStore{db: db}
	if cfg.Mode == Manual {
		var c buntdb.Config
		if err := db.ReadConfig(&c); err != nil {
			panic(err)
		}
		c.OnExpiredSync = s.onExpired
		if err := db.SetConfig(c); err != nil {
			panic(err)
		}
	}
	return s
}

// onExpired runs inside the background pass's write transaction, once per
// expired item. It reads the clock only at the first and the expected last
// item, so that timing costs the pass next to nothing.
func (s *buntStore) onExpired(key, _ string, tx *buntdb.Tx) error {
	if s.removed.Load() == 0 {
		s.first.Store(time.Now().UnixNano())
	}
	if _, err := tx.Delete(key); err != nil && err != buntdb.ErrNotFound {
		return err // ErrNotFound is what Delete says of an expired item it deleted
	}
	if s.removed.Add(1) == s.expect.Load() {
		s.last.Store(time.Now().UnixNano())
	}
	return nil
}

func (s *buntStore) Set(key string, doc []byte, ttl time.Duration) {
	v := string(doc)
	err := s.db.Update(func(tx *buntdb.Tx) error {
		_, _, err := tx.Set(key, v, &buntdb.SetOptions{Expires: true, TTL: ttl})
		return err
	})
	if err != nil {
		panic(err)
	}
}

func (s *buntStore) Load(n int, item func(i int, buf []byte) (string, []byte, time.Duration)) {
	var buf []byte
	for lo := 0; lo < n; lo += buntBatch {
		err := s.db.Update(func(tx *buntdb.Tx) error {
			for i := lo; i < min(lo+buntBatch, n); i++ {
				k, doc, ttl := item(i, buf[:0])
				buf = doc
				if _, _, err := tx.Set(k, string(doc), &buntdb.SetOptions{Expires: true, TTL: ttl}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			panic(err)
		}
	}
}

func (s *buntStore) Get(key string) (v string, ok bool) {
	err := s.db.View(func(tx *buntdb.Tx) error {
		x, err := tx.Get(key)
		if err == nil {
			v, ok = x, true
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	return v, ok
}

func (s *buntStore) Resident() int {
	var n int
	err := s.db.View(func(tx *buntdb.Tx) error {
		var err error
		n, err = tx.Len()
		return err
	})
	if err != nil {
		panic(err)
	}
	return n
}

// Expect tells the next AwaitPass how many items the pass should
// remove.
func (s *buntStore) Expect(n int) { s.expect.Store(int64(n)) }

// AwaitPass waits for the next background pass that removes items (it
// runs once a second) and returns how many it removed and the time from its
// first deletion to the expected last one (see Expect), or to the end of
// the pass when it removed another number. That leaves out the pass's
// collection of the expired items before its first deletion, in buntdb's
// favour.
func (s *buntStore) AwaitPass() (int, time.Duration) {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		if s.removed.Load() == 0 {
			continue
		}
		// A read transaction waits for the pass's write transaction.
		s.Resident()
		end := time.Now().UnixNano()
		n := s.removed.Load()
		if n == s.expect.Load() {
			end = s.last.Load()
		}
		took := time.Duration(end - s.first.Load())
		s.removed.Store(0)
		return int(n), took
	}
	return 0, 0
}

func (s *buntStore) ExpiresAt(key string) (time.Time, bool) {
	var at time.Time
	err := s.db.View(func(tx *buntdb.Tx) error {
		d, err := tx.TTL(key)
		at = time.Now().Add(d)
		return err
	})
	return at, err == nil
}

func (s *buntStore) Close() { _ = s.db.Close() }

// ---- go-cache ----

// goCacheStore is a go-cache with a one-second janitor (Live), or none
// (Manual, where the harness calls DeleteExpired).
type goCacheStore struct {
	c *gocache.Cache
}

// janitorInterval is go-cache's cleanup interval, the same as buntdb's
// fixed pass.
const janitorInterval = time.Second

func newGoCache(cfg Config) Store {
	iv := janitorInterval
	if cfg.Mode == Manual {
		iv = 0
	}
	return &goCacheStore{c: gocache.New(gocache.NoExpiration, iv)}
}

func (s *goCacheStore) Set(key string, doc []byte, ttl time.Duration) {
	s.c.Set(key, string(doc), ttl)
}

func (s *goCacheStore) Get(key string) (string, bool) {
	v, ok := s.c.Get(key)
	if !ok {
		return "", false
	}
	return v.(string), true
}

func (s *goCacheStore) Resident() int { return s.c.ItemCount() }

func (s *goCacheStore) RemoveExpired() int {
	n0 := s.c.ItemCount()
	s.c.DeleteExpired()
	return n0 - s.c.ItemCount()
}

func (s *goCacheStore) ExpiresAt(key string) (time.Time, bool) {
	_, at, ok := s.c.GetWithExpiration(key)
	return at, ok
}

// Close drops the items; the janitor goroutine stops only when the cache is
// garbage collected (go-cache stops it from a finalizer).
func (s *goCacheStore) Close() { s.c.Flush() }

// ---- ttlcache ----

// ttlCacheStore is a jellydator/ttlcache with its automatic cleanup started
// (Live) or not (Manual). Touch on hit is off, so that a read does not
// extend the item's life: the same absolute expiry as the other stores.
type ttlCacheStore struct {
	c       *ttlcache.Cache[string, string]
	started bool
}

func newTTLCache(cfg Config) Store {
	c := ttlcache.New[string, string](ttlcache.WithDisableTouchOnHit[string, string]())
	s := &ttlCacheStore{c: c}
	if cfg.Mode == Live {
		go c.Start()
		s.started = true
	}
	return s
}

func (s *ttlCacheStore) Set(key string, doc []byte, ttl time.Duration) {
	s.c.Set(key, string(doc), ttl)
}

func (s *ttlCacheStore) Get(key string) (string, bool) {
	it := s.c.Get(key)
	if it == nil {
		return "", false
	}
	return it.Value(), true
}

func (s *ttlCacheStore) Resident() int {
	m := s.c.Metrics()
	return int(m.Insertions - m.Evictions)
}

func (s *ttlCacheStore) RemoveExpired() int {
	e0 := s.c.Metrics().Evictions
	s.c.DeleteExpired()
	return int(s.c.Metrics().Evictions - e0)
}

func (s *ttlCacheStore) ExpiresAt(key string) (time.Time, bool) {
	it := s.c.Get(key)
	if it == nil {
		return time.Time{}, false
	}
	return it.ExpiresAt(), true
}

func (s *ttlCacheStore) Close() {
	if s.started {
		s.c.Stop()
	}
	s.c.DeleteAll()
}

// ---- golang-lru expirable ----

// expirableStore is a hashicorp/golang-lru/v2 expirable.LRU of unlimited
// size (0), with one TTL for every item, set when it is made: the TTL given
// to Set is ignored. Its cleanup goroutine cannot be stopped; Close purges
// the items so that their memory is freed.
type expirableStore struct {
	c *expirable.LRU[string, string]
}

func newExpirable(cfg Config) Store {
	if cfg.TTL <= 0 {
		panic(fmt.Sprintf("expirable needs Config.TTL, got %v", cfg.TTL))
	}
	return &expirableStore{c: expirable.NewLRU[string, string](0, nil, cfg.TTL)}
}

func (s *expirableStore) Set(key string, doc []byte, _ time.Duration) {
	s.c.Add(key, string(doc))
}

func (s *expirableStore) Get(key string) (string, bool) { return s.c.Get(key) }

func (s *expirableStore) Resident() int { return s.c.Len() }

func (s *expirableStore) Close() { s.c.Purge() }

// Fill writes n items through Load when the store has it, else one Set at a
// time.
func Fill(s Store, n int, item func(i int, buf []byte) (key string, doc []byte, ttl time.Duration)) {
	if l, ok := s.(Loader); ok {
		l.Load(n, item)
		return
	}
	var buf []byte
	for i := range n {
		k, doc, ttl := item(i, buf[:0])
		buf = doc
		s.Set(k, doc, ttl)
	}
}
