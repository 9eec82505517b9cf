package ttldb_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ttldb/ttldb"
)

// Cosmos DB's change feed scenario: with DefaultTTL -1, a document with a
// ttl of 5 seconds expires; the all-versions-and-deletes feed shows its
// create, then its delete by the sweeper, marked TimeToLiveExpired.
func ExampleCollection_ReadFeed() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := ttldb.NewCollection("items", "/pk", &ttldb.Options{
		DefaultTTL: ttldb.TTLNoDefault(), Now: clk.Now, ManualSweep: true,
	})
	defer c.Close()

	c.Create(ctx, []byte(`{"id":"1","pk":"1","ttl":5}`))
	clk.Advance(5 * time.Second)
	c.Sweep(ctx) // the delete is in the feed once the sweeper has deleted it

	page, err := c.ReadFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes})
	if err != nil {
		panic(err)
	}
	for _, ch := range page.Changes {
		fmt.Printf("LSN %d %s id %s pk %s timeToLiveExpired %t %s\n",
			ch.LSN, ch.Op, ch.ID, ch.PartitionKey, ch.TimeToLiveExpired, ch.Document.Body())
	}
	// Output:
	// LSN 1 create id 1 pk "1" timeToLiveExpired false {"id":"1","pk":"1","ttl":5}
	// LSN 2 delete id 1 pk "1" timeToLiveExpired true
}

// A consumer goroutine ranges over WatchFeed, which waits for each new
// change, until its context is cancelled. Whoever starts it stops it.
func ExampleCollection_WatchFeed() {
	ctx := context.Background()
	c, _ := ttldb.NewCollection("carts", "/userId", &ttldb.Options{ManualSweep: true})
	defer c.Close()

	ctx, cancel := context.WithCancel(context.Background())
	seen, done := make(chan uint64), make(chan struct{})
	go func() {
		defer close(done)
		for ch, err := range c.WatchFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes}) {
			if err != nil {
				fmt.Println("stopped:", err) // ctx.Err(), or ErrClosed at Close
				return
			}
			fmt.Println(ch.LSN, ch.Op, ch.ID)
			seen <- ch.LSN
		}
	}()

	c.Create(ctx, []byte(`{"id":"cart","userId":"u1","items":1}`))
	<-seen
	c.Upsert(ctx, []byte(`{"id":"cart","userId":"u1","items":2}`))
	<-seen
	c.Delete(ctx, ttldb.StringKey("u1"), "cart")
	<-seen
	cancel()
	<-done
	// Output:
	// 1 create cart
	// 2 replace cart
	// 3 delete cart
	// stopped: ttldb: WatchFeed: context canceled
}
