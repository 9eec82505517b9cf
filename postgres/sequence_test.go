package postgres

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ttldb/ttldb/engine"
)

func TestLSNsWithoutGapsFromConcurrentWriters(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	// Two handles on two pools: two processes.
	handles := []*handle{open(t, s, "sessions", nil), open(t, s, "sessions", nil)}
	const writers, each = 16, 12
	lsns := make([][]uint64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		h := handles[w%2]
		wg.Go(func() {
			for i := range each {
				// Writers share keys, so that some wait for each other's row.
				d, err := h.put(engine.Upsert, fmt.Sprint("k", (w+i)%7), fmt.Sprintf(`{"w":%d,"i":%d}`, w, i), 0)
				if err != nil {
					t.Errorf("writer %d, write %d: %v", w, i, err)
					return
				}
				lsns[w] = append(lsns[w], h.lsn(d))
			}
		})
	}
	wg.Wait()
	all := slices.Concat(lsns...)
	slices.Sort(all)
	for i, l := range all {
		if l != uint64(i+1) {
			t.Fatalf("the writes' LSNs, sorted, are %v; want 1 to %d, each once", all, writers*each)
		}
	}
	// Each writer's LSNs grow: a write's LSN is after those it follows.
	for w, ls := range lsns {
		if !slices.IsSorted(ls) {
			t.Errorf("writer %d's LSNs %v do not grow", w, ls)
		}
	}
	feed := s.ident() + ".ttldb_feed_1"
	if n := s.count(`SELECT count(*) FROM ` + feed + ` WHERE lsn IS NULL`); n != 0 {
		t.Errorf("%d feed records without an LSN after every write returned", n)
	}
	if n := s.count(`SELECT max(lsn) - min(lsn) + 1 - count(*) FROM ` + feed); n != 0 {
		t.Errorf("the feed's LSNs have %d gaps", n)
	}
	// Each document's etag is its feed record's LSN, and Get agrees.
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_docs_1 d JOIN ` + feed + ` f USING (seq) WHERE f.lsn = d.lsn`); n != 7 {
		t.Errorf("%d documents whose LSN is their feed record's, want 7", n)
	}
	for k := range 7 {
		d, err := handles[k%2].get(fmt.Sprint("k", k))
		if err != nil {
			t.Fatal(err)
		}
		if lsn := s.count(`SELECT lsn FROM `+feed+` WHERE key = $1 ORDER BY lsn DESC LIMIT 1`, []byte(d.Key())); uint64(lsn) != handles[0].lsn(d) {
			t.Errorf("Get(k%d) has the etag of LSN %d; its last feed record's LSN is %d", k, handles[0].lsn(d), lsn)
		}
	}
	for _, h := range handles {
		if got := h.e.LastLSN(); got != writers*each {
			t.Errorf("LastLSN() = %d, want %d", got, writers*each)
		}
	}
}

func TestAVersionNotSequencedIsNumberedByTheNext(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	dead, h := open(t, s, "sessions", nil), open(t, s, "sessions", nil)
	feed := s.ident() + ".ttldb_feed_1"
	// A writer that commits and dies before its pass.
	dead.e.skipPass.Store(true)
	if _, err := dead.put(engine.Create, "a", `{"v":1}`, 0); !errors.Is(err, errSkipped) {
		t.Fatalf("a write with skipPass: %v, want errSkipped", err)
	}
	if n := s.count(`SELECT count(*) FROM ` + feed + ` WHERE lsn IS NULL`); n != 1 {
		t.Fatalf("%d records without an LSN, want the dead writer's 1", n)
	}
	// A reader numbers it.
	if d := h.live("a", `{"v":1}`); h.lsn(d) != 1 {
		t.Errorf("Get of a version not sequenced: LSN %d, want 1", h.lsn(d))
	}
	// A writer numbers another before its own.
	if _, err := dead.put(engine.Create, "b", `{"v":1}`, 0); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	if d := h.mustPut(engine.Create, "c", `{"v":1}`, 0); h.lsn(d) != 3 {
		t.Errorf("a write after one not sequenced: LSN %d, want 3", h.lsn(d))
	}
	if n := s.count(`SELECT lsn FROM `+feed+` WHERE key = $1`, []byte(mustKey("b"))); n != 2 {
		t.Errorf("the dead writer's record has LSN %d, want 2", n)
	}
	// IfMatch on a version not sequenced fails, and names its etag once
	// it has one; Modify sees it numbered.
	if _, err := dead.put(engine.Replace, "a", `{"v":2}`, 0); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	_, err := h.write("a", engine.Write{Op: engine.Replace, Doc: doc("a", `{"v":3}`, 0), IfMatch: "0000000000000000", HasIfMatch: true})
	want := h.live("a", `{"v":2}`)
	if h.lsn(want) != 4 {
		t.Errorf("the replace not sequenced got LSN %d, want 4", h.lsn(want))
	}
	wantMismatch(t, "IfMatch on a version not sequenced", err, want.ETag())
	if _, err := dead.put(engine.Replace, "a", `{"v":5}`, 0); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	d, err := h.write("a", engine.Write{Op: engine.Modify, Change: func(old *engine.Doc, _ int64) (*engine.Doc, error) {
		if old.Body() != `{"v":5}` || h.lsn(old) != 5 {
			t.Errorf("Change got %s of LSN %d; want {\"v\":5} of LSN 5", old.Body(), h.lsn(old))
		}
		return doc("a", `{"v":6}`, 0), nil
	}})
	if err != nil || h.lsn(d) != 6 {
		t.Errorf("Modify over a version not sequenced = LSN %d, %v; want 6", h.lsn(d), err)
	}
}

// mustKey returns the key of the document id.
func mustKey(id string) string {
	k, _ := key(id)
	return string(k)
}
