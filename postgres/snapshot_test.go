package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/query"
)

// openOn is open on the pool p.
func openOn(t *testing.T, p *pgxpool.Pool, name string, opts *ttldb.Options) *handle {
	t.Helper()
	var o ttldb.Options
	if opts != nil {
		o = *opts
	}
	h := &handle{t: t, clock: &testClock{}}
	h.clock.set(t0)
	o.Now = h.clock.Now
	e, err := Open(t.Context(), p, name, "/tenant", &o)
	if err != nil {
		t.Fatalf("Open(%q): %v", name, err)
	}
	t.Cleanup(func() { _ = e.Close() })
	h.e = e
	return h
}

// snap opens a snapshot, released when the test ends.
func (h *handle) snap(paths []string, keys bool) engine.Snapshot {
	h.t.Helper()
	sn, err := h.e.Snapshot(h.t.Context(), paths, keys)
	if err != nil {
		h.t.Fatalf("Snapshot(%q, %t): %v", paths, keys, err)
	}
	h.t.Cleanup(sn.Release)
	return sn
}

// scan returns the keys and bodies Scan gives, as "key=body".
func scan(t *testing.T, sn engine.Snapshot, prefix, after string, resume bool) []string {
	t.Helper()
	var got []string
	err := sn.Scan(t.Context(), prefix, after, resume, func(d *engine.Doc) bool {
		got = append(got, d.Key()+"="+d.Body())
		return true
	})
	if err != nil {
		t.Fatalf("Scan(%q, %q, %t): %v", prefix, after, resume, err)
	}
	return got
}

// ids returns the ids of the keys key(id) that a scan gave.
func ids(scanned []string) string {
	var out []string
	for _, s := range scanned {
		k, _ := key("")
		out = append(out, strings.TrimPrefix(s, string(k)))
	}
	return strings.Join(out, " ")
}

// fill stores a document {} of each key, whose layout is the key as the id
// and which never expires, straight into the first collection's table of
// the test's schema, with LSNs from 1000001: many documents fast.
func fill(s *server, keys []string) {
	s.t.Helper()
	bs := make([][]byte, len(keys))
	for i, k := range keys {
		bs[i] = []byte(k)
	}
	s.exec(`INSERT INTO `+s.ident()+`.ttldb_docs_1 (key, pk_end, id_at, id_end, body, ts, ttl, lsn)
		SELECT k, 0, 0, octet_length(k), '{}', $2, -1, 1000000 + o FROM unnest($1::bytea[]) WITH ORDINALITY AS u(k, o)`, bs, int64(t0))
}

func TestSnapshotSeesItsInstant(t *testing.T) { // R13
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	other := open(t, s, "sessions", nil) // another process, on a pool of its own
	h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	h.mustPut(engine.Create, "b", `{"v":1}`, 0)
	h.mustPut(engine.Create, "c", `{"v":1}`, 0)
	sn := h.snap(nil, true)
	other.mustPut(engine.Create, "d", `{"v":1}`, 0)
	other.mustPut(engine.Replace, "a", `{"v":2}`, 0)
	if _, err := other.write("b", engine.Write{Op: engine.Delete}); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(scan(t, sn, "", "", false)), `a={"v":1} b={"v":1} c={"v":1}`; got != want {
		t.Errorf("the snapshot scans %s after later writes, want %s as it opened", got, want)
	}
	// Its later pages (a second read) see the same instant; a new one sees the writes.
	if got, want := ids(scan(t, sn, "", "", false)), `a={"v":1} b={"v":1} c={"v":1}`; got != want {
		t.Errorf("a second scan of the snapshot gives %s, want %s", got, want)
	}
	if got, want := ids(scan(t, other.snap(nil, true), "", "", false)), `a={"v":2} c={"v":1} d={"v":1}`; got != want {
		t.Errorf("a snapshot opened after the writes scans %s, want %s", got, want)
	}
}

func TestSnapshotGivesTheEtagOfAVersionNotSequenced(t *testing.T) { // R11, R13
	t.Parallel()
	s := newServer(t)
	dead, h := open(t, s, "sessions", nil), open(t, s, "sessions", nil)
	h.mustPut(engine.Create, "a", `{"v":1}`, 0)
	dead.e.skipPass.Store(true)
	if _, err := dead.put(engine.Create, "b", `{"v":1}`, 0); !errors.Is(err, errSkipped) {
		t.Fatalf("a write with skipPass: %v, want errSkipped", err)
	}
	sn := h.snap(nil, true)
	var lsns []uint64
	if err := sn.Scan(t.Context(), "", "", false, func(d *engine.Doc) bool { lsns = append(lsns, h.lsn(d)); return true }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lsns, []uint64{1, 2}) {
		t.Errorf("the snapshot gives LSNs %v, want [1 2]: the version not sequenced numbered by a pass", lsns)
	}
	if d := h.live("b", `{"v":1}`); h.lsn(d) != 2 {
		t.Errorf("Get after: LSN %d, want 2", h.lsn(d))
	}
}

func TestSnapshotScanOrderPrefixAndResume(t *testing.T) { // R13
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	r := rand.New(rand.NewPCG(1, 2))
	long := strings.Repeat("\xff", 1030) // keys alike in the first 1024 bytes
	var keys []string
	for i := range 700 {
		pre := []string{"a", "ab", "b\x00", "b\x00\x01", "\xff", long}[r.IntN(6)]
		keys = append(keys, fmt.Sprintf("%s%c%d", pre, rune('A'+r.IntN(3)), i))
	}
	keys = append(keys, long, long[:1024], long+"\x00")
	fill(s, keys)
	slices.Sort(keys)
	sn := h.snap(nil, true)
	bare := func(sc []string) []string {
		out := make([]string, len(sc))
		for i, x := range sc {
			out[i] = strings.TrimSuffix(x, "={}")
		}
		return out
	}
	if got := bare(scan(t, sn, "", "", false)); !slices.Equal(got, keys) {
		t.Fatalf("Scan gives %d keys, not the %d in key order", len(got), len(keys))
	}
	for _, prefix := range []string{"a", "ab", "b\x00", "b\x00\x01", "\xff", long, long[:1024] + "\xffA", long + "A", "c"} {
		var want []string
		for _, k := range keys {
			if strings.HasPrefix(k, prefix) {
				want = append(want, k)
			}
		}
		if got := bare(scan(t, sn, prefix, "", false)); !slices.Equal(got, want) {
			t.Errorf("Scan of the prefix %.8q...: %d keys, want %d", prefix, len(got), len(want))
		}
		for _, i := range []int{0, len(want) / 2, len(want) - 1} {
			if i < 0 || i >= len(want) {
				continue
			}
			if got := bare(scan(t, sn, prefix, want[i], true)); !slices.Equal(got, want[i+1:]) {
				t.Errorf("Scan of the prefix %.8q... after its key %d: %d keys, want %d", prefix, i, len(got), len(want)-i-1)
			}
		}
	}
	// Stopped by fn.
	n := 0
	if err := sn.Scan(t.Context(), "", "", false, func(*engine.Doc) bool { n++; return n < 3 }); err != nil || n != 3 {
		t.Errorf("Scan stopped by fn at 3: %d calls, %v", n, err)
	}
}

func TestSnapshotJudgesExpiry(t *testing.T) { // R4, R13
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(100)})
	if err := h.e.CreateIndex(t.Context(), "/v"); err != nil {
		t.Fatal(err)
	}
	a := h.mustPut(engine.Create, "a", `{"v":1}`, 10)
	h.mustPut(engine.Create, "b", `{"v":2}`, -1)
	c := h.mustPut(engine.Create, "c", `{"v":3}`, 0) // inherits 100
	h.clock.set(t0 + 5)
	sn := h.snap(nil, true)
	h.clock.set(t0 + 50)
	if got := ids(scan(t, sn, "", "", false)); got != `a={"v":1} b={"v":2} c={"v":3}` {
		t.Errorf("Scan at t0+50 of a snapshot of t0+5: %s, want a b c: judged as of the opening", got)
	}
	if sn.Expired(a) {
		t.Errorf("Expired(a) before Judge: true")
	}
	sn.Judge()
	if got := ids(scan(t, sn, "", "", false)); got != `b={"v":2} c={"v":3}` {
		t.Errorf("Scan after Judge at t0+50: %s, want b c", got)
	}
	if !sn.Expired(a) || sn.Expired(c) {
		t.Errorf("after Judge at t0+50: Expired(a) %t, Expired(c) %t; want true, false", sn.Expired(a), sn.Expired(c))
	}
	h.clock.set(t0 + 200)
	sn.Judge()
	if got := ids(scan(t, sn, "", "", false)); got != `b={"v":2}` {
		t.Errorf("Scan after Judge at t0+200: %s, want b", got)
	}
	// An index gives the expired too, for the API to judge.
	xs := h.snap([]string{"/v"}, false)
	h.clock.set(t0 + 1000)
	xs.Judge()
	var got []string
	if err := xs.Index(t.Context(), "/v", []engine.Range{{}}, false, "", func(d *engine.Doc, _ string) bool {
		got = append(got, fmt.Sprintf("%s %t", d.ID(), xs.Expired(d)))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a true", "b false", "c true"}; !slices.Equal(got, want) {
		t.Errorf("Index gives %q, want %q", got, want)
	}
}

func TestSnapshotScanStopsWithItsContext(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	var keys []string
	for i := range 3 * pageSize {
		keys = append(keys, fmt.Sprintf("k%05d", i))
	}
	fill(s, keys)
	sn := h.snap(nil, true)
	ctx, cancel := context.WithCancel(t.Context())
	n, after := 0, 0
	err := sn.Scan(ctx, "", "", false, func(*engine.Doc) bool {
		if n++; n == 10 {
			cancel()
		} else if n > 10 {
			after++
		}
		return true
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Scan whose context ends: %v, want context.Canceled", err)
	}
	if after >= pageSize {
		t.Errorf("Scan went on for %d documents after its context ended, want fewer than %d", after, pageSize)
	}
	//lint:ignore SA1012 a nil context, refused
	if err := sn.Scan(nil, "", "", false, func(*engine.Doc) bool { return true }); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Scan with a nil context: %v, want ErrInvalidOption", err)
	}
}

func TestSnapshotReleaseReturnsTheConnection(t *testing.T) { // R13
	t.Parallel()
	s := newServer(t)
	p := s.pool()
	h := openOn(t, p, "sessions", nil)
	h.mustPut(engine.Create, "a", `{}`, 0)
	sn, err := h.e.Snapshot(t.Context(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Stat().AcquiredConns(); n != 1 {
		t.Errorf("an open snapshot holds %d connections, want 1", n)
	}
	sn.Release()
	if n := p.Stat().AcquiredConns(); n != 0 {
		t.Errorf("after Release, %d connections are held, want 0", n)
	}
	sn.Release() // idempotent
	if err := sn.Scan(t.Context(), "", "", false, func(*engine.Doc) bool { return true }); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Scan after Release: %v, want ErrClosed", err)
	}
	// A snapshot whose read its context cut off gives its connection back too.
	fill(s, []string{"x1", "x2", "x3"})
	sn, err = h.e.Snapshot(t.Context(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	_ = sn.Scan(ctx, "", "", false, func(*engine.Doc) bool { cancel(); return true })
	sn.Release()
	if n := p.Stat().AcquiredConns(); n != 0 {
		t.Errorf("after Release of a snapshot cut off, %d connections are held, want 0", n)
	}
	// Closed: a snapshot open gives its connection back, stops reading,
	// and none opens.
	sn = h.snap([]string{}, true)
	_ = h.e.Close()
	if n := p.Stat().AcquiredConns(); n != 0 {
		t.Errorf("after Close, with a snapshot open, %d connections are held, want 0", n)
	}
	if err := sn.Scan(t.Context(), "", "", false, func(*engine.Doc) bool { return true }); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Scan of a snapshot after Close: %v, want ErrClosed", err)
	}
	if _, err := h.e.Snapshot(t.Context(), nil, true); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Snapshot after Close: %v, want ErrClosed", err)
	}
}

// indexValues are the values at /n of the index test's documents: of
// every kind, some repeated, some missing.
var indexValues = []string{`1`, `2`, `2`, `-3.5`, `10`, `"a"`, `"b"`, `"ab"`, `""`, `null`, `true`, `false`,
	`[1]`, `{"x":1}`, ``, ``, `5`, `"a"`, `1e3`, `0`}

func TestSnapshotIndex(t *testing.T) { // R13
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Indexes: []string{"/n"}})
	type it struct{ k, id string }
	path, err := query.ParsePointer("/n")
	if err != nil {
		t.Fatal(err)
	}
	var all []it
	var tag [engine.ETagLen]byte
	for i, v := range indexValues {
		body := `{}`
		if v != "" {
			body = `{"n":` + v + `}`
		}
		d := h.mustPut(engine.Create, fmt.Sprintf("d%02d", i), body, 0)
		k := query.AppendKey(nil, query.RowOf(d, tag[:]).Value(path))
		all = append(all, it{string(k) + d.Key(), d.ID()})
	}
	slices.SortFunc(all, func(a, b it) int { return strings.Compare(a.k, b.k) })

	sn := h.snap([]string{"/n", "/missing"}, false)
	h.mustPut(engine.Create, "late", `{"n":2}`, 0) // after the snapshot: not read
	if got := sn.Indexes(); !slices.Equal(got, []string{"/n"}) {
		t.Errorf("Indexes() = %q, want [/n]: the paths asked for that the collection has", got)
	}
	if err := sn.Scan(t.Context(), "", "", false, func(*engine.Doc) bool { return true }); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Scan of a snapshot opened with an index and without keys: %v, want ErrInvalidOption", err)
	}
	if err := sn.Index(t.Context(), "/missing", []engine.Range{{}}, false, "", func(*engine.Doc, string) bool { return true }); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Index of a path the snapshot does not hold: %v, want ErrInvalidOption", err)
	}
	num := func(f float64) []byte { return query.AppendKey(nil, query.Value{Kind: query.Number, Num: f}) }
	str := func(s string) []byte { return query.AppendKey(nil, query.Value{Kind: query.String, Str: s}) }
	for _, c := range []struct {
		name   string
		ranges []engine.Range
	}{
		{"everything", []engine.Range{{}}},
		{"2 <= n < 10", []engine.Range{{From: num(2), To: num(10)}}},
		{"n = 2", []engine.Range{{From: num(2), To: query.PrefixEnd(num(2))}}},
		{"n < 1 or n >= \"a\"", []engine.Range{{From: num(-1e9), To: num(1)}, {From: str("a")}}},
		{"none", []engine.Range{{From: num(100), To: num(200)}}},
	} {
		var want []it
		for _, x := range all {
			if inRanges([]byte(x.k), c.ranges) {
				want = append(want, x)
			}
		}
		for _, desc := range []bool{false, true} {
			w := slices.Clone(want)
			if desc {
				slices.Reverse(w)
			}
			for _, seekAt := range []int{-1, 0, len(w) / 2, len(w) - 1} {
				if seekAt >= len(w) {
					continue
				}
				seek, rest := "", w
				if seekAt >= 0 {
					seek, rest = w[seekAt].k, w[seekAt+1:]
				}
				var got []it
				err := sn.Index(t.Context(), "/n", c.ranges, desc, seek, func(d *engine.Doc, item string) bool {
					got = append(got, it{item, d.ID()})
					return true
				})
				if err != nil || !slices.Equal(got, rest) {
					t.Errorf("%s, desc %t, seek at %d: Index gives %v, %v; want %v", c.name, desc, seekAt, got, err, rest)
				}
			}
		}
		for _, most := range []int{1, 3, 1000} {
			if got := sn.Count(t.Context(), "/n", c.ranges, most); got != min(len(want), most) {
				t.Errorf("%s: Count(most %d) = %d, want %d", c.name, most, got, min(len(want), most))
			}
		}
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if err := sn.Index(done, "/n", []engine.Range{{}}, false, "", func(*engine.Doc, string) bool { return true }); !errors.Is(err, context.Canceled) { // R16
		t.Errorf("Index with a done context: %v, want context.Canceled", err)
	}
	n := 0
	if err := sn.Index(t.Context(), "/n", []engine.Range{{}}, false, "", func(*engine.Doc, string) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Errorf("Index stopped by fn at 2: %d calls, %v", n, err)
	}
}

func TestIndexingRefusals(t *testing.T) { // R8, R13
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	other := open(t, s, "sessions", nil)
	ctx := t.Context()
	wantRefused(t, h.e.SetIndexing(ctx, engine.None), engine.ErrInvalidOption, "DefaultTTL")
	wantRefused(t, h.e.SetIndexing(ctx, engine.Indexing(7)), engine.ErrInvalidOption, "Indexing(7)")
	h.set(engine.DefaultTTL{})
	if err := h.e.CreateIndex(ctx, "/a/b"); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, h.e.CreateIndex(ctx, "/a/b"), engine.ErrInvalidOption, "/a/b")
	wantRefused(t, h.e.CreateIndex(ctx, "a"), engine.ErrInvalidOption, `"a"`)
	wantRefused(t, h.e.SetIndexing(ctx, engine.None), engine.ErrInvalidOption, "/a/b")
	if err := h.e.CreateIndex(ctx, "/c"); err != nil {
		t.Fatal(err)
	}
	if got := h.e.Settings().Indexes; !slices.Equal(got, []string{"/a/b", "/c"}) {
		t.Errorf("Settings().Indexes = %q, want [/a/b /c]", got)
	}
	// Another process sees them at its next snapshot.
	if got := other.snap([]string{"/c", "/a/b"}, false).Indexes(); !slices.Equal(got, []string{"/c", "/a/b"}) {
		t.Errorf("another process's snapshot reads the indexes %q, want [/c /a/b]", got)
	}
	if got := other.e.Settings().Indexes; !slices.Equal(got, []string{"/a/b", "/c"}) {
		t.Errorf("another process's Settings().Indexes after a snapshot = %q, want [/a/b /c]", got)
	}
	if err := other.e.DropIndex(ctx, "/a/b"); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, h.e.DropIndex(ctx, "/a/b"), engine.ErrNotFound)
	if err := h.e.DropIndex(ctx, "/c"); err != nil {
		t.Fatal(err)
	}
	if err := h.e.SetIndexing(ctx, engine.None); err != nil {
		t.Fatalf("SetIndexing(none) without TTL or indexes: %v", err)
	}
	if got := h.e.Settings(); got.Indexing != engine.None || len(got.Indexes) != 0 {
		t.Errorf("Settings() = %v, %q; want none, no index", got.Indexing, got.Indexes)
	}
	if n := s.count(`SELECT indexing FROM ` + s.ident() + `.ttldb_collections`); n != int64(engine.None) {
		t.Errorf("the row holds indexing mode %d, want none", n)
	}
	wantRefused(t, h.e.CreateIndex(ctx, "/c"), engine.ErrInvalidOption, "none")
	wantRefused(t, h.e.SetDefaultTTL(ctx, engine.DefaultTTL{On: true, Seconds: 5}), engine.ErrInvalidOption, "none")
	if err := h.e.SetIndexing(ctx, engine.Consistent); err != nil {
		t.Fatal(err)
	}
	_ = h.e.Close()
	wantRefused(t, h.e.CreateIndex(ctx, "/d"), engine.ErrClosed)
	wantRefused(t, h.e.DropIndex(ctx, "/d"), engine.ErrClosed)
	wantRefused(t, h.e.SetIndexing(ctx, engine.Consistent), engine.ErrClosed)
}
