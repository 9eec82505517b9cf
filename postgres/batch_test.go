package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ttldb/ttldb"
	"github.com/ttldb/ttldb/engine"
)

// put returns a step that stores body under id with ttl: Create, Replace
// or Upsert.
func put(op engine.Op, id, body string, ttl int32) engine.Step {
	return engine.Step{Key: mustKey(id), Write: engine.Write{Op: op, Doc: doc(id, body, ttl)}}
}

// on returns a step of op (Delete, Read) on id.
func on(op engine.Op, id string) engine.Step {
	return engine.Step{Key: mustKey(id), Write: engine.Write{Op: op}}
}

// ifMatch returns s conditioned on etag.
func ifMatch(s engine.Step, etag string) engine.Step {
	s.IfMatch, s.HasIfMatch = etag, true
	return s
}

// modify returns a Patch step of id whose Change returns body, or err.
func modify(id, body string, err error) engine.Step {
	return engine.Step{Key: mustKey(id), Write: engine.Write{Op: engine.Modify, Change: func(*engine.Doc, int64) (*engine.Doc, error) {
		if err != nil {
			return nil, err
		}
		return doc(id, body, 0), nil
	}}}
}

// batch runs the steps on h's engine.
func (h *handle) batch(steps ...engine.Step) ([]*engine.Doc, error) {
	return h.e.Batch(h.t.Context(), steps)
}

// state returns everything a batch may change, as text: the documents'
// rows, the feed, and the collection's last LSN.
func (s *server) state() string {
	s.t.Helper()
	var docs, feed string
	var lsn int64
	err := s.admin.QueryRow(s.t.Context(), `SELECT
		(SELECT coalesce(string_agg(format('%s %s %s %s %s %s', encode(key, 'hex'), body, ts, ttl, seq, lsn), '; ' ORDER BY key), '') FROM `+s.ident()+`.ttldb_docs_1),
		(SELECT coalesce(string_agg(format('%s %s %s %s %s', seq, lsn, op, body, expired), '; ' ORDER BY seq), '') FROM `+s.ident()+`.ttldb_feed_1),
		(SELECT lsn FROM `+s.ident()+`.ttldb_collections WHERE no = 1)`).Scan(&docs, &feed, &lsn)
	if err != nil {
		s.t.Fatal(err)
	}
	return fmt.Sprintf("docs: %s\nfeed: %s\nlsn: %d", docs, feed, lsn)
}

// feed returns the feed's records in LSN order, as "lsn op expired body".
func (s *server) feed() []string {
	s.t.Helper()
	rows, err := s.admin.Query(s.t.Context(), `SELECT lsn, op, expired, body FROM `+s.ident()+`.ttldb_feed_1 ORDER BY lsn`)
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var lsn *int64
		var op int64
		var expired bool
		var body string
		if err := rows.Scan(&lsn, &op, &expired, &body); err != nil {
			s.t.Fatal(err)
		}
		got = append(got, sprint(deref(lsn), engine.OpName(uint8(op)), expired, body))
	}
	if err := rows.Err(); err != nil {
		s.t.Fatal(err)
	}
	return got
}

func TestBatchTheServicesScenario(t *testing.T) { // R14, R3
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(86400)})
	h.mustPut(engine.Create, "c", `{"c":0}`, 0)
	h.clock.set(t0 + 1)
	docs, err := h.batch(
		put(engine.Create, "a", `{"a":1}`, 3),
		put(engine.Create, "b", `{"b":1}`, 0),
		put(engine.Replace, "c", `{"c":1}`, 3),
		put(engine.Upsert, "d", `{"d":1}`, -1),
	)
	if err != nil || len(docs) != 4 {
		t.Fatalf("Batch = %v, %v; want 4 documents", docs, err)
	}
	// One _ts, consecutive LSNs after the Create of c (1), each the etag
	// that Get reads.
	for i, d := range docs {
		if d.TS != t0+1 || h.lsn(d) != uint64(i+2) {
			t.Errorf("step %d: _ts %d, LSN %d; want %d, %d", i, d.TS, h.lsn(d), t0+1, i+2)
		}
		if got := h.live(d.ID(), d.Body()); got.Tag != d.Tag || got.TS != d.TS || got.TTL != d.TTL {
			t.Errorf("Get(%s) = etag %s, _ts %d, ttl %d; the batch returned %s, %d, %d", d.ID(), got.ETag(), got.TS, got.TTL, d.ETag(), d.TS, d.TTL)
		}
	}
	if got := h.e.LastLSN(); got != 5 {
		t.Errorf("LastLSN() = %d, want 5", got)
	}
	h.clock.set(t0 + 1 + 4)
	h.gone("a")
	h.gone("c")
	h.live("b", `{"b":1}`)
	h.live("d", `{"d":1}`)
}

func TestBatchRefusedAtAnyStepChangesNothing(t *testing.T) { // R14, R10
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	a := h.mustPut(engine.Create, "a", `{"a":1}`, 0)
	h.mustPut(engine.Create, "x", `{"x":1}`, 5)
	h.mustPut(engine.Create, "y", `{"y":1}`, 5)
	h.clock.set(t0 + 5) // x and y expired
	refusal := errors.New("the patch's test failed")
	fault := fmt.Errorf("%w: the step's id is empty", engine.ErrInvalidID)
	stale := "0123456789abcdef"
	// Writes that succeed, to put before each refused step.
	before := []engine.Step{
		put(engine.Create, "n", `{"n":1}`, 0),
		put(engine.Upsert, "a", `{"a":2}`, 0),
		put(engine.Upsert, "x", `{"x":2}`, 0), // over the expired x: a recorded delete
		on(engine.Delete, "n"),
		put(engine.Create, "n", `{"n":2}`, 0),
	}
	cases := []struct {
		what string
		step engine.Step
		is   error
		// current, for an *ETagMismatch: the Current it names ("fresh"
		// for the etag of a's version before the batch).
		current *string
	}{
		{"Create over a live document", put(engine.Create, "a", `{}`, 0), engine.ErrConflict, nil},
		{"Replace of no document", put(engine.Replace, "m", `{}`, 0), engine.ErrNotFound, nil},
		{"Replace of an expired document", put(engine.Replace, "y", `{}`, 0), engine.ErrNotFound, nil},
		{"Delete of no document", on(engine.Delete, "m"), engine.ErrNotFound, nil},
		{"Read of no document", on(engine.Read, "m"), engine.ErrNotFound, nil},
		{"Patch of no document", modify("m", `{}`, nil), engine.ErrNotFound, nil},
		{"Upsert with IfMatch of no document", ifMatch(put(engine.Upsert, "m", `{}`, 0), stale), engine.ErrNotFound, nil},
		{"a stale IfMatch", ifMatch(put(engine.Replace, "a", `{}`, 0), stale), engine.ErrPreconditionFailed, new(string)},
		{"a Change that fails", modify("a", ``, refusal), refusal, nil},
		{"a Fault", engine.Step{Key: mustKey("a"), Write: engine.Write{Op: engine.Upsert, Doc: doc("a", `{}`, 0)}, Fault: fault}, engine.ErrInvalidID, nil},
		{"a Touch", on(engine.Touch, "a"), engine.ErrInvalidOption, nil},
		{"a Create without its Doc", on(engine.Create, "a"), engine.ErrInvalidOption, nil},
		{"a Doc of another key", engine.Step{Key: mustKey("a"), Write: engine.Write{Op: engine.Upsert, Doc: doc("b", `{}`, 0)}}, engine.ErrInvalidOption, nil},
		{"a Change of another key", engine.Step{Key: mustKey("a"), Write: engine.Write{Op: engine.Modify, Change: func(*engine.Doc, int64) (*engine.Doc, error) { return doc("b", `{}`, 0), nil }}}, engine.ErrInvalidOption, nil},
		{"a Patch without its Change", on(engine.Modify, "a"), engine.ErrInvalidOption, nil},
	}
	for _, c := range cases {
		for k := 0; k <= len(before); k++ {
			steps := append(slices.Clone(before[:k]), c.step, put(engine.Create, "z", `{}`, 0))
			want := s.state()
			_, err := h.batch(steps...)
			var se *engine.StepError
			if !errors.As(err, &se) || se.Index != k || !errors.Is(err, c.is) {
				t.Errorf("%s at step %d: %v; want a *StepError at %d wrapping %v", c.what, k, err, k, c.is)
				continue
			}
			if c.current != nil {
				// a's etag before the batch, or none once it wrote a.
				cur := a.ETag()
				if k >= 2 {
					cur = ""
				}
				wantMismatch(t, c.what, err, cur)
			}
			if got := s.state(); got != want {
				t.Errorf("%s at step %d changed the collection:\nbefore %s\nafter  %s", c.what, k, want, got)
			}
		}
	}
	h.live("a", `{"a":1}`)
	h.gone("n")
	h.gone("x")
	// The first refusal wins: a Fault after a refused step is not the one
	// named; a Fault at step 0 is, before any round trip.
	_, err := h.batch(put(engine.Create, "a", `{}`, 0), engine.Step{Key: mustKey("b"), Fault: fault})
	if se := (*engine.StepError)(nil); !errors.As(err, &se) || se.Index != 0 || !errors.Is(err, engine.ErrConflict) {
		t.Errorf("a conflict, then a Fault: %v; want the conflict at step 0", err)
	}
	_, err = h.batch(engine.Step{Key: mustKey("b"), Fault: fault}, put(engine.Create, "a", `{}`, 0))
	if se := (*engine.StepError)(nil); !errors.As(err, &se) || se.Index != 0 || !errors.Is(err, engine.ErrInvalidID) {
		t.Errorf("a Fault, then a conflict: %v; want the Fault at step 0", err)
	}
}

func TestBatchIfMatchOnADocumentItWrote(t *testing.T) { // R14, R10
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	a := h.mustPut(engine.Create, "a", `{"a":1}`, 0)
	// The etag a has now matches before the batch writes it, and no etag
	// matches after.
	_, err := h.batch(ifMatch(put(engine.Replace, "a", `{"a":2}`, 0), a.ETag()), ifMatch(put(engine.Replace, "a", `{"a":3}`, 0), a.ETag()))
	if se := (*engine.StepError)(nil); !errors.As(err, &se) || se.Index != 1 {
		t.Fatalf("IfMatch on a document the batch wrote: %v; want a *StepError at 1", err)
	}
	wantMismatch(t, "IfMatch on a document the batch wrote", err, "")
	h.live("a", `{"a":1}`)
}

func TestBatchStepsSeeTheStepsBefore(t *testing.T) { // R14, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	b := h.mustPut(engine.Create, "b", `{"b":1}`, 0)
	h.clock.set(t0 + 3)
	var saw []string
	docs, err := h.batch(
		put(engine.Create, "a", `{"a":1}`, 0), // 0
		on(engine.Read, "a"),                  // 1
		engine.Step{Key: mustKey("a"), Write: engine.Write{Op: engine.Modify, Change: func(old *engine.Doc, now int64) (*engine.Doc, error) {
			saw = append(saw, sprint(old.Body(), now))
			return doc("a", `{"a":2}`, 7), nil
		}}}, // 2
		put(engine.Replace, "a", `{"a":3}`, 0), // 3
		on(engine.Delete, "a"),                 // 4
		put(engine.Create, "a", `{"a":4}`, 0),  // 5
		on(engine.Read, "b"),                   // 6
		on(engine.Delete, "b"),                 // 7
		put(engine.Upsert, "b", `{"b":2}`, 0),  // 8: a create
		on(engine.Read, "b"),                   // 9
	)
	if err != nil || len(docs) != 10 {
		t.Fatalf("Batch = %v, %v", docs, err)
	}
	if sprint(saw) != sprint([]string{sprint(`{"a":1}`, int64(t0+3))}) {
		t.Errorf("Change saw %q; want the document step 0 created, at now", saw)
	}
	if docs[1] != docs[0] || docs[9] != docs[8] || docs[4] != nil || docs[7] != nil {
		t.Errorf("a Read returned %p, %p; want the documents of steps 0 and 8, %p and %p; Deletes returned %v, %v", docs[1], docs[9], docs[0], docs[8], docs[4], docs[7])
	}
	if docs[6].Tag != b.Tag || docs[6].Body() != `{"b":1}` || docs[6].TS != t0 {
		t.Errorf("Read of b = %s, etag %s, _ts %d; want the version before the batch", docs[6].Body(), docs[6].ETag(), docs[6].TS)
	}
	// Writes: LSNs 2 to 8 in step order, one _ts.
	lsn := uint64(2)
	for _, i := range []int{0, 2, 3, 5, 8} {
		if i == 5 || i == 8 {
			lsn++ // after a delete
		}
		if d := docs[i]; d.TS != t0+3 || h.lsn(d) != lsn {
			t.Errorf("step %d: _ts %d, LSN %d; want %d, %d", i, d.TS, h.lsn(d), t0+3, lsn)
		}
		lsn++
	}
	if got := h.live("a", `{"a":4}`); got.Tag != docs[5].Tag {
		t.Errorf("Get(a) has etag %s; the batch returned %s", got.ETag(), docs[5].ETag())
	}
	if got := h.live("b", `{"b":2}`); got.Tag != docs[8].Tag {
		t.Errorf("Get(b) has etag %s; the batch returned %s", got.ETag(), docs[8].ETag())
	}
	want := []string{
		`1 create false {"b":1}`,
		`2 create false {"a":1}`,
		`3 replace false {"a":2}`,
		`4 replace false {"a":3}`,
		`5 delete false {"a":3}`,
		`6 create false {"a":4}`,
		`7 delete false {"b":1}`,
		`8 create false {"b":2}`,
	}
	if got := s.feed(); sprint(got) != sprint(want) {
		t.Errorf("feed =\n%q\nwant\n%q", got, want)
	}
	// The batch's records have the seqs of one block, which no other
	// write's can come between: each nextval reserves seqBlock.
	if n := s.count(`SELECT max(seq) - min(seq) + 1 - count(*) FROM ` + s.ident() + `.ttldb_feed_1 WHERE lsn >= 2`); n != 0 {
		t.Errorf("the batch's records' seqs have %d gaps", n)
	}
	if n := s.count(`SELECT increment_by FROM pg_sequences WHERE schemaname = $1 AND sequencename = 'ttldb_seq_1'`, s.schema); n != seqBlock {
		t.Errorf("the sequence steps by %d, want seqBlock, %d", n, seqBlock)
	}
}

func TestBatchOfReadsChangesNothing(t *testing.T) { // R14, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	a := h.mustPut(engine.Create, "a", `{"a":1}`, 0)
	b := h.mustPut(engine.Create, "b", `{"b":1}`, 0)
	want := s.state()
	h.clock.set(t0 + 9)
	docs, err := h.batch(on(engine.Read, "b"), on(engine.Read, "a"), on(engine.Read, "b"))
	if err != nil || len(docs) != 3 {
		t.Fatalf("Batch of reads = %v, %v", docs, err)
	}
	for i, w := range []*engine.Doc{b, a, b} {
		if d := docs[i]; d.Tag != w.Tag || d.TS != w.TS || d.Body() != w.Body() || d.Key() != w.Key() || d.Layout != w.Layout {
			t.Errorf("Read %d = %s, etag %s; want %s, %s", i, d.Body(), d.ETag(), w.Body(), w.ETag())
		}
	}
	if got := s.state(); got != want {
		t.Errorf("a batch of reads changed the collection:\nbefore %s\nafter  %s", want, got)
	}
	if got := h.e.LastLSN(); got != 2 {
		t.Errorf("LastLSN() = %d after a batch of reads, want 2", got)
	}
	if docs, err := h.e.Batch(t.Context(), nil); err != nil || len(docs) != 0 {
		t.Errorf("Batch of no steps = %v, %v; want nothing", docs, err)
	}
}

func TestBatchOverExpiredDocuments(t *testing.T) { // R14, R11, R4
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	h.mustPut(engine.Create, "a", `{"a":1}`, 0)
	h.mustPut(engine.Create, "b", `{"b":1}`, 0)
	h.clock.set(t0 + 10) // both expired
	if _, err := h.batch(on(engine.Delete, "a")); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Delete of an expired document in a batch: %v, want ErrNotFound", err)
	}
	docs, err := h.batch(
		put(engine.Upsert, "a", `{"a":2}`, 0),
		put(engine.Replace, "a", `{"a":3}`, 0),
		put(engine.Create, "b", `{"b":2}`, 0),
		on(engine.Delete, "b"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if h.lsn(docs[0]) != 4 || h.lsn(docs[1]) != 5 || docs[3] != nil {
		t.Errorf("LSNs %d, %d; want 4, 5 (3 is a's expired delete)", h.lsn(docs[0]), h.lsn(docs[1]))
	}
	want := []string{
		`1 create false {"a":1}`,
		`2 create false {"b":1}`,
		`3 delete true {"a":1}`,
		`4 create false {"a":2}`,
		`5 replace false {"a":3}`,
		`6 delete true {"b":1}`,
		`7 create false {"b":2}`,
		`8 delete false {"b":2}`,
	}
	if got := s.feed(); sprint(got) != sprint(want) {
		t.Errorf("feed =\n%q\nwant\n%q", got, want)
	}
	h.live("a", `{"a":3}`)
	h.gone("b")
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_docs_1`); n != 1 {
		t.Errorf("%d rows of documents, want a's alone", n)
	}
}

func TestBatchAfterAWriteNotSequenced(t *testing.T) { // R14, R11
	t.Parallel()
	s := newServer(t)
	dead, h := open(t, s, "sessions", nil), open(t, s, "sessions", nil)
	dead.e.skipPass.Store(true)
	if _, err := dead.put(engine.Create, "a", `{"a":1}`, 0); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	// A Read needs its etag: the batch runs a pass, then again.
	docs, err := h.batch(on(engine.Read, "a"), put(engine.Create, "b", `{}`, 0))
	if err != nil || h.lsn(docs[0]) != 1 || h.lsn(docs[1]) != 2 {
		t.Fatalf("Batch after a write not sequenced = LSNs %d, %d, %v; want 1, 2", h.lsn(docs[0]), h.lsn(docs[1]), err)
	}
	if _, err := dead.batch(put(engine.Replace, "a", `{"a":2}`, 0)); !errors.Is(err, errSkipped) {
		t.Fatal(err)
	}
	d := h.live("a", `{"a":2}`)
	if h.lsn(d) != 3 {
		t.Errorf("the batch that skipped its pass: LSN %d, want 3", h.lsn(d))
	}
}

func TestBatchRefusesWhatMustNotStart(t *testing.T) { // R14, R15, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(10)})
	one := []engine.Step{put(engine.Create, "a", `{}`, 0)}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := h.e.Batch(done, one); !errors.Is(err, context.Canceled) {
		t.Errorf("Batch with a done context: %v", err)
	}
	//lint:ignore SA1012 the nil context is the point
	if _, err := h.e.Batch(nil, one); !errors.Is(err, engine.ErrInvalidOption) {
		t.Errorf("Batch with a nil context: %v", err)
	}
	many := make([]engine.Step, MaxBatchSteps+1)
	for i := range many {
		many[i] = put(engine.Create, fmt.Sprint("k", i), `{}`, 0)
	}
	if _, err := h.batch(many...); !errors.Is(err, engine.ErrInvalidBatch) {
		t.Errorf("Batch of %d steps: %v, want ErrInvalidBatch", len(many), err)
	}
	// The most steps, then as many over the expired documents: two
	// records each, a whole block of seqs; then a write after them.
	if _, err := h.batch(many[:MaxBatchSteps]...); err != nil {
		t.Fatalf("Batch of %d steps: %v", MaxBatchSteps, err)
	}
	h.clock.set(t0 + 10)
	for i := range MaxBatchSteps {
		many[i] = put(engine.Upsert, fmt.Sprint("k", i), `{"v":2}`, 0)
	}
	docs, err := h.batch(many[:MaxBatchSteps]...)
	if err != nil {
		t.Fatalf("Batch of %d steps over expired documents: %v", MaxBatchSteps, err)
	}
	for i, d := range docs {
		if h.lsn(d) != uint64(MaxBatchSteps+2+2*i) {
			t.Fatalf("step %d over an expired document: LSN %d, want %d", i, h.lsn(d), MaxBatchSteps+2+2*i)
		}
	}
	if d := h.mustPut(engine.Create, "after", `{}`, 0); h.lsn(d) != 3*MaxBatchSteps+1 {
		t.Errorf("a write after the batches: LSN %d, want %d", h.lsn(d), 3*MaxBatchSteps+1)
	}
	if n := s.count(`SELECT count(*) FROM ` + s.ident() + `.ttldb_feed_1 WHERE expired`); n != MaxBatchSteps {
		t.Errorf("%d deletes of expired documents, want %d", n, MaxBatchSteps)
	}
	_ = h.e.Close()
	if _, err := h.batch(on(engine.Read, "k0")); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Batch after Close: %v", err)
	}
}

func TestBatchStartsAgainWhenAWriteMakesItsRow(t *testing.T) { // R14, R11
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", nil)
	ctx := t.Context()
	// Another write inserts a's row, and has not committed.
	tx, err := s.admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	k, at := key("a")
	var seq int64
	err = tx.QueryRow(ctx, h.e.sql(insertSQL), k, int32(at.PK), int32(at.IDAt), int32(at.IDEnd), `{"v":"other"}`, int64(t0), int32(0), int16(engine.OpCreate)).Scan(&seq, nil)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		docs []*engine.Doc
		err  error
	}
	out := make(chan result, 1)
	go func() {
		docs, err := h.batch(put(engine.Upsert, "a", `{"v":"batch"}`, 0), put(engine.Create, "b", `{}`, 0))
		out <- result{docs, err}
	}()
	// The batch found no row, and waits for the other's insert.
	watch, err := pgx.Connect(ctx, s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = watch.Close(ctx) }()
	for {
		var n int64
		err := watch.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%ttldb_docs_1%'`, s.schema).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		runtime.Gosched()
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-out
	if r.err != nil {
		t.Fatalf("a batch whose row another write made meanwhile: %v", r.err)
	}
	// It started again, and found the other's version live: a replace.
	want := []string{`1 create false {"v":"other"}`, `2 replace false {"v":"batch"}`, `3 create false {}`}
	if got := s.feed(); sprint(got) != sprint(want) {
		t.Errorf("feed =\n%q\nwant\n%q", got, want)
	}
	if d := h.live("a", `{"v":"batch"}`); d.Tag != r.docs[0].Tag || h.lsn(d) != 2 {
		t.Errorf("Get(a) has LSN %d, the batch returned %d; want 2", h.lsn(d), h.lsn(r.docs[0]))
	}
}

// TestBatchDeletesInTheFeed: the deletes a batch records name the versions
// they deleted, as a single write's do: a version stored before the batch,
// one the batch itself wrote (the record before it), and the expired one
// a create over it deletes first; each delete at the batch's second
// (R11, R14).
func TestBatchDeletesInTheFeed(t *testing.T) { // R11, R14
	t.Parallel()
	s := newServer(t)
	h := open(t, s, "sessions", &ttldb.Options{DefaultTTL: ttldb.TTLNoDefault()})
	x := h.mustPut(engine.Create, "x", `{"x":1}`, 0)  // LSN 1
	z := h.mustPut(engine.Create, "z", `{"z":1}`, 10) // LSN 2, expires at t0+10
	h.clock.set(t0 + 20)
	if _, err := h.batch(on(engine.Delete, "x"), put(engine.Create, "y", `{"y":1}`, 0), on(engine.Delete, "y"), put(engine.Create, "z", `{"z":2}`, 0)); err != nil {
		t.Fatal(err)
	}
	all := h.readAll(engine.FeedRead{Limit: 3})
	h.wantChanges("the all-versions feed", all,
		`1 create x {"x":1}`, `2 create z {"z":1}`,
		`3 delete x {"x":1}`, `4 create y {"y":1}`, `5 delete y {"y":1}`, `6 delete z {"z":1} !`, `7 create z {"z":2}`)
	for _, c := range []struct {
		i   int
		lsn uint64
		ts  int64
	}{{2, h.lsn(x), x.TS}, {4, 4, t0 + 20}, {5, h.lsn(z), z.TS}} {
		if got := all[c.i]; h.lsn(got.Doc) != c.lsn || got.Doc.TS != c.ts || got.TS != t0+20 {
			t.Errorf("change %d deletes the version of LSN %d and _ts %d, at %d; want LSN %d, _ts %d, at %d", got.LSN, h.lsn(got.Doc), got.Doc.TS, got.TS, c.lsn, c.ts, t0+20)
		}
	}
}
