package ttldb_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ttldb/ttldb"
)

// clock is a simulated clock for examples: the background sweeper sleeps on
// real timers, so these examples use ManualSweep and call Sweep.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time          { return c.t }
func (c *clock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func Example() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, err := ttldb.NewCollection("orders", "/customerId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLSeconds(3600), // documents live an hour after their last write
		Now:         clk.Now,
		ManualSweep: true,
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	c.Create(ctx, []byte(`{"id":"o1","customerId":"c1"}`))          // inherits one hour
	c.Create(ctx, []byte(`{"id":"o2","customerId":"c1","ttl":60}`)) // its own minute
	c.Create(ctx, []byte(`{"id":"o3","customerId":"c1","ttl":-1}`)) // never expires
	clk.Advance(time.Minute)

	_, err = c.Get(ctx, ttldb.StringKey("c1"), "o2")
	fmt.Println("o2 after a minute:", errors.Is(err, ttldb.ErrNotFound))
	n, _ := c.Count(ctx, ttldb.Query{})
	fmt.Println("live:", n)

	clk.Advance(time.Hour)
	n, _ = c.Count(ctx, ttldb.Query{})
	fmt.Println("live after an hour:", n)
	swept, _ := c.Sweep(ctx)
	fmt.Println("swept:", swept)
	// Output:
	// o2 after a minute: true
	// live: 2
	// live after an hour: 1
	// swept: 2
}

// Open names the engine in a URL: "mem:" for a collection in memory, a file
// URL for a durable one (another engine's package registers its scheme).
// A program that opens a collection it did not make gets it as stored.
func ExampleOpen() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	tmp, _ := os.MkdirTemp("", "ttldb-example")
	defer os.RemoveAll(tmp)
	url := "file://" + filepath.ToSlash(filepath.Join(tmp, "sessions")) // or "mem:"

	// The program that makes the collection says what it is.
	c, err := ttldb.Open(ctx, url, &ttldb.Options{
		Name: "sessions", PartitionKeyPath: "/userId",
		DefaultTTL: ttldb.TTLSeconds(1800),
		Now:        clk.Now, ManualSweep: true,
	})
	if err != nil {
		panic(err)
	}
	c.Create(ctx, []byte(`{"id":"s1","userId":"u1"}`))
	c.Close()

	// Another program opens it by its URL alone, and keeps its settings.
	c, err = ttldb.Open(ctx, url, &ttldb.Options{Now: clk.Now, ManualSweep: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Name(), c.PartitionKeyPath(), c.DefaultTTL(), len(c.Recovery().Changed))
	n, _ := c.Count(ctx, ttldb.Query{})
	fmt.Println("live:", n)
	c.Close()

	// A setting that differs is refused: the setter changes it, on purpose.
	_, err = ttldb.Open(ctx, url, &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(60)})
	fmt.Println(errors.Is(err, ttldb.ErrInvalidOption), strings.Contains(err.Error(), "SetDefaultTTL"))
	// Output:
	// sessions /userId 1800 0
	// live: 1
	// true true
}

func ExampleCollection_Touch() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
		DefaultTTL: ttldb.TTLSeconds(30 * 60), Now: clk.Now, ManualSweep: true,
	})
	defer c.Close()

	c.Create(ctx, []byte(`{"id":"s1","userId":"u1"}`))
	for range 3 {
		clk.Advance(20 * time.Minute)
		_, err := c.Touch(ctx, ttldb.StringKey("u1"), "s1") // each request renews the session
		fmt.Println("request:", err == nil)
	}
	clk.Advance(30 * time.Minute)
	_, err := c.Touch(ctx, ttldb.StringKey("u1"), "s1")
	fmt.Println("after 30 idle minutes:", errors.Is(err, ttldb.ErrNotFound))
	// Output:
	// request: true
	// request: true
	// request: true
	// after 30 idle minutes: true
}

func ExampleCollection_SetDefaultTTL() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := ttldb.NewCollection("events", "/source", &ttldb.Options{Now: clk.Now, ManualSweep: true})
	defer c.Close()

	c.Create(ctx, []byte(`{"id":"e1","source":"s"}`))
	clk.Advance(2 * time.Hour)
	c.Create(ctx, []byte(`{"id":"e2","source":"s"}`))

	// Turning TTL on applies at once to documents written before (R7).
	c.SetDefaultTTL(ctx, ttldb.TTLSeconds(3600))
	n, _ := c.Count(ctx, ttldb.Query{})
	fmt.Println("live with a one-hour TTL:", n)

	// Turning it off again does not bring e1 back.
	c.SetDefaultTTL(ctx, ttldb.TTLOff())
	n, _ = c.Count(ctx, ttldb.Query{})
	fmt.Println("live with TTL off:", n)
	// Output:
	// live with a one-hour TTL: 1
	// live with TTL off: 1
}

func ExampleCollection_List() {
	ctx := context.Background()
	c, _ := ttldb.NewCollection("users", "/team", &ttldb.Options{ManualSweep: true})
	defer c.Close()
	for _, id := range []string{"ann", "bob", "cy", "dee", "eve"} {
		c.Create(ctx, map[string]any{"id": id, "team": "red"})
	}
	team := ttldb.StringKey("red")
	q := ttldb.Query{Partition: &team, Limit: 2}
	for {
		page, err := c.List(ctx, q)
		if err != nil {
			panic(err)
		}
		for _, d := range page.Documents {
			fmt.Print(d.ID(), " ")
		}
		fmt.Println("|")
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	// Output:
	// ann bob |
	// cy dee |
	// eve |
}

func ExampleIfMatch() {
	ctx := context.Background()
	c, _ := ttldb.NewCollection("carts", "/userId", &ttldb.Options{ManualSweep: true})
	defer c.Close()
	d, _ := c.Create(ctx, []byte(`{"id":"cart","userId":"u1","items":1}`))

	_, err := c.Replace(ctx, []byte(`{"id":"cart","userId":"u1","items":2}`), ttldb.IfMatch(d.ETag()))
	fmt.Println("first writer:", err)
	_, err = c.Replace(ctx, []byte(`{"id":"cart","userId":"u1","items":5}`), ttldb.IfMatch(d.ETag()))
	fmt.Println("second writer, stale etag:", errors.Is(err, ttldb.ErrPreconditionFailed))
	// Output:
	// first writer: <nil>
	// second writer, stale etag: true
}

// A Document gives its text as written, without copying, or with the system
// properties added. A collection partitioned by /id keys each document by
// its id alone.
func ExampleDocument_Body() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, _ := ttldb.NewCollection("tokens", "/id", &ttldb.Options{
		DefaultTTL: ttldb.TTLNoDefault(), Now: clk.Now, ManualSweep: true,
	})
	defer c.Close()
	if _, err := c.Create(ctx, []byte(`{ "id": "t1", "ttl": 60, "scope": "read" }`)); err != nil {
		fmt.Println(err)
	}

	d, _ := c.Get(ctx, ttldb.StringKey("t1"), "t1")
	fmt.Println(d.Body())
	buf := d.AppendJSON(make([]byte, 0, 128))
	fmt.Println(strings.Replace(string(buf), d.ETag(), "…", 1))
	// Output:
	// {"id":"t1","ttl":60,"scope":"read"}
	// {"id":"t1","ttl":60,"scope":"read","_ts":1767225600,"_etag":"…"}
}
