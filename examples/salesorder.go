package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ttldb/ttldb"
)

// order is a sales order, as in the example of Cosmos DB's TTL
// documentation. A nil TTL leaves the ttl out, so the order inherits the
// collection's DefaultTTL.
type order struct {
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Status     string `json:"status"`
	TTL        *int   `json:"ttl,omitempty"`
}

// salesOrder walks through the sales-order example of Cosmos DB's TTL
// documentation: orders expire 90 days after their last write unless their
// own ttl says otherwise, a write restarts the countdown, and turning TTL off
// keeps the remaining orders for ever.
func salesOrder(w io.Writer) (err error) {
	clk := &clock{now: start}
	s := &story{w: w, clock: clk, label: func(d time.Duration) string { return fmt.Sprintf("day %d", d/day) }}
	c, err := ttldb.NewCollection("orders", "/customerId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLSeconds(int64(90 * day / time.Second)),
		Now:         clk.Now,
		ManualSweep: true, // Sweep deletes; the background sweeper runs on real time
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close(), s.err) }()
	s.say("collection %q, partition key %s, DefaultTTL %s", c.Name(), c.PartitionKeyPath(), describe(int(90*day/time.Second)))

	for _, o := range []order{
		{ID: "order-1", CustomerID: "alice", Status: "placed", TTL: seconds(30 * day)},
		{ID: "order-2", CustomerID: "bob", Status: "placed", TTL: seconds(30 * day)},
		{ID: "order-3", CustomerID: "carol", Status: "placed"},
	} {
		d, err := c.Create(o)
		if err != nil {
			return err
		}
		s.say("%s created for %s (%s)", d.ID(), o.CustomerID, s.life(c, d))
	}
	if err := s.stats(c); err != nil {
		return err
	}

	clk.Advance(20 * day)
	old, err := c.Get(ttldb.StringKey("bob"), "order-2")
	if err != nil {
		return err
	}
	d, err := c.Replace(order{ID: "order-2", CustomerID: "bob", Status: "shipped", TTL: seconds(30 * day)})
	if err != nil {
		return err
	}
	s.say("order-2 replaced (status shipped): the write sets _ts to %s, etag changed: %t (%s)",
		s.label(d.Timestamp().Sub(start)), d.ETag() != old.ETag(), s.life(c, d))

	clk.Advance(9 * day) // day 29
	if d, err = c.Get(ttldb.StringKey("alice"), "order-1"); err != nil {
		return err
	}
	s.say("order-1 readable (%s)", s.life(c, d))

	clk.Advance(day) // day 30
	if err := gone(c, "alice", "order-1"); err != nil {
		return err
	}
	s.say("order-1 not found: its own ttl of 30 days wins over the DefaultTTL of 90")
	if d, err = c.Get(ttldb.StringKey("bob"), "order-2"); err != nil {
		return err
	}
	s.say("order-2 readable: the write at day 20 restarted its 30 days (%s)", s.life(c, d))
	if err := s.stats(c); err != nil {
		return err
	}
	n, err := c.Sweep()
	if err != nil {
		return err
	}
	s.say("Sweep deleted %d expired document(s) for good", n)
	if err := s.stats(c); err != nil {
		return err
	}

	clk.Advance(15 * day) // day 45
	if d, err = c.Replace(order{ID: "order-2", CustomerID: "bob", Status: "delivered"}); err != nil {
		return err
	}
	s.say("order-2 replaced without a ttl (status delivered): it inherits 90 days from this write (%s)", s.life(c, d))

	clk.Advance(5 * day) // day 50
	if d, err = c.Get(ttldb.StringKey("bob"), "order-2"); err != nil {
		return err
	}
	s.say("order-2 readable on the day its old ttl would have ended (%s)", s.life(c, d))

	clk.Advance(40 * day) // day 90
	if err := gone(c, "carol", "order-3"); err != nil {
		return err
	}
	s.say("order-3 not found: it inherited 90 days from its creation")
	if err := s.stats(c); err != nil {
		return err
	}

	if err := c.SetDefaultTTL(ttldb.TTLOff()); err != nil {
		return err
	}
	s.say("DefaultTTL set to %v: no document expires any more, whatever its ttl", c.DefaultTTL())
	if err := gone(c, "carol", "order-3"); err != nil {
		return err
	}
	s.say("order-3 still not found: it had expired before the change, so it stays gone (R7)")

	clk.Advance(910 * day) // day 1000
	if d, err = c.Get(ttldb.StringKey("bob"), "order-2"); err != nil {
		return err
	}
	s.say("order-2 readable long after day 135 (%s)", s.life(c, d))
	if n, err = c.Sweep(); err != nil {
		return err
	}
	s.say("Sweep deleted %d document(s): nothing is deleted while TTL is off", n)
	if err := s.stats(c); err != nil {
		return err
	}

	if err := c.SetDefaultTTL(ttldb.TTLNoDefault()); err != nil {
		return err
	}
	s.say("DefaultTTL set to %v: TTL is on, but only documents with a ttl of their own expire", c.DefaultTTL())
	if n, err = c.Sweep(); err != nil {
		return err
	}
	s.say("Sweep deleted %d expired document(s) for good: order-3 at last", n)
	if d, err = c.Get(ttldb.StringKey("bob"), "order-2"); err != nil {
		return err
	}
	s.say("order-2 readable (%s)", s.life(c, d))
	return s.stats(c)
}
