package ttldb

// maxClock bounds a clock's Unix seconds, so that _ts + ttl and
// now - [DefaultTTL] stay far from overflow.
const maxClock = 1 << 62

// now returns the collection's "now" in Unix seconds, which never goes
// backward (R4).
func (c *Collection) now() int64 {
	t := min(max(c.clock().Unix(), -maxClock), maxClock)
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
