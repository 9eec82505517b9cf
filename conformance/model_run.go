package conformance

// Running the model: how many sequences, each sequence's setup and run,
// its failure report, and the suite's check that runs them all.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// How many sequences the model check runs, each of 100 to 200 steps: fewer under
// the race detector, which makes them about eight times slower, and fewer
// in the quick form that a plain `go test ./...` runs than in the long form
// that CI runs (Long). On a 2-core machine shared with other
// work the long defaults take 10 to 14 s, and 9 to 22 s with -race, about a
// third of it for the change feed's checks (model_feed.go); the quick
// ones about a tenth of that. On a loaded machine the test stops starting
// sequences after its time budget, so that it stays under a minute (a
// quarter of that in the quick form).
// TTLDB_MODEL_SEQUENCES and TTLDB_MODEL_STEPS override the defaults (and
// lift the budget).
const (
	modelDefaultSequences     = 4000
	modelDefaultSequencesRace = 600
	modelTimeBudget           = 40 * time.Second
	modelQuickDivisor         = 10
)

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}

// ---------------------------------------------------------------------------
// Running sequences.

// newModelHarness sets up a sequence: its partition-key path (/pk, /t/pk,
// or, one sequence in four, /id, where every document's partition key is
// its id), its partitions, its collection's options, and the model.
func newModelHarness(t testing.TB, eng Harness, seed uint64) (*modelHarness, error) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	h := &modelHarness{t: t, eng: eng, seed: seed, r: r, etags: map[mKey][]string{}, byKey: seed%2 == 1}
	h.feed.init(seed)
	h.wall.Store((1_700_000_000+r.Int64N(1_000_000))*int64(time.Second) + r.Int64N(int64(time.Second)))
	others := slices.Clone(modelPartitions)
	r.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	h.parts = []modelPart{modelNone, others[0], others[1]}
	if r.IntN(4) == 0 { // more kinds side by side, for the listing order
		h.parts = append(h.parts, others[2], others[3])
	}
	h.background = r.IntN(8) == 0
	h.ids = modelIDs
	switch r.IntN(4) {
	case 0: // every document's partition key is its id
		h.idPath, h.path = true, "/id"
		h.ids = slices.Clone(modelIDs)
		for _, x := range modelIDPathIDs {
			if r.IntN(2) == 0 {
				h.ids = append(h.ids, x)
			}
		}
		if r.IntN(3) == 0 { // the longest id (R10), as a partition key too
			long := strings.Repeat("L", ttldb.MaxIDLength)
			h.ids = append(h.ids, modelID{long, []string{strconv.Quote(long)}})
		}
		h.parts = nil
		for _, x := range h.ids {
			h.parts = append(h.parts, modelPart{pk: idKey(x.id).pk})
		}
	case 1:
		h.nested, h.path = true, "/t/pk"
	default:
		h.path = "/pk"
	}
	path := h.path

	// Bad options first, sometimes: each must be refused (R1, R8).
	if r.IntN(4) == 0 {
		bad := []struct {
			name, path string
			opts       ttldb.Options
			class      string
		}{
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLSeconds(0)}, classInvalidTTL},
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLSeconds(ttldb.MaxTTL + 1)}, classInvalidTTL},
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLSeconds(5), Indexing: ttldb.IndexingNone}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{DefaultTTL: ttldb.TTLNoDefault(), Indexing: ttldb.IndexingNone}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{Indexing: ttldb.IndexingMode(7)}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{SweepBatch: -1}, classInvalidOpt},
			{"", "/pk", ttldb.Options{}, classInvalidOpt},
			{"m", "pk", ttldb.Options{}, classInvalidOpt},
			{"m", "id", ttldb.Options{}, classInvalidOpt},
			{"m", "/pk", ttldb.Options{Indexes: []string{"/v", "v"}}, classInvalidOpt},                          // R13
			{"m", "/pk", ttldb.Options{Indexes: []string{"/v", "/v"}}, classInvalidOpt},                         // R13
			{"m", "/pk", ttldb.Options{Indexes: []string{"/v"}, Indexing: ttldb.IndexingNone}, classInvalidOpt}, // R8
		}
		b := pick(r, bad)
		b.opts.ManualSweep, b.opts.Now = true, h.wallNow
		c, err := eng.Open(t, b.name, b.path, &b.opts)
		if c != nil {
			c.Close()
		}
		if got, _ := errClass(err); got != b.class {
			return nil, fmt.Errorf("NewCollection(%q, %q, %+v): %v, want %s", b.name, b.path, b.opts, err, b.class)
		}
	}

	var def ttldb.DefaultTTL
	var md mDefault
	switch r.IntN(4) {
	case 1:
		def, md = ttldb.TTLNoDefault(), mDefault{true, -1}
	case 2, 3:
		s := 1 + r.Int64N(10)
		def, md = ttldb.TTLSeconds(s), mDefault{true, s}
	}
	mode := ttldb.IndexingConsistent
	if !md.on && r.IntN(3) == 0 {
		mode = ttldb.IndexingNone
	}
	h.opts = ttldb.Options{
		DefaultTTL: def, Indexing: mode, Now: h.wallNow,
		ManualSweep: !h.background, SweepBatch: r.IntN(4),
	}
	if mode != ttldb.IndexingNone { // R13
		h.opts.Indexes = h.drawIndexes()
	}
	if eng.Reopen != nil && r.IntN(3) == 0 { // reopened and compacted (R12)
		h.durable, h.opts.Sync = true, ttldb.SyncPolicy(r.IntN(3))
	}
	c, err := eng.Open(t, "model", path, &h.opts)
	if err != nil {
		return nil, err
	}
	if c.Name() != "model" || c.PartitionKeyPath() != path {
		return nil, fmt.Errorf("NewCollection: Name %q, PartitionKeyPath %q", c.Name(), c.PartitionKeyPath())
	}
	h.c = c
	h.m = newModel(md, mode == ttldb.IndexingNone, h.wallSec())
	h.m.indexes = slices.Clone(h.opts.Indexes)
	parts := make([]string, len(h.parts))
	for i, p := range h.parts {
		parts[i] = fmt.Sprintf("%.30s", pkName(p.pk))
	}
	// The collection's "now" is what it has seen of the clock (R4). Let it
	// see the clock at once, as the model does; a forward step nobody
	// observes before the clock steps back is unknowable, and every step
	// below is observed by checkInvariants.
	if err := h.checkInvariants(); err != nil {
		return nil, err
	}
	h.log = append(h.log, fmt.Sprintf("   0 NewCollection path=%s DefaultTTL=%v indexing=%v indexes=%q background sweeper=%v partitions=%v wall=%v durable=%v sync=%v",
		path, def, mode, h.opts.Indexes, h.background, parts, h.wallNow().UTC().Format(time.RFC3339Nano), h.durable, h.opts.Sync))
	return h, nil
}

// runModelSequence runs one sequence of steps and returns its collection's
// partition-key path and the report of the first disagreement, or nil.
func runModelSequence(t testing.TB, eng Harness, seed uint64, steps int) (path string, err error) {
	h, err := newModelHarness(t, eng, seed)
	if err != nil {
		return "", fmt.Errorf("seed %d: set-up: %v", seed, err)
	}
	path = h.path
	defer func() {
		h.c.Close() // the last collection: Reopen replaces it; the harness removes what it kept
	}()
	defer func() {
		for _, ol := range h.open {
			ol.stop()
		}
	}()
	total := 0
	for _, op := range modelOps {
		total += op.weight
	}
	closeAt := -1
	if h.r.IntN(10) == 0 { // close near the end; every call must then fail with ErrClosed
		closeAt = steps*3/4 + h.r.IntN(steps/4+1)
	}
	feedFullAt := 1 + h.feed.r.IntN(steps)
	step := 0
	stall := h.watchdog()
	defer stall.Stop()
	defer func() {
		if p := recover(); p != nil {
			err = h.report(step, fmt.Errorf("panic: %v", p))
		}
	}()
	for step = 1; step <= steps; step++ {
		var s modelStep
		if step == closeAt || step == feedFullAt {
			// R11: the change feed read from everywhere, also in the middle
			// of the sequence, and before Close ends the reads.
			if err := h.checkFeedFull(); err != nil {
				return path, h.report(step-1, err)
			}
		}
		if step == closeAt {
			s = modelStep{"Close", func() (string, error) {
				h.m.closed = true
				if err := h.c.Close(); err != nil {
					return "", fmt.Errorf("Close: %v", err)
				}
				return "ok", h.c.Close() // idempotent
			}}
		} else {
			n := h.r.IntN(total)
			for _, op := range modelOps {
				if n -= op.weight; n < 0 {
					s = op.gen(h)
					break
				}
			}
		}
		h.m.observe(h.wallSec())
		h.running.Store(&runningStep{step, s.desc})
		stall.Reset(modelStall)
		res, err := s.run()
		h.log = append(h.log, fmt.Sprintf("%4d %.200s -> %s", step, s.desc, res))
		if err == nil {
			err = h.checkInvariants()
		}
		if err != nil {
			return path, h.report(step, err)
		}
	}
	if err := h.checkFeedFull(); err != nil { // R11, at the end of the sequence
		return path, h.report(steps, err)
	}
	return path, nil
}

// modelStall is how long a step may run before the watchdog names it.
const modelStall = 2 * time.Minute

// runningStep is the step a sequence runs, for its watchdog.
type runningStep struct {
	n    int
	desc string
}

// watchdog returns a stopped timer that, when it fires, writes the seed
// and the step running to the standard error: a call that never returns
// (an engine waiting on itself) would otherwise end in the test binary's
// timeout, whose dump names no seed to replay.
func (h *modelHarness) watchdog() *time.Timer {
	tm := time.AfterFunc(time.Hour, func() {
		if r := h.running.Load(); r != nil {
			fmt.Fprintf(os.Stderr, "conformance model: seed %d (rerun with TTLDB_MODEL_SEED=%d) has run step %d for %v, and goes on: %.300s\n",
				h.seed, h.seed, r.n, modelStall, r.desc)
		}
	})
	tm.Stop()
	return tm
}

// report describes a failure: the seed, the step, the disagreement and the
// last 20 steps. A seed replays the same operations, and, with ManualSweep,
// the same results; with the background sweeper, when it deletes is up to
// the runtime's timers, which only a library bug can make visible.
func (h *modelHarness) report(step int, err error) error {
	from := max(0, len(h.log)-20)
	sweeper := "ManualSweep"
	if h.background {
		sweeper = "background sweeper, whose timing does not replay"
	}
	return fmt.Errorf("seed %d (rerun with TTLDB_MODEL_SEED=%d; path %s; %s), step %d: %v\nlast steps (model now=%d, DefaultTTL=%v):\n%s",
		h.seed, h.seed, h.path, sweeper, step, err, h.m.now, h.m.def, strings.Join(h.log[from:], "\n"))
}

func envInt(t *testing.T, name string, def uint64) uint64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}

// checkModel runs random sequences of every operation against collections
// of the engine and the reference model, and compares them after every step
// (R1-R10). Listings are also opened in one step and finished steps later,
// to check that they read the collection as it was when they started. The
// change feed (R11) is read after every step, and from everywhere at the end
// of the sequence (model_feed.go). Patches and transactional batches (R14)
// are among the operations (model_patch.go), and so are queries in Cosmos
// SQL and secondary indexes (R13, model_query.go); with Harness.Reopen,
// reopening and compacting are too (R12). Each sequence is a subtest named
// by its seed, so that what its collection kept goes when it ends.
func checkModel(t *testing.T, eng Harness) {
	def := uint64(modelDefaultSequences)
	if raceEnabled() {
		def = modelDefaultSequencesRace
	}
	budget := modelTimeBudget
	if !Long() {
		def /= modelQuickDivisor
		budget /= 8
	}
	sequences := envInt(t, "TTLDB_MODEL_SEQUENCES", def)
	deadline := time.Now().Add(budget)
	if os.Getenv("TTLDB_MODEL_SEQUENCES") != "" || os.Getenv("TTLDB_MODEL_SEED") != "" {
		deadline = time.Time{} // what was asked for, all of it
	}
	if d, ok := t.Deadline(); ok && (deadline.IsZero() || d.Add(-10*time.Second).Before(deadline)) {
		deadline = d.Add(-10 * time.Second)
	}
	fixedSteps := int(envInt(t, "TTLDB_MODEL_STEPS", 0))
	var seeds []uint64
	if os.Getenv("TTLDB_MODEL_SEED") != "" {
		seeds = []uint64{envInt(t, "TTLDB_MODEL_SEED", 0)}
	} else {
		for range sequences {
			seeds = append(seeds, rand.Uint64())
		}
	}
	steps := func(seed uint64) int {
		if fixedSteps > 0 {
			return fixedSteps
		}
		return 100 + int(seed%101)
	}

	// The sequences are independent: run them on every CPU, and stop at
	// the first failure.
	var (
		wg     sync.WaitGroup
		next   atomic.Int64
		ran    atomic.Int64
		ranID  atomic.Int64 // of which with the partition-key path /id
		failed atomic.Bool
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(seeds) || (i > 0 && !deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				ran.Add(1)
				seed := seeds[i]
				t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
					path, err := runModelSequence(t, eng, seed, steps(seed))
					if path == "/id" {
						ranID.Add(1)
					}
					if err != nil {
						failed.Store(true)
						t.Error(err)
					}
				})
			}
		})
	}
	wg.Wait()
	if !failed.Load() {
		t.Logf("%d of %d sequences passed, %d of them with the partition-key path /id", ran.Load(), len(seeds), ranID.Load())
		if int(ran.Load()) < len(seeds) {
			t.Logf("stopped at the time budget; set TTLDB_MODEL_SEQUENCES to run them all")
		}
	}
}

// bg is the context of the model's calls (R16 is not what it tests).
var bg = context.Background()
