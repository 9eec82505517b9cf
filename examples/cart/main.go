// Cart shows patches and transactional batches (R14) on shopping carts
// that expire. A cart is one document, in a partition of its own (the
// partition key is the cart's id), and lives 30 minutes from its last
// write (DefaultTTL). Adding a product is a patch: the line is appended and
// the totals incremented together, and the write restarts the 30 minutes
// (R6). Checkout is a batch: the order is created and the cart deleted in
// one step, which no reader sees half done, and only if the cart is still
// the version the customer saw. A cart nobody checks out expires. A
// simulated clock (Options.Now) stands for the minutes.
//
//	go run ./examples/cart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/ttldb/ttldb"
)

// cart is a cart, and an order once checked out.
type cart struct {
	ID     string `json:"id"`
	CartID string `json:"cartId"`
	Lines  []line `json:"lines"`
	Items  int    `json:"items"`
	Cents  int    `json:"cents"`
	Coupon string `json:"coupon,omitempty"`
	TTL    *int   `json:"ttl,omitempty"` // -1 for an order: it is kept
}

// line is one product in a cart.
type line struct {
	SKU   string `json:"sku"`
	Qty   int    `json:"qty"`
	Cents int    `json:"cents"`
}

// add puts qty of a product in the cart, in one patch: all or nothing.
func add(ctx context.Context, c *ttldb.Collection, id string, l line) (ttldb.Document, error) {
	return c.Patch(ctx, ttldb.StringKey(id), "cart", []ttldb.PatchOp{
		ttldb.PatchAdd("/lines/-", l),
		ttldb.PatchIncrement("/items", int64(l.Qty)),
		ttldb.PatchIncrement("/cents", int64(l.Qty*l.Cents)),
	})
}

// checkout turns the cart the customer saw into an order, kept for good:
// one batch creates the order and deletes the cart, if the cart is still
// that version.
func checkout(ctx context.Context, c *ttldb.Collection, seen ttldb.Document) (ttldb.Document, error) {
	var o cart
	if err := seen.Decode(&o); err != nil {
		return ttldb.Document{}, err
	}
	keep := -1
	o.ID, o.TTL = "order", &keep
	b := ttldb.NewBatch(seen.PartitionKey())
	b.Create(o)
	b.Delete("cart", ttldb.IfMatch(seen.ETag()))
	docs, err := c.ExecuteBatch(ctx, b)
	if err != nil {
		return ttldb.Document{}, err
	}
	return docs[0], nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) // the simulated clock
	c, err := ttldb.NewCollection("carts", "/cartId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLDuration(30 * time.Minute),
		Now:         func() time.Time { return now },
		ManualSweep: true, // the background sweeper sleeps on real time
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	say := func(format string, args ...any) { fmt.Fprintf(w, now.Format("15:04")+" "+format+"\n", args...) }
	get := func(cartID, id string) string {
		d, err := c.Get(ctx, ttldb.StringKey(cartID), id)
		if err != nil {
			return err.Error()
		}
		return d.Body()
	}

	for _, id := range []string{"cart-1", "cart-2"} {
		if _, err := c.Create(ctx, cart{ID: "cart", CartID: id, Lines: []line{}}); err != nil {
			return err
		}
	}
	if _, err := add(ctx, c, "cart-1", line{"tea", 2, 450}); err != nil {
		return err
	}
	if _, err := add(ctx, c, "cart-2", line{"cups", 1, 1200}); err != nil {
		return err
	}
	say("cart-1 %s", get("cart-1", "cart"))

	now = now.Add(20 * time.Minute)
	seen, err := add(ctx, c, "cart-1", line{"honey", 1, 800})
	if err != nil {
		return err
	}
	say("cart-1 %s", seen.Body())
	_, err = c.Patch(ctx, ttldb.StringKey("cart-1"), "cart", []ttldb.PatchOp{ttldb.PatchIncrement("/lines/0/qty", 1), ttldb.PatchIncrement("/lines/1/sku", 1)})
	say("a patch whose second operation fails changes nothing: %v", err)

	now = now.Add(15 * time.Minute) // cart-1 was written 15 minutes ago, cart-2 35
	say("cart-2, abandoned: %s", get("cart-2", "cart"))
	if _, err := c.Patch(ctx, ttldb.StringKey("cart-1"), "cart", []ttldb.PatchOp{ttldb.PatchAdd("/coupon", "TEA10")}); err != nil {
		return err // another tab adds a coupon
	}
	_, err = checkout(ctx, c, seen)
	var be *ttldb.BatchError
	if errors.As(err, &be) {
		say("checkout of the cart seen before the coupon: operation %d (%s) failed, precondition failed: %v; order: %s", be.Index+1, be.Op, errors.Is(err, ttldb.ErrPreconditionFailed), get("cart-1", "order"))
	}
	fresh, err := c.Get(ctx, ttldb.StringKey("cart-1"), "cart")
	if err != nil {
		return err
	}
	order, err := checkout(ctx, c, fresh)
	if err != nil {
		return err
	}
	say("checked out: %s", order.Body())

	now = now.Add(24 * time.Hour)
	n, err := c.Count(ctx, ttldb.Query{})
	if err != nil {
		return err
	}
	say("a day later, %d document: %s", n, get("cart-1", "order"))
	return nil
}
