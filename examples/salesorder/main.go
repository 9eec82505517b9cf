// Salesorder walks through the sales-order example of Cosmos DB's TTL
// documentation: orders expire 90 days (DefaultTTL) after their last write
// unless their own ttl says otherwise (-1: never); a write restarts the
// countdown; a new DefaultTTL applies to every order at once, but never
// brings back one that had expired. It spans 1000 days, so it runs on a
// simulated clock (Options.Now) and deletes with Sweep (ManualSweep).
//
//	go run ./examples/salesorder
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

// order is a sales order. A nil TTL inherits the DefaultTTL.
type order struct {
	ID         string `json:"id"`
	CustomerID string `json:"customerId"`
	Status     string `json:"status"`
	TTL        *int   `json:"ttl,omitempty"`
}

const day = 24 * time.Hour

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the simulated clock's start

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	s := &story{w: w, now: start}
	s.c, err = ttldb.NewCollection("orders", "/customerId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLDuration(90 * day),
		Now:         func() time.Time { return s.now }, // the simulated clock
		ManualSweep: true,
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.c.Close()) }()

	thirty, never := int(30*day/time.Second), -1
	o1 := order{ID: "order-1", CustomerID: "alice", Status: "placed", TTL: &thirty}
	o2 := order{ID: "order-2", CustomerID: "bob", Status: "placed", TTL: &thirty}
	o3 := order{ID: "order-3", CustomerID: "carol", Status: "placed"}
	o4 := order{ID: "order-4", CustomerID: "dave", Status: "placed", TTL: &never}
	s.step(nil, "DefaultTTL %v seconds (90 days)", s.c.DefaultTTL())
	for _, o := range []order{o1, o2, o3, o4} {
		s.wrote(s.c.Create(ctx, o))
	}
	s.now = s.now.Add(20 * day)
	o2.Status = "shipped"
	s.wrote(s.c.Replace(ctx, o2)) // a write restarts the countdown
	s.now = s.now.Add(10 * day)
	s.check(ctx, o1, "its own ttl of 30 days wins over the DefaultTTL")
	s.check(ctx, o2, "30 days from its last write")
	s.sweep(ctx, "order-1")
	s.now = s.now.Add(15 * day)
	o2.Status, o2.TTL = "delivered", nil
	s.wrote(s.c.Replace(ctx, o2)) // without a ttl, it inherits the 90 days
	s.now = s.now.Add(45 * day)
	s.check(ctx, o3, "it inherited 90 days at day 0")
	s.check(ctx, o4, "ttl -1")

	s.step(s.c.SetDefaultTTL(ctx, ttldb.TTLOff()), "DefaultTTL set to off: no document expires")
	s.check(ctx, o3, "it had expired before the change, so it stays gone (R7)")
	s.now = s.now.Add(910 * day)
	s.check(ctx, o2, "TTL is off")
	s.sweep(ctx, "nothing is deleted while TTL is off")
	s.step(s.c.SetDefaultTTL(ctx, ttldb.TTLNoDefault()), "DefaultTTL set to -1: only documents with a ttl of their own expire")
	s.check(ctx, o2, "it has no ttl of its own")
	s.sweep(ctx, "order-3, at last")
	return s.err
}

// story runs the steps on the collection c and prints them. Like
// bufio.Writer it keeps the first error, after which each step does nothing.
type story struct {
	w   io.Writer
	c   *ttldb.Collection
	now time.Time
	err error
}

// step records err, and prints the step unless there was an error.
func (s *story) step(err error, format string, args ...any) {
	if s.err = errors.Join(s.err, err); s.err == nil {
		_, s.err = fmt.Fprintf(s.w, "day %d: %s\n", s.now.Sub(start)/day, fmt.Sprintf(format, args...))
	}
}

// life says when d expires under the current DefaultTTL.
func (s *story) life(d ttldb.Document) string {
	if at, ok := s.c.ExpiresAt(d); ok {
		return fmt.Sprintf("expires day %d", at.Sub(start)/day)
	}
	return "never expires"
}

// wrote prints the document a write returned.
func (s *story) wrote(d ttldb.Document, err error) {
	s.step(err, "wrote %s: %s", d.Body(), s.life(d))
}

// check prints whether order o is readable, and why.
func (s *story) check(ctx context.Context, o order, why string) {
	d, err := s.c.Get(ctx, ttldb.StringKey(o.CustomerID), o.ID)
	if errors.Is(err, ttldb.ErrNotFound) { // absent, or expired (R4)
		s.step(nil, "%s not found: %s", o.ID, why)
		return
	}
	s.step(err, "%s readable, %s: %s", o.ID, s.life(d), why)
}

// sweep prints the collection's Stats, then deletes the expired documents.
func (s *story) sweep(ctx context.Context, what string) {
	st, err := s.c.Stats(ctx)
	n, err2 := s.c.Sweep(ctx)
	s.step(errors.Join(err, err2), "Stats: Live %d, Expired %d (hidden, not deleted yet); Sweep deleted %d: %s", st.Live, st.Expired, n, what)
}
