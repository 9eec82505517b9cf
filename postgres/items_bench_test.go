package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// The figures of DESIGN.md, "Indexes on the server": run from postgres/
// with ../.ci/pg go test -run '^$' -bench Indexed ./... (nothing else
// running). They use the engine's API alone, so that the same file
// measures the first version (every document read per query).

// BenchmarkIndexedEquality reads an indexed equality that 10 documents of
// 20,000 match: a snapshot, its Index read of one value, its Release.
func BenchmarkIndexedEquality(b *testing.B) {
	const n, per = 20000, 10
	s := newServerB(b)
	h := openB(b, s, &ttldb.Options{Indexes: []string{"/v"}})
	var steps []engine.Step
	for i := range n {
		id := fmt.Sprintf("d%05d", i)
		steps = append(steps, engine.Step{Key: string(mustKeyB(id)), Write: engine.Write{Op: engine.Create, Doc: doc(id, fmt.Sprintf(`{"v":%d,"pad":"%0100d"}`, i%(n/per), i), 0)}})
		if len(steps) == 100 {
			if _, err := h.Batch(b.Context(), steps); err != nil {
				b.Fatal(err)
			}
			steps = nil
		}
	}
	for i := 0; b.Loop(); i++ {
		v := query.AppendKey(nil, query.Value{Kind: query.Number, Num: float64(i % (n / per))})
		sn, err := h.Snapshot(b.Context(), []string{"/v"}, false)
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		err = sn.Index(b.Context(), "/v", []engine.Range{{From: v, To: query.PrefixEnd(v)}}, false, "", func(*engine.Doc, string) bool { got++; return true })
		sn.Release()
		if err != nil || got != per {
			b.Fatalf("%d documents, %v; want %d", got, err, per)
		}
	}
}

// BenchmarkIndexedWrite upserts documents whose indexed values change,
// with 0, 1 and 3 indexes, one goroutine.
func BenchmarkIndexedWrite(b *testing.B) {
	for _, idx := range [][]string{nil, {"/a"}, {"/a", "/b", "/c"}} {
		b.Run(fmt.Sprintf("indexes=%d", len(idx)), func(b *testing.B) {
			s := newServerB(b)
			h := openB(b, s, &ttldb.Options{Indexes: idx})
			for i := 0; b.Loop(); i++ {
				id := fmt.Sprintf("d%04d", i%1000)
				d := doc(id, fmt.Sprintf(`{"a":%d,"b":"s%d","c":%d}`, i, i, -i), 0)
				if _, err := h.Write(b.Context(), mustKeyB(id), engine.Write{Op: engine.Upsert, Doc: d}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// newServerB gives b a new, empty PostgreSQL schema on the test server,
// as newServer does for a test, and returns its name.
func newServerB(b *testing.B) string {
	b.Helper()
	url := os.Getenv(serverEnv)
	if url == "" {
		b.Skipf("%s is unset: no PostgreSQL server; run ../.ci/pg go test -bench ... (from postgres/)", serverEnv)
	}
	admin, err := pgx.Connect(b.Context(), url)
	if err != nil {
		b.Fatal(err)
	}
	schema := fmt.Sprintf("ttldb_bench_%d", rand.Uint64())
	if _, err := admin.Exec(b.Context(), `CREATE SCHEMA `+schema); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = admin.Exec(ctx, `DROP SCHEMA `+schema+` CASCADE`)
		_ = admin.Close(ctx)
	})
	return schema
}

// openB opens the collection "bench" in schema, on a pool of its own,
// without the background goroutine.
func openB(b *testing.B, schema string, opts *ttldb.Options) *Engine {
	b.Helper()
	cfg, err := pgxpool.ParseConfig(os.Getenv(serverEnv))
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	p, err := pgxpool.NewWithConfig(b.Context(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	o := *opts
	o.ManualSweep = true
	e, err := Open(b.Context(), p, "bench", "/tenant", &o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = e.Close() })
	return e
}

// mustKeyB returns the key of the document id, as key does.
func mustKeyB(id string) []byte {
	k, _ := key(id)
	return k
}
