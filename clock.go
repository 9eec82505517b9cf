package ttldb

import "time"

// maxClock bounds a clock's Unix seconds, so that _ts + ttl and
// now - [DefaultTTL] stay far from overflow.
const maxClock = 1 << 62

// now returns the collection's "now" in Unix seconds, which never goes
// backward (R4).
func (c *local) now() int64 { return c.nowAt(c.clock()) }

// nowAt is now for the clock's reading at: what needs both the reading and
// "now" must read the clock once.
func (c *local) nowAt(at time.Time) int64 {
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
