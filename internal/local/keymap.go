package local

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
)

// keyMap maps every stored key to its entry and the entry's document. Point
// reads (lookup) take no lock and write no shared memory, so they never
// wait for a writer or the sweeper and never slow one down; everything
// else is a writer's, and writers hold collection.mu, one at a time.
//
// It is an extendible hash table, as Go's own maps are: a directory,
// indexed by the top bits of a key's hash, of tables of at most
// maxKeyGroups groups of 8 slots, open addressing over groups, each slot
// with a control byte (empty, deleted, or 7 bits of the key's hash). A slot
// holds the document and the entry, 16 bytes, and no key: a probe compares
// the key of the document in a slot whose control byte matches.
//
// A writer changes a slot with atomic stores: a reader sees a slot's
// document before its control byte says it is there, and never a document
// of another key under a matching key. A table that fills is rebuilt at
// twice its size, or split in two by one more bit of the hash, and one
// mostly emptied is rebuilt at half its size: the writer builds the new
// tables aside and publishes them with one atomic store per directory slot,
// and never changes a table once replaced. A reader that loaded the old
// table reads it as it was when it was replaced, a state current during the
// read: a read is linearizable. Each rebuild touches one table, at most
// 8 * maxKeyGroups keys, so no write waits for more.
type keyMap struct {
	_      cacheLinePad           // what readers load on lines no write changes
	dir    atomic.Pointer[keyDir] // nil once cleared
	seed   maphash.Seed
	_      cacheLinePad
	n      int        // keys
	moving []movedKey // a rebuild's scratch space
}

// keyDir is the directory: the table of a key whose hash is h is
// tables[h>>shift]. A table of local depth d is in the 1<<(depth-d)
// consecutive slots whose indexes share their top d bits.
type keyDir struct {
	shift  uint // 64 - depth
	tables []atomic.Pointer[keyTable]
}

// keyTable is one open-addressing table. Its groups are probed from the
// one that bits 7 and up of the hash pick, by triangular steps, which visit
// every group. Some slot is always empty, and a group with an empty slot
// ends every probe that reaches it: no key is placed past it.
type keyTable struct {
	depth  uint   // its local depth: its keys' hashes share their top depth bits
	mask   uint64 // len(groups) - 1, a power of two less one
	groups []keyGroup
	_      cacheLinePad // readers load the fields above, writers change those below
	live   int          // keys (the writer's)
	used   int          // keys and deleted slots (the writer's)
	_      cacheLinePad // and the next table's fields that readers load
}

// keyGroup is 8 slots and their control bytes, slot i's in byte i.
type keyGroup struct {
	ctrl  atomic.Uint64
	slots [groupSlots]keySlot
}

// keySlot is one key's place: its document, which readers load, and its
// entry, which only writers read.
type keySlot struct {
	d atomic.Pointer[engine.Doc]
	e *entry
}

const (
	groupSlots   = 8
	maxKeyGroups = 128 // 1024 slots a table, as in Go's maps
	maxKeyDepth  = 40  // the deepest split: a directory of 2^40 slots is far beyond any memory

	// Control bytes, as in Go's maps: a full slot holds the low 7 bits of
	// its key's hash.
	ctrlEmpty   = 0x80
	ctrlDeleted = 0xFE
	lsb8        = 0x0101010101010101
	msb8        = 0x8080808080808080
	emptyCtrl   = lsb8 * ctrlEmpty // a group of empty slots
)

// matchTag returns the slots of ctrl whose byte is tag, as the top bit of
// their bytes, and perhaps a full slot of another tag (the key compare
// rejects it); never an empty or deleted one.
func matchTag(ctrl uint64, tag uint8) uint64 {
	v := ctrl ^ (lsb8 * uint64(tag))
	return (v - lsb8) &^ v & msb8
}

// matchEmpty returns ctrl's empty slots, exactly.
func matchEmpty(ctrl uint64) uint64 { return ctrl &^ (ctrl << 6) & msb8 }

// matchFree returns ctrl's empty and deleted slots.
func matchFree(ctrl uint64) uint64 { return ctrl & msb8 }

// withByte returns ctrl with slot i's byte set to b.
func withByte(ctrl uint64, i int, b uint8) uint64 {
	shift := uint(i) * 8
	return ctrl&^(0xFF<<shift) | uint64(b)<<shift
}

// init makes m empty, with one table of one group.
func (m *keyMap) init(seed maphash.Seed) {
	m.seed, m.n = seed, 0
	dir := &keyDir{shift: 64, tables: make([]atomic.Pointer[keyTable], 1)}
	dir.tables[0].Store(newKeyTable(0, 1))
	m.dir.Store(dir)
}

// presize readies an empty m for about n keys, which a reopen is about to
// load, so that it does not rebuild its tables on the way: tables of the
// largest size, about half full once they are.
func (m *keyMap) presize(n int) {
	depth := uint(0)
	for n>>depth > maxKeyGroups*groupSlots/2 && depth < 24 {
		depth++
	}
	dir := &keyDir{shift: 64 - depth, tables: make([]atomic.Pointer[keyTable], 1<<depth)}
	for i := range dir.tables {
		dir.tables[i].Store(newKeyTable(depth, maxKeyGroups))
	}
	m.dir.Store(dir)
}

// clear drops every key, for Close: lookups then report m closed.
func (m *keyMap) clear() { m.dir.Store(nil); m.n, m.moving = 0, nil }

func newKeyTable(depth uint, groups int) *keyTable {
	t := &keyTable{depth: depth, mask: uint64(groups - 1), groups: make([]keyGroup, groups)}
	for i := range t.groups {
		t.groups[i].ctrl.Store(emptyCtrl)
	}
	return t
}

func (t *keyTable) slots() int { return len(t.groups) * groupSlots }

// maxUsed is how many slots may be full or deleted: 7 in 8, so that one
// at least stays empty.
func (t *keyTable) maxUsed() int { return t.slots() * 7 / 8 }

// find returns the group and slot of key, whose hash is h, and its
// document; d is nil when the table does not hold key. Readers call it
// without a lock, on a table a writer may be changing: the probe ends at an
// empty slot, or once it has visited every group.
func (t *keyTable) find(h uint64, key string) (g *keyGroup, i int, d *engine.Doc) {
	tag := uint8(h & 0x7F)
	p := h >> 7 & t.mask
	for step := uint64(1); step <= t.mask+1; step++ {
		g = &t.groups[p]
		ctrl := g.ctrl.Load()
		for match := matchTag(ctrl, tag); match != 0; match &= match - 1 {
			i = bits.TrailingZeros64(match) >> 3
			if d = g.slots[i].d.Load(); d != nil && d.Key() == key {
				return g, i, d
			}
		}
		if matchEmpty(ctrl) != 0 {
			break
		}
		p = (p + step) & t.mask
	}
	return nil, 0, nil
}

// place returns the first slot free for a key whose hash is h, and whether
// it is a deleted one (which a key takes without filling the table more).
// Call it with the key absent.
func (t *keyTable) place(h uint64) (g *keyGroup, i int, deleted bool) {
	p := h >> 7 & t.mask
	for step := uint64(1); ; step++ {
		g = &t.groups[p]
		ctrl := g.ctrl.Load()
		if free := matchFree(ctrl); free != 0 {
			i = bits.TrailingZeros64(free) >> 3
			return g, i, uint8(ctrl>>(uint(i)*8)) == ctrlDeleted
		}
		p = (p + step) & t.mask
	}
}

// fill puts d and e in slot i of g, for a key whose hash is h: the
// document first, then the control byte that shows it to readers.
func (t *keyTable) fill(g *keyGroup, i int, h uint64, d *engine.Doc, e *entry) {
	g.slots[i].e = e
	g.slots[i].d.Store(d)
	g.ctrl.Store(withByte(g.ctrl.Load(), i, uint8(h&0x7F)))
	t.live++
}

// table returns the table of a key whose hash is h. Writers only: a
// cleared m has none.
func (m *keyMap) table(h uint64) *keyTable {
	dir := m.dir.Load()
	return dir.tables[h>>dir.shift].Load()
}

// lookup returns the document stored under key, or nil, for a point read,
// which holds no lock; open is false once m is cleared. It does not
// allocate.
func (m *keyMap) lookup(key []byte) (d *engine.Doc, open bool) {
	dir := m.dir.Load()
	if dir == nil {
		return nil, false
	}
	h := maphash.Bytes(m.seed, key)
	_, _, d = dir.tables[h>>dir.shift].Load().find(h, viewString(key))
	return d, true
}

// get returns the entry of key, or nil, and the key's hash, which insert
// and swap take, so that a write hashes its key once. Writers only.
func (m *keyMap) get(key []byte) (*entry, uint64) {
	h := maphash.Bytes(m.seed, key)
	g, i, _ := m.table(h).find(h, viewString(key))
	if g == nil {
		return nil, h
	}
	return g.slots[i].e, h
}

// insert stores d and e under d's key, whose hash is h and which m does not
// hold. Writers only.
func (m *keyMap) insert(h uint64, d *engine.Doc, e *entry) {
	for {
		t := m.table(h)
		g, i, deleted := t.place(h)
		if deleted || t.used < t.maxUsed() {
			if !deleted {
				t.used++
			}
			t.fill(g, i, h, d, e)
			m.n++
			return
		}
		m.grow(t, h)
	}
}

// swap stores d, a new document of a key m holds, whose hash is h, in the
// key's slot. Writers only.
func (m *keyMap) swap(h uint64, d *engine.Doc) {
	g, i, _ := m.table(h).find(h, d.Key())
	g.slots[i].d.Store(d)
}

// remove drops key, whose hash is h, and reports whether m held it; a
// table left mostly empty is rebuilt smaller. Writers only.
func (m *keyMap) remove(h uint64, key string) bool {
	t := m.table(h)
	g, i, _ := t.find(h, key)
	if g == nil {
		return false
	}
	// A slot of a group with an empty slot can be empty again: every probe
	// that reaches the group ends there. Otherwise it stays deleted, for
	// the probes that go on past it.
	ctrl, b := g.ctrl.Load(), uint8(ctrlDeleted)
	if matchEmpty(ctrl) != 0 {
		b = ctrlEmpty
		t.used--
	}
	g.ctrl.Store(withByte(ctrl, i, b))
	g.slots[i].d.Store(nil)
	g.slots[i].e = nil
	t.live--
	m.n--
	if len(t.groups) > 1 && t.live < t.slots()/8 {
		m.rebuild(t, len(t.groups)/2, h)
	}
	return true
}

// grow makes room in t, the full table of the hash h: it rebuilds t at
// the same size when deleted slots fill most of it, at twice its size up to
// maxKeyGroups, and splits it in two beyond (but for keys whose hashes share
// their top maxKeyDepth bits, which only a broken hash could give).
func (m *keyMap) grow(t *keyTable, h uint64) {
	switch {
	case t.live <= t.maxUsed()/2:
		m.rebuild(t, len(t.groups), h)
	case len(t.groups) < maxKeyGroups || t.depth == maxKeyDepth:
		m.rebuild(t, 2*len(t.groups), h)
	default:
		m.split(t, h)
	}
}

// rebuildHook, when set (by tests), is called by every rebuild and split
// with how many keys it moves.
var rebuildHook func(keys int)

// rebuild replaces t, the table of the hash h, by a table of groups groups
// holding its keys.
func (m *keyMap) rebuild(t *keyTable, groups int, h uint64) {
	if rebuildHook != nil {
		rebuildHook(t.live)
	}
	nt := newKeyTable(t.depth, groups)
	for _, k := range m.rehash(t) {
		nt.add(k.h, k.d, k.e)
	}
	m.publish(t.depth, h, nt, nt)
}

// split replaces t, the table of the hash h, by two tables of one more bit
// of depth, first doubling the directory if t's depth is its depth.
func (m *keyMap) split(t *keyTable, h uint64) {
	if dir := m.dir.Load(); 64-dir.shift == t.depth {
		bigger := &keyDir{shift: dir.shift - 1, tables: make([]atomic.Pointer[keyTable], 2*len(dir.tables))}
		for i := range dir.tables {
			old := dir.tables[i].Load()
			bigger.tables[2*i].Store(old)
			bigger.tables[2*i+1].Store(old)
		}
		m.dir.Store(bigger)
	}
	if rebuildHook != nil {
		rebuildHook(t.live)
	}
	lo, hi := newKeyTable(t.depth+1, len(t.groups)), newKeyTable(t.depth+1, len(t.groups))
	bit := uint64(1) << (63 - t.depth)
	for _, k := range m.rehash(t) {
		if k.h&bit == 0 {
			lo.add(k.h, k.d, k.e)
		} else {
			hi.add(k.h, k.d, k.e)
		}
	}
	m.publish(t.depth, h, lo, hi)
}

// movedKey is a key a rebuild moves: its hash, document and entry.
type movedKey struct {
	h uint64
	d *engine.Doc
	e *entry
}

// rehash returns t's keys with their hashes, in m's scratch space. It
// reads every document first and hashes them after, so that the loads of
// the documents, which a large map mostly finds out of the caches, do not
// wait for one another.
func (m *keyMap) rehash(t *keyTable) []movedKey {
	ks := m.moving[:0]
	t.each(func(d *engine.Doc, e *entry) { ks = append(ks, movedKey{d: d, e: e}) })
	for i := range ks {
		ks[i].h = maphash.String(m.seed, ks[i].d.Key())
	}
	m.moving = ks
	return ks
}

// publish puts lo and hi in the directory slots of the table of depth
// depth that holds the hash h: lo in the first half, hi in the second (the
// same table when a rebuild keeps the depth).
func (m *keyMap) publish(depth uint, h uint64, lo, hi *keyTable) {
	dir := m.dir.Load()
	span := uint64(1) << (64 - dir.shift - depth) // the directory slots of a table of that depth
	first := h >> dir.shift &^ (span - 1)
	for j := range span {
		t := lo
		if j >= span/2 && span > 1 {
			t = hi
		}
		dir.tables[first+j].Store(t)
	}
}

// each calls fn with the document and entry of every key of t.
func (t *keyTable) each(fn func(d *engine.Doc, e *entry)) {
	for gi := range t.groups {
		g := &t.groups[gi]
		for full := ^g.ctrl.Load() & msb8; full != 0; full &= full - 1 {
			i := bits.TrailingZeros64(full) >> 3
			fn(g.slots[i].d.Load(), g.slots[i].e)
		}
	}
}

// add puts a key in a table that no reader has seen yet.
func (t *keyTable) add(h uint64, d *engine.Doc, e *entry) {
	g, i, _ := t.place(h)
	t.used++
	t.fill(g, i, h, d, e)
}

// len returns how many keys m holds.
func (m *keyMap) len() int { return m.n }

// each calls fn with the document and entry of every key m holds. Writers
// only.
func (m *keyMap) each(fn func(d *engine.Doc, e *entry)) {
	dir := m.dir.Load()
	if dir == nil {
		return
	}
	var last *keyTable
	for i := range dir.tables {
		if t := dir.tables[i].Load(); t != last { // a table's directory slots are consecutive
			t.each(fn)
			last = t
		}
	}
}

// entriesFrom appends to es the entries of the tables whose hashes start at
// from or above, table by table in the directory's order, until it has
// visited at least budget slots. It returns where to go on, or done at the
// end. Hashes, not directory slots, mark the place: the directory may
// double, and tables split, between two calls; a table's range is then
// split, never moved, so every key a call does not visit is in a range a
// later call does. Writers only.
func (m *keyMap) entriesFrom(es []*entry, from uint64, budget int) (_ []*entry, next uint64, done bool) {
	dir := m.dir.Load()
	if dir == nil {
		return es, 0, true
	}
	i, n := from>>dir.shift, uint64(len(dir.tables))
	for i < n && budget > 0 {
		t := dir.tables[i].Load()
		t.each(func(_ *engine.Doc, e *entry) { es = append(es, e) })
		budget -= t.slots()
		span := uint64(1) << (64 - dir.shift - t.depth) // the table's directory slots
		i = i&^(span-1) + span
	}
	if i >= n {
		return es, 0, true
	}
	return es, i << dir.shift, false
}
