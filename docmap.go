package ttldb

import "hash/maphash"

// docMap maps document keys to slots: a key's entry, and the document the
// entry holds, beside it, so that a point read loads the document without
// going through the entry. It is a Go map keyed by a 64-bit hash of the key
// (the caller's, so that a key is hashed once per operation),
// whose keys take 8 bytes where a string's take 16, and need no load of the
// key to find their slot. A key whose hash is already another key's, which
// is rare (about one in 30 million collections of a million documents), is
// kept in clash instead. Every key in clash has a hash whose slot in byHash
// holds another key.
type docMap struct {
	byHash map[uint64]slot
	clash  map[string]slot // usually nil
	seed   maphash.Seed
	mask   uint64 // all ones; tests narrow it to make hashes collide
}

// slot is a key's value in a docMap: its entry, and the entry's document.
type slot struct {
	d *doc
	e *entry
}

// newDocMap returns an empty map whose keys the caller hashes with seed.
func newDocMap(seed maphash.Seed) *docMap {
	return &docMap{byHash: make(map[uint64]slot), seed: seed, mask: ^uint64(0)}
}

func (m *docMap) hash(key string) uint64 { return maphash.String(m.seed, key) }

func (m *docMap) len() int { return len(m.byHash) + len(m.clash) }

// get returns the slot of key, whose hash is h, the zero slot when there is
// none. It does not allocate.
func (m *docMap) get(h uint64, key []byte) slot {
	if s := m.byHash[h&m.mask]; s.d != nil && s.d.key() == string(key) {
		return s
	}
	if m.clash == nil {
		return slot{}
	}
	return m.clash[string(key)]
}

// put stores s under its document's key, whose hash is h, replacing any
// slot of the key.
func (m *docMap) put(h uint64, s slot) {
	key := s.d.key()
	h &= m.mask
	if cur := m.byHash[h]; cur.d == nil || cur.d.key() == key {
		m.byHash[h] = s
		return
	}
	if m.clash == nil {
		m.clash = make(map[string]slot)
	}
	m.clash[key] = s
}

// replace stores s in place of the slot of its document's key, whose hash
// is h, and reports whether the key had one.
func (m *docMap) replace(h uint64, s slot) bool {
	key := s.d.key()
	h &= m.mask
	if cur := m.byHash[h]; cur.d != nil && cur.d.key() == key {
		m.byHash[h] = s
		return true
	}
	if _, ok := m.clash[key]; ok {
		m.clash[key] = s
		return true
	}
	return false
}

// remove drops the slot of key, whose hash is h, and reports whether there
// was one. A key from clash with the freed hash takes its place.
func (m *docMap) remove(h uint64, key string) bool {
	h &= m.mask
	if cur := m.byHash[h]; cur.d == nil || cur.d.key() != key {
		_, ok := m.clash[key]
		delete(m.clash, key)
		return ok
	}
	delete(m.byHash, h)
	for k, s := range m.clash {
		if m.hash(k)&m.mask == h {
			m.byHash[h] = s
			delete(m.clash, k)
			break
		}
	}
	return true
}
