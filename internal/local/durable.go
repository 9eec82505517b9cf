package local

import "github.com/ttldb/ttldb/engine"

// How the collection's calls meet its journal (R12). A call that changes
// the collection records its changes under mu (journalPut, journalDelete,
// journalSetting), and settles when it is done: it closes their group,
// releases mu, and waits for the group to be written, and synced under
// SyncAlways. The change feed shows a change only once it is that durable
// (visible), so that after a crash a reader has never seen a change the
// log lost, and an LSN it saw is never given to another change.

// journalPut records the write of d, replacing old (nil for none), as op.
// Call with mu held.
func (c *collection) journalPut(d, old *engine.Doc, op uint8) {
	if c.j != nil {
		c.j.put(d, old, c.seqOf(d), op)
	}
}

// journalDelete records the deletion of d at now, with the LSN lsn, of
// the kind how (delAsked, delExpired, delEvicted: records.go). Call with mu
// held.
func (c *collection) journalDelete(d *engine.Doc, lsn uint64, now int64, how byte) {
	if c.j != nil {
		c.j.del(d, lsn, now, how)
	}
}

// journalSetting records a change of a setting, which rec appends. Call
// with mu held.
func (c *collection) journalSetting(rec func([]byte) []byte) {
	if c.j != nil {
		var b [32]byte
		c.j.setting(rec(b[:0]))
	}
}

// settle ends a call that took mu with lock: it closes the call's group,
// releases mu and waits for the group to be durable, as the policy says.
// A failure to write or sync closes the collection, and becomes the call's
// error, *errp, unless it has one already.
func (c *collection) settle(errp *error) {
	c.settleAs(errp, c.j != nil && c.j.policy == SyncAlways)
}

// settleSweep is settle for a batch of the sweeper, which waits for the
// write and never for a sync: it acknowledges nothing to anyone.
func (c *collection) settleSweep(errp *error) { c.settleAs(errp, false) }

// settleAs is settle, waiting for a sync if sync is set.
func (c *collection) settleAs(errp *error, sync bool) {
	if c.j == nil {
		c.unlock()
		return
	}
	g := c.j.commit(c.seq)
	c.unlock()
	// A failure to write closes the collection whatever the call's error:
	// a call that fails writes nothing today (a quota refuses before it
	// deletes anything), but one that did would leave in memory a change
	// the disk lacks.
	if err := c.j.wait(g, sync); err != nil {
		if ferr := c.fail(err); *errp == nil {
			*errp = ferr
		}
	}
}

// visible returns the last LSN the change feed shows: of the last change,
// or of the last one durable as the policy wants. Call with mu held.
func (c *collection) visible() uint64 {
	if c.j == nil {
		return c.seq
	}
	return min(c.seq, c.j.visible.Load())
}

// startDurable opens the directory o.Dir for the collection, new and not
// yet started, and starts the journal's goroutine and the compactor, which
// Close stops.
func (c *collection) startDurable(o *Config) error {
	if err := c.openDir(o); err != nil {
		return err
	}
	c.slack = o.CompactAt
	if c.slack == 0 {
		c.slack = defaultCompactSlack
	}
	c.compacting, c.compactCheck = make(chan struct{}, 1), make(chan struct{}, 1)
	c.j.clock = c.last.Load()
	c.bg.Add(2)
	go func() {
		defer c.bg.Done()
		c.j.run(c.stop, func() {
			if err := c.j.failure(); err != nil {
				c.fail(err) // a sync of the second failed: nothing is acknowledged after
				return
			}
			c.saveClock()
			c.checkCompaction()
		})
	}()
	go c.compactor()
	return nil
}

// saveClock records the collection's latest "now" if it moved since it was
// last recorded: reads move it too, and a reopen must not let it go back.
// The journal's goroutine calls it every second, and Close once.
func (c *collection) saveClock() {
	if c.failure.Load() != nil {
		return
	}
	c.mu.Lock()
	last := c.last.Load()
	if last <= c.j.clock {
		c.mu.Unlock()
		return
	}
	c.j.clock = last
	c.journalSetting(func(b []byte) []byte { return appendClock(b, last) })
	var err error
	c.settleSweep(&err)
}
