package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// procChildren is how many processes share the collection.
const procChildren = 3

// procWrites is how many documents a sharing child writes before the
// clock moves, and procID names them.
const procWrites = 12

// procID is the id of child n's document i: c<n>-<i> and e (created with
// a ttl that expires), u (upserted, maybe deleted) or p (created, then
// upserted, maybe deleted).
func procID(n, i int) string { return fmt.Sprintf("c%d-%d%c", n, i, "eup"[i%3]) }

// procPK is the partition key of document id: one of three, which every
// process writes to.
func procPK(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("t%d", h.Sum32()%3)
}

// Three processes write their own keys, sweep, and read the all-versions
// feed from the start, all at once, on one collection; the clock they share
// moves past every ttl between two phases. Every acknowledged write is in
// the feed and the final state, each read follows its process's own write,
// after the clock moves each process reads the others' documents as their
// writes left them (the expired hidden at once, R4), every process reads
// the same feed without a gap and in LSN order, each deleted document (by a
// write or by expiry) is deleted once in it, and the Sweep calls of all
// the processes deleted no more documents than expired.
func TestProcessesSharing(t *testing.T) { // R16, R11, R5
	t.Parallel()
	_, u := procCollection(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var kids []*child
	for n := range procChildren {
		kids = append(kids, startChild(t, procConfig{Role: "share", URL: u, N: n, Seed: seed}))
	}
	for _, step := range []string{"advance", "finish"} { // each phase's barrier
		for _, k := range kids {
			k.next(t, "phase")
		}
		for _, k := range kids {
			k.send(t, step)
		}
	}
	var lines [][]procLine
	for _, k := range kids {
		k.finish(t, false)
		lines = append(lines, k.all)
	}
	if t.Failed() {
		return
	}
	fates := checkShared(t, lines)

	// The final state, read by the parent: what the writes and the sweeps left.
	c, err := ttldb.Open(t.Context(), u, &ttldb.Options{Name: "shared", ManualSweep: true,
		Now: func() time.Time { return time.Unix(procT0+procAdvance, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for id, f := range fates {
		d, err := c.Get(t.Context(), ttldb.StringKey(procPK(id)), id)
		switch {
		case f.gone == "" && err != nil:
			t.Errorf("%s: acknowledged at LSN %d, then Get: %v", id, f.lsn, err)
		case f.gone == "" && d.LSN() != f.lsn:
			t.Errorf("%s: acknowledged at LSN %d, Get gives LSN %d", id, f.lsn, d.LSN())
		case f.gone != "" && !errors.Is(err, ttldb.ErrNotFound):
			t.Errorf("%s: %s, then Get: %v, %v", id, f.gone, d, err)
		}
	}
	st, err := c.Stats(t.Context())
	if err != nil || st.Expired != 0 {
		t.Errorf("Stats after the children: %+v, %v; want no expired document left", st, err)
	}
}

// shareChild writes its own keys (reading each back at once), sweeps, and
// reads the all-versions feed from the start, in phases the parent starts
// through stdin: 1 writes at procT0; "advance" moves the clock past every
// ttl, then it writes more while it sweeps until nothing expired is left;
// "finish" reads the feed to its end.
func shareChild(ctx context.Context, cfg procConfig, out *procOut) error {
	clock := &procClock{}
	clock.s.Store(procT0)
	c, err := openChild(ctx, cfg, clock)
	if err != nil {
		return err
	}
	defer c.Close()
	feed := startFeedReader(ctx, c, out)
	defer feed.stop()
	stdin := bufio.NewScanner(os.Stdin)
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.N)))

	put := func(op, id string, ttl int) error {
		doc := map[string]any{"id": id, "pk": procPK(id), "by": cfg.N}
		if ttl != 0 {
			doc["ttl"] = ttl
		}
		var d ttldb.Document
		var err error
		if op == "create" {
			d, err = c.Create(ctx, doc)
		} else {
			d, err = c.Upsert(ctx, doc)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", op, id, err)
		}
		out.print(procLine{Ev: "ack", Op: op, ID: id, LSN: d.LSN(), TTL: ttl > 0})
		got, err := c.Get(ctx, d.PartitionKey(), id) // R16: read-your-writes
		if err != nil {
			return fmt.Errorf("Get %s after %s: %w", id, op, err)
		}
		out.print(procLine{Ev: "read", ID: id, LSN: got.LSN(), Found: true})
		if op == "upsert" && rng.IntN(2) == 0 { // now and then a delete
			if err := c.Delete(ctx, d.PartitionKey(), id); err != nil {
				return fmt.Errorf("Delete %s: %w", id, err)
			}
			out.print(procLine{Ev: "ack", Op: "delete", ID: id})
			_, err := c.Get(ctx, d.PartitionKey(), id)
			if err != nil && !errors.Is(err, ttldb.ErrNotFound) {
				return fmt.Errorf("Get %s after Delete: %w", id, err)
			}
			out.print(procLine{Ev: "read", ID: id, Found: err == nil})
		}
		return nil
	}
	sweep := func() error {
		n, err := c.Sweep(ctx)
		if err != nil {
			return fmt.Errorf("Sweep: %w", err)
		}
		out.print(procLine{Ev: "sweep", N: n})
		return nil
	}
	phase := func(n int, want string) error {
		out.print(procLine{Ev: "phase", N: n})
		out.flush()
		if !stdin.Scan() || stdin.Text() != want {
			return fmt.Errorf("phase %d: waited for %q on stdin, read %q (%v)", n, want, stdin.Text(), stdin.Err())
		}
		return nil
	}

	for i := range procWrites { // R5, R11: writes, some to expire, some deleted
		id := procID(cfg.N, i)
		switch i % 3 {
		case 0:
			err = put("create", id, procTTL)
		case 1:
			err = put("upsert", id, 0)
		case 2:
			if err = put("create", id, 0); err == nil {
				err = put("upsert", id, -1)
			}
		}
		if err == nil && i%4 == 0 {
			err = sweep()
		}
		if err != nil {
			return err
		}
	}
	if err := phase(1, "advance"); err != nil {
		return err
	}
	clock.s.Store(procT0 + procAdvance)
	for m := range procChildren { // R16, R4: the others' writes, as they left them, expiry included
		for i := range procWrites {
			if m == cfg.N {
				continue
			}
			id := procID(m, i)
			d, err := c.Get(ctx, ttldb.StringKey(procPK(id)), id)
			if err != nil && !errors.Is(err, ttldb.ErrNotFound) {
				return fmt.Errorf("Get %s: %w", id, err)
			}
			out.print(procLine{Ev: "xread", ID: id, LSN: d.LSN(), Found: err == nil})
		}
	}
	for i := 0; ; i++ { // R5: sweep until nothing expired is left, writing meanwhile
		if i < 6 {
			if err := put("upsert", fmt.Sprintf("c%d-q%d", cfg.N, i), 0); err != nil {
				return err
			}
		}
		if err := sweep(); err != nil {
			return err
		}
		st, err := c.Stats(ctx)
		if err != nil {
			return fmt.Errorf("Stats: %w", err)
		}
		if st.Expired == 0 && i >= 6 {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%d expired documents left after %d sweeps: %w", st.Expired, i, ctx.Err())
		}
	}
	if err := phase(2, "finish"); err != nil {
		return err
	}
	fs, err := c.FeedStats(ctx) // nothing changes any more: the feed's end
	if err != nil {
		return fmt.Errorf("FeedStats: %w", err)
	}
	return feed.waitFor(ctx, fs.LastLSN)
}

// fate is what the acknowledged writes made of one document.
type fate struct {
	lsn  uint64 // of its last acknowledged write that left it
	gone string // "", "deleted" or "expired"
}

// checkShared checks the children's lines, and returns the fate of each
// document their acknowledged writes say.
func checkShared(t *testing.T, lines [][]procLine) map[string]*fate {
	t.Helper()
	fates := map[string]*fate{}
	for n, ls := range lines {
		var last *procLine // the last ack, which the next read follows
		for i := range ls {
			l := &ls[i]
			switch l.Ev {
			case "ack":
				f := fates[l.ID]
				if f == nil {
					f = &fate{}
					fates[l.ID] = f
				}
				switch {
				case l.Op == "delete":
					f.gone = "deleted"
				case l.TTL:
					f.gone, f.lsn = "expired", l.LSN
				default:
					f.gone, f.lsn = "", l.LSN
				}
				last = l
			case "read": // R16: a process reads its own write at once
				if last == nil || last.ID != l.ID {
					t.Errorf("child %d: a read of %s follows no write of it", n, l.ID)
				} else if want := last.Op != "delete"; l.Found != want || (want && l.LSN != last.LSN) {
					t.Errorf("child %d: after its %s of %s at LSN %d, Get found %v at LSN %d", n, last.Op, l.ID, last.LSN, l.Found, l.LSN)
				}
			}
		}
	}
	for n, ls := range lines { // R16: what the other processes wrote, R4: expiry at once
		for _, l := range ls {
			if f := fates[l.ID]; l.Ev == "xread" && (f == nil || l.Found != (f.gone == "") || l.Found && l.LSN != f.lsn) {
				t.Errorf("child %d: after the others wrote, Get %s found %v at LSN %d; their writes left %+v", n, l.ID, l.Found, l.LSN, f)
			}
		}
	}
	sweeps, expired := 0, 0
	for _, ls := range lines {
		for _, l := range ls {
			if l.Ev == "sweep" {
				sweeps += l.N
			}
		}
	}
	for _, f := range fates {
		if f.gone == "expired" {
			expired++
		}
	}
	if sweeps > expired { // R5: each document swept once (the background goroutines' are not counted)
		t.Errorf("the children's Sweep calls deleted %d documents; %d expired", sweeps, expired)
	}
	var feeds [][]procLine
	for _, ls := range lines {
		var feed []procLine
		for _, l := range ls {
			if l.Ev == "feed" {
				feed = append(feed, l)
			}
		}
		feeds = append(feeds, feed)
	}
	for n, feed := range feeds { // R11: gap-free, in LSN order, the same for all
		for i, l := range feed {
			if l.LSN != uint64(i+1) {
				t.Fatalf("child %d: the feed's change %d has LSN %d: a gap, or out of order", n, i+1, l.LSN)
			}
		}
		if n > 0 && fmt.Sprint(feed) != fmt.Sprint(feeds[0]) {
			t.Errorf("children 0 and %d read different feeds:\n%v\n%v", n, feeds[0], feed)
		}
	}
	feed := feeds[0]
	deletes := map[string][]procLine{}
	for _, l := range feed {
		if l.Op == "delete" {
			deletes[l.ID] = append(deletes[l.ID], l)
		}
	}
	for n, ls := range lines { // every acknowledged write is in the feed
		for _, l := range ls {
			if l.Ev != "ack" || l.Op == "delete" {
				continue
			}
			if l.LSN == 0 || l.LSN > uint64(len(feed)) || feed[l.LSN-1].ID != l.ID || feed[l.LSN-1].Op == "delete" {
				t.Errorf("child %d: its %s of %s, acknowledged at LSN %d, is not in the feed", n, l.Op, l.ID, l.LSN)
			}
		}
	}
	for id, f := range fates { // R5, R11: each document deleted once, as it should be
		ds := deletes[id]
		switch f.gone {
		case "":
			if len(ds) != 0 {
				t.Errorf("%s: left live by its writes, deleted in the feed: %v", id, ds)
			}
		case "deleted", "expired":
			if len(ds) != 1 || ds[0].TTL != (f.gone == "expired") {
				t.Errorf("%s: %s; its deletes in the feed: %v; want one, timeToLiveExpired %v", id, f.gone, ds, f.gone == "expired")
			}
		}
	}
	t.Logf("%d documents; %d changes in the feed, %d deletes, %d documents expired, %d swept by Sweep calls", len(fates), len(feed), len(deletes), expired, sweeps)
	for id := range deletes {
		if fates[id] == nil {
			t.Errorf("%s: deleted in the feed, written by no child", id)
		}
	}
	return fates
}
