package local

import (
	"encoding/binary"
	"unsafe"
)

// secItem is one document in a secondary index. An item of a document
// that has since been replaced stays in a snapshot's view, with the entry
// whose version as of the snapshot it was made from.
//
// Its key k (query.AppendKey of the value at the index's path, then the
// document's key) is held in 32 bytes, as a string and a prefix of 8
// bytes were, but with a prefix of 15: hi and lo hold k's first 15 bytes,
// big-endian, zero-padded, and lo's low byte k's length, or longKey for
// any length from longKey up. Most comparisons end in the prefix, without
// loading k from memory elsewhere: a tree search is dominated by such
// loads, and the 7 bytes after the type tag told little (every date of a
// month starts "2026-11", so each comparison in a date index loaded both
// keys; issue 31).
type secItem struct {
	hi, lo uint64
	// p is k's first byte, or, when k has longKey bytes or more, a
	// *string of k (then the length does not fit in lo).
	p unsafe.Pointer
	e *entry
}

// longKey is the length of a key from which an item holds it as a *string.
const longKey = 255

// item returns the item of key k and entry e (nil to search with). It
// keeps k's bytes, which must not change while the item is in a tree. It
// does not allocate, but for a key of longKey bytes or more.
func item(k string, e *entry) secItem {
	var b [16]byte
	copy(b[:15], k)
	it := secItem{hi: binary.BigEndian.Uint64(b[:8]), lo: binary.BigEndian.Uint64(b[8:]), e: e}
	if len(k) < longKey {
		it.lo |= uint64(len(k))
		it.p = unsafe.Pointer(unsafe.StringData(k))
	} else {
		it.lo |= longKey
		it.p = boxString(k)
	}
	return it
}

// boxString returns a pointer to a copy of k's header on the heap.
func boxString(k string) unsafe.Pointer { return unsafe.Pointer(&k) }

// key returns the item's key.
func (it secItem) key() string {
	if n := int(it.lo & 0xFF); n < longKey {
		return unsafe.String((*byte)(it.p), n)
	}
	return *(*string)(it.p)
}

// secLess orders items by key: two prefixes that differ order their keys
// as the keys do (a shorter key is padded with zeros, which sort first);
// equal prefixes leave it to the keys.
func secLess(a, b secItem) bool {
	if a.hi != b.hi {
		return a.hi < b.hi
	}
	if a.lo>>8 != b.lo>>8 {
		return a.lo < b.lo
	}
	return a.key() < b.key()
}
