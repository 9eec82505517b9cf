package bench

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ---- the floors: the least work designs that keep R11 do ----
//
// Issue 29 measures the pg store against a plain upsert (one row through
// one index, one commit) and a plain select. The floors are written with
// plain pgx statements and do, each in a design of its own, only what
// R11 cannot do without, and nothing else: what they cost over the plain
// statements bounds what a design of their kind can reach, and what the
// engine costs over them is what a better design could still take away.
//
// R11 gives every change an LSN, from 1 without gaps, in the order the
// changes become visible, and makes the etag of it: a write returns once
// its LSN is known. Either the LSN is taken in the write's own
// transaction, from a counter whose row lock is then held through the
// commit's flush (the counter floor), or the write commits first and then
// waits for a pass that numbers every committed write without an LSN (one
// round trip: BEGIN, the sequencer's lock, one statement that numbers them
// and moves the collection's counter, COMMIT), one pass at a time in the
// process, each serving every write that committed before it began, as
// the engine's passes do (the other floors).
//
//   - The counter floor: the plain upsert with an LSN taken from the
//     collection's counter in the same statement.
//   - The bare floor: the plain upsert with a seq and a NULL LSN (an index
//     of the rows without one, for the pass to find them), numbered by a
//     pass. It does less than R11 asks: a write whose row is written again
//     before a pass numbered it gets no LSN (a bound on the safe side).
//   - The bare floor, asynchronous: the same with the first commit not
//     waiting for its flush, which the pass's synchronous commit, later in
//     the WAL, then makes durable. A design of this kind must keep every
//     reader from being shown, or judging by, a version a crash could
//     undo (DESIGN.md, "Durability": a review found an engine built so
//     unsafe): that costs reads, and is not measured here.
//   - The floor: what R4, R5, R8 and R11 keep besides: the document's row
//     (indexed by its key's hash, its key, its expiry) and a feed record
//     (by its seq, the pending ones, the LSN), written by one statement,
//     in one commit; the pass numbers the records. Unlike the engine, the
//     pass does not write the documents' rows again (the etag would be
//     read through the feed record, which the feed's retention may
//     delete: ignored), and the write takes no lock of its own, reads no
//     settings (no condition to check, no old version to report), keeps
//     no high-water mark of now.
//
// A Get of the floor is the least R4 asks of a read: the document's row
// by its key's hash, the collection's row (its default TTL, which every
// process's next statement must see), and the server's now, judged in
// the statement. It does not read the etag's LSN (an engine that kept it
// in the document's row would read it for nothing more).

const floorDDL = `
CREATE SEQUENCE floor_seq;
CREATE TABLE floor_coll (no integer PRIMARY KEY, lsn bigint NOT NULL, def integer NOT NULL);
INSERT INTO floor_coll VALUES (1, 0, -1), (2, 0, -1), (3, 0, -1), (4, 0, -1);
CREATE TABLE floor_docs (h bytea PRIMARY KEY, key text NOT NULL, body text NOT NULL,
	ts bigint NOT NULL, ttl integer NOT NULL, seq bigint NOT NULL);
CREATE INDEX floor_docs_order ON floor_docs (key);
CREATE INDEX floor_docs_expiry ON floor_docs ((ts + ttl)) WHERE ttl > 0;
CREATE TABLE floor_feed (seq bigint PRIMARY KEY, lsn bigint, h bytea NOT NULL, body text NOT NULL, ts bigint NOT NULL);
CREATE INDEX floor_feed_pending ON floor_feed (seq) WHERE lsn IS NULL;
CREATE UNIQUE INDEX floor_feed_lsn ON floor_feed (lsn) WHERE lsn IS NOT NULL;
CREATE TABLE floor_bare (id text PRIMARY KEY, pk text NOT NULL, body text NOT NULL, seq bigint NOT NULL, lsn bigint);
CREATE INDEX floor_bare_pk ON floor_bare (pk);
CREATE INDEX floor_bare_pending ON floor_bare (seq) WHERE lsn IS NULL;
CREATE TABLE floor_async (id text PRIMARY KEY, pk text NOT NULL, body text NOT NULL, seq bigint NOT NULL, lsn bigint);
CREATE INDEX floor_async_pk ON floor_async (pk);
CREATE INDEX floor_async_pending ON floor_async (seq) WHERE lsn IS NULL;
CREATE TABLE floor_counted (id text PRIMARY KEY, pk text NOT NULL, body text NOT NULL, lsn bigint NOT NULL);
CREATE INDEX floor_counted_pk ON floor_counted (pk);`

// floorWriteSQL stores a document ($1 its key's hash, $2 its key, $3 its
// body) and its feed record, and returns the record's seq: taken once the
// row is locked (a new row's, or DO UPDATE's), so that the later of two
// writes of a document has the larger.
const floorWriteSQL = `
WITH d AS (INSERT INTO floor_docs (h, key, body, ts, ttl, seq)
	VALUES ($1, $2, $3, extract(epoch FROM statement_timestamp())::bigint, 0, nextval('floor_seq'))
	ON CONFLICT (h) DO UPDATE SET body = excluded.body, ts = excluded.ts, ttl = excluded.ttl, seq = nextval('floor_seq')
	RETURNING seq, ts)
INSERT INTO floor_feed (seq, h, body, ts) SELECT d.seq, $1, $3, d.ts FROM d RETURNING seq`

// bareWriteSQL is the plain upsert ($1 the id, $2 the partition key, $3
// the body) into {t} with a seq and without an LSN, in a transaction
// whose commit is synchronous, or not ({sync}); it returns the seq.
const bareWriteSQL = `INSERT INTO {t} (id, pk, body, seq)
SELECT $1, $2, $3, nextval('floor_seq') FROM (SELECT set_config('synchronous_commit', '{sync}', true)) x
ON CONFLICT (id) DO UPDATE SET pk = excluded.pk, body = excluded.body, seq = nextval('floor_seq'), lsn = NULL RETURNING seq`

// counterWriteSQL is the plain upsert with an LSN from the counter of
// collection 3, taken in the same transaction; it returns the LSN.
const counterWriteSQL = `
WITH c AS (UPDATE floor_coll SET lsn = lsn + 1 WHERE no = 3 RETURNING lsn)
INSERT INTO floor_counted (id, pk, body, lsn) SELECT $1, $2, $3, c.lsn FROM c
ON CONFLICT (id) DO UPDATE SET pk = excluded.pk, body = excluded.body, lsn = excluded.lsn RETURNING lsn`

// floorPassSQL numbers every committed row of {t} without an LSN, in seq
// order, from the counter of collection $1, and returns each one's seq
// and LSN; {k} is the table's primary key, by which it finds the rows.
// {lock} locks them, where writers may write them again meanwhile (a row
// counted, then changed, would not be numbered: a gap).
const floorPassSQL = `
WITH p AS MATERIALIZED (SELECT seq, {k} AS k FROM {t} WHERE lsn IS NULL ORDER BY seq {lock}),
c AS (UPDATE floor_coll SET lsn = lsn + (SELECT count(*) FROM p) WHERE no = $1 RETURNING lsn - (SELECT count(*) FROM p) AS base),
n AS (SELECT p.seq, p.k, c.base + row_number() OVER (ORDER BY p.seq) AS lsn FROM p, c)
UPDATE {t} f SET lsn = n.lsn FROM n WHERE f.{k} = n.k AND f.seq = n.seq RETURNING f.seq, f.lsn`

// floorGetSQL reads the live document of the key's hash $1.
const floorGetSQL = `
SELECT d.body, d.ts, d.ttl, d.seq FROM floor_docs d, floor_coll c,
	LATERAL (SELECT extract(epoch FROM statement_timestamp())::bigint AS now) t
WHERE d.h = $1 AND c.no = 1 AND (d.ttl = -1 OR (d.ttl > 0 AND d.ts + d.ttl > t.now) OR (d.ttl = 0 AND (c.def <= 0 OR d.ts + c.def > t.now)))`

// floor is one of the floors on a pool: its writes and their passes.
type floor struct {
	pool *pgxpool.Pool
	sql  string                        // its write, which returns the seq, or the LSN for the counter floor
	args func(i int, doc string) []any // the write's arguments for document i
	pass string                        // floorPassSQL for its table, or "" for the counter floor
	no   int                           // its collection's row in floor_coll
	bare bool                          // a write may be replaced before its pass

	mu      sync.Mutex
	turn    *sync.Cond // signalled when a pass ends
	started uint64     // passes started
	ended   uint64     // passes ended
	running bool
	err     error           // the last pass's failure
	lsns    map[int64]int64 // seq → LSN: the writes numbered whose writer has not collected its LSN
}

// floors are the four floors of a benchmark, and BenchmarkPG's keys.
type floors struct {
	counter, bare, async, floor *floor

	keys [][]byte // BenchmarkPG's keys, i's at i
	hash [][]byte // their SHA-256
	pks  []string // i's partition key at i
}

// newFloors makes the floors' tables beside the plain one, on pool, filled
// with BenchmarkPG's documents (each written once, numbered) and analyzed.
func newFloors(b *testing.B, pool *pgxpool.Pool) *floors {
	b.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, floorDDL); err != nil {
		b.Fatal(err)
	}
	fs := new(floors)
	for i, id := range CallerKeys(pgItems) {
		h := sha256.Sum256([]byte(id))
		fs.keys, fs.hash = append(fs.keys, []byte(id)), append(fs.hash, h[:])
		fs.pks = append(fs.pks, string(appendKey(nil, "g-", i/pgPart)))
	}
	mk := func(no int, table, key, lock, sql string, args func(i int, doc string) []any) *floor {
		f := &floor{pool: pool, sql: sql, args: args, no: no, bare: key == "id", lsns: make(map[int64]int64)}
		if table != "" {
			f.pass = strings.NewReplacer("{t}", table, "{k}", key, "{lock}", lock).Replace(floorPassSQL)
		}
		f.turn = sync.NewCond(&f.mu)
		return f
	}
	byID := func(i int, doc string) []any { return []any{fs.keys[i], fs.pks[i], doc} }
	bareSQL := func(table, sync string) string {
		return strings.NewReplacer("{t}", table, "{sync}", sync).Replace(bareWriteSQL)
	}
	fs.floor = mk(1, "floor_feed", "seq", "", floorWriteSQL, func(i int, doc string) []any { return []any{fs.hash[i], fs.keys[i], doc} })
	fs.bare = mk(2, "floor_bare", "id", "FOR UPDATE", bareSQL("floor_bare", "on"), byID)
	fs.async = mk(4, "floor_async", "id", "FOR UPDATE", bareSQL("floor_async", "off"), byID)
	fs.counter = mk(3, "", "", "", counterWriteSQL, byID)
	all := []*floor{fs.floor, fs.bare, fs.async, fs.counter}
	fillByPartition(b, pool, func(q *pgx.Batch, i int, doc string) {
		for _, f := range all {
			q.Queue(f.sql, f.args(i, doc)...)
		}
	})
	for _, f := range all[:3] {
		if _, err := f.numberAll(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, "ANALYZE floor_coll, floor_docs, floor_feed, floor_bare, floor_async, floor_counted"); err != nil {
		b.Fatal(err)
	}
	return fs
}

// put stores document i as doc, and returns its LSN once it is known (0
// for a write of a bare floor that a later write of the same row replaced
// before a pass).
func (f *floor) put(ctx context.Context, i int, doc []byte) (int64, error) {
	var seq int64
	err := f.pool.QueryRow(ctx, f.sql, f.args(i, string(doc))...).Scan(&seq)
	if err != nil || f.pass == "" {
		return seq, err
	}
	return f.number(ctx, seq)
}

// number returns the LSN of the committed write seq: a pass that begins
// after the call sees the write, so the call waits for the pass running,
// if any, then leads the next unless one served it meanwhile.
func (f *floor) number(ctx context.Context, seq int64) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	want := f.started + 1 // the first pass that starts after the write's commit
	for {
		if lsn, ok := f.lsns[seq]; ok {
			delete(f.lsns, seq)
			return lsn, nil
		}
		if f.ended >= want {
			switch {
			case f.err != nil:
				return 0, f.err
			case f.bare:
				return 0, nil // replaced before the pass by a later write of its row
			}
			return 0, fmt.Errorf("the floor's record %d was not numbered by a pass that began after its commit", seq)
		}
		if f.running {
			f.turn.Wait()
			continue
		}
		f.running = true
		f.started++
		f.mu.Unlock()
		got, err := f.numberAll(ctx)
		f.mu.Lock()
		f.running = false
		f.ended++
		f.err = err
		f.turn.Broadcast()
		for s, lsn := range got {
			f.lsns[s] = lsn
		}
	}
}

// numberAll runs a pass: it numbers every committed write without an LSN
// in one round trip, and returns their LSNs by seq.
func (f *floor) numberAll(ctx context.Context) (map[int64]int64, error) {
	var q pgx.Batch
	q.Queue("BEGIN ISOLATION LEVEL READ COMMITTED")
	q.Queue("SELECT pg_advisory_xact_lock(29, $1)", f.no)
	q.Queue(f.pass, f.no)
	q.Queue("COMMIT")
	br := f.pool.SendBatch(ctx, &q)
	got := make(map[int64]int64)
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			var seq, lsn int64
			_, err = pgx.ForEachRow(rows, []any{&seq, &lsn}, func() error { got[seq] = lsn; return nil })
		}
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("the floor's pass: %w", err)
	}
	return got, nil
}

// get reads document i's live version.
func (fs *floors) get(ctx context.Context, pool *pgxpool.Pool, i int, body *string) error {
	var ts, seq int64
	var ttl int32
	return pool.QueryRow(ctx, floorGetSQL, fs.hash[i]).Scan(body, &ts, &ttl, &seq)
}

// BenchmarkPGFloor measures the pg store, the floors and the plain
// statements side by side (the same 10,000 documents, the same server):
// writes by pgWriters goroutines, interleaved in blocks of 320 (20 blocks
// of each), then Gets by one goroutine in blocks of 300 (30 of each). For
// each it reports the time an operation (wall time over operations) and
// the CPU time an operation, client and server together (cpuSpent: every
// process of the server counts, the engine's background work too), and
// the ratios of the rates to the plain statements' (issue 29's targets
// are the store's, at least 0.7) and of the store's to the floor's (what
// a better design could still gain). From bench/:
//
//	TTLDB_PG_FSYNC=on ../.ci/pg sh -c 'TTLDB_BENCH_PG=$TTLDB_TEST_PG go test -run "^$" -bench PGFloor -benchtime 1x -count 3'
func BenchmarkPGFloor(b *testing.B) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		b.Skip("no /proc: the server's CPU time cannot be read here")
	}
	c, pool := openPGBeside(b)
	fs := newFloors(b, pool)
	ctx := context.Background()
	ids, pks := CallerKeys(pgItems), pgPartitions()
	docs := newGroupDocs()
	put := func(f *floor) func(i int, doc []byte) error {
		return func(i int, doc []byte) error { _, err := f.put(ctx, i, doc); return err }
	}
	writeNames := []string{"plain", "counter", "async", "bare", "floor", "pg"}
	writes := []func(i int, doc []byte) error{
		func(i int, doc []byte) error {
			_, err := pool.Exec(ctx, plainUpsertSQL, ids[i], fs.pks[i], string(doc))
			return err
		},
		put(fs.counter), put(fs.async), put(fs.bare), put(fs.floor),
		func(_ int, doc []byte) error { _, err := c.UpsertJSON(bg, doc); return err },
	}
	var body string
	getNames := []string{"plain", "floor", "pg"}
	gets := []func(i int) error{
		func(i int) error { return pool.QueryRow(ctx, plainGetSQL, ids[i]).Scan(&body) },
		func(i int) error { return fs.get(ctx, pool, i, &body) },
		func(i int) error { _, err := c.Get(bg, pks[i/pgPart], ids[i]); return err },
	}
	const writeBlock, writeBlocks, getBlock, getBlocks = 320, 20, 300, 30
	wall := [2][]time.Duration{make([]time.Duration, len(writes)), make([]time.Duration, len(gets))}
	cpu := [2][]time.Duration{make([]time.Duration, len(writes)), make([]time.Duration, len(gets))}
	// measure runs f, and adds its wall time (not cpuSpent's own) and CPU
	// time to op's k.
	measure := func(op, k int, f func()) {
		var took time.Duration
		cl, srv := cpuSpent(b, pool, func() {
			start := time.Now()
			f()
			took = time.Since(start)
		})
		wall[op][k] += took
		cpu[op][k] += cl + srv
	}
	seed := uint64(1000)
	for b.Loop() {
		for range writeBlocks {
			seed += 100
			for k, write := range writes {
				measure(0, k, func() { pgWriteAll(b, docs, seed, writeBlock, write) })
			}
		}
		r := newRNG(seed)
		for range getBlocks {
			for k, get := range gets {
				measure(1, k, func() {
					for range getBlock {
						i := r.intn(pgItems)
						if err := get(i); err != nil {
							b.Fatalf("read of item %d: %v", i, err)
						}
					}
				})
			}
		}
		if b.Failed() {
			return
		}
	}
	report := func(what string, n float64, names []string, wall, cpu []time.Duration) {
		for k, name := range names {
			b.ReportMetric(float64(wall[k].Nanoseconds())/n/1000, name+"-µs/"+what)
			b.ReportMetric(float64(cpu[k].Nanoseconds())/n/1000, name+"-cpu-µs/"+what)
			if k > 0 {
				b.ReportMetric(float64(wall[0])/float64(wall[k]), name+"/plain-"+what)
				b.ReportMetric(float64(cpu[0])/float64(cpu[k]), name+"/plain-cpu-"+what)
			}
		}
		pg, fl := len(names)-1, len(names)-2 // the engine's, the floor's
		b.ReportMetric(float64(wall[fl])/float64(wall[pg]), "pg/floor-"+what)
		b.ReportMetric(float64(cpu[fl])/float64(cpu[pg]), "pg/floor-cpu-"+what)
	}
	report("write", float64(b.N*writeBlock*writeBlocks), writeNames, wall[0], cpu[0])
	report("get", float64(b.N*getBlock*getBlocks), getNames, wall[1], cpu[1])
}
