package local

import (
	"sync"
	"sync/atomic"

	"github.com/ttldb/ttldb/engine"
)

// feed is the collection's change feed (R11): the records of every change
// (changeLog), the order of last writes (latest), and the readers waiting
// for the next change. Writers and the sweeper record their changes under
// collection.mu, in the critical section that makes them, so a change is
// visible to feed readers, who hold collection.mu shared, no earlier than
// to Get. No callback runs under the lock and no send can block; a writer
// waits for a page read at most, and wakes waiting readers only once it
// has released the lock (Collection.unlock).
type feed struct {
	on     bool
	log    changeLog
	latest latest

	wmu     sync.Mutex
	wait    chan struct{} // closed at the next change; nil when no reader waits
	waiting atomic.Bool   // wait is not nil: a writer need not look otherwise
	woken   chan struct{} // wait, taken by a change, to close once mu is released
}

// init readies the feed, on or off, with the Retention r.
func (f *feed) init(on bool, r Retention) {
	f.on, f.log = on, newChangeLog(r)
}

// logWrite records the write of e's document, just stored with the next
// LSN, as op. Call it with mu held.
func (c *collection) logWrite(e *entry, op uint8) {
	f := &c.feed
	if !f.on {
		return
	}
	d := e.doc()
	f.latest.written(e)
	f.log.append(record{d: d, ts: d.TS, op: op}, c.seqOf(d), d.TS)
	if c.j == nil { // a durable collection's readers wake once the change is durable
		f.wake()
	}
}

// logDelete gives the deletion of e's document, at now, the next LSN and
// records it; expired says the sweeper deleted it (timeToLiveExpired). Call
// it with mu held, before e leaves the primary index or takes a new
// document.
func (c *collection) logDelete(e *entry, now int64, expired bool) {
	how := byte(delAsked)
	if expired {
		how = delExpired
	}
	c.logDeleteAs(e, now, how)
}

// logDeleteAs is logDelete for a deletion of the kind how says (delAsked,
// delExpired, delEvicted: records.go), which its record in the log and the
// feed keeps.
func (c *collection) logDeleteAs(e *entry, now int64, how byte) {
	lsn := c.nextLSN()
	c.journalDelete(e.doc(), lsn, now, how)
	f := &c.feed
	if !f.on {
		return
	}
	f.latest.unlink(e)
	f.log.append(record{d: e.doc(), ts: now, op: engine.OpDelete, expired: how == delExpired, evicted: how == delEvicted}, lsn, now)
	if c.j == nil {
		f.wake()
	}
}

// dropExpired deletes e, expired, from the primary index at now, for the
// sweeper, which has taken it out of the expiry index. Call with mu held.
func (c *collection) dropExpired(e *entry, now int64) {
	c.logDelete(e, now, true)
	c.sec.update(e, e.doc(), nil)
	c.prim.remove(e)
}

// wake takes the channel of the readers waiting for a change, for unlock
// to close. Call with mu held.
func (f *feed) wake() {
	if !f.waiting.Load() {
		return
	}
	f.wmu.Lock()
	if f.wait != nil {
		if f.woken == nil {
			f.woken = f.wait
		} else {
			close(f.wait) // a reader began to wait during this change: rare
		}
		f.wait = nil
	}
	f.waiting.Store(false)
	f.wmu.Unlock()
}

// next returns a channel closed at the next change. A reader takes it before
// it reads, so that a change made after the read closes it.
func (f *feed) next() <-chan struct{} {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if f.wait == nil {
		f.wait = make(chan struct{})
		f.waiting.Store(true)
	}
	return f.wait
}

// wakeAll wakes the readers waiting for a change, for a durable
// collection's journal once changes are durable. It takes no lock of the
// collection's.
func (f *feed) wakeAll() {
	f.wmu.Lock()
	if f.wait != nil {
		close(f.wait)
		f.wait = nil
	}
	f.waiting.Store(false)
	f.wmu.Unlock()
}

// clear drops the records and the order, at Close.
func (f *feed) clear() {
	f.log.clear()
	f.latest.clear()
}
