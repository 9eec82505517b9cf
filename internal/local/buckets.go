package local

import "github.com/google/btree"

// buckets is one side of the expiry index: the entries that fall due at
// each second, a bucket per second, the buckets in a B-tree by second.
// Expiry is in whole seconds, so many entries share a bucket and the tree
// stays small; each entry knows its slot in its bucket, so that moving an
// entry (a write) takes O(1) once its bucket is found, and writes in one
// second add to one bucket, which is kept at hand. Guarded by
// collection.mu.
type buckets struct {
	tree  *btree.BTreeG[*bucket]
	hot   *bucket // the bucket last added to
	probe bucket  // the search key, here so that a search does not allocate
	n     int     // the entries in all buckets
}

// bucket holds the entries due at the second at, in chunks of chunkSize
// (the first grows to it from a few), all full but the last: entry.slot is
// each one's index in them. Chunks, not one slice, so that a bucket of a
// busy second never copies itself to grow, under the lock.
type bucket struct {
	at     int64
	chunks [][]*entry
	n      int
}

// chunkSize is the size of a bucket's chunks.
const chunkSize = 256

// entryAt returns the entry at slot i.
func (b *bucket) entryAt(i int32) *entry { return b.chunks[i/chunkSize][i%chunkSize] }

// push appends e, which takes slot n.
func (b *bucket) push(e *entry) {
	last := len(b.chunks) - 1
	if last < 0 || len(b.chunks[last]) == chunkSize {
		size := chunkSize
		if last < 0 {
			size = 4 // most seconds hold few entries
		}
		b.chunks = append(b.chunks, make([]*entry, 0, size))
		last++
	}
	b.chunks[last] = append(b.chunks[last], e)
	e.slot = int32(b.n)
	b.n++
}

// pop takes the entry of the last slot out. A chunk it empties stays, a
// spare, until the next pop: a bucket whose size goes back and forth across
// a chunk's end does not allocate and free a chunk each time.
func (b *bucket) pop() *entry {
	last := len(b.chunks) - 1
	if len(b.chunks[last]) == 0 {
		b.chunks[last] = nil
		b.chunks = b.chunks[:last]
		last--
	}
	c := b.chunks[last]
	e := c[len(c)-1]
	c[len(c)-1] = nil
	b.chunks[last] = c[:len(c)-1]
	b.n--
	e.slot = -1
	return e
}

func bucketLess(a, b *bucket) bool { return a.at < b.at }

func newBuckets() buckets { return buckets{tree: btree.NewG(btreeDegree, bucketLess)} }

// find returns the bucket of the second at, or nil. It takes O(log b) for
// b buckets, O(1) for the bucket last added to.
func (bs *buckets) find(at int64) *bucket {
	if bs.hot != nil && bs.hot.at == at {
		return bs.hot
	}
	bs.probe.at = at
	b, _ := bs.tree.Get(&bs.probe)
	return b
}

// add puts e in the bucket of the second at.
func (bs *buckets) add(e *entry, at int64) {
	b := bs.find(at)
	if b == nil {
		b = &bucket{at: at}
		bs.tree.ReplaceOrInsert(b)
	}
	bs.hot = b
	b.push(e)
	bs.n++
}

// remove takes e out of the bucket of the second at, which holds it: the
// last entry of the bucket takes its slot.
func (bs *buckets) remove(e *entry, at int64) {
	b := bs.find(at)
	i := e.slot
	if moved := b.pop(); moved != e {
		b.chunks[i/chunkSize][i%chunkSize], moved.slot = moved, i
		e.slot = -1
	}
	bs.n--
	if b.n == 0 {
		bs.drop(b)
	}
}

// drop deletes an empty bucket.
func (bs *buckets) drop(b *bucket) {
	bs.tree.Delete(b)
	if bs.hot == b {
		bs.hot = nil
	}
}

// pop takes up to max entries out of the buckets of the seconds at or
// before limit, the earliest first, calls drop for each, and returns how
// many it took.
func (bs *buckets) pop(limit int64, max int, drop func(*entry)) int {
	n := 0
	for n < max {
		b, ok := bs.tree.Min()
		if !ok || b.at > limit {
			break
		}
		for n < max && b.n > 0 {
			e := b.pop()
			bs.n--
			drop(e)
			n++
		}
		if b.n == 0 {
			bs.drop(b)
		}
	}
	return n
}

// count returns how many entries are in the buckets of the seconds at or
// before limit, in O(log b + k) for the k buckets it counts.
func (bs *buckets) count(limit int64) int {
	n := 0
	bs.tree.Ascend(func(b *bucket) bool {
		if b.at > limit {
			return false
		}
		n += b.n
		return true
	})
	return n
}

// first returns the earliest second of a bucket, and ok false when there
// is none.
func (bs *buckets) first() (at int64, ok bool) {
	b, ok := bs.tree.Min()
	if !ok {
		return 0, false
	}
	return b.at, true
}
