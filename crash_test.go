package ttldb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
	"github.com/ttldb/ttldb/internal/vfs"
)

// crashRun is one randomized sequence of the crash harness: a durable
// collection and a twin in memory with the same etag base, on one clock,
// take the same operations until the filesystem dies, at a random event
// or after the last operation. What reopens must be a state the twin went
// through (a prefix of the acknowledged history), holding every
// acknowledged change that must have survived: all of them after a
// killed process, under every policy, and after a power failure under
// SyncAlways; and its all-versions feed must be the twin's, change for
// change.
type crashRun struct {
	t      *testing.T
	r      *rand.Rand
	mem    *vfs.Mem
	fs     *vfs.Fault
	clk    *fakeClock
	policy SyncPolicy
	c, tw  *Collection
	states []string // the twin's states, from the first
	acked  int      // the index of the state after the last acknowledged change
	log    []string
}

func runCrash(t *testing.T, seed uint64, ops int) {
	r := rand.New(rand.NewPCG(seed, 7))
	h := &crashRun{t: t, r: r, mem: &vfs.Mem{}, clk: &fakeClock{t: time.Unix(1_000_000, 0)}, policy: SyncPolicy(r.IntN(3))}
	h.fs = &vfs.Fault{Mem: h.mem, Kill: r.IntN(3) == 0, N: 1 + r.IntN(6*ops)}
	holes := r.IntN(2) == 0
	h.fs.Tear = func(_ string, unsynced []byte) []byte {
		kept := unsynced[:r.IntN(len(unsynced)+1)]
		for holes && len(kept) > 0 && r.IntN(3) > 0 { // pages lost out of order
			at := r.IntN(len(kept))
			clear(kept[at:min(len(kept), at+1+r.IntN(200))])
		}
		return kept
	}
	require.NoError(t, h.mem.MkdirAll("db"))
	def := []DefaultTTL{TTLOff(), TTLNoDefault(), TTLSeconds(5)}[r.IntN(3)]
	o := Options{DefaultTTL: def, Sync: h.policy, Feed: FeedOptions{MaxRecords: int64(8 + r.IntN(100))}, compactAt: 1 + int64(r.IntN(4096))}
	var err error
	h.c, err = openDurable(t, h.fs, "db", h.clk, o)
	if err != nil {
		// The crash came while the directory was being made: nothing was
		// acknowledged, and the directory opens, new or empty.
		require.True(t, h.dead(), "open: %v", err)
		h.reopen(true)
		require.Contains(t, durableState(h.c), "seq=0\n")
		h.c.Close()
		return
	}
	h.tw, err = NewCollection("test", "/pk", &Options{DefaultTTL: def, Now: h.clk.Now, ManualSweep: true, Feed: o.Feed})
	require.NoError(t, err)
	defer h.tw.Close()
	h.tw.etagBase, h.tw.tokenID = h.c.etagBase, h.c.tokenID        // the twin is the same collection: its API
	require.NoError(t, h.tw.fast.Adopt(h.c.tokenID, h.c.etagBase)) // and its engine
	h.states = []string{durableState(h.tw)}
	for i := 0; i < ops && !h.dead(); i++ {
		h.step()
	}
	h.fs.Crash()
	h.c.Close() // fails, or not: the machine is down
	h.reopen(false)
	defer h.c.Close()
	got := durableState(h.c)
	for i := len(h.states) - 1; i >= 0; i-- {
		if h.states[i] != got {
			continue
		}
		mustKeep := h.acked
		if !h.fs.Kill && h.policy != SyncAlways {
			mustKeep = 0 // a power failure loses what was not synced yet
		}
		require.GreaterOrEqual(t, i, mustKeep, "seed %d: an acknowledged change was lost\n%s", seed, strings.Join(h.log, "\n"))
		h.sameFeed(seed)
		return
	}
	t.Fatalf("seed %d (policy %v, kill %v): the reopened collection is no state of the history\n%s\ngot:\n%s\nlast:\n%s",
		seed, h.policy, h.fs.Kill, strings.Join(h.log, "\n"), got, h.states[len(h.states)-1])
}

func (h *crashRun) dead() bool { return h.fs.Dead() }

// reopen opens the directory after the crash, on the Mem itself.
func (h *crashRun) reopen(fresh bool) {
	c, err := openDurable(h.t, h.mem, "db", h.clk, Options{Sync: h.policy, keepSettings: true})
	require.NoError(h.t, err, "the directory opens after a crash: %s", strings.Join(h.log, "\n"))
	if !fresh {
		if rec := c.Recovery(); rec.Truncated != "" {
			h.log = append(h.log, fmt.Sprintf("recovery cut %d bytes off %s: %s", rec.Dropped, rec.Truncated, rec.Reason))
		}
	}
	h.c = c
}

// step runs one operation on both collections. An error of the durable
// one that the twin does not share must be the crash.
func (h *crashRun) step() {
	r := h.r
	id := fmt.Sprint(r.IntN(12))
	pk := StringKey("p")
	doc := h.doc(id)
	var desc string
	var do func(c *Collection) error
	expect := 0 // for a batch: 1 when the twin must take it, -1 when it must refuse it
	switch n := r.IntN(25); {
	case n < 5:
		desc, do = "Create "+doc, func(c *Collection) error { _, err := c.Create(bg, []byte(doc)); return err }
	case n < 8:
		desc, do = "Upsert "+doc, func(c *Collection) error { _, err := c.Upsert(bg, []byte(doc)); return err }
	case n < 10:
		desc, do = "Replace "+doc, func(c *Collection) error { _, err := c.Replace(bg, []byte(doc)); return err }
	case n < 12:
		desc, do = "Delete "+id, func(c *Collection) error { return c.Delete(bg, pk, id) }
	case n < 13:
		desc, do = "Touch "+id, func(c *Collection) error { _, err := c.Touch(bg, pk, id); return err }
	case n < 14:
		d := []DefaultTTL{TTLOff(), TTLNoDefault(), TTLSeconds(2), TTLSeconds(7)}[r.IntN(4)]
		desc, do = fmt.Sprint("SetDefaultTTL ", d), func(c *Collection) error { return c.SetDefaultTTL(bg, d) }
	case n < 16:
		desc, do = "Sweep", func(c *Collection) error { _, err := c.Sweep(bg); return err }
	case n < 18:
		s := time.Duration(1+r.IntN(4)) * time.Second
		h.clk.Advance(s)
		h.log = append(h.log, fmt.Sprint("clock +", s))
		return
	case n < 19:
		h.log = append(h.log, "Compact")
		if err := h.c.Compact(context.Background()); err != nil {
			require.True(h.t, h.dead(), "Compact: %v", err)
		}
		return
	case n < 21: // R14
		ops, what := h.patchOps(false)
		var opts []WriteOption
		if d, err := h.tw.Get(bg, pk, id); err == nil && r.IntN(3) == 0 {
			opts = append(opts, IfMatch(d.ETag()))
			what += " if-match"
		}
		desc, do = "Patch "+id+" "+what, func(c *Collection) error { _, err := c.Patch(bg, pk, id, ops, opts...); return err }
	case n < 24: // R14
		var b *Batch
		b, desc, expect = h.batch()
		do = func(c *Collection) error { _, err := c.ExecuteBatch(bg, b); return err }
	default:
		h.log = append(h.log, "Close and reopen")
		if err := h.c.Close(); err != nil {
			require.True(h.t, h.dead(), "Close: %v", err)
			return
		}
		c, err := openDurable(h.t, h.fs, "db", h.clk, Options{Sync: h.policy, keepSettings: true})
		if err != nil {
			require.True(h.t, h.dead(), "reopen: %v", err)
			h.c, _ = openDurable(h.t, h.mem, "db", h.clk, Options{Sync: h.policy, keepSettings: true}) // for the Close at the end
			return
		}
		h.c = c
		require.Equal(h.t, h.states[len(h.states)-1], durableState(c), "a clean reopen has every change\n%s", strings.Join(h.log, "\n"))
		return
	}
	want := do(h.tw)
	switch expect { // the harness's own check: its batches do what it meant
	case 1:
		require.NoError(h.t, want, "the twin takes %s", desc)
	case -1:
		var be *BatchError
		require.ErrorAs(h.t, want, &be, "the twin refuses %s", desc)
	}
	got := do(h.c)
	h.log = append(h.log, fmt.Sprintf("%s: %v", desc, got))
	// One state per call, a batch's included: a reopened collection that
	// holds a part of a batch is no state of the history (R12, R14).
	h.states = append(h.states, durableState(h.tw))
	if h.dead() {
		return // the change may or may not have been acknowledged
	}
	require.Equal(h.t, want == nil, got == nil, "%s: twin %v, durable %v", desc, want, got)
	if want != nil {
		h.states = h.states[:len(h.states)-1] // refused: no change
		return
	}
	h.acked = len(h.states) - 1
}

// doc returns a document of id in partition "p", with a random v and,
// one time in three, a ttl.
func (h *crashRun) doc(id string) string {
	r := h.r
	doc := fmt.Sprintf(`{"id":%q,"pk":"p","v":%d`, id, r.IntN(1000))
	if r.IntN(3) == 0 {
		doc += fmt.Sprintf(`,"ttl":%d`, []int{-1, 1, 3, 10}[r.IntN(4)])
	}
	return doc + "}"
}

// patchOps returns one to three patch operations (R14) and their
// description. With apply set they apply to any document of the harness;
// otherwise they may remove a /status or a /ttl that is not there, which
// fails the patch.
func (h *crashRun) patchOps(apply bool) ([]PatchOp, string) {
	r := h.r
	var ops []PatchOp
	var desc []string
	for range 1 + r.IntN(3) {
		n := r.IntN(7)
		if apply {
			n = r.IntN(5)
		}
		switch n {
		case 0, 1:
			s := fmt.Sprint("s", r.IntN(100))
			ops, desc = append(ops, PatchSet("/status", s)), append(desc, "set /status "+s)
		case 2:
			by := int64(r.IntN(7) - 3)
			path := []string{"/count", "/v"}[r.IntN(2)]
			ops, desc = append(ops, PatchIncrement(path, by)), append(desc, fmt.Sprint("incr ", path, " ", by))
		case 3:
			ttl := []int{-1, 1, 3, 10}[r.IntN(4)]
			ops, desc = append(ops, PatchSet("/ttl", ttl)), append(desc, fmt.Sprint("set /ttl ", ttl))
		case 4:
			ops, desc = append(ops, PatchReplace("/v", r.IntN(1000))), append(desc, "replace /v")
		case 5:
			ops, desc = append(ops, PatchRemove("/status")), append(desc, "remove /status")
		default:
			ops, desc = append(ops, PatchRemove("/ttl")), append(desc, "remove /ttl")
		}
	}
	return ops, "[" + strings.Join(desc, ", ") + "]"
}

// batch makes a transactional batch (R14) of one to ten operations on
// partition "p": creates, replaces, upserts, patches, deletes and reads,
// some conditioned on an etag, chosen by what the twin holds so that the
// batch succeeds; or, one time in four, with one operation that fails on
// purpose, so that the batch must change nothing. expect says which: 1 or
// -1.
func (h *crashRun) batch() (b *Batch, desc string, expect int) {
	r := h.r
	pk := StringKey("p")
	live := map[string]string{} // id: the etag of the live document, "" once the batch wrote it
	for i := range 12 {
		id := fmt.Sprint(i)
		if d, err := h.tw.Get(bg, pk, id); err == nil {
			live[id] = d.ETag()
		}
	}
	n := 1 + r.IntN(10)
	bad, expect := -1, 1
	if r.IntN(4) == 0 {
		bad, expect = r.IntN(n), -1
	}
	b = NewBatch(pk)
	var ops []string
	for i := range n {
		id := fmt.Sprint(r.IntN(12))
		etag, ok := live[id]
		var opts []WriteOption
		cond := ""
		if etag != "" && r.IntN(3) == 0 {
			opts, cond = []WriteOption{IfMatch(etag)}, " if-match"
		}
		if i == bad {
			ops = append(ops, "FAILS "+h.badOp(b, id, ok))
			continue
		}
		switch k := r.IntN(5); {
		case !ok && k < 3:
			doc := h.doc(id)
			b.Create([]byte(doc))
			ops = append(ops, "create "+doc)
		case !ok:
			doc := h.doc(id)
			b.Upsert([]byte(doc))
			ops = append(ops, "upsert "+doc)
		case k == 0:
			doc := h.doc(id)
			b.Replace([]byte(doc), opts...)
			ops = append(ops, "replace "+doc+cond)
		case k == 1:
			doc := h.doc(id)
			b.Upsert([]byte(doc), opts...)
			ops = append(ops, "upsert "+doc+cond)
		case k == 2:
			p, what := h.patchOps(true)
			b.Patch(id, p, opts...)
			ops = append(ops, "patch "+id+" "+what+cond)
		case k == 3:
			b.Delete(id, opts...)
			ops = append(ops, "delete "+id+cond)
			delete(live, id)
			continue
		default:
			b.Read(id)
			ops = append(ops, "read "+id)
			continue
		}
		live[id] = ""
	}
	return b, "Batch [" + strings.Join(ops, "; ") + "]", expect
}

// badOp adds to b an operation on id, live or not, that fails, and
// describes it.
func (h *crashRun) badOp(b *Batch, id string, live bool) string {
	switch k := h.r.IntN(6); {
	case k == 0 && live:
		doc := h.doc(id)
		b.Create([]byte(doc))
		return "create of a live document " + doc
	case k == 0:
		doc := h.doc(id)
		b.Replace([]byte(doc))
		return "replace of a missing document " + doc
	case k == 1 && live:
		b.Patch(id, []PatchOp{PatchSet("/status", "x"), PatchRemove("/nothing")})
		return "patch " + id + " [set /status x, remove /nothing]"
	case k == 1:
		b.Patch(id, []PatchOp{PatchSet("/status", "x")})
		return "patch of a missing document " + id
	case k == 2:
		b.Delete(id, IfMatch("0000000000000000"))
		return "delete " + id + " if-match a wrong etag"
	case k == 3:
		b.Read("99")
		return "read of a missing document 99"
	case k == 4:
		doc := fmt.Sprintf(`{"id":%q,"pk":"q"}`, id)
		b.Upsert([]byte(doc))
		return "upsert of another partition's document " + doc
	default:
		b.Upsert([]byte(fmt.Sprintf(`{"id":%q,"pk":"p","ttl":0}`, id)))
		return "upsert with ttl 0 " + id
	}
}

// sameFeed checks the reopened collection's all-versions feed against the
// twin's: the records it kept are the twin's of the same LSNs. The sweeper
// deletes the documents due in one second in an order the spec leaves
// open, which a reopen may change: a run of such deletes is compared as a
// set.
func (h *crashRun) sameFeed(seed uint64) {
	c, tw := h.c, h.tw
	cs, err := c.FeedStats(bg)
	require.NoError(h.t, err)
	ts, err := tw.FeedStats(bg)
	require.NoError(h.t, err)
	from := max(cs.Oldest, ts.Oldest)
	got, want := feedRuns(h.t, c, from), feedRuns(h.t, tw, from)
	require.LessOrEqual(h.t, len(got), len(want), "seed %d: the all-versions feed from LSN %d", seed, from)
	if len(got) == 0 {
		return
	}
	n := len(got) - 1
	require.Equal(h.t, want[:n], got[:n], "seed %d: the all-versions feed from LSN %d", seed, from)
	// The last run may be cut short by the crash: a part of the twin's.
	require.Subset(h.t, strings.Split(want[n], " | "), strings.Split(got[n], " | "), "seed %d: the last change", seed)
}

// feedRuns returns the records of c's all-versions feed from LSN from,
// as the engine gives them (none when from is past its last change), as
// text, a run of expired deletes of one second as one sorted line.
func feedRuns(t *testing.T, c *Collection, from uint64) []string {
	var out []string
	var run []string
	var runTS int64
	end := func() {
		if len(run) > 0 {
			slices.Sort(run)
			out = append(out, strings.Join(run, " | "))
			run = nil
		}
	}
	var changes []engine.Change
	for after, more := from-1, from-1 <= c.eng.LastLSN(); more; {
		page, err := c.eng.ReadFeed(bg, engine.FeedRead{After: after, Limit: MaxFeedLimit}, nil)
		require.NoError(t, err)
		changes = append(changes, page.Changes...)
		after, more = page.End, page.More
	}
	for _, r := range changes {
		text := fmt.Sprint(ChangeOp(r.Op), r.TS, r.Expired, string(r.Doc.AppendJSON(nil)))
		if r.Op == engine.OpDelete && r.Expired {
			if len(run) > 0 && r.TS != runTS {
				end()
			}
			run, runTS = append(run, text), r.TS
			continue
		}
		end()
		out = append(out, text)
	}
	end()
	return out
}

// TestCrashHarness: randomized sequences of writes, patches, transactional
// batches, deletes, settings, sweeps, compactions and clean reopens on a
// filesystem that crashes at a random event: as a power failure, keeping
// what was synced and a random part of the rest (a prefix, or a prefix with
// holes: pages lost out of order), or as a killed process, keeping all that
// was written. What reopens is always a prefix of the acknowledged history,
// with every change acknowledged before a kill, or before a power failure
// under SyncAlways (R12); the history has one state per call, so a batch
// is there whole or not at all (R14).
func TestCrashHarness(t *testing.T) { // R12, R14
	runs := sized(100, 400)
	if s := os.Getenv("TTLDB_CRASH_SEED"); s != "" {
		var seed uint64
		fmt.Sscan(s, &seed)
		runCrash(t, seed, 60)
		return
	}
	for seed := range uint64(runs) {
		runCrash(t, seed, 60)
	}
}
