package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// read reads a page of the feed, failing the test on an error.
func (h *handle) read(r engine.FeedRead) engine.FeedPage {
	h.t.Helper()
	p, err := h.e.ReadFeed(h.t.Context(), r, nil)
	if err != nil {
		h.t.Fatalf("ReadFeed(%+v): %v", r, err)
	}
	return p
}

// readAll reads every page from r on, limit at a time, checking that each
// page resumes after the last's End, and returns the changes.
func (h *handle) readAll(r engine.FeedRead) []engine.Change {
	h.t.Helper()
	var all []engine.Change
	for range 1000 {
		p := h.read(r)
		if len(p.Changes) > r.Limit {
			h.t.Fatalf("a page of Limit %d holds %d changes", r.Limit, len(p.Changes))
		}
		for _, c := range p.Changes {
			if c.LSN <= r.After && r.From == engine.FromAfter || c.LSN > p.End {
				h.t.Fatalf("a page after %d ending at %d holds LSN %d", r.After, p.End, c.LSN)
			}
		}
		all = append(all, p.Changes...)
		if !p.More {
			return all
		}
		r.From, r.After = engine.FromAfter, p.End
	}
	h.t.Fatal("the feed never ended")
	return nil
}

// describe returns a change as "LSN op id body", with ! for Expired.
func (h *handle) describe(c engine.Change) string {
	s := fmt.Sprintf("%d %s %s %s", c.LSN, engine.OpName(c.Op), c.Doc.ID(), c.Doc.Body())
	if c.Expired {
		s += " !"
	}
	return s
}

// describeAll describes changes.
func (h *handle) describeAll(cs []engine.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = h.describe(c)
	}
	return out
}

// wantChanges checks the changes, described.
func (h *handle) wantChanges(what string, got []engine.Change, want ...string) {
	h.t.Helper()
	if g := h.describeAll(got); !slices.Equal(g, want) {
		h.t.Errorf("%s:\n got %q\nwant %q", what, g, want)
	}
}

// oldest reads the all-versions feed from its oldest record kept.
var oldest = engine.FeedRead{From: engine.FromOldest, Limit: 100}

func TestFeedRecordsEveryOperation(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	a := h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	h.clock.set(t0 + 1)
	h.mustPut(engine.Upsert, "a", `{"v":2}`, 0)
	h.mustPut(engine.Upsert, "b", `{"b":1}`, 0)
	h.clock.set(t0 + 2)
	if _, err := h.write("a", engine.Write{Op: engine.Touch}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.write("a", engine.Write{Op: engine.Modify, Change: func(*engine.Doc, int64) (*engine.Doc, error) { return doc("a", `{"v":3}`, 0), nil }}); err != nil {
		t.Fatal(err)
	}
	h.clock.set(t0 + 3)
	if _, err := h.write("a", engine.Write{Op: engine.Delete}); err != nil {
		t.Fatal(err)
	}
	all := h.readAll(engine.FeedRead{Limit: 2})
	h.wantChanges("the all-versions feed", all,
		`1 create a {"v":1}`, `2 replace a {"v":2}`, `3 create b {"b":1}`, `4 replace a {"v":2}`,
		`5 replace a {"v":3}`, `6 delete a {"v":3}`)
	for i, c := range all {
		if c.LSN != uint64(i+1) {
			t.Errorf("change %d has LSN %d, want %d", i, c.LSN, i+1)
		}
	}
	if c := all[0]; c.TS != t0 || c.Doc.Tag != a.Tag || c.Doc.TS != t0 {
		t.Errorf("the create: TS %d, etag %s; want %d, %s", c.TS, c.Doc.ETag(), t0, a.ETag())
	}
	// A delete carries the version it deleted, its _ts and etag its own,
	// and the delete's second.
	if c := all[5]; c.TS != t0+3 || c.Doc.TS != t0+2 || h.lsn(c.Doc) != 5 || c.Expired {
		t.Errorf("the delete: TS %d, the version's _ts %d and LSN %d, expired %t; want %d, %d, 5, false", c.TS, c.Doc.TS, h.lsn(c.Doc), c.Expired, t0+3, t0+2)
	}
	st, err := h.e.FeedStats(t.Context())
	var bytes int64
	for _, c := range all {
		bytes += int64(24 + c.Doc.Size())
	}
	if err != nil || st != (engine.FeedStats{LastLSN: 6, Oldest: 1, Records: 6, Bytes: bytes}) {
		t.Errorf("FeedStats = %+v, %v; want LastLSN 6, Oldest 1, Records 6, Bytes %d", st, err, bytes)
	}
}

func TestFeedExpiredDelete(t *testing.T) { // R11, R4: Cosmos's scenario
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
	h.mustPut(engine.Create, "a", `{"v":1}`, 10)
	latest := engine.FeedRead{Latest: true, From: engine.FromOldest, Limit: 10}
	h.wantChanges("the latest-version feed, a live", h.readAll(latest), `1 latest a {"v":1}`)
	h.clock.set(t0 + 10)
	// Expired, not yet deleted: hidden from the latest-version feed (R4).
	if p := h.read(latest); len(p.Changes) != 0 || p.End != 1 || p.More {
		t.Errorf("the latest-version feed, a expired: %q, End %d, More %t; want none, 1, false", h.describeAll(p.Changes), p.End, p.More)
	}
	h.mustPut(engine.Create, "a", `{"v":2}`, 10) // records the expired delete first
	all := h.readAll(oldest)
	h.wantChanges("the all-versions feed", all, `1 create a {"v":1}`, `2 delete a {"v":1} !`, `3 create a {"v":2}`)
	if c := all[1]; c.TS != t0+10 || c.Doc.TS != t0 || h.lsn(c.Doc) != 1 {
		t.Errorf("the expired delete: TS %d, the version's _ts %d and LSN %d; want %d, %d, 1", c.TS, c.Doc.TS, h.lsn(c.Doc), t0+10, t0)
	}
	h.wantChanges("the latest-version feed", h.readAll(latest), `3 latest a {"v":2}`)
}

func TestFeedPagesResume(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
	const n = 23
	for i := range n {
		h.mustPut(engine.Upsert, fmt.Sprint("k", i%9), fmt.Sprintf(`{"i":%d}`, i), 0)
	}
	for _, limit := range []int{1, 2, 5, n, 100} {
		all := h.readAll(engine.FeedRead{Limit: limit})
		if len(all) != n {
			t.Fatalf("pages of %d: %d changes, want %d", limit, len(all), n)
		}
		for i, c := range all {
			if c.LSN != uint64(i+1) {
				t.Fatalf("pages of %d: change %d has LSN %d", limit, i, c.LSN)
			}
		}
		// Latest: each key once, at its last write, which skips the
		// versions overwritten.
		latest := h.readAll(engine.FeedRead{Latest: true, Limit: limit})
		var want []string
		for i := n - 9; i < n; i++ {
			want = append(want, fmt.Sprintf(`%d latest k%d {"i":%d}`, i+1, i%9, i))
		}
		h.wantChanges(fmt.Sprint("the latest-version feed in pages of ", limit), latest, want...)
	}
	// A page that fills up says More, and ends at its last change.
	if p := h.read(engine.FeedRead{Latest: true, Limit: 2}); len(p.Changes) != 2 || !p.More || p.End != p.Changes[1].LSN {
		t.Errorf("a full page: %q, End %d, More %t", h.describeAll(p.Changes), p.End, p.More)
	}
	if p := h.read(engine.FeedRead{Limit: 5, After: 20}); len(p.Changes) != 3 || p.More || p.End != n {
		t.Errorf("the last page: %d changes, End %d, More %t; want 3, %d, false", len(p.Changes), p.End, p.More, n)
	}
	// A document written again after a reader passed it comes again.
	h.clock.set(t0 + 5)
	h.mustPut(engine.Upsert, "k20", `{"i":100}`, 5) // never written before
	h.mustPut(engine.Upsert, "k0", `{"i":101}`, 0)
	h.wantChanges("the latest-version feed after LSN 23", h.readAll(engine.FeedRead{Latest: true, After: n, Limit: 1}),
		`24 latest k20 {"i":100}`, `25 latest k0 {"i":101}`)
	h.clock.set(t0 + 10) // k20 expired: hidden, and the page still ends at the last LSN
	if p := h.read(engine.FeedRead{Latest: true, After: n, Limit: 1}); h.describe(p.Changes[0]) != `25 latest k0 {"i":101}` || p.End != 25 || p.More {
		t.Errorf("after k20 expired: %q, End %d, More %t", h.describeAll(p.Changes), p.End, p.More)
	}
}

// partKey returns the key of the document id in partition pk.
func partKey(pk byte, id string) ([]byte, engine.Layout) {
	k := append([]byte{5, pk, 0, 1}, id...)
	return k, engine.Layout{PK: 4, IDAt: 4, IDEnd: uint16(len(k))}
}

func TestFeedOfAPartition(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	for i, pk := range []byte("tutuut") {
		k, at := partKey(pk, fmt.Sprint("d", i))
		body := fmt.Sprintf(`{"pk":%q}`, string(pk))
		if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Create, Doc: engine.NewDoc(k, at, body, 0, 0, 0)}); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := partKey('u', "d1")
	if _, err := h.e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); err != nil {
		t.Fatal(err)
	}
	prefix := string([]byte{5, 'u', 0, 1})
	h.wantChanges("partition u's all versions", h.readAll(engine.FeedRead{Partition: true, Prefix: prefix, Limit: 1}),
		`2 create d1 {"pk":"u"}`, `4 create d3 {"pk":"u"}`, `5 create d4 {"pk":"u"}`, `7 delete d1 {"pk":"u"}`)
	h.wantChanges("partition u's latest versions", h.readAll(engine.FeedRead{Latest: true, Partition: true, Prefix: prefix, Limit: 1}),
		`4 latest d3 {"pk":"u"}`, `5 latest d4 {"pk":"u"}`)
	// A page of a partition ends at the last change read, of any partition.
	if p := h.read(engine.FeedRead{Partition: true, Prefix: prefix, Limit: 10, After: 5}); h.describeAll(p.Changes)[0] != `7 delete d1 {"pk":"u"}` || p.End != 7 || p.More {
		t.Errorf("the last page of partition u: %q, End %d, More %t", h.describeAll(p.Changes), p.End, p.More)
	}
}

func TestFeedStarts(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	h.mustPut(engine.Create, "a", `{}`, 0)
	h.mustPut(engine.Create, "b", `{}`, 0)
	for _, latest := range []bool{false, true} {
		if p := h.read(engine.FeedRead{Latest: latest, From: engine.FromNow, Limit: 10}); len(p.Changes) != 0 || p.End != 2 || p.More {
			t.Errorf("latest %t, FromNow: %d changes, End %d, More %t; want none, 2, false", latest, len(p.Changes), p.End, p.More)
		}
		if p := h.read(engine.FeedRead{Latest: latest, From: engine.FromOldest, Limit: 10}); len(p.Changes) != 2 || p.End != 2 {
			t.Errorf("latest %t, FromOldest: %d changes, End %d; want 2, 2", latest, len(p.Changes), p.End)
		}
		_, err := h.e.ReadFeed(t.Context(), engine.FeedRead{Latest: latest, After: 3, Limit: 10}, nil)
		var beyond *engine.FeedBeyond
		if !errors.As(err, &beyond) || beyond.Last != 2 {
			t.Errorf("latest %t, after 3 of 2: %v; want a *FeedBeyond of Last 2", latest, err)
		}
	}
	for _, latest := range []bool{false, true} {
		_, err := h.e.ReadFeed(t.Context(), engine.FeedRead{Latest: latest, After: math.MaxUint64, Limit: 10}, nil)
		var beyond *engine.FeedBeyond
		if !errors.As(err, &beyond) || beyond.Last != 2 {
			t.Errorf("latest %t, after 2^64-1: %v; want a *FeedBeyond of Last 2", latest, err)
		}
	}
	h.mustPut(engine.Create, "c", `{}`, 0)
	h.wantChanges("from the present, read before the write", h.readAll(engine.FeedRead{After: 2, Limit: 10}), `3 create c {}`)
}

func TestFeedRetentionByRecords(t *testing.T) { // R11, R15
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Feed: ttldb.FeedOptions{MaxRecords: 3}})
	for i := range 5 {
		h.mustPut(engine.Upsert, "a", fmt.Sprintf(`{"i":%d}`, i), 0)
	}
	st, err := h.e.FeedStats(t.Context())
	if err != nil || st.LastLSN != 5 || st.Oldest != 3 || st.Records != 3 {
		t.Errorf("FeedStats = %+v, %v; want LastLSN 5, Oldest 3, Records 3", st, err)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1`); n != 3 {
		t.Errorf("the feed table holds %d records, want 3", n)
	}
	for _, after := range []uint64{0, 1} {
		_, err := h.e.ReadFeed(t.Context(), engine.FeedRead{After: after, Limit: 10}, nil)
		var trimmed *engine.FeedTrimmed
		if !errors.As(err, &trimmed) || !errors.Is(err, engine.ErrFeedTrimmed) || *trimmed != (engine.FeedTrimmed{After: after, Oldest: 3}) {
			t.Errorf("a read after %d: %v; want a *FeedTrimmed{After: %d, Oldest: 3}", after, err, after)
		}
	}
	h.wantChanges("after 2", h.readAll(engine.FeedRead{After: 2, Limit: 10}), `3 replace a {"i":2}`, `4 replace a {"i":3}`, `5 replace a {"i":4}`)
	h.wantChanges("from the oldest", h.readAll(oldest), `3 replace a {"i":2}`, `4 replace a {"i":3}`, `5 replace a {"i":4}`)
	// The latest-version feed reads the documents: no retention.
	h.wantChanges("latest from the beginning", h.readAll(engine.FeedRead{Latest: true, Limit: 10}), `5 latest a {"i":4}`)
}

func TestFeedRetentionByAge(t *testing.T) { // R11, R15
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Feed: ttldb.FeedOptions{MaxAge: 10 * time.Second}})
	h.mustPut(engine.Create, "a", `{}`, 0)
	h.clock.set(t0 + 5)
	h.mustPut(engine.Create, "b", `{}`, 0)
	h.clock.set(t0 + 10) // a's record is 10 s old: dropped at the next pass
	h.mustPut(engine.Create, "c", `{}`, 0)
	h.wantChanges("from the oldest", h.readAll(oldest), `2 create b {}`, `3 create c {}`)
}

func TestFeedOff(t *testing.T) { // R11, R15
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Feed: ttldb.FeedOptions{Off: true}})
	for i := range 3 {
		h.mustPut(engine.Upsert, "a", fmt.Sprintf(`{"i":%d}`, i), 0)
	}
	// The passes keep a record offGrace seconds once numbered (so that a
	// write another handle's pass numbered finds its LSN), then drop it.
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1`); n != 3 {
		t.Errorf("the feed table holds %d records with the feed off, within offGrace of their writes; want 3", n)
	}
	h.clock.set(t0 + offGrace)
	h.mustPut(engine.Upsert, "a", `{"i":3}`, 0)
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1`); n != 1 {
		t.Errorf("the feed table holds %d records with the feed off, offGrace after 3 of them; want 1", n)
	}
	if _, err := h.e.ReadFeed(t.Context(), oldest, nil); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("ReadFeed with the feed off: %v, want ErrInvalidOption", err)
	}
	if _, err := h.e.FeedStats(t.Context()); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("FeedStats with the feed off: %v, want ErrInvalidOption", err)
	}
	if d := h.live("a", `{"i":3}`); h.lsn(d) != 4 {
		t.Errorf("the last write's LSN is %d with the feed off, want 4", h.lsn(d))
	}
}

func TestFeedRetentionByBytes(t *testing.T) { // R11, R15
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Feed: ttldb.FeedOptions{MaxBytes: ttldb.MinFeedBytes}})
	body := `{"x":"` + strings.Repeat("x", 1<<20) + `"}`
	const n = 6
	for i := range n {
		h.mustPut(engine.Create, fmt.Sprint("k", i), body, 0)
	}
	size := int64(24 + doc("k0", body, 0).Size()) // each record's, as SPEC R11 counts it
	kept := int64(ttldb.MinFeedBytes) / size
	if kept < 2 || kept >= n {
		t.Fatalf("records of %d bytes: %d fit; the test wants from 2 to %d", size, kept, n-1)
	}
	st, err := h.e.FeedStats(t.Context())
	want := engine.FeedStats{LastLSN: n, Oldest: uint64(n - kept + 1), Records: kept, Bytes: kept * size}
	if err != nil || st != want {
		t.Errorf("FeedStats = %+v, %v; want %+v", st, err, want)
	}
}

func TestFeedDeleteOfAVersionNotSequenced(t *testing.T) { // R11
	t.Parallel()
	s := newServer(t)
	dead, h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()}), open(t, s, "sessions", nil)
	// A writer that died between its commit and its pass: the delete of
	// its version waits for the version's LSN, which the delete names.
	dead.e.skipPass.Store(true)
	if _, err := dead.put(engine.Create, "a", `{"v":1}`, 0); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	if _, err := h.write("a", engine.Write{Op: engine.Delete}); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.put(engine.Create, "b", `{"v":1}`, 5); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	h.clock.set(t0 + 5) // b expired, its version not sequenced: so is its expired delete
	h.mustPut(engine.Create, "b", `{"v":2}`, 0)
	all := h.readAll(oldest)
	h.wantChanges("the feed", all, `1 create a {"v":1}`, `2 delete a {"v":1}`, `3 create b {"v":1}`, `4 delete b {"v":1} !`, `5 create b {"v":2}`)
	if len(all) == 5 && (h.lsn(all[1].Doc) != 1 || h.lsn(all[3].Doc) != 3) {
		t.Errorf("the deletes name the versions of LSN %d and %d, want 1 and 3", h.lsn(all[1].Doc), h.lsn(all[3].Doc))
	}
}

func TestFeedPageVisitsABoundedNumber(t *testing.T) { // R11: a page may come back empty, with More
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	// 2000 changes of partition t, then one of partition u, made in SQL
	// as passes would have numbered them.
	const n = 2000
	s.exec(`INSERT INTO `+s.ident()+`.ttldb_feed_1 (op, key, pk_end, id_at, id_end, body, ts, ttl, lsn, cum)
		SELECT 1, '\x05740001'::bytea || int8send(g), 4, 4, 12, '{}', $1::bigint, -1, g, g FROM generate_series(1, $2::bigint) g
		UNION ALL SELECT 1, '\x05750001'::bytea || 'u'::bytea, 4, 4, 5, '{}', $1::bigint, -1, $2::bigint + 1, $2::bigint + 1`, t0, n)
	s.exec(`INSERT INTO ` + s.ident() + `.ttldb_docs_1 (key, pk_end, id_at, id_end, body, ts, ttl, lsn)
		SELECT key, pk_end, id_at, id_end, body, ts, ttl, lsn FROM ` + s.ident() + `.ttldb_feed_1`)
	s.exec(`UPDATE `+s.ident()+`.ttldb_collections SET lsn = $1`, n+1)
	prefix := string([]byte{5, 'u', 0, 1})
	for _, latest := range []bool{false, true} {
		r := engine.FeedRead{Latest: latest, Partition: true, Prefix: prefix, Limit: 1}
		p := h.read(r)
		if len(p.Changes) != 0 || !p.More || p.End != 4*1+1024 {
			t.Errorf("latest %t: the first page of u: %d changes, End %d, More %t; want none, %d, true", latest, len(p.Changes), p.End, p.More, 4*1+1024)
		}
		h.wantChanges(fmt.Sprint("latest ", latest, ": partition u"), h.readAll(r), fmt.Sprintf(`%d %s u {}`, n+1, map[bool]string{false: "create", true: "latest"}[latest]))
	}
}

func TestFeedReaderFollowsConcurrentWriters(t *testing.T) { // R11: no change skipped or repeated
	t.Parallel()
	s := newServer(t)
	writers := []*handle{open(t, s, "sessions", nil), open(t, s, "sessions", nil)}
	reader := open(t, s, "sessions", nil)
	const each, n = 15, 4
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		for w := range n {
			wg.Go(func() {
				for i := range each {
					if _, err := writers[w%2].put(engine.Upsert, fmt.Sprint("k", (w+i)%5), fmt.Sprintf(`{"w":%d}`, w), 0); err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
				}
			})
		}
		wg.Wait()
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // the failure bound only
	defer cancel()
	var seen []uint64
	var end uint64
	for end < n*each {
		ch := reader.e.FeedChanged() // before the read, so that a later change closes it
		p, err := reader.e.ReadFeed(ctx, engine.FeedRead{After: end, Limit: 3}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Changes {
			seen = append(seen, c.LSN)
		}
		end = p.End
		if !p.More && end < n*each {
			select {
			case <-ch:
			case <-ctx.Done():
				t.Fatalf("the reader waited in vain after LSN %d", end)
			}
		}
	}
	<-done
	for i, l := range seen {
		if l != uint64(i+1) {
			t.Fatalf("the reader saw LSNs %v; want 1 to %d, each once, in order", seen, n*each)
		}
	}
	if len(seen) != n*each {
		t.Errorf("the reader saw %d changes, want %d", len(seen), n*each)
	}
}
