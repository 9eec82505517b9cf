// Typed shows a typed collection, ttldb.NewTyped[T]: documents are Go
// structs, encoded and decoded with encoding/json, and each Item carries the
// stored document's system properties (TS, ETag, TTL). It writes with
// Create and a conditional Replace (IfMatch), reads with Get and All, and
// prints the error NewTyped gives for a struct whose ID field has no json
// tag. The clock is fixed (Options.Now) so that _ts prints the same on
// every run.
//
//	go run ./examples/typed
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

// cart is a shopping cart, in the partition of its user. A nil TTL leaves
// "ttl" out, so the cart inherits the collection's DefaultTTL.
type cart struct {
	ID     string   `json:"id"`
	UserID string   `json:"userId"`
	Items  []string `json:"items"`
	TTL    *int     `json:"ttl,omitempty"`
}

// badCart forgets the tag of its ID field, which encoding/json would then
// write as "ID", not "id".
type badCart struct {
	ID     string
	UserID string `json:"userId"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	c, err := ttldb.NewCollection("carts", "/userId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLDuration(7 * 24 * time.Hour), // a week after the last write
		Now:         func() time.Time { return time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC) },
		ManualSweep: true, // with a simulated clock
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	carts, err := ttldb.NewTyped[cart](c)
	if err != nil {
		return err
	}
	p := &printer{w: w}

	hour := 3600
	if _, err := carts.Create(ctx, cart{ID: "cart-1", UserID: "alice", Items: []string{"book"}, TTL: &hour}); err != nil {
		return err
	}
	if _, err := carts.Create(ctx, cart{ID: "cart-2", UserID: "bob", Items: []string{"pen", "ink"}}); err != nil {
		return err
	}

	item, err := carts.Get(ctx, ttldb.StringKey("alice"), "cart-1")
	if err != nil {
		return err
	}
	ttl, own := item.TTL()
	p.printf("Get: Value.UserID %s, Value.Items %v; TS() %d (%s); ETag() set: %t; TTL() %d, %t\n",
		item.Value.UserID, item.Value.Items, item.TS(), item.Timestamp().UTC().Format(time.RFC3339), item.ETag() != "", ttl, own)

	// Change the cart only if nobody has since it was read: IfMatch.
	next := item.Value
	next.Items = append(next.Items, "lamp")
	updated, err := carts.Replace(ctx, next, ttldb.IfMatch(item.ETag()))
	if err != nil {
		return err
	}
	p.printf("Replace with IfMatch(ETag()): Items %v, ETag changed: %t\n", updated.Value.Items, updated.ETag() != item.ETag())
	_, err = carts.Replace(ctx, next, ttldb.IfMatch(item.ETag())) // the etag read before the first Replace
	if !errors.Is(err, ttldb.ErrPreconditionFailed) {
		return fmt.Errorf("replace with a stale etag: got %v, want ErrPreconditionFailed", err)
	}
	p.printf("Replace with the old ETag: ErrPreconditionFailed\n")

	for it, err := range carts.All(ctx, ttldb.Query{}) {
		if err != nil {
			return err
		}
		ttl, own := it.TTL() // own false: no ttl, it inherits the DefaultTTL
		p.printf("All: %s of %s, Items %v, TTL() %d, %t\n", it.ID(), it.Value.UserID, it.Value.Items, ttl, own)
	}

	_, err = ttldb.NewTyped[badCart](c)
	if !errors.Is(err, ttldb.ErrInvalidOption) {
		return fmt.Errorf("typed view of badCart: got %v, want ErrInvalidOption", err)
	}
	p.printf("NewTyped[badCart]: %v\n", err)
	return p.err
}

// printer writes lines to w and keeps the first write error, like
// bufio.Writer.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
