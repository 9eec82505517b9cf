package local

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ttldb/ttldb/engine"
)

// What the tests of the API (package ttldb) read of the engine beyond the
// engine interface: a description of its state to compare two engines
// by, and a few holds that stage a race. The engine's own tests read its
// insides directly.

// Dump describes everything the engine keeps across a reopen (R12), read
// from its insides so that it neither depends on the time nor fails once
// a failure closed the collection: every document as stored (body, _ts,
// _etag, LSN, ttl), expired or not, and when it expires; the DefaultTTL,
// R7's cut-offs and the indexing mode; the last LSN; the order of the
// latest-version feed. Two engines that were given the same changes have
// the same Dump. It takes the read lock, and O(n log n).
func (x *Engine) Dump() string {
	c := (*collection)(x)
	var b strings.Builder
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.sortedEntries() {
		d := e.doc()
		at, ok := c.exp.expiresAt(d, 0)
		fmt.Fprintf(&b, "%s lsn=%d ttl=%d expires=%d,%v\n", d.AppendJSON(nil), c.seqOf(d), d.TTL, at, ok)
	}
	fmt.Fprintf(&b, "default=%v cuts=%d,%v mode=%v seq=%d\nlatest:", c.exp.def, c.exp.ownCut, c.exp.cuts, c.mode, c.seq)
	for e := c.feed.latest.head; e != nil; e = e.next {
		fmt.Fprintf(&b, " %d", c.seqOf(e.doc()))
	}
	return b.String()
}

// sortedEntries returns every entry of the primary index in key order: the
// key order's, once built, else the key map's, sorted. Call with mu held.
func (c *collection) sortedEntries() []*entry {
	if tree := c.prim.order.t; tree != nil {
		es := make([]*entry, 0, tree.Len())
		tree.Ascend(func(e *entry) bool { es = append(es, e); return true })
		return es
	}
	var es []*entry
	c.prim.keys.each(func(_ *engine.Doc, e *entry) { es = append(es, e) })
	slices.SortFunc(es, func(a, b *entry) int { return strings.Compare(a.key(), b.key()) })
	return es
}

// LiveBytes returns what the durable collection's files hold of its live
// documents, as the compactor counts it, and what that should be, the sum
// over the documents it holds; both 0 for a collection in memory.
func (x *Engine) LiveBytes() (counted, want int64) {
	c := (*collection)(x)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.j == nil {
		return 0, 0
	}
	c.prim.keys.each(func(d *engine.Doc, _ *entry) { want += diskSize(d) })
	return c.j.live.Load(), want
}

// Adopt gives a new, empty engine in memory the identity of another (its
// etag base and token ID), so that two engines given the same changes
// store the same documents with the same etags: a crash harness's twin.
// Call it before the engine is shared: point reads load the etag base
// without the lock. It refuses, with [engine.ErrInvalidOption], an engine
// that holds a document or was given an LSN, and a durable one, whose
// files hold its identity.
func (x *Engine) Adopt(tokenID, etagBase uint64) error {
	c := (*collection)(x)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.j != nil || c.seq != 0 || c.prim.len() != 0 {
		return errorf(engine.ErrInvalidOption, "Adopt: collection %q is durable or not new", c.name)
	}
	c.tokenID, c.etagBase = tokenID, etagBase
	return nil
}

// HoldSweeps waits for a sweep in progress, then keeps any other from
// starting (the background sweeper's and Sweep's) until release is
// called, as a sweep in progress would.
func (x *Engine) HoldSweeps() (release func()) {
	c := (*collection)(x)
	c.sweeping <- struct{}{}
	return func() { <-c.sweeping }
}

// WatcherWaiting reports whether a reader of the feed waits for its next
// change.
func (x *Engine) WatcherWaiting() bool { return x.feed.waiting.Load() }

// CheckCompaction asks the compactor to look at the files' growth now, as
// the journal's goroutine does every second.
func (x *Engine) CheckCompaction() { (*collection)(x).checkCompaction() }

// SweeperDone is closed when the background sweeper has stopped (at once
// with ManualSweep).
func (x *Engine) SweeperDone() <-chan struct{} { return x.done }

// SetWalkHook makes fn run after each hold of the lock of a compaction's
// or a backup's walk of the key map, without the lock, with how many
// entries the hold read, until restore is called: a test writes there, in
// the middle of the walk. Not for concurrent tests.
func SetWalkHook(fn func(read int)) (restore func()) {
	old := walkHook
	walkHook = func(_ *collection, read int) { fn(read) }
	return func() { walkHook = old }
}
