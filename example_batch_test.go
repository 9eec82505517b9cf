package ttldb_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ttldb/ttldb"
)

func ExampleCollection_Patch() {
	ctx := context.Background()
	c, err := ttldb.NewCollection("products", "/categoryId", &ttldb.Options{ManualSweep: true})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	c.Create(ctx, []byte(`{"id":"r-410","categoryId":"road-bikes","price":455.95,"inventory":{"quantity":15},"used":false,"tags":["r-series"]}`))

	doc, err := c.Patch(ctx, ttldb.StringKey("road-bikes"), "r-410", []ttldb.PatchOp{
		ttldb.PatchAdd("/color", "silver"),
		ttldb.PatchRemove("/used"),
		ttldb.PatchSet("/price", 355.45),
		ttldb.PatchIncrement("/inventory/quantity", 10),
		ttldb.PatchAdd("/tags/-", "featured-bikes"),
		ttldb.PatchMove("/color", "/inventory/color"),
	})
	fmt.Println(doc.Body(), err)

	_, err = c.Patch(ctx, ttldb.StringKey("road-bikes"), "r-410", []ttldb.PatchOp{
		ttldb.PatchIncrement("/inventory/quantity", 1),
		ttldb.PatchIncrement("/tags", 1), // an array: the whole patch is refused
	})
	fmt.Println(errors.Is(err, ttldb.ErrInvalidPatch))
	// Output:
	// {"id":"r-410","categoryId":"road-bikes","price":355.45,"inventory":{"quantity":25,"color":"silver"},"tags":["r-series","featured-bikes"]} <nil>
	// true
}

func ExampleCollection_ExecuteBatch() {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c, err := ttldb.NewCollection("orders", "/pk", &ttldb.Options{
		DefaultTTL:  ttldb.TTLSeconds(86400),
		Now:         clk.Now,
		ManualSweep: true,
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	c.Create(ctx, []byte(`{"id":"C","pk":"p"}`))

	// The specification's scenario (R14).
	b := ttldb.NewBatch(ttldb.StringKey("p"))
	b.Create([]byte(`{"id":"A","pk":"p","ttl":3}`))
	b.Create([]byte(`{"id":"B","pk":"p"}`))
	b.Replace([]byte(`{"id":"C","pk":"p","ttl":3}`))
	b.Upsert([]byte(`{"id":"D","pk":"p","ttl":-1}`))
	docs, err := c.ExecuteBatch(ctx, b)
	fmt.Println(len(docs), docs[0].TS() == docs[3].TS(), err)

	clk.Advance(4 * time.Second)
	for _, id := range []string{"A", "B", "C", "D"} {
		_, err := c.Get(ctx, ttldb.StringKey("p"), id)
		fmt.Println(id, err == nil)
	}

	// A batch whose second operation fails changes nothing.
	b = ttldb.NewBatch(ttldb.StringKey("p"))
	b.Delete("B")
	b.Create([]byte(`{"id":"D","pk":"p"}`))
	_, err = c.ExecuteBatch(ctx, b)
	var be *ttldb.BatchError
	fmt.Println(errors.As(err, &be), be.Index, be.Op, errors.Is(err, ttldb.ErrConflict))
	_, err = c.Get(ctx, ttldb.StringKey("p"), "B")
	fmt.Println("B", err == nil)
	// Output:
	// 4 true <nil>
	// A false
	// B true
	// C false
	// D true
	// true 1 Create true
	// B true
}
