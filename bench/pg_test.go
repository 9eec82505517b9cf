package bench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ttldb/ttldb"
	_ "github.com/ttldb/ttldb/postgres" // the postgres:// scheme of ttldb.Open
)

// ---- the PostgreSQL engine against the in-process one (issue 29) ----
//
// BenchmarkPG runs the same operations on the same documents in three
// stores opened with ttldb.Open: mem (in memory), dir (a directory under
// out/, Sync always: a write returns once it is on disk) and pg (the
// PostgreSQL engine, on the server TTLDB_BENCH_PG names, in a schema of
// its own made for the run and dropped at its end). Without
// TTLDB_BENCH_PG the pg store is skipped, saying so; mem and dir still
// run. No group of cmd/report runs it: cmd/pgreport does, in one process.

// pgEnv is the variable that holds the URL of the PostgreSQL server of
// BenchmarkPG, as ../.ci/pg's TTLDB_TEST_PG does for the tests.
const pgEnv = "TTLDB_BENCH_PG"

const (
	// pgItems is the size of BenchmarkPG's stores: 1,000 partitions of
	// pgPart documents.
	pgItems = 10_000
	// pgPart is the documents of a partition: a batch writes them all,
	// a query returns them all.
	pgPart = 10
	// pgFeedPage is the records of one feed read.
	pgFeedPage = 100
	// pgWriters is the goroutines of upsert/g=16.
	pgWriters = 16
)

// pgStore is one of BenchmarkPG's stores: name, and how to open it.
type pgStore struct {
	name string
	open func(b *testing.B) *ttldb.Collection
}

// BenchmarkPG measures, per store (mem, dir, pg; see above), on a
// collection of 10,000 documents of about 200 bytes partitioned by /pk,
// 10 per partition, TTL an hour, filled by one batch per partition:
//
//   - get: Get of a random document (a hit);
//   - query: SELECT * FROM c in a random partition, its 10 documents;
//   - feed: a page of 100 records of the all-versions feed, from a random
//     LSN of the fill;
//   - upsert/g=1: UpsertJSON of a random document, one writer;
//   - upsert/g=16: the same by 16 goroutines sharing b.N writes (ns/op
//     is the time per write of the whole);
//   - batch: a transactional batch of the 10 upserts of a random
//     partition (NewBatch, 10 Upsert, ExecuteBatch).
//
// Each reports ops/s, b.N over the wall time. The store pgx is the
// baseline of issue 29's targets: the same operations (but the feed's)
// with plain pgx statements on a plain table of the same server
// (pgplain_test.go).
func BenchmarkPG(b *testing.B) {
	stores := []pgStore{
		{"mem", func(*testing.B) *ttldb.Collection { return openPGBench(b, "mem:", nil) }},
		{"dir", func(b *testing.B) *ttldb.Collection {
			return openPGBench(b, "file:"+durableDir(b), &ttldb.Options{Sync: ttldb.SyncAlways})
		}},
		{"pg", openPGServer},
	}
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			dropCached() // no other store's heap in this one's figures
			c := s.open(b)
			defer func() {
				if err := c.Close(); err != nil {
					b.Errorf("Close: %v", err)
				}
			}()
			runPGBench(b, c)
		})
	}
	b.Run("pgx", func(b *testing.B) {
		dropCached()
		benchPlainPGX(b)
	})
}

// openPGBench opens url with the options of every store of BenchmarkPG
// (and o's Sync), and fills it.
func openPGBench(b *testing.B, url string, o *ttldb.Options) *ttldb.Collection {
	b.Helper()
	opts := &ttldb.Options{Name: "bench", PartitionKeyPath: "/pk", DefaultTTL: ttldb.TTLNoDefault()}
	if o != nil {
		opts.Sync = o.Sync
	}
	c, err := ttldb.Open(b.Context(), url, opts)
	if err != nil {
		b.Fatalf("Open %s: %v", url, err)
	}
	start := time.Now()
	docs := newGroupDocs()
	keys := pgPartitions()
	buf := make([]byte, 0, 256)
	for g, pk := range keys {
		batch := ttldb.NewBatch(pk)
		for i := g * pgPart; i < (g+1)*pgPart; i++ {
			buf = appendPGDoc(docs, buf[:0], i)
			batch.Upsert(buf)
		}
		if _, err := c.ExecuteBatch(bg, batch); err != nil {
			_ = c.Close()
			b.Fatalf("fill: %v", err)
		}
	}
	b.Logf("filled %d documents in %v", pgItems, time.Since(start).Round(time.Millisecond))
	return c
}

// skipNote says once per process, whatever -v, that the pg stores are
// skipped.
var skipNote sync.Once

// pgSchema makes a schema of its own on the server of TTLDB_BENCH_PG,
// dropped when the benchmark ends, and returns a connection to the server
// and the URL of a pool in that schema, with connections for the 16
// writers, the feed's listener, the background goroutine and a spare.
// Without the variable it skips the benchmark.
func pgSchema(b *testing.B) (conn *pgx.Conn, schema, poolURL string) {
	b.Helper()
	base := os.Getenv(pgEnv)
	if base == "" {
		skipNote.Do(func() {
			fmt.Fprintf(os.Stderr, "BenchmarkPG: %s is unset: the pg stores are skipped (mem and dir run)\n", pgEnv)
		})
		b.Skipf("%s is unset: no PostgreSQL server, skipped (from bench/: ../.ci/pg sh -c '%s=$TTLDB_TEST_PG go test -run ^$ -bench ^BenchmarkPG$')", pgEnv, pgEnv)
	}
	u, err := url.Parse(base)
	if err != nil {
		b.Fatalf("%s is not a URL: %v", pgEnv, err)
	}
	ctx := context.Background()
	conn, err = pgx.Connect(ctx, base)
	if err != nil {
		b.Fatalf("%s: %v", pgEnv, err)
	}
	schema = fmt.Sprintf("ttldb_bench_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		_ = conn.Close(ctx)
		b.Fatalf("CREATE SCHEMA: %v", err)
	}
	// Cleanups run last in, first out: the store's Close (a defer in
	// BenchmarkPG) before this.
	b.Cleanup(func() {
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			b.Errorf("DROP SCHEMA %s: %v", schema, err)
		}
		_ = conn.Close(ctx)
	})
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("pool_max_conns", fmt.Sprint(pgWriters+4))
	u.RawQuery = q.Encode()
	return conn, schema, u.String()
}

// pgAnalyze gives the tables of schema the statistics autovacuum would
// have within a minute of the fill: without them the planner takes the new
// tables for a few hundred rows, and the engine's sequencer's pass scans
// them whole (8-9 ms a write at 10,000 documents, growing with them).
func pgAnalyze(conn *pgx.Conn, schema string) error {
	ctx := context.Background()
	var tables string
	err := conn.QueryRow(ctx, "SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') FROM pg_tables WHERE schemaname = $1", schema).Scan(&tables)
	if err == nil {
		_, err = conn.Exec(ctx, "ANALYZE "+tables)
	}
	if err != nil {
		return fmt.Errorf("ANALYZE of the schema's tables: %w", err)
	}
	return nil
}

// openPGServer opens the pg store: the PostgreSQL engine, by URL, in a
// schema of its own (pgSchema), its tables analyzed after the fill.
func openPGServer(b *testing.B) *ttldb.Collection {
	b.Helper()
	conn, schema, poolURL := pgSchema(b)
	ctx := context.Background()
	// cmd/pgreport reads this line.
	var version, fsync, syncCommit string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit')").Scan(&version, &fsync, &syncCommit); err != nil {
		b.Fatalf("the server's settings: %v", err)
	}
	b.Logf("server: PostgreSQL %s, fsync=%s synchronous_commit=%s", version, fsync, syncCommit)
	c := openPGBench(b, poolURL, nil)
	if err := pgAnalyze(conn, schema); err != nil {
		_ = c.Close()
		b.Fatal(err)
	}
	return c
}

// appendPGDoc appends the document of item i: groupDocs' document, whose
// partition key is item / pgPart.
func appendPGDoc(d *groupDocs, dst []byte, i int) []byte {
	n := len(dst)
	dst = append(dst, d.tmpl...)
	putDigits(dst[n+d.idAt:n+d.idAt+10], i)
	putDigits(dst[n+d.pkAt:n+d.pkAt+10], i/pgPart)
	return dst
}

// pgPartitions returns the partition keys of BenchmarkPG's store: g holds
// items pgPart*g to pgPart*g+pgPart-1.
func pgPartitions() []ttldb.PartitionKey {
	keys := make([]ttldb.PartitionKey, pgItems/pgPart)
	for g := range keys {
		var b [12]byte
		keys[g] = ttldb.StringKey(string(appendKey(b[:0], "g-", g)))
	}
	return keys
}

// opsPerSecond reports b.N over the time since start as ops/s.
func opsPerSecond(b *testing.B, start time.Time) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ops/s")
}

// runPGBench runs BenchmarkPG's operations on c, a filled store.
func runPGBench(b *testing.B, c *ttldb.Collection) {
	ids, pks := CallerKeys(pgItems), pgPartitions()
	docs := newGroupDocs()
	b.Run("get", func(b *testing.B) {
		r := newRNG(1)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			i := r.intn(pgItems)
			if _, err := c.Get(bg, pks[i/pgPart], ids[i]); err != nil {
				b.Fatalf("Get %s: %v", ids[i], err)
			}
		}
		opsPerSecond(b, start)
	})
	b.Run("query", func(b *testing.B) {
		p, err := ttldb.Prepare("SELECT * FROM c")
		if err != nil {
			b.Fatal(err)
		}
		r := newRNG(2)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			pk := pks[r.intn(len(pks))]
			page, err := c.Query(bg, ttldb.SQL{Prepared: p, Partition: &pk})
			if err != nil || len(page.Results) != pgPart {
				b.Fatalf("Query of a partition: %d results, %v; want %d", len(page.Results), err, pgPart)
			}
		}
		opsPerSecond(b, start)
	})
	b.Run("feed", func(b *testing.B) {
		last := c.LastLSN()
		if last < pgFeedPage {
			b.Fatalf("the feed holds %d records, want at least %d", last, pgFeedPage)
		}
		r := newRNG(3)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			from := uint64(r.intn(int(last - pgFeedPage + 1)))
			page, err := c.ReadFeed(bg, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: from, Limit: pgFeedPage})
			if err != nil || len(page.Changes) != pgFeedPage {
				b.Fatalf("ReadFeed after %d: %d changes, %v; want %d", from, len(page.Changes), err, pgFeedPage)
			}
		}
		opsPerSecond(b, start)
	})
	upsert := func(b *testing.B, writers int) {
		b.ReportAllocs()
		b.ResetTimer()
		start := time.Now()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				r := newRNG(uint64(10 + w))
				buf := make([]byte, 0, 256)
				for k := w; k < b.N; k += writers {
					buf = appendPGDoc(docs, buf[:0], r.intn(pgItems))
					if _, err := c.UpsertJSON(bg, buf); err != nil {
						b.Errorf("UpsertJSON: %v", err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		opsPerSecond(b, start)
	}
	b.Run("upsert/g=1", func(b *testing.B) { upsert(b, 1) })
	b.Run(fmt.Sprintf("upsert/g=%d", pgWriters), func(b *testing.B) { upsert(b, pgWriters) })
	b.Run("batch", func(b *testing.B) {
		r := newRNG(4)
		buf := make([]byte, 0, 256)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			g := r.intn(len(pks))
			batch := ttldb.NewBatch(pks[g])
			for i := g * pgPart; i < (g+1)*pgPart; i++ {
				buf = appendPGDoc(docs, buf[:0], i)
				batch.Upsert(buf)
			}
			if out, err := c.ExecuteBatch(bg, batch); err != nil || len(out) != pgPart {
				b.Fatalf("ExecuteBatch: %d documents, %v", len(out), err)
			}
		}
		opsPerSecond(b, start)
	})
}
