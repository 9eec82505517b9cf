package postgres

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ttldb/ttldb/engine"
)

// TestBatchesAndWritesConcurrently runs batches over overlapping keys, in
// random orders, with single writes and reads of the same keys, from two
// pools (two processes): none deadlocks (PostgreSQL would abort one with
// an error), each batch's documents have one _ts and consecutive LSNs,
// and a reader of the documents or of the feed, in one statement, never
// sees part of a batch.
func TestBatchesAndWritesConcurrently(t *testing.T) { // R14, R11
	t.Parallel()
	s := newServer(t)
	handles := []*handle{open(t, s, "sessions", nil), open(t, s, "sessions", nil)}
	const keys, batchers, writers, rounds = 8, 4, 2, 15
	id := func(k int) string { return fmt.Sprint("k", k) }
	var group [4][]byte // written together, always by batches
	for i := range group {
		group[i] = []byte(mustKey(fmt.Sprint("g", i)))
	}
	for k := range keys {
		handles[0].mustPut(engine.Create, id(k), `{}`, 0)
	}
	var wg, batches sync.WaitGroup
	var mu sync.Mutex
	var written []*engine.Doc // by batches
	var done atomic.Bool
	for b := range batchers {
		h := handles[b%2]
		r := rand.New(rand.NewPCG(uint64(b), 1))
		batches.Go(func() {
			for n := range rounds {
				// Some of the keys k (live from the start: some read
				// before their write) and d (gone after the batch: the
				// next write of one inserts its row), and the group, in a
				// random order.
				var ids []string
				for _, k := range r.Perm(keys)[:3+r.IntN(4)] {
					ids = append(ids, id(k))
				}
				for _, k := range r.Perm(keys)[:r.IntN(3)] {
					ids = append(ids, fmt.Sprint("d", k))
				}
				for i := range group {
					ids = append(ids, fmt.Sprint("g", i))
				}
				r.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
				var steps []engine.Step
				for _, k := range ids {
					if k[0] == 'k' && r.IntN(3) == 0 {
						steps = append(steps, on(engine.Read, k))
					}
					steps = append(steps, put(engine.Upsert, k, fmt.Sprintf(`{"b":%d,"n":%d}`, b, n), 0))
					switch {
					case k[0] == 'd':
						steps = append(steps, on(engine.Delete, k))
					case r.IntN(3) == 0:
						steps = append(steps, on(engine.Read, k))
					}
				}
				docs, err := h.batch(steps...)
				if err != nil {
					t.Errorf("batcher %d, batch %d: %v", b, n, err)
					return
				}
				var first, pos uint64
				for i, d := range docs {
					switch steps[i].Op {
					case engine.Read:
						continue
					case engine.Delete: // its record's LSN is between
						pos++
						continue
					}
					mu.Lock()
					written = append(written, d)
					mu.Unlock()
					if d.TS != docs[0].TS {
						t.Errorf("batcher %d, batch %d: _ts %d and %d", b, n, d.TS, docs[0].TS)
					}
					if pos == 0 {
						first = h.lsn(d)
					}
					if h.lsn(d) != first+pos {
						t.Errorf("batcher %d, batch %d: step %d has LSN %d, want %d: not consecutive in step order", b, n, i, h.lsn(d), first+pos)
					}
					pos++
				}
			}
		})
	}
	for w := range writers {
		h := handles[w%2]
		r := rand.New(rand.NewPCG(uint64(w), 2))
		wg.Go(func() {
			for n := 0; !done.Load() || n < rounds; n++ {
				k := id(r.IntN(keys))
				if n%2 == 1 {
					k = fmt.Sprint("d", r.IntN(keys))
				}
				if _, err := h.put(engine.Upsert, k, fmt.Sprintf(`{"w":%d,"n":%d}`, w, n), 0); err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				if _, err := h.get(id(r.IntN(keys))); err != nil {
					t.Errorf("writer %d: Get: %v", w, err)
					return
				}
			}
		})
	}
	// The reader: the group's documents, and the feed's numbered records
	// of each batch, in one statement each.
	reads := 0
	wg.Go(func() {
		for !done.Load() {
			var bodies []string
			err := s.admin.QueryRow(t.Context(), `SELECT coalesce(array_agg(body), '{}') FROM `+s.ident()+`.ttldb_docs_1 WHERE key = ANY($1)`, group[:]).Scan(&bodies)
			if err != nil {
				t.Error(err)
				return
			}
			if len(bodies) > 0 && (len(bodies) != len(group) || len(slices.Compact(slices.Clone(bodies))) != 1) {
				t.Errorf("a reader saw the group as %q: part of a batch", bodies)
			}
			var part int64
			err = s.admin.QueryRow(t.Context(), `SELECT count(*) FROM (SELECT body FROM `+s.ident()+`.ttldb_feed_1
				WHERE lsn IS NOT NULL AND key = ANY($1) GROUP BY body HAVING count(*) % $2 <> 0) p`, group[:], len(group)).Scan(&part)
			if err != nil {
				t.Error(err)
				return
			}
			if part != 0 {
				t.Errorf("a reader saw part of a batch's records in the feed")
			}
			reads++
		}
	})
	batches.Wait()
	done.Store(true)
	wg.Wait()
	t.Logf("the reader read %d times", reads)
	// Each batch's records have consecutive LSNs in the feed (its body is
	// its own), and each document a batch returned has its record's.
	feed := s.ident() + ".ttldb_feed_1"
	if n := s.count(`SELECT count(*) FROM (SELECT body FROM ` + feed + ` GROUP BY body HAVING max(lsn) - min(lsn) + 1 <> count(*)) b`); n != 0 {
		t.Errorf("%d batches whose records' LSNs are not consecutive", n)
	}
	for _, d := range written {
		if lsn := s.count(`SELECT lsn FROM `+feed+` WHERE key = $1 AND body = $2 AND op <> 3`, []byte(d.Key()), d.Body()); uint64(lsn) != handles[0].lsn(d) {
			t.Errorf("a batch returned %s %s with LSN %d; its record has %d", d.ID(), d.Body(), handles[0].lsn(d), lsn)
		}
	}
}
