package bench

import (
	"strconv"
	"sync"
	"time"
)

// KeyLen is the length of every key: "key:" and ten digits.
const KeyLen = 14

// Key returns the key of item i, "key:0000000042" for 42. It allocates a
// fresh string.
func Key(i int) string {
	var b [KeyLen]byte
	return string(appendKey(b[:0], "key:", i))
}

// appendKey appends prefix and i as ten zero-padded digits.
func appendKey(dst []byte, prefix string, i int) []byte {
	dst = append(dst, prefix...)
	var d [10]byte
	for j := 9; j >= 0; j-- {
		d[j] = byte('0' + i%10)
		i /= 10
	}
	return append(dst, d[:]...)
}

// Keys returns the keys of items 0 to n-1, shared by the benchmarks of one
// process; the slice must not be modified. Stores are loaded and written
// with these strings.
func Keys(n int) []string { return loadKeys.first(n) }

// CallerKeys returns keys equal to Keys(n), each in bytes of its own. A
// caller's key (one parsed from a request, say) never shares its bytes with
// the key a store keeps, so a store that compares keys has to load its own;
// with Keys, Go's string comparison would see one pointer and skip that.
func CallerKeys(n int) []string { return callerKeys.first(n) }

var loadKeys, callerKeys keySet

// keySet is a lazily built slice of keys.
type keySet struct {
	mu   sync.Mutex
	keys []string
}

// first returns the keys of items 0 to n-1, building them on first use.
func (s *keySet) first(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.keys) < n {
		s.keys = make([]string, n)
		for i := range s.keys {
			s.keys[i] = Key(i)
		}
	}
	return s.keys[:n]
}

// A Doc builds the value of an item: a compact JSON document of about 200
// bytes whose "id" is the item's key. Every store is given the same bytes;
// ttldb reads the id and the ttl from them, the peers store them as an
// opaque value and take the TTL as an argument.
//
// The document carries "ttl" (seconds) when the TTL is given per item,
// which is how ttldb is told a document's own TTL (Cosmos DB's per-item
// ttl); with ttl 0 the member is left out and the document inherits the
// collection's DefaultTTL.
type Doc struct {
	tmpl []byte
	idAt int // tmpl[idAt:idAt+10] are the id's digits
	ttl  int64
}

// body is the document after its id and ttl: a session-like record.
const body = `"type":"session","user":"u-4711","tenant":"acme",` +
	`"status":"active","roles":["reader","writer"],` +
	`"createdAt":"2026-11-21T22:24:00Z","device":{"os":"linux","app":"b/1"}}`

// NewDoc returns the builder of documents with the given ttl in seconds (0:
// no ttl member).
func NewDoc(ttlSeconds int64) *Doc {
	d := &Doc{ttl: ttlSeconds}
	d.tmpl = append(d.tmpl, `{"id":"key:`...)
	d.idAt = len(d.tmpl)
	d.tmpl = append(d.tmpl, "0000000000\""...)
	if ttlSeconds != 0 {
		d.tmpl = append(d.tmpl, `,"ttl":`...)
		d.tmpl = strconv.AppendInt(d.tmpl, ttlSeconds, 10)
	}
	d.tmpl = append(d.tmpl, ',')
	d.tmpl = append(d.tmpl, body...)
	return d
}

// DocFor returns the builder for a TTL, rounded up to whole seconds, as
// ttldb's ttl is.
func DocFor(ttl time.Duration) *Doc {
	s := int64((ttl + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	docsMu.Lock()
	defer docsMu.Unlock()
	d, ok := docsCache[s]
	if !ok {
		d = NewDoc(s)
		docsCache[s] = d
	}
	return d
}

var (
	docsMu    sync.Mutex
	docsCache = map[int64]*Doc{}
)

// Len is the length of every document the builder makes.
func (d *Doc) Len() int { return len(d.tmpl) }

// Append appends the document of item i to dst.
func (d *Doc) Append(dst []byte, i int) []byte {
	n := len(dst)
	dst = append(dst, d.tmpl...)
	b := dst[n+d.idAt : n+d.idAt+10]
	for j := 9; j >= 0; j-- {
		b[j] = byte('0' + i%10)
		i /= 10
	}
	return dst
}

// rng is a small, fast, allocation-free random number generator
// (xorshift64*), one per goroutine.
type rng uint64

func newRNG(seed uint64) rng { return rng(seed*0x9E3779B97F4A7C15 | 1) }

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return x * 2685821657736338717
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int { return int((r.next() >> 1) % uint64(n)) }
