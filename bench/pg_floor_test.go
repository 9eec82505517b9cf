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

// ---- the floors: the least work an engine keeping R11 does ----
//
// Issue 29 measures the pg store against a plain upsert (one row through
// one index, one commit) and a plain select. The floors are written with
// plain pgx statements and do only what the contract cannot do without,
// and nothing else: what they cost over the plain statements is a bound
// no design of the engine goes under, and what the engine costs over them
// is what a better design could still take away.
//
// R11 gives every change an LSN, from 1 without gaps, in the order the
// changes become visible, and makes the etag of it: a write returns once
// its LSN is known. A counter taken in each write's transaction holds its
// lock through the commit's flush, so that writers cannot share one (440
// writes/s with 16 writers where 4,160 without, POSTGRES.md); so a write
// commits, then waits for a pass that numbers every committed write
// without an LSN (one round trip: BEGIN, the sequencer's lock, one
// statement that numbers them and moves the collection's counter,
// COMMIT), one pass at a time in the process, each serving every write
// that committed before it began, as the engine's passes do.
//
//   - The bare floor is the plain upsert so numbered: the plain table with a
//     seq and an LSN, the LSN NULL again at each upsert (an index of the
//     rows without one, for the pass to find them), and nothing else: no
//     feed record, no expiry, no key order. A row written again before a
//     pass numbered it is numbered once, for its last write.
//   - The floor adds what R4, R5, R8 and R11 keep besides: the document's
//     row (indexed by its key's hash, its key, its expiry) and a feed
//     record (by its seq, the pending ones, the LSN), written by one
//     statement, in one commit; the pass numbers the records. Unlike the
//     engine, the pass does not write the documents' rows again (the etag
//     would be read through the feed record, which the feed's retention
//     may delete: ignored), and the write takes no lock of its own, reads
//     no settings (no condition to check, no old version to report), keeps
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
INSERT INTO floor_coll VALUES (1, 0, -1), (2, 0, -1);
CREATE TABLE floor_docs (h bytea PRIMARY KEY, key text NOT NULL, body text NOT NULL,
	ts bigint NOT NULL, ttl integer NOT NULL, seq bigint NOT NULL);
CREATE INDEX floor_docs_order ON floor_docs (key);
CREATE INDEX floor_docs_expiry ON floor_docs ((ts + ttl)) WHERE ttl > 0;
CREATE TABLE floor_feed (seq bigint PRIMARY KEY, lsn bigint, h bytea NOT NULL, body text NOT NULL, ts bigint NOT NULL);
CREATE INDEX floor_feed_pending ON floor_feed (seq) WHERE lsn IS NULL;
CREATE UNIQUE INDEX floor_feed_lsn ON floor_feed (lsn) WHERE lsn IS NOT NULL;
CREATE TABLE floor_bare (id text PRIMARY KEY, pk text NOT NULL, body text NOT NULL, seq bigint NOT NULL, lsn bigint);
CREATE INDEX floor_bare_pending ON floor_bare (seq) WHERE lsn IS NULL;`

// floorWriteSQL stores a document ($1 its key's hash, $2 its key, $3 its
// body) and its feed record, and returns the record's seq.
const floorWriteSQL = `
WITH s AS (SELECT nextval('floor_seq') AS seq, extract(epoch FROM statement_timestamp())::bigint AS ts),
d AS (INSERT INTO floor_docs (h, key, body, ts, ttl, seq) SELECT $1, $2, $3, s.ts, 0, s.seq FROM s
	ON CONFLICT (h) DO UPDATE SET body = excluded.body, ts = excluded.ts, ttl = excluded.ttl, seq = excluded.seq)
INSERT INTO floor_feed (seq, h, body, ts) SELECT s.seq, $1, $3, s.ts FROM s RETURNING seq`

// bareWriteSQL is the plain upsert ($1 the id, $2 the partition key, $3
// the body) with a seq and without an LSN; it returns the seq.
const bareWriteSQL = `INSERT INTO floor_bare (id, pk, body, seq) VALUES ($1, $2, $3, nextval('floor_seq'))
ON CONFLICT (id) DO UPDATE SET pk = excluded.pk, body = excluded.body, seq = excluded.seq, lsn = NULL RETURNING seq`

// floorPassSQL numbers every committed row of {t} without an LSN, in seq
// order, from the counter of collection $1, and returns each one's seq
// and LSN; {k} is the table's primary key, by which it finds the rows.
const floorPassSQL = `
WITH p AS (SELECT seq, {k} AS k FROM {t} WHERE lsn IS NULL ORDER BY seq),
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
	bare bool     // the bare floor, else the floor
	pass string   // floorPassSQL for its table
	no   int      // its collection's row in floor_coll
	keys [][]byte // BenchmarkPG's keys, i's at i
	hash [][]byte // their SHA-256
	pks  []string // i's partition key at i

	mu      sync.Mutex
	turn    *sync.Cond // signalled when a pass ends
	started uint64     // passes started
	ended   uint64     // passes ended
	running bool
	lsns    map[int64]int64 // seq → LSN: the writes numbered whose writer has not collected its LSN
}

// newFloors makes the two floors' tables beside the plain one, on pool,
// filled with BenchmarkPG's documents (each written once, numbered) and
// analyzed, and returns the floor and the bare floor.
func newFloors(b *testing.B, pool *pgxpool.Pool) (fl, bare *floor) {
	b.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, floorDDL); err != nil {
		b.Fatal(err)
	}
	var keys, hash [][]byte
	var pks []string
	for i, id := range CallerKeys(pgItems) {
		h := sha256.Sum256([]byte(id))
		keys, hash = append(keys, []byte(id)), append(hash, h[:])
		pks = append(pks, string(appendKey(nil, "g-", i/pgPart)))
	}
	mk := func(bare bool, no int, table, key string) *floor {
		f := &floor{pool: pool, bare: bare, no: no, pass: strings.NewReplacer("{t}", table, "{k}", key).Replace(floorPassSQL),
			keys: keys, hash: hash, pks: pks, lsns: make(map[int64]int64)}
		f.turn = sync.NewCond(&f.mu)
		return f
	}
	fl, bare = mk(false, 1, "floor_feed", "seq"), mk(true, 2, "floor_bare", "id")
	docs := newGroupDocs()
	buf := make([]byte, 0, 256)
	for g := range pgItems / pgPart {
		var q pgx.Batch
		for i := g * pgPart; i < (g+1)*pgPart; i++ {
			buf = appendPGDoc(docs, buf[:0], i)
			q.Queue(floorWriteSQL, hash[i], keys[i], string(buf))
			q.Queue(bareWriteSQL, keys[i], pks[i], string(buf))
		}
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, &q).Close() }); err != nil {
			b.Fatalf("fill: %v", err)
		}
	}
	for _, f := range []*floor{fl, bare} {
		if _, err := f.numberAll(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, "ANALYZE floor_coll, floor_docs, floor_feed, floor_bare"); err != nil {
		b.Fatal(err)
	}
	return fl, bare
}

// write stores document i as doc, and returns its LSN once a pass has
// given it (0 for a write of the bare floor that a later write of the
// same row replaced before a pass).
func (f *floor) write(ctx context.Context, i int, doc []byte) (int64, error) {
	var seq int64
	var err error
	if f.bare {
		err = f.pool.QueryRow(ctx, bareWriteSQL, f.keys[i], f.pks[i], string(doc)).Scan(&seq)
	} else {
		err = f.pool.QueryRow(ctx, floorWriteSQL, f.hash[i], f.keys[i], string(doc)).Scan(&seq)
	}
	if err != nil {
		return 0, err
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
			if f.bare {
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
		f.turn.Broadcast()
		if err != nil {
			return 0, err
		}
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
func (f *floor) get(ctx context.Context, i int, body *string) error {
	var ts, seq int64
	var ttl int32
	return f.pool.QueryRow(ctx, floorGetSQL, f.hash[i]).Scan(body, &ts, &ttl, &seq)
}

// BenchmarkPGFloor measures the pg store, the floors and the plain
// statements side by side (the same 10,000 documents, the same server):
// writes by pgWriters goroutines, interleaved in blocks of 320 (20 blocks
// of each), then Gets by one goroutine in blocks of 300 (30 of each). For
// each it reports the time an operation (wall time over operations) and
// the CPU time an operation, client and server together (cpuSpent), and
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
	fl, bare := newFloors(b, pool)
	ctx := context.Background()
	ids, pks := CallerKeys(pgItems), pgPartitions()
	docs := newGroupDocs()
	names := []string{"plain", "bare", "floor", "pg"}
	writes := []func(i int, doc []byte) error{
		func(i int, doc []byte) error {
			_, err := pool.Exec(ctx, plainUpsertSQL, ids[i], fl.pks[i], string(doc))
			return err
		},
		func(i int, doc []byte) error { _, err := bare.write(ctx, i, doc); return err },
		func(i int, doc []byte) error { _, err := fl.write(ctx, i, doc); return err },
		func(_ int, doc []byte) error { _, err := c.UpsertJSON(bg, doc); return err },
	}
	var body string
	gets := []func(i int) error{ // plain, floor, pg
		func(i int) error { return pool.QueryRow(ctx, plainGetSQL, ids[i]).Scan(&body) },
		func(i int) error { return fl.get(ctx, i, &body) },
		func(i int) error { _, err := c.Get(bg, pks[i/pgPart], ids[i]); return err },
	}
	const writeBlock, writeBlocks, getBlock, getBlocks = 320, 20, 300, 30
	var wall, cpu [2][4]time.Duration // [write, get][plain, bare, floor, pg] ([get][plain, floor, pg])
	seed := uint64(1000)
	for b.Loop() {
		for range writeBlocks {
			seed += 100
			for k, write := range writes {
				start := time.Now()
				cl, srv := cpuSpent(b, pool, func() { pgWriteAll(b, docs, seed, writeBlock, write) })
				wall[0][k] += time.Since(start)
				cpu[0][k] += cl + srv
			}
		}
		r := newRNG(seed)
		for range getBlocks {
			for k, get := range gets {
				start := time.Now()
				cl, srv := cpuSpent(b, pool, func() {
					for range getBlock {
						i := r.intn(pgItems)
						if err := get(i); err != nil {
							b.Fatalf("read of item %d: %v", i, err)
						}
					}
				})
				wall[1][k] += time.Since(start)
				cpu[1][k] += cl + srv
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
		last, fl := len(names)-1, len(names)-2
		b.ReportMetric(float64(wall[fl])/float64(wall[last]), "pg/floor-"+what)
		b.ReportMetric(float64(cpu[fl])/float64(cpu[last]), "pg/floor-cpu-"+what)
	}
	report("write", float64(b.N*writeBlock*writeBlocks), names, wall[0][:], cpu[0][:])
	report("get", float64(b.N*getBlock*getBlocks), []string{"plain", "floor", "pg"}, wall[1][:3], cpu[1][:3])
}
