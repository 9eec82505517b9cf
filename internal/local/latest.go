package local

import (
	"sync"
	"sync/atomic"
)

// latest is the order of last writes, which the latest-version feed reads
// (R11): every stored entry, linked from the one written longest ago to the
// one written last. A write moves its entry to the tail and a deletion
// unlinks it, each in O(1); the list stores nothing but the links in the
// entries.
//
// A reader resumes after an LSN. When few entries were written since, it
// finds the first of them walking back from the tail. Otherwise it starts
// from a finger: a page that stops before the tail leaves one, the entry it
// stopped at under the LSN its continuation holds. Every entry from the
// head to a finger's entry was written at or before the finger's LSN, and
// stays so: when a finger's entry is written again or deleted, the finger
// passes to the entry before it. So a reader may start after any finger
// whose LSN is at or before its own, and takes the nearest. The list keeps
// the maxFingers fingers used last; a reader behind all of them walks from
// the head, a bounded number of entries per call, leaving fingers as it
// goes.
//
// The links are guarded by collection.mu. Readers hold it shared and use
// and leave fingers, which have a lock of their own.
type latest struct {
	head, tail *entry

	fmu     sync.Mutex
	fingers [maxFingers]finger
	tick    uint64 // counts the uses of fingers, for eviction

	visited atomic.Uint64 // entries readers have visited, for tests of their cost
}

// maxFingers is how many page ends the list remembers.
const maxFingers = 256

// finger says that the entries from the head to e were all written at or
// before lsn. A nil e is before the head. used is when it was last used.
type finger struct {
	lsn  uint64
	e    *entry
	used uint64
	set  bool
}

// push links e, not in the list, at the tail.
func (l *latest) push(e *entry) {
	e.prev, e.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = e
	} else {
		l.head = e
	}
	l.tail = e
}

// unlink takes e out of the list, passing its fingers to the entry before.
func (l *latest) unlink(e *entry) {
	if e.finger.Load() {
		l.fmu.Lock()
		for i := range l.fingers {
			if f := &l.fingers[i]; f.set && f.e == e {
				f.e = e.prev
				if e.prev != nil {
					e.prev.finger.Store(true)
				}
			}
		}
		e.finger.Store(false)
		l.fmu.Unlock()
	}
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

// written moves e, just written, to the tail, or links it there if it
// was not in the list: new, or its document deleted as expired just before.
func (l *latest) written(e *entry) {
	if e.prev != nil || l.head == e {
		l.unlink(e)
	}
	l.push(e)
}

// clear empties the list.
func (l *latest) clear() {
	l.head, l.tail = nil, nil
	l.fmu.Lock()
	l.fingers = [maxFingers]finger{}
	l.fmu.Unlock()
}

// from returns the entry to read on from after lsn, and how many entries
// it walked to find it: the head, if written after lsn; or the one after
// lsn's own finger; or else the first entry written after lsn if walking
// back from the tail finds it within walk steps (lsnOf gives an entry's
// LSN); or else the one after the nearest finger before lsn, or the head.
// Entries before it were all written at or before lsn. Call it with
// collection.mu held, shared at least.
func (l *latest) from(lsn uint64, walk int, lsnOf func(*entry) uint64) (*entry, int) {
	if l.head == nil || lsnOf(l.head) > lsn {
		return l.head, 0
	}
	l.fmu.Lock()
	defer l.fmu.Unlock()
	var best *finger
	for i := range l.fingers {
		if f := &l.fingers[i]; f.set && f.lsn <= lsn && (best == nil || f.lsn > best.lsn) {
			best = f
		}
	}
	if best == nil || best.lsn < lsn {
		steps := 0
		for e := l.tail; e != nil && steps < walk; e, steps = e.prev, steps+1 {
			if e.prev == nil || lsnOf(e.prev) <= lsn {
				return e, steps
			}
		}
	}
	if best == nil {
		return l.head, 0
	}
	l.tick++
	best.used = l.tick
	if best.e == nil {
		return l.head, 0
	}
	return best.e.next, 0
}

// leave records that every entry from the head to e was written at or
// before lsn, in place of the finger of lsn, if any, or of the one used
// longest ago. Call it with collection.mu held, shared at least.
func (l *latest) leave(lsn uint64, e *entry) {
	l.fmu.Lock()
	defer l.fmu.Unlock()
	i := 0
	for j, f := range l.fingers {
		if f.set && f.lsn == lsn {
			i = j
			break
		}
		if !f.set || l.fingers[i].set && f.used < l.fingers[i].used {
			i = j
		}
	}
	old := l.fingers[i]
	l.tick++
	l.fingers[i] = finger{lsn: lsn, e: e, used: l.tick, set: true}
	e.finger.Store(true)
	if old.e != nil && old.e != e {
		for _, f := range l.fingers {
			if f.set && f.e == old.e {
				return // still marked for another finger
			}
		}
		old.e.finger.Store(false)
	}
}
