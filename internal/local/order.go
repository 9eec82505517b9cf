package local

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/google/btree"
	"github.com/ttldb/ttldb/engine"
)

// keyOrder is the primary index's order of keys: a B-tree of every entry
// by key, which listings, queries that scan, index builds and compactions
// read through snapshots (snapshot.go). Point reads, writes and the
// sweeper need no order, and keeping it is most of what a create and a
// removal cost at a million documents (a B-tree insert or delete whose
// every comparison reads a key out of the caches). So it is built on
// demand: the first call that needs it builds it, off the lock, from the
// key map, while writers note what they change meanwhile, and help apply
// it once the sort is done (see note); from then on every write and
// removal keeps it. A collection that is never listed never pays for it.
//
// Guarded by collection.mu.
//
// Snapshots read views of the tree (shared.go): a write that adds or
// removes a key copies the nodes on its path only while a view taken
// since the last copy is open, so a listing or scanning query that ended
// costs the writes after it nothing.
type keyOrder struct {
	sharedTree[*entry]             // t: nil until built
	build              *orderBuild // the build in progress, or nil
	ready              atomic.Bool // t is set: read without the lock, so that a listing takes it once
}

// orderBuild is a build of the order in progress: done is closed when it
// ends, built or not; changes are the entries added and removed since it
// read the key map, in their order, but for those applied to tree, the
// sorted order, once the sort is done.
type orderBuild struct {
	done    chan struct{}
	ended   bool                  // done is closed
	tree    *btree.BTreeG[*entry] // nil until sorted; then changes are applied to it
	changes changeQueue           // still to apply, oldest first
	applied int                   // changes applied, by the build and by writers (for tests)
}

// changeQueue is a queue of changes in chunks of changeChunk, so that no
// write that adds one copies those before it, however long the backlog.
type changeQueue struct {
	chunks [][]orderChange
	head   int // changes taken from chunks[0]
	n      int // changes queued
}

const changeChunk = 1024

func (q *changeQueue) push(ch orderChange) {
	if k := len(q.chunks); k == 0 || len(q.chunks[k-1]) == changeChunk {
		q.chunks = append(q.chunks, make([]orderChange, 0, changeChunk))
	}
	last := &q.chunks[len(q.chunks)-1]
	*last = append(*last, ch)
	q.n++
}

// pop takes the oldest change; call it with q not empty.
func (q *changeQueue) pop() orderChange {
	ch := q.chunks[0][q.head]
	q.head++
	q.n--
	if q.head == len(q.chunks[0]) {
		q.chunks[0] = nil
		q.chunks, q.head = q.chunks[1:], 0
	}
	return ch
}

type orderChange struct {
	e       *entry
	removed bool
}

func keyLess(a, b *entry) bool { return a.key() < b.key() }

// add puts e, a new entry, in the order.
func (o *keyOrder) add(e *entry) {
	switch {
	case o.t != nil:
		o.own()
		o.t.ReplaceOrInsert(e)
	case o.build != nil:
		o.note(orderChange{e: e})
	}
}

// remove takes e out of the order.
func (o *keyOrder) remove(e *entry) {
	switch {
	case o.t != nil:
		o.own()
		o.t.Delete(e)
	case o.build != nil:
		o.note(orderChange{e: e, removed: true})
	}
}

// orderHelp is how many changes each change noted during a build applies
// once the build has sorted (its own among them, once its turn comes).
const orderHelp = 4

// note records ch, a change made while the order is built, and, once the
// build has sorted what it read, applies orderHelp of the changes noted,
// oldest first, as writes help the sweeper (sweeper.go). The build itself
// applies changes only in holds between which writers may win the lock
// again and again: without the help, writers that saturate the cores
// would note changes faster than it applies them, and it would never end.
// With it, each change noted after the sort shrinks the backlog by
// orderHelp-1 = 3, however heavy the load, and the build ends once the
// writers have noted a third as many changes as they noted during the read
// and the sort (fewer, as the build's own holds apply some): its length is
// bounded by theirs (see needOrder). A write's hold of the lock grows by at
// most orderHelp B-tree inserts or deletes, O(log n) each, a few
// microseconds at a million keys, against the one it costs once the order
// is built: far less than a sweep batch (R5).
func (o *keyOrder) note(ch orderChange) {
	b := o.build
	b.changes.push(ch)
	if b.tree != nil {
		o.catchUp(b, orderHelp)
	}
}

// catchUp applies up to n of b's changes to its tree, in their order; once
// none is left, the tree is the order and b ends.
func (o *keyOrder) catchUp(b *orderBuild, n int) {
	for ; n > 0 && b.changes.n > 0; n-- {
		if ch := b.changes.pop(); ch.removed {
			b.tree.Delete(ch.e)
		} else {
			b.tree.ReplaceOrInsert(ch.e)
		}
		b.applied++
	}
	if b.changes.n == 0 {
		o.t, o.readers, o.build = b.tree, nil, nil // a new tree: no view of it yet
		o.ready.Store(true)
		b.end()
	}
}

// end closes b.done, once: a build ends when the order is made from it, or
// when a Close or a failure of the files makes it useless.
func (b *orderBuild) end() {
	if !b.ended {
		b.ended = true
		close(b.done)
	}
}

// orderHook, when set (by tests), is called by a build of the key order
// once it has read the key map, without the lock; orderHoldHook after each
// hold of the lock, without it, with the entries it read and the changes it
// applied.
var (
	orderHook     func(c *collection)
	orderHoldHook func(c *collection, read, applied int)
)

// reset empties o: not built, none building.
func (o *keyOrder) reset() {
	o.t, o.readers, o.build = nil, nil, nil // the views keep their nodes, which no one changes any more
	o.ready.Store(false)
}

// built reports whether the order is there to read.
func (o *keyOrder) built() bool { return o.t != nil }

// needOrder builds the key order unless it is built, for a call that is
// about to take a snapshot; a call that finds another building it waits
// for that build. Call it without mu held. The build takes O(n log n) for
// n keys, about half a second for a million, and holds the lock no longer
// than the sweeper's batches do (R5, R12): it reads the key map a few
// tables at a time, sorts without the lock, and applies the changes made
// meanwhile a chunk at a time, letting waiting calls go first between two
// holds, as the sweeper does.
//
// It ends under any load of writers: the read takes about n/orderReadSlots
// holds, each of which moves on through the map by hashes whatever the
// writers add; the sort takes no lock; and from then on every change a
// writer makes applies orderHelp changes noted (see note), so writers that
// never pause apply the backlog of the read and the sort themselves, after
// a third as many changes. With two writers saturating two cores, the first
// listing of 1,000,000 documents took 4 to 8 times as long as with none
// (BenchmarkKeyOrderBuildUnderWriters); before the help it never ended.
//
// Errors: [engine.ErrClosed]; ctx's error, wrapped with op, when it ends first:
// the build goes on for the calls that wait for it, or that come later.
func (c *collection) needOrder(ctx context.Context, op string) error {
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
			select {
			case <-b.done:
			case <-ctx.Done(): // the build goes on for the calls that wait for it still
				return engine.ContextError(ctx, op)
			}
			continue
		}
		b := &orderBuild{done: make(chan struct{})}
		o.build = b // from here on, writers note their changes in b
		// The build runs on a goroutine of its own, so that the call that
		// starts it waits for it as the others do, until its context ends
		// (R16). Added under mu, which Close takes to mark the collection
		// closed before it waits for builds: none starts after that wait.
		c.building.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.building.Done()
			c.buildOrder(b)
		}()
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
// in b meanwhile, in their order, helped by the writers (note). Each key's
// last change decides whether it is in the order, and a key no change
// touched is read as it was when b began: so the order holds exactly the
// map's keys, however the reading and the writes interleave. A Close
// meanwhile drops it.
func (c *collection) buildOrder(b *orderBuild) {
	o := &c.prim.order
	var read [][]*entry
	from, done := uint64(0), false
	for !done {
		// A hold reads its budget and at most one table more: a chunk of
		// that size, made before the hold, never grows (and copies) in it.
		es := make([]*entry, 0, orderReadSlots+maxKeyGroups*groupSlots)
		if !c.holdBuild(b) {
			return
		}
		seen := c.handoff.taken.Load()
		es, from, done = c.prim.keys.entriesFrom(es, from, orderReadSlots)
		c.mu.Unlock()
		read = append(read, es)
		if orderHoldHook != nil {
			orderHoldHook(c, len(es), 0)
		}
		c.yield(seen)
	}
	if orderHook != nil {
		orderHook(c)
	}
	t := orderOf(read)
	for {
		if !c.holdBuild(b) {
			return
		}
		b.tree = t // from here on, writers help (note)
		seen, start, had := c.handoff.taken.Load(), time.Now(), b.applied
		for n := 0; !b.ended && n < orderApplied && (n == 0 || time.Since(start) < MaxSweepHold); n += 32 {
			o.catchUp(b, 32)
		}
		ended, applied := b.ended, b.applied-had
		c.mu.Unlock()
		if orderHoldHook != nil {
			orderHoldHook(c, 0, applied)
		}
		if ended {
			return
		}
		c.yield(seen)
	}
}

// holdBuild takes the lock for the next hold of b and reports true, unless
// b has ended meanwhile: made the order by a writer's help, or made useless
// by a Close. Then it ends b and returns false, without the lock.
func (c *collection) holdBuild(b *orderBuild) bool {
	c.mu.Lock()
	o := &c.prim.order
	if o.build == b && !c.unusable() {
		return true
	}
	if o.build == b {
		o.build = nil
	}
	b.end()
	c.mu.Unlock()
	return false
}

// orderKey is an entry to sort, its key, and a word of the key's bytes.
type orderKey struct {
	w uint64
	k string
	e *entry
}

// orderOf returns a B-tree of the entries of read, whose keys differ, in
// O(n log n).
func orderOf(read [][]*entry) *btree.BTreeG[*entry] {
	n := 0
	for _, es := range read {
		n += len(es)
	}
	ks := make([]orderKey, 0, n)
	for _, es := range read {
		for _, e := range es {
			ks = append(ks, orderKey{k: e.key(), e: e})
		}
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
