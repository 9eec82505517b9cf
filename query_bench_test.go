package ttldb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/query"
)

// BenchmarkQueryEq measures a query's fixed cost (issue 31): an indexed
// equality that returns 10 documents of 10,000, prepared once, with a
// parameter, beside a point Get of one of them.
func BenchmarkQueryEq(b *testing.B) {
	const n, per = 10_000, 10
	ctx := context.Background()
	c, err := NewCollection("eq", "/pk", &Options{DefaultTTL: TTLNoDefault(), Indexes: []string{"/status"}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for i := range n {
		doc := fmt.Appendf(nil, `{"id":"key:%010d","pk":"g-%d","ttl":3600,"status":"s-%07d","total":%d,"user":"u-%04d"}`, i, i/100, i%(n/per), i*7919%1_000_000, i%1000)
		if _, err := c.UpsertJSON(ctx, doc); err != nil {
			b.Fatal(err)
		}
	}
	q, err := Prepare(`SELECT * FROM c WHERE c.status = @status`)
	if err != nil {
		b.Fatal(err)
	}
	params := make([]map[string]any, 64)
	for i := range params {
		params[i] = map[string]any{"status": fmt.Sprintf("s-%07d", i*97%(n/per))}
	}
	b.Run("eq", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			page, err := c.Query(ctx, SQL{Prepared: q, Params: params[i%len(params)]})
			if err != nil || len(page.Results) != per {
				b.Fatalf("%d results (%v), want %d", len(page.Results), err, per)
			}
			i++
		}
	})
	b.Run("get", func(b *testing.B) {
		pks, ids := make([]PartitionKey, 64), make([]string, 64)
		for i := range ids {
			k := i * 7919 % n
			pks[i], ids[i] = StringKey(fmt.Sprintf("g-%d", k/100)), fmt.Sprintf("key:%010d", k)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := c.Get(ctx, pks[i%len(ids)], ids[i%len(ids)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// TestIsPrefixEnd: the planner's check that a range holds one value, made
// without an allocation, agrees with query.PrefixEnd on every pair of
// short keys (R13: an equality is read as one value's items, in key order).
func TestIsPrefixEnd(t *testing.T) { // R13
	keys := [][]byte{nil, {}, {0}, {1}, {0xFF}, {1, 0xFF}, {1, 2}, {1, 3}, {2}, {0xFF, 0xFF}, {1, 2, 0xFF}, {1, 3, 0}}
	for _, p := range keys {
		for _, end := range keys {
			if got, want := isPrefixEnd(end, p), bytes.Equal(end, query.PrefixEnd(p)); got != want {
				t.Errorf("isPrefixEnd(%v, %v) = %v, want %v", end, p, got, want)
			}
		}
	}
}

// TestParamJSON: a parameter's JSON is encoding/json's, with or without
// the fast path for plain strings and ints (R13: a parameter binds as the
// value it is).
func TestParamJSON(t *testing.T) { // R13
	for _, v := range []any{"", "s-0000042", "a b~", `q"uote`, `back\slash`, "<tag>", "a&b", "tab\t", "é", "\x7f", "\u2028", 0, -42, 1 << 40, 1.5, true, nil} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := paramJSON(v); err != nil || got != string(want) {
			t.Errorf("paramJSON(%#v) = %s, %v; want %s", v, got, err, want)
		}
	}
}

// TestQueryEqAllocs: an indexed equality of 10 rows, prepared, allocates
// at most 10 times a call (issue 31's target; R13's queries, at their
// cost): its results' page, and what the engine's snapshot needs.
func TestQueryEqAllocs(t *testing.T) { // R13
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	require.NoError(t, c.CreateIndex(bg, "/status"))
	for i := range 200 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%04d","pk":"g-%d","status":"s-%02d","n":%d}`, i, i/10, i%20, i))
	}
	q, err := Prepare(`SELECT * FROM c WHERE c.status = @status`)
	require.NoError(t, err)
	params := map[string]any{"status": "s-07"}
	allocs := testing.AllocsPerRun(200, func() {
		page, err := c.Query(bg, SQL{Prepared: q, Params: params})
		if err != nil || len(page.Results) != 10 {
			t.Fatalf("%d results (%v), want 10", len(page.Results), err)
		}
	})
	require.LessOrEqual(t, allocs, 10.0)
}
