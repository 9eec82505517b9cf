package ttldb

import "sync"

// latest is the order of last writes, which the latest-version feed reads
// (R11): every stored entry, linked from the one written longest ago to the
// one written last. A write moves its entry to the tail and a deletion
// unlinks it, each in O(1); the list stores nothing but the links in the
// entries.
//
// A reader resumes after an LSN, and the first entry written after it could
// only be found by a walk from the head. So each page read leaves a finger:
// the entry it stopped at, under the LSN its continuation holds. Every entry
// from the head to a finger's entry was written at or before the finger's
// LSN, and stays so: when a finger's entry is written again or deleted, the
// finger passes to the entry before it. A reader finds no finger when more
// than maxFingers pages were read since its own, or when it resumes from an
// LSN it kept: it walks from the head, a bounded number of entries per
// call, leaving fingers as it goes.
//
// The links are guarded by Collection.mu. Readers hold it shared and leave
// fingers, which have a lock of their own.
type latest struct {
	head, tail *entry

	fmu     sync.Mutex
	fingers [maxFingers]finger // a ring: next is the one to reuse
	next    int
}

// maxFingers is how many page ends the list remembers.
const maxFingers = 256

// finger says that the entries from the head to e were all written at or
// before lsn. A nil e is before the head.
type finger struct {
	lsn uint64
	e   *entry
	set bool
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
	l.fingers, l.next = [maxFingers]finger{}, 0
	l.fmu.Unlock()
}

// from returns the first entry that may have been written after lsn: the
// one after lsn's finger, or the head. Call it with Collection.mu held,
// shared at least.
func (l *latest) from(lsn uint64) *entry {
	l.fmu.Lock()
	defer l.fmu.Unlock()
	for _, f := range l.fingers {
		if f.set && f.lsn == lsn {
			if f.e == nil {
				return l.head
			}
			return f.e.next
		}
	}
	return l.head
}

// leave records that every entry from the head to e (nil: none) was written
// at or before lsn, in place of what the list knew of lsn: a read that
// leaves a finger started from the one lsn had, if any, and went on from
// there. Call it with Collection.mu held, shared at least.
func (l *latest) leave(lsn uint64, e *entry) {
	l.fmu.Lock()
	defer l.fmu.Unlock()
	i := l.next
	for j, f := range l.fingers {
		if f.set && f.lsn == lsn {
			i = j
			break
		}
	}
	if i == l.next {
		l.next = (l.next + 1) % maxFingers
	}
	old := l.fingers[i]
	l.fingers[i] = finger{lsn: lsn, e: e, set: true}
	if e != nil {
		e.finger.Store(true)
	}
	if old.e != nil && old.e != e {
		for _, f := range l.fingers {
			if f.set && f.e == old.e {
				return // still marked for another finger
			}
		}
		old.e.finger.Store(false)
	}
}
