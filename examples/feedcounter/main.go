// Feedcounter keeps a count in step with the change feed (R11): the live
// orders of each customer, maintained from the AllVersionsAndDeletes feed.
// The consumer saves its view together with its position, the LSN of the
// last change it applied, and a restarted consumer resumes after it
// (FeedQuery.AfterLSN). A consumer that resumes before the oldest change
// the retention keeps gets ErrFeedTrimmed, and rebuilds its view from the
// LatestVersion feed, which reads the live documents themselves. The feed
// keeps 6 changes here (FeedOptions.MaxRecords), so that this happens. A
// simulated clock (Options.Now) and Sweep expire an unpaid order.
//
//	go run ./examples/feedcounter
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/ttldb/ttldb"
)

// order is an order, in the partition of its customer. An unpaid order
// has a ttl and expires; a paid one has none and lives on (DefaultTTL -1).
type order struct {
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	TTL        int    `json:"ttl,omitempty"`
}

// checkpoint is the consumer's state, saved in one piece so that the view
// and the position always agree. The view keeps ids, not just a number, so
// that a change applied twice changes nothing: a rebuild may overlap the
// changes read after it.
type checkpoint struct {
	After  uint64                     `json:"after"`  // the LSN of the last change applied
	Orders map[string]map[string]bool `json:"orders"` // customer, then the ids of their live orders
}

// counts returns the number of live orders of each customer.
func (k *checkpoint) counts() map[string]int {
	n := map[string]int{}
	for customer, ids := range k.Orders {
		n[customer] = len(ids)
	}
	return n
}

// apply applies a change to the view: a delete (by a caller, or the sweeper
// for an expired order) removes the order, anything else makes it live. An
// expired order stays in the view until the sweeper deletes it, while Count
// hides it at once (R4).
func (k *checkpoint) apply(ch ttldb.Change) {
	v, _ := ch.PartitionKey.Value()
	customer := v.(string) // the partition keys of this collection are strings
	if k.Orders[customer] == nil {
		k.Orders[customer] = map[string]bool{}
	}
	if ch.Op == ttldb.OpDelete {
		delete(k.Orders[customer], ch.ID)
	} else {
		k.Orders[customer][ch.ID] = true
	}
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) // the simulated clock
	c, err := ttldb.NewCollection("orders", "/customerId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLNoDefault(), // only documents with a ttl of their own expire
		Now:         func() time.Time { return now },
		ManualSweep: true,
		Feed:        ttldb.FeedOptions{MaxRecords: 6}, // tiny, to show ErrFeedTrimmed
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	p := &printer{w: w}
	create := func(id, customer string, ttl int) {
		_, err := c.Create(ctx, order{ID: id, CustomerID: customer, TTL: ttl})
		p.printf(err, "LSN %d: %s orders %s\n", c.LastLSN(), customer, id)
	}

	create("o1", "alice", 0)
	create("o2", "alice", 15*60) // unpaid: it expires in 15 minutes
	create("o3", "bob", 0)
	saved, err := consume(ctx, c, nil, p) // its first run: no checkpoint
	if err != nil {
		return err
	}

	create("o4", "carol", 0)
	err = c.Delete(ctx, ttldb.StringKey("bob"), "o3")
	p.printf(err, "LSN %d: bob cancels o3\n", c.LastLSN())
	now = now.Add(20 * time.Minute)
	_, err = c.Sweep(ctx)
	p.printf(err, "LSN %d: 20 minutes later, Sweep deletes alice's unpaid o2\n", c.LastLSN())
	if saved, err = consume(ctx, c, saved, p); err != nil {
		return err
	}

	for i := 6; i <= 12; i++ {
		if _, err := c.Create(ctx, order{ID: fmt.Sprint("o", i), CustomerID: "dave"}); err != nil {
			return err
		}
	}
	p.printf(nil, "LSN %d: dave has ordered o6 to o12, more changes than the feed keeps\n", c.LastLSN())
	if saved, err = consume(ctx, c, saved, p); err != nil {
		return err
	}

	// The view against the collection: the same count for every customer.
	var k checkpoint
	if err := json.Unmarshal(saved, &k); err != nil {
		return err
	}
	view := k.counts()
	for _, customer := range []string{"alice", "bob", "carol", "dave"} {
		pk := ttldb.StringKey(customer)
		if n, err := c.Count(ctx, ttldb.Query{Partition: &pk}); err != nil || n != view[customer] {
			return errors.Join(err, fmt.Errorf("%s: %d orders in the view, Count %d", customer, view[customer], n))
		}
	}
	p.printf(nil, "check: the view equals Count for every customer\n")
	return p.err
}

// consume is one run of the consumer: it starts from the saved checkpoint,
// or with a rebuild when there is none, brings the view up to date, and
// returns the checkpoint to save.
func consume(ctx context.Context, c *ttldb.Collection, saved []byte, p *printer) ([]byte, error) {
	var k checkpoint
	if saved == nil {
		// AllVersionsAndDeletes from the beginning would read only what the
		// retention keeps: a new consumer rebuilds instead.
		p.printf(nil, "the consumer starts with no checkpoint: it rebuilds its view\n")
		if err := k.rebuild(ctx, c); err != nil {
			return nil, err
		}
	} else if err := json.Unmarshal(saved, &k); err != nil {
		return nil, err
	} else {
		p.printf(nil, "the consumer restarts from its checkpoint\n")
	}
	p.printf(nil, "  it reads the changes after LSN %d\n", k.After)
	n, err := k.catchUp(ctx, c)
	if trimmed := (*ttldb.TrimmedError)(nil); errors.As(err, &trimmed) {
		// Changes After+1 to Oldest-1 are gone. Going on from
		// trimmed.Continuation would leave the counts wrong for good.
		p.printf(nil, "  ErrFeedTrimmed: changes %d to %d are gone: it rebuilds its view\n", trimmed.After+1, trimmed.Oldest-1)
		if err = k.rebuild(ctx, c); err == nil {
			n, err = k.catchUp(ctx, c)
		}
	}
	if err = errors.Join(err, p.err); err != nil {
		return nil, err
	}
	p.printf(nil, "  it applies %d, saves its checkpoint (after LSN %d, %v) and stops\n", n, k.After, k.counts())
	return json.Marshal(k) // to a file, or a database: in one piece
}

// catchUp applies the changes after k.After and returns how many.
func (k *checkpoint) catchUp(ctx context.Context, c *ttldb.Collection) (n int, err error) {
	err = each(ctx, c, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: k.After}, func(ch ttldb.Change) {
		k.apply(ch)
		k.After, n = ch.LSN, n+1
	})
	return n, err
}

// rebuild replaces the view with the live orders of the LatestVersion feed,
// which reaches back to the first write whatever the retention. It notes
// LastLSN first, so that catchUp then applies every change made since.
func (k *checkpoint) rebuild(ctx context.Context, c *ttldb.Collection) error {
	k.After, k.Orders = c.LastLSN(), map[string]map[string]bool{}
	return each(ctx, c, ttldb.FeedQuery{Mode: ttldb.LatestVersion}, k.apply)
}

// each calls f for each change of the feed from q's start, a page at a
// time, until the last.
func each(ctx context.Context, c *ttldb.Collection, q ttldb.FeedQuery, f func(ttldb.Change)) error {
	for {
		page, err := c.ReadFeed(ctx, q)
		if err != nil {
			return err
		}
		for _, ch := range page.Changes {
			f(ch)
		}
		if !page.More {
			return nil
		}
		q.AfterLSN, q.Continuation = 0, page.Continuation
	}
}

// printer writes to w and keeps the first error, like bufio.Writer.
type printer struct {
	w   io.Writer
	err error
}

// printf records err, then prints unless there was an error.
func (p *printer) printf(err error, format string, args ...any) {
	if p.err = errors.Join(p.err, err); p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
