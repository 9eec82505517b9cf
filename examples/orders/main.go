// Orders shows queries in Cosmos DB's SQL (R13) on orders that expire:
// parameters, ORDER BY with TOP, a count, a projection, pages read from one
// snapshot with a Cursor, and secondary indexes, one declared with the
// collection and one built on the live collection, with the plan that
// says which index a query read. An open order lives one hour (DefaultTTL);
// a paid one is kept a day (its own ttl). Expired orders leave every query
// at once, through an index or not (R4). A simulated clock (Options.Now)
// stands for the hours.
//
//	go run ./examples/orders
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

// order is one order of a customer.
type order struct {
	ID       string `json:"id"`
	Customer string `json:"customer"`
	Status   string `json:"status"`
	Total    int    `json:"total"` // cents
	Region   string `json:"region"`
	TTL      *int   `json:"ttl,omitempty"`
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer) (err error) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) // the simulated clock
	c, err := ttldb.NewCollection("orders", "/customer", &ttldb.Options{
		DefaultTTL:  ttldb.TTLDuration(time.Hour),
		Indexes:     []string{"/status"},
		Now:         func() time.Time { return now },
		ManualSweep: true, // the background sweeper sleeps on real time
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	orders, err := ttldb.NewTyped[order](c)
	if err != nil {
		return err
	}
	day := 24 * 3600
	for i, o := range []order{
		{ID: "o-1", Customer: "ann", Status: "paid", Total: 4200, Region: "eu", TTL: &day},
		{ID: "o-2", Customer: "ann", Status: "open", Total: 1500, Region: "eu"},
		{ID: "o-3", Customer: "bob", Status: "paid", Total: 9900, Region: "us", TTL: &day},
		{ID: "o-4", Customer: "bob", Status: "open", Total: 700, Region: "us"},
		{ID: "o-5", Customer: "cid", Status: "paid", Total: 2500, Region: "ap", TTL: &day},
		{ID: "o-6", Customer: "cid", Status: "open", Total: 12000, Region: "eu"},
	} {
		if _, err := orders.Create(ctx, o); err != nil {
			return err
		}
		now = now.Add(time.Duration(i) * time.Minute)
	}
	say := func(format string, args ...any) { fmt.Fprintf(w, now.Format("15:04")+" "+format+"\n", args...) }
	show := func(title string, q ttldb.SQL) error {
		page, err := c.Query(ctx, q)
		if err != nil {
			return err
		}
		say("%s", title)
		for _, r := range page.Results {
			fmt.Fprintf(w, "        %s\n", r)
		}
		index := page.Plan.Index
		if index == "" {
			index = "none: a scan"
		}
		fmt.Fprintf(w, "        (index: %s; %d documents read)\n", index, page.Plan.Examined)
		return nil
	}

	// A prepared query with parameters, run twice; the index on /status
	// gives the candidates.
	big, err := ttldb.Prepare(`SELECT c.id, c.total FROM c WHERE c.status = @status AND c.total >= @min ORDER BY c.total DESC`)
	if err != nil {
		return err
	}
	if err := show("paid orders of 25.00 or more, largest first:", ttldb.SQL{Prepared: big, Params: map[string]any{"status": "paid", "min": 2500}}); err != nil {
		return err
	}
	if err := show("open orders of 10.00 or more:", ttldb.SQL{Prepared: big, Params: map[string]any{"status": "open", "min": 1000}}); err != nil {
		return err
	}

	// An index built on the live collection; ORDER BY then walks it and
	// stops at TOP's last result.
	if err := c.CreateIndex(context.Background(), "/total"); err != nil {
		return err
	}
	if err := show("the two largest orders:", ttldb.SQL{Text: `SELECT TOP 2 VALUE c.id FROM c ORDER BY c.total DESC`}); err != nil {
		return err
	}
	if err := show("how many orders in the EU or the US:", ttldb.SQL{Text: `SELECT VALUE COUNT(1) FROM c WHERE c.region IN ("eu", "us")`}); err != nil {
		return err
	}

	// Pages from one snapshot: a write between them changes nothing in
	// what the cursor reads.
	cur, err := c.OpenQuery(ctx, ttldb.SQL{Text: `SELECT c.id, c.customer FROM c WHERE STARTSWITH(c.id, "o-") ORDER BY c.id`})
	if err != nil {
		return err
	}
	defer cur.Close()
	for n := 1; ; n++ {
		page, err := cur.Next(ctx, 4)
		if err != nil {
			return err
		}
		say("page %d of the cursor: %d orders", n, len(page))
		if len(page) < 4 {
			break
		}
		if _, err := orders.Create(ctx, order{ID: "o-7", Customer: "dan", Status: "open", Total: 100, Region: "us"}); err != nil {
			return err
		}
		say("(o-7 written between the pages)")
	}

	// An hour later the open orders have expired: gone from every query
	// at once, through the indexes too, before any sweep.
	now = now.Add(time.Hour)
	if err := show("an hour later, every order by total:", ttldb.SQL{Text: `SELECT c.id, c.status FROM c ORDER BY c.total`}); err != nil {
		return err
	}
	type row struct {
		ID    string `json:"id"`
		Total int    `json:"total"`
	}
	typed, err := ttldb.NewTyped[row](c)
	if err != nil {
		return err
	}
	rows, _, err := typed.Query(ctx, ttldb.SQL{Text: `SELECT c.id, c.total FROM c WHERE c.status = "paid" AND c.region != "us"`})
	if err != nil {
		return err
	}
	say("paid outside the US, typed: %+v", rows)

	// A query that is not Cosmos SQL, or not this subset of it.
	for _, text := range []string{`SELECT * FROM c WHERE c.total >`, `SELECT * FROM c WHERE udf.tax(c.total) > 100`} {
		_, err := c.Query(ctx, ttldb.SQL{Text: text})
		say("refused: %v", err)
	}
	return nil
}
