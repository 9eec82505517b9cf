package ttldb

import "github.com/google/btree"

// buckets is one side of the expiry index: the entries that fall due at
// each second, a bucket per second, the buckets in a B-tree by second.
// Expiry is in whole seconds, so many entries share a bucket and the tree
// stays small; each entry knows its slot in its bucket, so that moving an
// entry (a write) takes O(1) once its bucket is found, and writes in one
// second add to one bucket, which is kept at hand. Guarded by
// Collection.mu.
type buckets struct {
	tree  *btree.BTreeG[*bucket]
	hot   *bucket // the bucket last added to
	probe bucket  // the search key, here so that a search does not allocate
	n     int     // the entries in all buckets
}

// bucket holds the entries due at the second at; entry.slot is each one's
// index in items.
type bucket struct {
	at    int64
	items []*entry
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
	e.slot = int32(len(b.items))
	b.items = append(b.items, e)
	bs.n++
}

// remove takes e out of the bucket of the second at, which holds it: the
// last entry of the bucket takes its slot.
func (bs *buckets) remove(e *entry, at int64) {
	b := bs.find(at)
	i, last := e.slot, len(b.items)-1
	moved := b.items[last]
	b.items[i], moved.slot = moved, i
	b.items[last] = nil
	b.items = b.items[:last]
	e.slot = -1
	bs.n--
	switch {
	case last == 0:
		bs.drop(b)
	case cap(b.items) > 64 && last < cap(b.items)/4:
		b.items = append([]*entry(nil), b.items...) // give back most of the room
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
		for n < max && len(b.items) > 0 {
			last := len(b.items) - 1
			e := b.items[last]
			b.items[last] = nil
			b.items = b.items[:last]
			e.slot = -1
			bs.n--
			drop(e)
			n++
		}
		if len(b.items) == 0 {
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
		n += len(b.items)
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
