package ttldb

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/google/btree"
)

// keyOrder is the primary index's order of keys: a B-tree of every entry
// by key, which listings, queries that scan, index builds and compactions
// read through snapshots (snapshot.go). Point reads, writes and the
// sweeper need no order, and keeping it is most of what a create and a
// removal cost at a million documents (a B-tree insert or delete whose
// every comparison reads a key out of the caches). So it is built on
// demand: the first call that needs it builds it, off the lock, from the
// key map, while writers note what they change meanwhile; from then on
// every write and removal keeps it. A collection that is never listed
// never pays for it.
//
// Guarded by Collection.mu.
type keyOrder struct {
	tree  *btree.BTreeG[*entry] // nil until built
	build *orderBuild           // the build in progress, or nil
	ready atomic.Bool           // tree is set: read without the lock, so that a listing takes it once
}

// orderBuild is a build of the order in progress: done is closed when it
// ends, built or not; changes are the entries added and removed since it
// read the key map, in their order.
type orderBuild struct {
	done    chan struct{}
	changes []orderChange
}

type orderChange struct {
	e       *entry
	removed bool
}

func keyLess(a, b *entry) bool { return a.key() < b.key() }

// add puts e, a new entry, in the order.
func (o *keyOrder) add(e *entry) {
	switch {
	case o.tree != nil:
		o.tree.ReplaceOrInsert(e)
	case o.build != nil:
		o.build.changes = append(o.build.changes, orderChange{e: e})
	}
}

// remove takes e out of the order.
func (o *keyOrder) remove(e *entry) {
	switch {
	case o.tree != nil:
		o.tree.Delete(e)
	case o.build != nil:
		o.build.changes = append(o.build.changes, orderChange{e: e, removed: true})
	}
}

// orderHook, when set (by tests), is called by a build of the key order
// once it has read the key map, without the lock; orderHoldHook at the end
// of each hold of the lock, with the entries it read and the changes it
// applied.
var (
	orderHook     func(c *Collection)
	orderHoldHook func(read, applied int)
)

// reset empties o: not built, none building.
func (o *keyOrder) reset() {
	o.tree, o.build = nil, nil
	o.ready.Store(false)
}

// dropBuild ends b, which a Close or a failure of the files made useless.
func (o *keyOrder) dropBuild(b *orderBuild) {
	if o.build == b {
		o.build = nil
	}
}

// built reports whether the order is there to read.
func (o *keyOrder) built() bool { return o.tree != nil }

// needOrder builds the key order unless it is built, for a call that is
// about to take a snapshot; a call that finds another building it waits
// for that build. Call it without mu held. The build takes O(n log n) for
// n keys, about half a second for a million, and holds the lock no longer
// than the sweeper's batches do (R5, R12): it reads the key map a few
// tables at a time, sorts without the lock, and applies the changes made
// meanwhile a chunk at a time, letting waiting calls go first between two
// holds, as the sweeper does.
//
// Errors: [ErrClosed].
func (c *Collection) needOrder(op string) error {
	if c.prim.order.ready.Load() {
		return nil // the caller takes the lock and checks for Close, which alone clears the order
	}
	for {
		c.lock()
		o := &c.prim.order
		switch {
		case c.unusable():
			c.mu.Unlock()
			return c.errClosed(op)
		case o.built():
			c.mu.Unlock()
			return nil
		case o.build != nil:
			b := o.build
			c.mu.Unlock()
			<-b.done
			continue
		}
		b := &orderBuild{done: make(chan struct{})}
		o.build = b // from here on, writers note their changes in b
		c.mu.Unlock()
		c.buildOrder(b)
	}
}

// Bounds of one hold of the lock by a build of the key order: slots of the
// key map read, and changes applied (also bounded by [MaxSweepHold]).
const (
	orderReadSlots = 2 * maxKeyGroups * groupSlots
	orderApplied   = 256
)

// buildOrder builds the order b stands for and makes it the collection's:
// it reads the key map's entries, sorts them, and applies the changes noted
// in b meanwhile, in their order. Each key's last change decides whether
// it is in the order, and a key no change touched is read as it was when b
// began: so the order holds exactly the map's keys, however the reading and
// the writes interleave. A Close meanwhile drops it.
func (c *Collection) buildOrder(b *orderBuild) {
	defer close(b.done)
	o := &c.prim.order
	var es []*entry
	from, done := uint64(0), false
	for !done {
		c.mu.Lock()
		if o.build != b || c.unusable() {
			o.dropBuild(b)
			c.mu.Unlock()
			return
		}
		seen, had := c.handoff.taken.Load(), len(es)
		es, from, done = c.prim.keys.entriesFrom(es, from, orderReadSlots)
		if orderHoldHook != nil {
			orderHoldHook(len(es)-had, 0)
		}
		c.mu.Unlock()
		c.yield(seen)
	}
	if orderHook != nil {
		orderHook(c)
	}
	t := orderOf(es)
	for applied := 0; ; {
		c.mu.Lock()
		if o.build != b || c.unusable() {
			o.dropBuild(b)
			c.mu.Unlock()
			return
		}
		seen, start, had := c.handoff.taken.Load(), time.Now(), applied
		for n := 0; applied < len(b.changes) && n < orderApplied && (n%32 != 0 || time.Since(start) < MaxSweepHold); n++ {
			if ch := b.changes[applied]; ch.removed {
				t.Delete(ch.e)
			} else {
				t.ReplaceOrInsert(ch.e)
			}
			applied++
		}
		if orderHoldHook != nil {
			orderHoldHook(0, applied-had)
		}
		if applied == len(b.changes) {
			o.tree, o.build = t, nil
			o.ready.Store(true)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		c.yield(seen)
	}
}

// orderKey is an entry to sort, its key, and a word of the key's bytes.
type orderKey struct {
	w uint64
	k string
	e *entry
}

// orderOf returns a B-tree of es, whose keys differ, in O(n log n).
func orderOf(es []*entry) *btree.BTreeG[*entry] {
	ks := make([]orderKey, len(es))
	for i, e := range es {
		ks[i] = orderKey{k: e.key(), e: e}
	}
	sortKeys(ks, 0)
	t := btree.NewG(btreeDegree, keyLess)
	for _, k := range ks {
		t.ReplaceOrInsert(k.e) // the last item each time: the comparisons read keys just read
	}
	return t
}

// sortKeys sorts ks, whose keys share their first off bytes, by key: by
// the eight bytes from off, then each run that shares them by the next
// eight. Sorting words, not strings, keeps the comparisons in the slice:
// the keys' bytes, far apart in memory, are read once a round.
func sortKeys(ks []orderKey, off int) {
	longest := 0
	for i := range ks {
		ks[i].w = wordAt(ks[i].k, off)
		longest = max(longest, len(ks[i].k))
	}
	if longest <= off+8 { // the words hold all of every key but trailing zero bytes
		slices.SortFunc(ks, func(a, b orderKey) int { return strings.Compare(a.k, b.k) })
		return
	}
	slices.SortFunc(ks, func(a, b orderKey) int { return cmp.Compare(a.w, b.w) })
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j].w == ks[i].w {
			j++
		}
		if j-i > 1 {
			sortKeys(ks[i:j], off+8)
		}
		i = j
	}
}

// wordAt returns the eight bytes of k from off, big-endian, zero past its
// end: words compare as the bytes do, but that a key ending in the word
// and a longer one going on with zero bytes tie.
func wordAt(k string, off int) uint64 {
	if off+8 <= len(k) {
		return binary.BigEndian.Uint64(unsafe.Slice(unsafe.StringData(k[off:]), 8))
	}
	var b [8]byte
	if off < len(k) {
		copy(b[:], k[off:])
	}
	return binary.BigEndian.Uint64(b[:])
}
