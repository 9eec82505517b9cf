package local

import "time"

// maxClock bounds a clock's Unix seconds, so that _ts + ttl and
// now - [engine.DefaultTTL] stay far from overflow.
const maxClock = 1 << 62

// now returns the collection's "now" in Unix seconds, which never goes
// backward (R4).
func (c *collection) now() int64 { return c.nowAt(c.clock()) }

// nowAt is now for the clock's reading at: what needs both the reading and
// "now" must read the clock once.
func (c *collection) nowAt(at time.Time) int64 {
	t := min(max(at.Unix(), -maxClock), maxClock)
	for {
		last := c.last.Load()
		if t <= last {
			return last
		}
		if c.last.CompareAndSwap(last, t) {
			return t
		}
	}
}
