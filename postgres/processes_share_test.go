package postgres

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// procChildren is how many processes share the collection.
const procChildren = 3

// Three processes write their own keys, sweep, and read the all-versions
// feed from the start, all at once, on one collection; the clock they share
// moves past every ttl between two phases. Every acknowledged write is in
// the feed and the final state, each read follows its process's own write,
// every process reads the same feed without a gap and in LSN order, and
// each deleted document (by a write or by expiry) is deleted once in it.
func TestProcessesSharing(t *testing.T) { // R16, R11, R5
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
	expired := 0
	for _, l := range feed {
		if l.TTL {
			expired++
		}
	}
	t.Logf("%d documents; %d changes in the feed, %d deletes, %d of them of expired documents", len(fates), len(feed), len(deletes), expired)
	for id := range deletes {
		if fates[id] == nil {
			t.Errorf("%s: deleted in the feed, written by no child", id)
		}
	}
	return fates
}
