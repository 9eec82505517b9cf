package ttldb

import (
	"hash/maphash"
	"sync"

	"github.com/google/btree"
)

// btreeDegree is the degree of every B-tree: wide nodes, few levels.
const btreeDegree = 32

// primary is the primary index: every stored key, its document live or
// expired but not yet swept. The maps answer point reads; the B-tree gives
// the stable order of listings and, through its copy-on-write Clone, their
// snapshots. Guarded by Collection.mu, but for the maps.
//
// The maps are sharded by the keys' hashes, each shard with a lock of its
// own. Point reads take no lock but their shard's, shared; the writes that
// change a map, which hold Collection.mu, also take the shard's lock, alone,
// for that one change. So a reader waits for at most one change of its own
// shard, never for a sweep batch, a B-tree operation or another shard.
//
// A Go map never gives its memory back, so after most of its documents are
// deleted (a mass expiry), every shard's map is moved to a new one of the
// right size, a few entries per write and a batch per sweep, never all at
// once: each key is then in exactly one of its shard's byKey and old, and
// cursor is the entry from which the B-tree still has entries to move (nil:
// from the first); one removed since still orders by its key.
type primary struct {
	shards [1 << shardBits]shard
	seed   maphash.Seed // of every key's hash: the top bits pick the shard
	moving bool
	cursor *entry
	peak   int // the most entries since the last move
	count  int // the entries
	tree   *btree.BTreeG[*entry]
}

// shardBits gives the number of shards: 16, enough that a reader on one
// core rarely meets a writer of its shard, few enough to cost nothing.
const shardBits = 4

// shard is one part of the key maps.
type shard struct {
	mu    sync.RWMutex
	byKey *docMap // nil once closed
	old   *docMap // nil unless a move is under way
	_     [24]byte
}

// shrinkBelow is the smallest peak worth moving a map for.
const shrinkBelow = 1024

func keyLess(a, b *entry) bool { return a.key() < b.key() }

// init makes p empty and ready.
func (p *primary) init() {
	p.seed = maphash.MakeSeed()
	for i := range p.shards {
		p.shards[i].byKey = newDocMap(p.seed)
	}
	p.tree = btree.NewG(btreeDegree, keyLess)
}

// presize readies the maps of an empty p for about n keys, which a reopen
// is about to load: they then never grow on the way.
func (p *primary) presize(n int) {
	for i := range p.shards {
		p.shards[i].byKey.byHash = make(map[uint64]slot, n>>shardBits+n>>(shardBits+3))
	}
}

// clear drops every entry, for Close.
func (p *primary) clear() {
	for i := range p.shards {
		sh := &p.shards[i]
		sh.mu.Lock()
		sh.byKey, sh.old = nil, nil
		sh.mu.Unlock()
	}
	p.tree, p.moving, p.cursor, p.peak, p.count = nil, false, nil, 0, 0
}

// shard returns the shard of the key whose hash is h.
func (p *primary) shard(h uint64) *shard { return &p.shards[h>>(64-shardBits)] }

// slotOf returns the slot of key, whose hash is h, in sh. Call it holding
// Collection.mu or sh.mu.
func (sh *shard) slotOf(h uint64, key []byte) slot {
	if s := sh.byKey.get(h, key); s.d != nil || sh.old == nil {
		return s
	}
	return sh.old.get(h, key)
}

// lookup returns the document stored under key, live or not, or nil, for a
// point read, which holds no other lock; open is false once p is cleared.
// It does not allocate.
func (p *primary) lookup(key []byte) (d *doc, open bool) {
	h := maphash.Bytes(p.seed, key)
	sh := p.shard(h)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	if sh.byKey == nil {
		return nil, false
	}
	return sh.slotOf(h, key).d, true
}

// get returns the entry of key, its document live or not, or nil, and the
// key's hash, which insert and swap take, so that a write hashes its key
// once. Call it holding Collection.mu. It does not allocate.
func (p *primary) get(key []byte) (e *entry, h uint64) {
	h = maphash.Bytes(p.seed, key)
	return p.shard(h).slotOf(h, key).e, h
}

// insert stores d under its key, whose hash is h and which has no entry,
// and returns the new entry.
func (p *primary) insert(d *doc, h uint64) *entry {
	e := newEntry(d)
	sh := p.shard(h)
	sh.mu.Lock()
	sh.byKey.put(h, slot{d, e})
	sh.mu.Unlock()
	p.count++
	p.peak = max(p.peak, p.count)
	p.tree.ReplaceOrInsert(e)
	p.move(8)
	return e
}

// swap stores d, a new document of e's key, whose hash is h, in e and in
// e's slot. It takes O(1): the tree is not touched.
func (p *primary) swap(e *entry, d *doc, h uint64) {
	e.cur.Store(d)
	sh := p.shard(h)
	sh.mu.Lock()
	if !sh.byKey.replace(h, slot{d, e}) && sh.old != nil {
		sh.old.replace(h, slot{d, e}) // the key's slot has yet to move
	}
	sh.mu.Unlock()
	p.move(8) // a shrinking map moves on with every write
}

// remove drops e.
func (p *primary) remove(e *entry) {
	key := e.key()
	h := maphash.String(p.seed, key)
	sh := p.shard(h)
	sh.mu.Lock()
	if !sh.byKey.remove(h, key) && sh.old != nil {
		sh.old.remove(h, key)
	}
	sh.mu.Unlock()
	p.count--
	p.tree.Delete(e)
	if !p.moving && p.peak >= shrinkBelow && p.count < p.peak/4 {
		p.startMove()
	}
	p.move(8)
}

// startMove begins to move every shard's map to a new one. No size hint:
// a map made for n entries allocates them all at once, under the lock; one
// without grows a small table at a time.
func (p *primary) startMove() {
	for i := range p.shards {
		sh := &p.shards[i]
		sh.mu.Lock()
		sh.old, sh.byKey = sh.byKey, newDocMap(p.seed)
		sh.mu.Unlock()
	}
	p.moving, p.cursor = true, nil
}

// move moves up to n entries from their shard's old map to its byKey, in
// key order, and ends the move when none is left.
func (p *primary) move(n int) {
	if !p.moving {
		return
	}
	end := true
	step := func(e *entry) bool {
		if n == 0 {
			p.cursor, end = e, false
			return false
		}
		key := e.key()
		h := maphash.String(p.seed, key)
		sh := p.shard(h)
		sh.mu.Lock()
		if sh.old.remove(h, key) {
			sh.byKey.put(h, slot{e.doc(), e})
			n--
		}
		sh.mu.Unlock()
		return true
	}
	if p.cursor == nil {
		p.tree.Ascend(step)
	} else {
		p.tree.AscendGreaterOrEqual(p.cursor, step)
	}
	if end || p.moved() {
		for i := range p.shards {
			sh := &p.shards[i]
			sh.mu.Lock()
			sh.old = nil
			sh.mu.Unlock()
		}
		p.moving, p.cursor, p.peak = false, nil, p.count
	}
}

// moved reports whether every shard's old map is empty. Call it holding
// Collection.mu.
func (p *primary) moved() bool {
	for i := range p.shards {
		if p.shards[i].old.len() > 0 {
			return false
		}
	}
	return true
}

// len returns the number of entries.
func (p *primary) len() int { return p.count }
