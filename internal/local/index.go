package local

import (
	"hash/maphash"

	"github.com/ttldb/ttldb/engine"
)

// btreeDegree is the degree of every B-tree: wide nodes, few levels.
const btreeDegree = 32

// primary is the primary index: every stored key, its document live or
// expired but not yet swept. The key map answers point reads, which take no
// lock (keymap.go); the key order, once a listing has needed it, gives the
// stable order of listings and, through its copy-on-write Clone, their
// snapshots (order.go). Guarded by collection.mu, but for the map's
// lookups.
type primary struct {
	keys  keyMap
	order keyOrder
	walk  *keyWalk // a compaction's walk of the key map, or nil
	bytes int64    // the bodies of the documents held, for Metrics
	sized bool     // count costs, for a quota (quota.go)
	cost  int64    // with sized, the docCost of the documents held
}

// init makes p empty and ready, its order not built.
func (p *primary) init() {
	p.keys.init(maphash.MakeSeed())
	p.order.reset()
}

// presize readies the map of an empty p for about n keys, which a reopen
// is about to load: it then does not grow on the way.
func (p *primary) presize(n int) { p.keys.presize(n) }

// clear drops every entry, for Close.
func (p *primary) clear() {
	p.bytes = 0
	p.keys.clear()
	p.order.reset()
	p.walk = nil
	p.bytes = 0
}

// lookup returns the document stored under key, live or not, or nil, for a
// point read, which holds no lock; open is false once p is cleared. It does
// not allocate.
func (p *primary) lookup(key []byte) (d *engine.Doc, open bool) { return p.keys.lookup(key) }

// get returns the entry of key, its document live or not, or nil, and the
// key's hash, which insert and swap take, so that a write hashes its key
// once. Call it holding collection.mu. It does not allocate.
func (p *primary) get(key []byte) (e *entry, h uint64) { return p.keys.get(key) }

// insert stores d under its key, whose hash is h and which has no entry,
// and returns the new entry.
func (p *primary) insert(d *engine.Doc, h uint64) *entry {
	e := newEntry(d)
	p.bytes += int64(len(d.Body()))
	p.keys.insert(h, d, e)
	p.order.add(e)
	if p.sized {
		p.cost += docCost(d)
	}
	return e
}

// swap stores d, a new document of e's key, whose hash is h, in e and in
// the key's slot. It takes O(1): the order is not touched.
func (p *primary) swap(e *entry, d *engine.Doc, h uint64) {
	p.bytes += int64(len(d.Body()) - len(e.doc().Body()))
	if p.sized {
		p.cost += docCost(d) - docCost(e.doc())
	}
	e.cur.Store(d)
	p.keys.swap(h, d)
}

// remove drops e.
func (p *primary) remove(e *entry) {
	key := e.key()
	p.bytes -= int64(len(e.doc().Body()))
	if p.sized {
		p.cost -= docCost(e.doc())
	}
	p.keys.remove(maphash.String(p.keys.seed, key), key)
	p.order.remove(e)
	if p.walk != nil {
		p.walk.gone = append(p.walk.gone, e)
	}
}

// len returns the number of entries.
func (p *primary) len() int { return p.keys.len() }
