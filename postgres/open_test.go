package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// mustOpen opens a collection or fails the test.
func mustOpen(t *testing.T, s *server, name, path string, opts *ttldb.Options) *Engine {
	t.Helper()
	e, err := Open(t.Context(), s.pool(), name, path, opts)
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", name, path, err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// wantRefused checks that err wraps want and names each of the strings.
func wantRefused(t *testing.T, err, want error, names ...string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got %v, want an error wrapping %v", err, want)
	}
	for _, n := range names {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not name %q", err, n)
		}
	}
}

func TestOpenMakesTheSchemaAndTheCollection(t *testing.T) { // R1, R8, R11, R13, R16
	t.Parallel()
	s := newServer(t)
	opts := &ttldb.Options{
		DefaultTTL: ttldb.TTLSeconds(3600),
		Feed:       ttldb.FeedOptions{MaxRecords: 1000, MaxAge: time.Hour},
		Indexes:    []string{"/status", "/total"},
	}
	e := mustOpen(t, s, "sessions", "/tenant", opts)
	got := e.Settings()
	if got.Name != "sessions" || got.PartitionKeyPath != "/tenant" ||
		got.DefaultTTL != (engine.DefaultTTL{On: true, Seconds: 3600}) || got.Indexing != engine.Consistent ||
		!got.Feed || strings.Join(got.Indexes, ",") != "/status,/total" {
		t.Errorf("Settings() = %+v, not what Open was given", got)
	}
	if got.ID == 0 && got.ETagBase == 0 {
		t.Errorf("Settings() has ID and ETagBase 0: not drawn at random")
	}
	if n := s.count(`SELECT version FROM ` + s.ident() + `.ttldb_schema`); n != SchemaVersion {
		t.Errorf("ttldb_schema holds version %d, want %d", n, SchemaVersion)
	}
	// The schema's two tables and the collection's three (documents, feed,
	// index items), named by its number.
	if n := s.tables(); n != 5 {
		t.Errorf("the schema holds %d of ttldb's tables, want 5", n)
	}
	if n := s.count(`SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename IN ('ttldb_docs_1', 'ttldb_feed_1')`, s.schema); n != 2 {
		t.Errorf("found %d of ttldb_docs_1 and ttldb_feed_1, want 2", n)
	}
	var records, bytes, age int64
	err := s.admin.QueryRow(t.Context(), `SELECT keep_records, keep_bytes, keep_age FROM `+s.ident()+`.ttldb_collections WHERE name = 'sessions'`).Scan(&records, &bytes, &age)
	if err != nil || records != 1000 || bytes != ttldb.DefaultFeedBytes || age != 3600 {
		t.Errorf("stored retention %d records, %d bytes, %d s (%v); want 1000, DefaultFeedBytes, 3600", records, bytes, age, err)
	}

	// Another collection gets its own number, tables and identity.
	other := mustOpen(t, s, "tokens", "/id", &ttldb.Options{Feed: ttldb.FeedOptions{Off: true}, Indexing: ttldb.IndexingNone})
	o := other.Settings()
	if o.ID == got.ID || o.ETagBase == got.ETagBase || o.Feed || o.Indexing != engine.None || o.Indexes == nil {
		t.Errorf("second collection's Settings() = %+v; first's %+v", o, got)
	}
	if n := s.tables(); n != 8 {
		t.Errorf("the schema holds %d of ttldb's tables after a second collection, want 8", n)
	}
}

func TestSecondOpenAdopts(t *testing.T) { // R16: another process shares the collection
	t.Parallel()
	s := newServer(t)
	first := mustOpen(t, s, "sessions", "/tenant", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(60), Indexes: []string{"/a", "/b"}})
	// Zero options take the stored settings; the same ones, in any order, agree.
	for _, opts := range []*ttldb.Options{nil, {}, {DefaultTTL: ttldb.TTLSeconds(60), Indexes: []string{"/b", "/a"}}} {
		second := mustOpen(t, s, "sessions", "/tenant", opts)
		a, b := first.Settings(), second.Settings()
		if a.ID != b.ID || a.ETagBase != b.ETagBase || a.DefaultTTL != b.DefaultTTL || strings.Join(a.Indexes, ",") != strings.Join(b.Indexes, ",") {
			t.Errorf("with options %+v, the second handle's Settings() = %+v, the first's %+v", opts, b, a)
		}
	}
	if n := s.tables(); n != 5 {
		t.Errorf("the schema holds %d of ttldb's tables, want 5: the second opens made some", n)
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	mustOpen(t, s, "sessions", "/tenant", nil)
	s.exec(`UPDATE ` + s.ident() + `.ttldb_schema SET version = 7`)
	for _, name := range []string{"sessions", "new"} {
		_, err := Open(t.Context(), s.pool(), name, "/tenant", nil)
		wantRefused(t, err, engine.ErrInvalidOption, "version 7", fmt.Sprintf("version %d", SchemaVersion), "newer ttldb")
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_collections`); n != 1 {
		t.Errorf("%d collections after refused opens, want 1: a refused open made one", n)
	}
}

func TestOpenRefusesAnotherPath(t *testing.T) { // R10, R16
	t.Parallel()
	s := newServer(t)
	mustOpen(t, s, "sessions", "/tenant", nil)
	_, err := Open(t.Context(), s.pool(), "sessions", "/user", nil)
	wantRefused(t, err, engine.ErrInvalidOption, `"sessions"`, `"/tenant"`, `"/user"`)
}

func TestOpenRefusesOtherSettings(t *testing.T) { // R1, R8, R11, R13, R16
	t.Parallel()
	s := newServer(t)
	mustOpen(t, s, "sessions", "/tenant", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(60), Indexes: []string{"/a"}})
	for _, c := range []struct {
		opts  ttldb.Options
		names []string
	}{
		{ttldb.Options{DefaultTTL: ttldb.TTLSeconds(120)}, []string{"DefaultTTL 60, not 120"}},
		{ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()}, []string{"DefaultTTL 60, not -1"}},
		{ttldb.Options{Feed: ttldb.FeedOptions{Off: true}}, []string{"change feed on", "not off"}},
		{ttldb.Options{Indexes: []string{"/b"}}, []string{`indexes ["/a"], not ["/b"]`}},
	} {
		_, err := Open(t.Context(), s.pool(), "sessions", "/tenant", &c.opts)
		wantRefused(t, err, engine.ErrInvalidOption, c.names...)
	}
}

func TestOpenRefusesBadInput(t *testing.T) { // R1, R8, R10, R17 (a memory quota)
	t.Parallel()
	s := newServer(t)
	pool := s.pool()
	for _, c := range []struct {
		name, path string
		opts       *ttldb.Options
		want       error
		says       string
	}{
		{"", "/pk", nil, engine.ErrInvalidOption, "is empty"},
		{"a/b", "/pk", nil, engine.ErrInvalidOption, `'/'`},
		{"a#b", "/pk", nil, engine.ErrInvalidOption, `'#'`},
		{"a\x00b", "/pk", nil, engine.ErrInvalidOption, "control character"},
		{"\xff", "/pk", nil, engine.ErrInvalidOption, "UTF-8"},
		{strings.Repeat("n", ttldb.MaxNameLength+1), "/pk", nil, engine.ErrInvalidOption, "at most 255"},
		{"c", "pk", nil, engine.ErrInvalidOption, "must start with '/'"},
		{"c", "/a//b", nil, engine.ErrInvalidOption, "empty segment"},
		{"c", "/_ts", nil, engine.ErrInvalidOption, "system property"},
		{"c", "/pk", &ttldb.Options{Dir: "/tmp/x"}, engine.ErrInvalidOption, "Dir"},
		{"c", "/pk", &ttldb.Options{Name: "d"}, engine.ErrInvalidOption, `"d"`},
		{"c", "/pk", &ttldb.Options{PartitionKeyPath: "/q"}, engine.ErrInvalidOption, `"/q"`},
		{"c", "/pk", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(0)}, engine.ErrInvalidTTL, ""},
		{"c", "/pk", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(5), Indexing: ttldb.IndexingNone}, engine.ErrInvalidOption, "R8"},
		{"c", "/pk", &ttldb.Options{Indexes: []string{"/a", "/a"}}, engine.ErrInvalidOption, "twice"},
		{"c", "/pk", &ttldb.Options{Feed: ttldb.FeedOptions{MaxBytes: 1}}, engine.ErrInvalidOption, "MaxBytes"},
		{"c", "/pk", &ttldb.Options{Indexes: []string{"/a\x00b"}}, engine.ErrInvalidOption, "0x00"},
		{"c", "/pk", &ttldb.Options{Quota: ttldb.QuotaOptions{MaxBytes: 1 << 30}}, engine.ErrInvalidOption, "Options.Quota"},
		{"c", "/pk", &ttldb.Options{Quota: ttldb.QuotaOptions{MaxDocuments: 10, Policy: ttldb.QuotaEvictSoonest}}, engine.ErrInvalidOption, "the server"},
	} {
		_, err := Open(t.Context(), pool, c.name, c.path, c.opts)
		wantRefused(t, err, c.want, c.says)
	}
	//lint:ignore SA1012 a nil context is what is tested
	if _, err := Open(nil, pool, "c", "/pk", nil); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Open(nil ctx) = %v, want ErrInvalidOption", err)
	}
	if _, err := Open(t.Context(), nil, "c", "/pk", nil); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Open(nil pool) = %v, want ErrInvalidOption", err)
	}
	if n := s.tables(); n != 0 {
		t.Errorf("refused opens made %d tables, want none", n)
	}
}

func TestConcurrentFirstOpens(t *testing.T) { // R16: processes that start at once
	t.Parallel()
	s := newServer(t)
	const n = 8
	engines := make([]*Engine, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		// Half the processes' connections default to repeatable read,
		// whose snapshot, taken before the lock, would miss the tables
		// another open made: Open must read committed.
		p := s.pool()
		if i%2 == 1 {
			p = s.pool("default_transaction_isolation", "repeatable read")
		}
		if err := p.Ping(t.Context()); err != nil { // connected before the start
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			engines[i], errs[i] = Open(t.Context(), p, "sessions", "/tenant", nil)
		})
	}
	close(start)
	wg.Wait()
	for _, e := range engines {
		if e != nil {
			t.Cleanup(func() { _ = e.Close() }) // and its background goroutine
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d of %d at once: %v", i, n, err)
		}
	}
	for _, e := range engines[1:] {
		if e.Settings().ID != engines[0].Settings().ID || e.no != engines[0].no {
			t.Errorf("opens at once got collections %d (ID %x) and %d (ID %x)", e.no, e.Settings().ID, engines[0].no, engines[0].Settings().ID)
		}
	}
	if c := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_collections`); c != 1 {
		t.Errorf("%d collections after %d opens at once, want 1", c, n)
	}
}

func TestOpenRefusesDroppedTables(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	mustOpen(t, s, "sessions", "/tenant", nil)
	s.exec(`DROP TABLE ` + s.ident() + `.ttldb_feed_1`)
	_, err := Open(t.Context(), s.pool(), "sessions", "/tenant", nil)
	wantRefused(t, err, engine.ErrCorrupt, "ttldb_feed_1")
	// The sequence that orders the writes (R11).
	mustOpen(t, s, "tokens", "/tenant", nil)
	s.exec(`DROP SEQUENCE ` + s.ident() + `.ttldb_seq_2 CASCADE`)
	_, err = Open(t.Context(), s.pool(), "tokens", "/tenant", nil)
	wantRefused(t, err, engine.ErrCorrupt, "ttldb_seq_2")
}

func TestOpenNeedsASchema(t *testing.T) { // R16
	t.Parallel()
	s := newServer(t)
	s.exec(`DROP SCHEMA ` + s.ident())
	_, err := Open(t.Context(), s.pool(), "sessions", "/tenant", nil)
	s.exec(`CREATE SCHEMA ` + s.ident()) // for the cleanup
	wantRefused(t, err, engine.ErrInvalidOption, "search_path", s.schema)
}

func TestClose(t *testing.T) { // R15
	t.Parallel()
	s := newServer(t)
	e := mustOpen(t, s, "sessions", "/tenant", nil)
	before := e.Settings()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := e.tick(t.Context()); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("tick after Close = %v, want ErrClosed", err)
	}
	if after := e.Settings(); after.ID != before.ID {
		t.Errorf("Settings() after Close = %+v, want %+v", after, before)
	}
}

func TestZeroEngine(t *testing.T) { // R15
	t.Parallel()
	var e Engine
	if s := e.Settings(); s.Name != "" || s.ID != 0 {
		t.Errorf("zero Engine's Settings() = %+v, want zero", s)
	}
	if _, err := e.now(t.Context()); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("zero Engine's now = %v, want ErrClosed", err)
	}
	if err := e.Close(); err != nil {
		t.Errorf("zero Engine's Close = %v, want nil", err)
	}
}

func TestOpenStopsWithItsContext(t *testing.T) { // R16: a call that waits stops when its context is done
	t.Parallel()
	s := newServer(t)
	// Another process holds the schema's lock, as an open in progress does.
	s.exec(`SELECT pg_advisory_lock(hashtextextended('ttldb ' || $1, 0))`, s.schema)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	pool := s.pool()
	go func() {
		_, err := Open(ctx, pool, "sessions", "/tenant", nil)
		done <- err
	}()
	// Cancel once the open waits for the lock, which the server shows.
	for s.count(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'`) == 0 {
		select {
		case err := <-done:
			t.Fatalf("Open returned %v while another held the schema's lock", err)
		default:
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Open whose context was canceled while it waited = %v, want an error wrapping context.Canceled", err)
	}
	s.exec(`SELECT pg_advisory_unlock(hashtextextended('ttldb ' || $1, 0))`, s.schema)
	if s.tables() != 0 {
		t.Errorf("the canceled open made tables")
	}
	mustOpen(t, s, "sessions", "/tenant", nil) // the pool is usable again
}
