package ttldb_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ttldb/ttldb"
)

func ExampleCollection_Query() {
	ctx := context.Background()
	c, err := ttldb.NewCollection("orders", "/customer", &ttldb.Options{Indexes: []string{"/status"}, ManualSweep: true})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	for _, doc := range []string{
		`{"id":"o1","customer":"ann","status":"open","total":30}`,
		`{"id":"o2","customer":"ann","status":"paid","total":70}`,
		`{"id":"o3","customer":"bob","status":"open","total":120}`,
		`{"id":"o4","customer":"cid","status":"open","total":5}`,
	} {
		c.Create(ctx, []byte(doc))
	}
	page, err := c.Query(ctx, ttldb.SQL{
		Text:   `SELECT c.id, c.total FROM c WHERE c.status = @s AND c.total >= @min ORDER BY c.total DESC`,
		Params: map[string]any{"s": "open", "min": 10},
	})
	for _, r := range page.Results {
		fmt.Println(string(r))
	}
	fmt.Println("index:", page.Plan.Index, err)

	page, _ = c.Query(ctx, ttldb.SQL{Text: `SELECT VALUE COUNT(1) FROM c WHERE c.customer = "ann"`})
	fmt.Println("ann's orders:", string(page.Results[0]))

	page, _ = c.Query(ctx, ttldb.SQL{Text: `SELECT DISTINCT VALUE c.status FROM c`})
	fmt.Println("statuses:", len(page.Results))

	_, err = c.Query(ctx, ttldb.SQL{Text: `SELECT * FROM c WHERE udf.tax(c.total) > 1`})
	var qe *ttldb.QueryError
	fmt.Println(errors.As(err, &qe), qe.Unsupported, qe.Column)
	// Output:
	// {"id":"o3","total":120}
	// {"id":"o1","total":30}
	// index: /status <nil>
	// ann's orders: 2
	// statuses: 2
	// true true 23
}

func ExampleCollection_OpenQuery() {
	ctx := context.Background()
	c, err := ttldb.NewCollection("events", "/source", &ttldb.Options{ManualSweep: true})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	for i := range 5 {
		c.Upsert(ctx, map[string]any{"id": fmt.Sprint("e", i), "source": "s", "n": i})
	}
	if err := c.CreateIndex(context.Background(), "/n"); err != nil {
		panic(err)
	}
	cur, err := c.OpenQuery(ctx, ttldb.SQL{Text: `SELECT VALUE c.n FROM c ORDER BY c.n DESC`})
	if err != nil {
		panic(err)
	}
	defer cur.Close()
	for {
		page, err := cur.Next(ctx, 2)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%d results: %s\n", len(page), page)
		c.Delete(ctx, ttldb.StringKey("s"), "e0") // between pages: the cursor's snapshot still has it
		if len(page) < 2 {
			break
		}
	}
	fmt.Println("read through", cur.Plan().Index)
	// Output:
	// 2 results: [4 3]
	// 2 results: [2 1]
	// 1 results: [0]
	// read through /n
}
