package local

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckFindsDamage: Engine.Check reports each kind of damage to the
// structures it checks, one at a time, and nothing on the same collection
// undamaged; the tests of both packages lean on it, so it must be able to
// fail (R4, R11, R13).
func TestCheckFindsDamage(t *testing.T) { // R4, R11, R13
	for _, tc := range []struct {
		name   string
		damage func(c *collection)
		want   string
	}{
		{"an entry missing from the key order", func(c *collection) {
			e := c.sortedEntries()[3]
			c.prim.order.t.Delete(e)
		}, "the key order holds"},
		{"an entry of the key order not the map's", func(c *collection) {
			e := c.sortedEntries()[3]
			stale := newEntry(e.doc())
			stale.slot = -1
			c.prim.order.t.ReplaceOrInsert(stale)
		}, "is not its entry in the key map"},
		{"an entry at another slot of its bucket", func(c *collection) {
			for _, e := range c.sortedEntries() {
				if e.slot > 0 {
					e.slot--
					return
				}
			}
		}, "is not at its slot"},
		{"a bucket lost", func(c *collection) {
			es := c.sortedEntries()
			c.exp.side(es[0].doc()).drop(c.exp.side(es[0].doc()).find(expAt(es[0].doc())))
		}, "has no bucket"},
		{"an entry unlinked from the order of last writes", func(c *collection) {
			e := c.feed.latest.head
			c.feed.latest.head = e.next // the head unlinked one way only
			e.next.prev = nil
		}, "the order of last writes links"},
		{"an entry of the order of last writes replaced by a stale one", func(c *collection) {
			e := c.feed.latest.head
			stale := newEntry(e.doc())
			stale.next, stale.slot = e.next, -1
			e.next.prev, c.feed.latest.head = stale, stale
		}, "is stored and not in the order of last writes"},
		{"a log that miscounts its bytes", func(c *collection) {
			c.feed.log.bytes++
		}, "the log counts"},
		{"a record of the log carrying another LSN", func(c *collection) {
			r := c.feed.log.at(c.feed.log.last)
			r.d = c.feed.log.at(c.feed.log.first).d
		}, "carries LSN"},
		{"an item missing from a secondary index", func(c *collection) {
			x := c.sec.list[0]
			it, _ := x.t.Min()
			x.t.Delete(it)
		}, "holds 19 items, and 20 documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestCollection(t, "/pk", TTLSeconds(100))
			require.NoError(t, c.CreateIndex(bg, "/n"))
			for i := range 20 {
				mustCreate(t, c, fmt.Sprintf(`{"id":"d%02d","pk":"p","n":%d}`, i, i%3))
			}
			_, err := c.List(bg, Query{}) // builds the key order
			require.NoError(t, err)
			require.NoError(t, c.x.Check(), "undamaged")
			c.local.mu.Lock()
			tc.damage(c.local)
			c.local.mu.Unlock()
			err = c.x.Check()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}
