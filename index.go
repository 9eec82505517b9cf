package ttldb

import (
	"github.com/google/btree"
)

// btreeDegree is the degree of every B-tree: wide nodes, few levels.
const btreeDegree = 32

// primary is the primary index: every stored key, its document live or
// expired but not yet swept. The map answers point reads; the B-tree gives
// the stable order of listings and, through its copy-on-write Clone, their
// snapshots. Guarded by Collection.mu.
//
// A Go map never gives its memory back, so after most of its documents are
// deleted (a mass expiry), the map is moved to a new one of the right size,
// a few entries per write and a batch per sweep, never all at once: each
// document is then in exactly one of byKey and old, and cursor is the key
// from which the B-tree still has documents to move.
type primary struct {
	byKey  *docMap
	old    *docMap // nil unless a move is under way
	cursor string
	peak   int // the most documents since the last move
	tree   *btree.BTreeG[*entry]
}

// shrinkBelow is the smallest peak worth moving a map for.
const shrinkBelow = 1024

func keyLess(a, b *entry) bool { return a.key() < b.key() }

func newPrimary() primary {
	return primary{byKey: newDocMap(), tree: btree.NewG(btreeDegree, keyLess)}
}

// get returns the entry of key, its document live or not, or nil. It does
// not allocate.
func (p *primary) get(key []byte) *entry {
	if e := p.byKey.get(key); e != nil || p.old == nil {
		return e
	}
	return p.old.get(key)
}

// insert stores d under its key, which has no entry, and returns the new
// entry.
func (p *primary) insert(d *doc) *entry {
	e := newEntry(d)
	p.byKey.put(e)
	p.move(8)
	p.tree.ReplaceOrInsert(e)
	p.peak = max(p.peak, p.len())
	return e
}

// remove drops e.
func (p *primary) remove(e *entry) {
	key := e.key()
	p.byKey.remove(key)
	p.tree.Delete(e)
	if p.old != nil {
		p.old.remove(key)
		p.move(8)
	} else if p.peak >= shrinkBelow && p.len() < p.peak/4 {
		// No size hint: a map made for n entries allocates them all at once,
		// under the lock; one without grows a small table at a time.
		p.old, p.byKey, p.cursor = p.byKey, newDocMap(), ""
	}
}

// move moves up to n entries from old to byKey, in key order, and ends the
// move when none is left.
func (p *primary) move(n int) {
	if p.old == nil {
		return
	}
	end := true
	p.tree.AscendGreaterOrEqual(pivot(p.cursor), func(e *entry) bool {
		key := e.key()
		if n == 0 {
			p.cursor, end = key, false
			return false
		}
		if p.old.remove(key) {
			p.byKey.put(e)
			n--
		}
		return true
	})
	if end || p.old.len() == 0 {
		p.old, p.cursor, p.peak = nil, "", p.byKey.len()
	}
}

func (p *primary) len() int {
	if p.old == nil {
		return p.byKey.len()
	}
	return p.byKey.len() + p.old.len()
}
