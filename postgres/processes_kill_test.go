package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// procLanes is how many goroutines of a batch child run batches, each on
// a partition of its own: with several, a kill more often finds a batch
// committed and not yet numbered.
const procLanes = 3

// batchChild runs transactional batches until killed, in procLanes
// goroutines, goroutine g on partition k<N>.<g>: its batch b creates
// b<b>-0 to b<b>-3, upserts "counter" to {"n": b} and, after the first,
// deletes b<b-1>-3; it prints each batch acknowledged.
func batchChild(ctx context.Context, cfg procConfig, out *procOut) error {
	clock := &procClock{}
	clock.s.Store(procT0)
	c, err := openChild(ctx, cfg, clock)
	if err != nil {
		return err
	}
	defer c.Close()
	errs := make(chan error, procLanes)
	for g := range procLanes {
		go func() { errs <- batchLane(ctx, c, fmt.Sprintf("k%d.%d", cfg.N, g), out) }()
	}
	for range procLanes {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

func batchLane(ctx context.Context, c *ttldb.Collection, pk string, out *procOut) error {
	for b := 0; ctx.Err() == nil; b++ {
		batch := ttldb.NewBatch(ttldb.StringKey(pk))
		for j := range 4 {
			batch.Create(map[string]any{"id": fmt.Sprintf("b%d-%d", b, j), "pk": pk, "batch": b})
		}
		batch.Upsert(map[string]any{"id": "counter", "pk": pk, "n": b})
		if b > 0 {
			batch.Delete(fmt.Sprintf("b%d-3", b-1))
		}
		docs, err := c.ExecuteBatch(ctx, batch)
		if err != nil {
			return fmt.Errorf("batch %d of %s: %w", b, pk, err)
		}
		l := procLine{Ev: "batch", ID: pk, N: b}
		for _, d := range docs[:5] { // the writes' (a delete returns no document)
			l.LSNs = append(l.LSNs, d.LSN())
		}
		out.print(l)
		out.flush()
	}
	return ctx.Err()
}

// batchOf returns the batch of batchLane that made the change ch, and its
// partition.
func batchOf(t *testing.T, ch ttldb.Change) (pk string, b int) {
	t.Helper()
	v, _ := ch.PartitionKey.Value()
	pk, _ = v.(string)
	if ch.ID == "counter" {
		var body struct{ N int }
		if err := ch.Document.Decode(&body); err != nil {
			t.Fatalf("the counter at LSN %d: %v", ch.LSN, err)
		}
		return pk, body.N
	}
	if _, err := fmt.Sscanf(ch.ID, "b%d-", &b); err != nil {
		t.Fatalf("a change of %q: %v", ch.ID, err)
	}
	if ch.Op == ttldb.OpDelete {
		b++ // batch b deletes b<b-1>-3
	}
	return pk, b
}

// Two processes run transactional batches; one is killed (SIGKILL) in the
// middle of its work, the other a little later. Every batch is in the
// documents and the feed whole or not at all, every acknowledged one is,
// the feed has no gap, and what a killed process committed without
// numbering it the other process's passes, or the parent's write, number.
func TestProcessesKilledMidBatch(t *testing.T) { // R14, R11, R16
	t.Parallel()
	s, u := procCollection(t)
	feedTable := s.ident() + ".ttldb_feed_" + fmt.Sprint(s.count(`SELECT no FROM `+s.ident()+`.ttldb_collections WHERE name = 'shared'`))
	seed := uint64(time.Now().UnixNano())
	kids := []*child{
		startChild(t, procConfig{Role: "batch", URL: u, N: 0, Seed: seed}),
		startChild(t, procConfig{Role: "batch", URL: u, N: 1, Seed: seed}),
	}
	acked := map[string]map[int][]uint64{} // each partition's batches acknowledged, with their LSNs
	ack := func(l procLine) {
		if acked[l.ID] == nil {
			acked[l.ID] = map[int][]uint64{}
		}
		acked[l.ID][l.N] = l.LSNs
	}
	// wait reads process n's lines until it has acknowledged k batches
	// whose first LSN is above lsn.
	wait := func(n, k int, lsn uint64) {
		for k > 0 {
			l := kids[n].next(t, "batch")
			ack(l)
			if l.LSNs[0] > lsn {
				k--
			}
		}
	}
	kill := func(n int) {
		if err := kids[n].cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		kids[n].finish(t, true) // reads what it printed before: acknowledged too
		for _, l := range kids[n].all {
			if l.Ev == "batch" {
				ack(l)
			}
		}
	}
	wait(0, 3+int(seed%10), 0)
	kill(0)
	// What process 0 committed and left unnumbered, if the kill came
	// between a commit and its pass: process 1's passes number it, once
	// it has taken seqs after them (procLanes batches may have taken
	// theirs before), whatever their order of commits.
	var left []int64
	var lastLSN int64
	if err := s.admin.QueryRow(t.Context(), `SELECT coalesce((SELECT array_agg(seq) FROM `+feedTable+` WHERE lsn IS NULL AND body LIKE '%"pk":"k0.%'), '{}'),
		coalesce((SELECT max(lsn) FROM `+feedTable+`), 0)`).Scan(&left, &lastLSN); err != nil {
		t.Fatal(err)
	}
	wait(1, procLanes+3, uint64(lastLSN))
	if n := s.count(`SELECT count(*) FROM `+feedTable+` WHERE lsn IS NULL AND seq = ANY($1)`, left); n != 0 {
		t.Errorf("%d of the %d records process 0 committed and left unnumbered are still unnumbered after %d batches of process 1", n, len(left), procLanes+3)
	}
	kill(1)
	t.Logf("seed %d: %d partitions' batches acknowledged; process 0 left %d records committed and unnumbered", seed, len(acked), len(left))

	c, err := ttldb.Open(t.Context(), u, &ttldb.Options{Name: "shared", ManualSweep: true,
		Now: func() time.Time { return time.Unix(procT0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	after, err := c.Upsert(t.Context(), map[string]any{"id": "after", "pk": "parent"}) // its pass numbers what is left
	if err != nil {
		t.Fatal(err)
	}

	if n := s.count(`SELECT count(*) FROM ` + feedTable + ` WHERE lsn IS NULL`); n != 0 {
		t.Errorf("%d records unnumbered after the parent's write", n)
	}

	// The feed: gap-free to the parent's write, each batch consecutive and whole.
	batches := map[string]map[int][]uint64{} // the LSNs of the changes, by partition and batch
	var lsn uint64
	for q := (ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1000}); lsn < after.LSN(); {
		page, err := c.ReadFeed(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range page.Changes {
			if lsn++; ch.LSN != lsn { // R11
				t.Fatalf("the feed's change after LSN %d has LSN %d: a gap, or out of order", lsn-1, ch.LSN)
			}
			if ch.ID == "after" {
				continue
			}
			pk, b := batchOf(t, ch)
			if batches[pk] == nil {
				batches[pk] = map[int][]uint64{}
			}
			batches[pk][b] = append(batches[pk][b], ch.LSN)
		}
		if len(page.Changes) == 0 && !page.More {
			t.Fatalf("the feed ends at LSN %d, before the parent's write at %d", lsn, after.LSN())
		}
		q = ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1000, Continuation: page.Continuation}
	}
	for n := range kids { // R14: all or nothing, in the feed and in the documents
		for g := range procLanes {
			checkBatches(t, c, fmt.Sprintf("k%d.%d", n, g), batches, acked)
		}
	}
}

// checkBatches checks partition pk's batches in the feed, and its
// documents, against those acknowledged.
func checkBatches(t *testing.T, c *ttldb.Collection, pk string, batches, acked map[string]map[int][]uint64) {
	t.Helper()
	last := -1
	for b := 0; batches[pk][b] != nil; b++ {
		last = b
	}
	if len(batches[pk]) != last+1 {
		t.Errorf("%s: batches 0 to %d in the feed, and %d others", pk, last, len(batches[pk])-last-1)
	}
	for b := 0; b <= last; b++ {
		lsns, want := batches[pk][b], 6
		if b == 0 {
			want = 5
		}
		if len(lsns) != want || lsns[len(lsns)-1]-lsns[0] != uint64(want-1) {
			t.Errorf("%s: batch %d's changes in the feed are at LSNs %v: want %d consecutive", pk, b, lsns, want)
		}
		if a, ok := acked[pk][b]; ok && len(lsns) >= 5 && fmt.Sprint(a) != fmt.Sprint(lsns[:5]) {
			t.Errorf("%s: batch %d acknowledged at LSNs %v, in the feed at %v", pk, b, a, lsns)
		}
	}
	for b := range acked[pk] {
		if b > last {
			t.Errorf("%s: batch %d acknowledged, not in the feed (which has up to %d)", pk, b, last)
		}
	}
	checkBatchDocs(t, c, pk, last)
}

// checkBatchDocs checks that partition p's documents are those its
// batches up to last left, and nothing of batch last+1.
func checkBatchDocs(t *testing.T, c *ttldb.Collection, p string, last int) {
	t.Helper()
	pk := ttldb.StringKey(p)
	counter, err := c.Get(t.Context(), pk, "counter")
	var body struct{ N int }
	if err == nil {
		err = counter.Decode(&body)
	}
	if last < 0 && errors.Is(err, ttldb.ErrNotFound) {
		err, body.N = nil, -1 // no batch: no counter
	}
	if err != nil || body.N != last {
		t.Errorf("%s: the counter reads %d (%v); its last batch in the feed is %d", p, body.N, err, last)
	}
	for b := 0; b <= last+1; b++ {
		for j := range 4 {
			id := fmt.Sprintf("b%d-%d", b, j)
			_, err := c.Get(t.Context(), pk, id)
			want := b < last && j < 3 || b == last
			if err != nil && !errors.Is(err, ttldb.ErrNotFound) {
				t.Fatal(err)
			}
			if (err == nil) != want {
				t.Errorf("%s: %s is there: %v; want %v (last batch %d)", p, id, err == nil, want, last)
			}
		}
	}
}
