package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// itemsOf returns how many items the index numbered ix holds.
func (s *server) itemsOf(ix int64) int64 {
	return s.count(`SELECT count(*) FROM `+s.ident()+`.ttldb_items_1 WHERE ix = $1`, ix)
}

// docsCount returns how many rows the collection's documents table holds.
func (s *server) docsCount() int64 {
	return s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_docs_1`)
}

func TestCreateIndexWaitsForTheWritersInProgress(t *testing.T) { // R13: a write that read the settings before the index was recorded still gets its item
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	w := open(t, s, "sessions", nil) // another process
	fillItems(t, h, 50)
	reached, release := make(chan struct{}), make(chan struct{})
	hold := func() { close(reached); <-release }
	w.e.writeHold.Store(&hold)
	wrote := make(chan error, 1)
	go func() {
		_, err := w.put(engine.Create, "late", bodyOf(`"late"`, 0), 0)
		wrote <- err
	}()
	<-reached // the write has read the collection's row: no index yet
	w.e.writeHold.Store(nil)
	built := make(chan error, 1)
	go func() { built <- h.e.CreateIndex(context.Background(), "/v") }()
	// The build waits for the write, which the server shows; if it did
	// not, it ends first, and the write's document has no item.
	waiting := false
	for !waiting {
		select {
		case err := <-built:
			built <- err
			waiting = true
		default:
			waiting = s.count(`SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock(hashtextextended(''ttldb items%'`) > 0
		}
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := <-built; err != nil {
		t.Fatal(err)
	}
	if n, d := s.itemsOf(1), s.docsCount(); n != d {
		t.Errorf("the index holds %d items for %d documents", n, d)
	}
	wantIndexAsComputed(t, h.snap([]string{"/v"}, false), "/v", rand.New(rand.NewPCG(3, 4)))
}

func TestCreateIndexWhileWritersWrite(t *testing.T) { // R13: writes between a build's batches are in the index
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	w := open(t, s, "sessions", nil) // another process
	fillItems(t, h, 3*buildBatch)
	vals := itemValues()
	batches := 0
	hook := func(done int) {
		batches++
		for i := range 40 { // spread over the hash order: before and after the batch done
			id := idOf((i*37 + batches) % (3 * buildBatch))
			k, _ := key(id)
			switch i % 4 {
			case 0:
				w.mustPut(engine.Upsert, id, bodyOf(vals[(i+batches)%len(vals)], i), 0)
			case 1:
				if _, err := w.e.Write(t.Context(), k, engine.Write{Op: engine.Delete}); err != nil && !errors.Is(err, engine.ErrNotFound) {
					t.Error(err)
				}
			case 2:
				w.mustPut(engine.Upsert, fmt.Sprint("new", batches, "-", i), bodyOf(vals[i%len(vals)], i), 0)
			case 3:
				if _, err := w.batch(put(engine.Upsert, id, bodyOf(`"b"`, i), 0), put(engine.Upsert, fmt.Sprint("bn", batches, "-", i), bodyOf(`2`, i), 0)); err != nil {
					t.Error(err)
				}
			}
		}
	}
	h.e.buildHook.Store(&hook)
	if err := h.e.CreateIndex(t.Context(), "/v"); err != nil {
		t.Fatal(err)
	}
	if batches < 3 {
		t.Fatalf("the build ran %d batches, want 3 at least", batches)
	}
	if n, d := s.itemsOf(1), s.docsCount(); n != d {
		t.Errorf("the index holds %d items for %d documents", n, d)
	}
	wantIndexAsComputed(t, h.snap([]string{"/v"}, false), "/v", rand.New(rand.NewPCG(5, 6)))
}

func TestCreateIndexTwiceDroppedOrStopped(t *testing.T) { // R13: one build of a path at a time; a drop or a done context ends it
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	other := open(t, s, "sessions", nil) // another process
	fillItems(t, h, 2*buildBatch)
	ctx := t.Context()

	// Another process's CreateIndex of the path is refused while the
	// build runs; its DropIndex ends the build.
	hook := func(int) {
		wantRefused(t, other.e.CreateIndex(ctx, "/v"), engine.ErrInvalidOption, "/v", "another process")
		if err := other.e.DropIndex(ctx, "/v"); err != nil {
			t.Error(err)
		}
	}
	h.e.buildHook.Store(&hook)
	wantRefused(t, h.e.CreateIndex(ctx, "/v"), engine.ErrInvalidOption, "/v", "dropped")
	h.e.buildHook.Store(nil)
	if n := s.itemsOf(1); n != 0 {
		t.Errorf("the dropped index left %d items", n)
	}

	// A build whose context ends is removed, its items too.
	stop, cancel := context.WithCancel(ctx)
	cancelHook := func(int) { cancel() }
	h.e.buildHook.Store(&cancelHook)
	if err := h.e.CreateIndex(stop, "/v"); !errors.Is(err, context.Canceled) {
		t.Fatalf("CreateIndex whose context was canceled during the build = %v, want context.Canceled", err)
	}
	h.e.buildHook.Store(nil)
	if n := s.count(`SELECT cardinality(ix_paths) FROM ` + s.ident() + `.ttldb_collections`); n != 0 {
		t.Errorf("the stopped build left %d indexes recorded", n)
	}
	if n := s.itemsOf(2); n != 0 {
		t.Errorf("the stopped build left %d items", n)
	}

	// A build whose process died (its lock gone) is taken over.
	s.exec(`UPDATE ` + s.ident() + `.ttldb_collections SET ix_paths = '{/v}', ix_ids = '{50}', ix_next = 50`)
	wantRefused(t, h.e.SetIndexing(ctx, engine.None), engine.ErrInvalidOption, "/v")
	if got := h.snap([]string{"/v"}, false).Indexes(); len(got) != 0 {
		t.Errorf("a snapshot reads the index being built: %q", got)
	}
	if err := other.e.CreateIndex(ctx, "/v"); err != nil {
		t.Fatalf("CreateIndex of a path whose build died: %v", err)
	}
	if got := other.e.Settings().Indexes; !slices.Equal(got, []string{"/v"}) {
		t.Errorf("Settings().Indexes = %q, want [/v]", got)
	}
	if n, d := s.itemsOf(50), s.docsCount(); n != d {
		t.Errorf("the index taken over holds %d items for %d documents", n, d)
	}
	wantRefused(t, h.e.CreateIndex(ctx, "/v"), engine.ErrInvalidOption, "exists already")
	wantIndexAsComputed(t, h.snap([]string{"/v"}, false), "/v", rand.New(rand.NewPCG(7, 8)))
}

func TestOpenUpgradesVersion1(t *testing.T) { // R13, R16: a schema of version 1 is upgraded on open, its indexes' items made
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{Indexes: []string{"/v", "/w/x"}})
	fillItems(t, h, 700)
	_ = h.e.Close()
	// What version 1 had: no items, no index numbers.
	q := s.ident()
	s.exec(`DROP TABLE ` + q + `.ttldb_items_1`)
	s.exec(`ALTER TABLE ` + q + `.ttldb_collections DROP COLUMN ix_paths, DROP COLUMN ix_ids, DROP COLUMN ix_next`)
	s.exec(`UPDATE ` + q + `.ttldb_schema SET version = 1`)

	u := open(t, s, "sessions", nil)
	if n := s.count(`SELECT version FROM ` + q + `.ttldb_schema`); n != SchemaVersion {
		t.Errorf("ttldb_schema holds version %d after the upgrade, want %d", n, SchemaVersion)
	}
	if n, d := s.itemsOf(2), s.docsCount(); n != d {
		t.Errorf("index /w/x holds %d items for %d documents after the upgrade", n, d)
	}
	u.mustPut(engine.Upsert, idOf(3), bodyOf(`"after"`, 3), 0)
	u.mustPut(engine.Create, "after", bodyOf(`"after"`, 4), 0)
	sn := u.snap([]string{"/v", "/w/x"}, false)
	rng := rand.New(rand.NewPCG(9, 10))
	wantIndexAsComputed(t, sn, "/v", rng)
	wantIndexAsComputed(t, sn, "/w/x", rng)
	if err := u.e.CreateIndex(t.Context(), "/n"); err != nil {
		t.Fatal(err)
	}
	if n := s.count(`SELECT ix_ids[3] FROM ` + q + `.ttldb_collections`); n != 3 {
		t.Errorf("the index made after the upgrade has the number %d, want 3", n)
	}
}

func TestCreateIndexStoppedWhileItWaits(t *testing.T) { // R16: a build whose context ends during a statement is removed
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	fillItems(t, h, 20)
	// A writer in progress, as the server sees it: the shared lock held.
	tx, err := s.admin.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(t.Context(), maintainLockSQL, h.e.schema, h.e.no); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	built := make(chan error, 1)
	go func() { built <- h.e.CreateIndex(ctx, "/v") }()
	// Polled from another connection: the admin's, in its transaction,
	// would read the statistics of its first look again and again.
	watch := s.pool()
	for waiting := false; !waiting; {
		select {
		case err := <-built:
			t.Fatalf("CreateIndex returned %v while a writer was in progress", err)
		default:
		}
		err := watch.QueryRow(t.Context(), `SELECT count(*) > 0 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock(hashtextextended(''ttldb items%'`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-built; !errors.Is(err, context.Canceled) {
		t.Fatalf("CreateIndex canceled while it waited = %v, want context.Canceled", err)
	}
	if n := s.count(`SELECT cardinality(ix_paths) FROM ` + s.ident() + `.ttldb_collections`); n != 0 {
		t.Errorf("the stopped build left %d indexes recorded", n)
	}
	_ = tx.Rollback(t.Context())
	if err := h.e.CreateIndex(t.Context(), "/v"); err != nil {
		t.Fatal(err)
	}
}
