package ttldb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
	"github.com/ttldb/ttldb/internal/wal"
)

// openDurable opens the collection "test", partitioned by /pk, in dir of
// fsys (nil: the operating system's), on clk, without a background
// sweeper.
func openDurable(t *testing.T, fsys vfs.FS, dir string, clk *fakeClock, o Options) (*Collection, error) {
	t.Helper()
	o.Dir, o.fs, o.Now, o.ManualSweep = dir, fsys, clk.Now, true
	return NewCollection("test", "/pk", &o)
}

// durableState is everything of a collection that survives a reopen
// (R12), read from the engine's insides ([local.Engine.Dump]) so that it
// neither depends on the time nor fails once a crash closed the collection.
func durableState(c *Collection) string { return c.fast.Dump() }

// TestDurableReopen: a durable collection reopened has everything it had
// (R12): every document with its body, _ts, _etag and ttl, the DefaultTTL
// and the cut-offs of R7 (an expiry instant that a change of DefaultTTL
// froze), the indexing mode, the LSNs and the order of the latest-version
// feed; and it goes on from there with the next LSN.
func TestDurableReopen(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(100)})
	require.NoError(t, err)
	require.Equal(t, Recovery{}, c.Recovery(), "a new directory")
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	mustCreate(t, c, `{"id":"b","pk":"p","ttl":50,"nested":{"x":[1,2,{"y":null}]}}`)
	mustCreate(t, c, `{"id":"c","pk":7,"ttl":-1}`)
	mustCreate(t, c, `{"id":"old","pk":"p"}`)
	clk.Advance(10 * time.Second)
	_, err = c.Upsert(bg, []byte(`{"id":"a","pk":"p","n":2}`))
	require.NoError(t, err)
	_, err = c.Touch(bg, StringKey("p"), "b")
	require.NoError(t, err)
	require.NoError(t, c.Delete(bg, NumberKey(7), "c"))
	mustCreate(t, c, `{"id":"c","pk":7,"ttl":5}`)
	clk.Advance(95 * time.Second)                             // "old" expired at 1,000,100
	require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(1000))) // R7: "old" stays expired, at 1,000,100
	require.NoError(t, c.SetDefaultTTL(bg, TTLNoDefault()))   // and again
	require.NoError(t, c.SetIndexingMode(bg, IndexingConsistent))
	mustCreate(t, c, `{"id":"d","pk":null}`)
	before := durableState(c)
	require.Contains(t, before, `"id":"old"`)
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLNoDefault()}) // the settings it has: a reopen applies its options' (R12)
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, before, durableState(c))
	rec := c.Recovery()
	require.Equal(t, filepath.Join(dir, local.SnapName(0)), rec.Snapshot)
	require.Equal(t, 1, rec.Logs)
	require.Equal(t, 12, rec.Changes, "9 writes and deletes, 3 settings")
	require.Equal(t, uint64(9), rec.LastLSN)
	require.Empty(t, rec.Truncated)

	d := mustCreate(t, c, `{"id":"e","pk":"p"}`)
	require.Equal(t, uint64(10), d.LSN(), "LSNs go on")
	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 3, n, `"old" (R7), "b" (ttl 50) and "c" (ttl 5) were expired`)
}

// TestDurableCompactAndReopen: after Compact, the directory holds one
// snapshot and one log, and a reopen finds the same collection, whose
// all-versions feed starts after the snapshot.
func TestDurableCompactAndReopen(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(100)})
	require.NoError(t, err)
	for i := range 50 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","ttl":%d}`, i, 10+i))
	}
	require.NoError(t, c.Delete(bg, StringKey("p"), "3"))
	require.NoError(t, c.Compact(context.Background()))
	_, err = c.Touch(bg, StringKey("p"), "5")
	require.NoError(t, err)
	clk.Advance(20 * time.Second) // 0..10 expire, unswept
	require.NoError(t, c.Compact(context.Background()))
	mustCreate(t, c, `{"id":"after","pk":"p"}`)
	before := durableState(c)
	require.NoError(t, c.Close())
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, n := range names {
		files = append(files, n.Name())
	}
	require.Equal(t, []string{local.LockName, local.LogName(2), local.SnapName(2)}, files)

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(100)})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, before, durableState(c))
	require.Equal(t, 49, c.Recovery().Documents, "expired ones too")
	st, err := c.FeedStats(bg)
	require.NoError(t, err)
	require.Equal(t, uint64(53), st.Oldest, "the all-versions feed starts after the snapshot")
	require.Equal(t, int64(1), st.Records)
}

// TestDurableSecondOpener: a directory is used by one collection at a
// time (R12).
func TestDurableSecondOpener(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	_, err = openDurable(t, nil, dir, clk, Options{})
	require.ErrorIs(t, err, ErrLocked)
	require.ErrorContains(t, err, dir)
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close is idempotent")
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err, "Close releases the directory")
	require.NoError(t, c.Close())

	_, err = NewCollection("other", "/pk", &Options{Dir: dir})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, `holds collection "test" partitioned by /pk`)
	_, err = NewCollection("test", "/other", &Options{Dir: dir})
	require.ErrorIs(t, err, ErrInvalidOption)
	_, err = NewCollection("test", "/pk", &Options{Dir: dir, Sync: 9})
	require.ErrorIs(t, err, ErrInvalidOption)
}

// fileBytes returns the contents of name in mem.
func fileBytes(t testing.TB, mem *vfs.Mem, name string) []byte {
	t.Helper()
	b, err := mem.ReadFile(name)
	require.NoError(t, err)
	return b
}

// setFile replaces the contents of name in mem with b.
func setFile(t testing.TB, mem *vfs.Mem, name string, b []byte) {
	t.Helper()
	require.NoError(t, mem.WriteFile(name, b))
}

// TestTornTailEveryOffset: the log cut at every byte offset inside its
// last group, or followed by zeros or garbage, opens with the groups
// before it, reports the bytes it dropped, and never panics (R12). A cut
// at a group's end drops nothing.
func TestTornTailEveryOffset(t *testing.T) { // R12
	mem := &vfs.Mem{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, mem, "db", clk, Options{DefaultTTL: TTLNoDefault()})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p","ttl":100}`)
	mustCreate(t, c, `{"id":"b","pk":"p"}`)
	before := durableState(c)
	mustCreate(t, c, `{"id":"c","pk":"p","x":"the last group"}`)
	after := durableState(c)
	require.NoError(t, c.Close())
	log := filepath.Join("db", local.LogName(0))
	whole := fileBytes(t, mem, log)
	// The groups' ends, from a scan of the log.
	ends := groupEnds(t, whole)
	require.Len(t, ends, 4, "three creates and the empty group of Close")
	lastStart := ends[1]
	// dropped is what a cut at cut drops and reports: the torn bytes of the
	// group it cuts, up to their last that is not zero (zeros are space a
	// log takes ahead of its writes).
	dropped := func(cut int64) int64 {
		from := lastStart
		if cut >= ends[2] {
			from = ends[2]
		}
		n := cut
		for n > from && whole[n-1] == 0 {
			n--
		}
		if n == from {
			return 0
		}
		return cut - from
	}

	check := func(desc string, b []byte, want string, dropped int64) {
		t.Helper()
		setFile(t, mem, log, b)
		c, err := openDurable(t, mem, "db", clk, Options{DefaultTTL: TTLNoDefault()})
		require.NoError(t, err, desc)
		require.Equal(t, want, durableState(c), desc)
		rec := c.Recovery()
		require.Equal(t, dropped, rec.Dropped, desc)
		if dropped > 0 {
			require.Equal(t, log, rec.Truncated, desc)
			require.NotEmpty(t, rec.Reason, desc)
		}
		mustCreate(t, c, `{"id":"next","pk":"p"}`) // the log goes on after the cut
		require.NoError(t, c.Close())
		c, err = openDurable(t, mem, "db", clk, Options{DefaultTTL: TTLNoDefault()})
		require.NoError(t, err, desc)
		require.Zero(t, c.Recovery().Dropped, "%s: the cut was durable", desc)
		require.NoError(t, c.Close())
	}
	for cut := lastStart; cut < int64(len(whole)); cut++ {
		want := before
		if cut >= ends[2] {
			want = after // the cut is in the empty group of Close
		}
		check(fmt.Sprintf("cut at %d", cut), whole[:cut], want, dropped(cut))
	}
	check("whole", whole, after, 0)
	check("zeros after", append(slices.Clone(whole), make([]byte, 100)...), after, 0) // space taken ahead, not a torn write
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		junk := make([]byte, 1+r.IntN(300))
		for j := range junk {
			junk[j] = byte(r.Uint32())
		}
		check(fmt.Sprintf("garbage %d after", i), append(slices.Clone(whole), junk...), after, int64(len(junk)))
	}
}

// groupEnds returns the offsets at which the log's groups end.
func groupEnds(t *testing.T, log []byte) []int64 {
	t.Helper()
	var ends []int64
	_, err := wal.Scan(bytes.NewReader(log), int64(len(log)), func(g wal.Group) error {
		ends = append(ends, g.End)
		return nil
	})
	require.NoError(t, err)
	return ends
}

// TestDamageRefusesToOpen: damage that is not a torn tail (a flipped
// byte followed by whole groups, a damaged snapshot, a missing log) makes
// the open fail with a *CorruptError naming the file and the offset, and
// changes nothing; truncating a log at that offset repairs it, as the
// error's documentation says (R12).
func TestDamageRefusesToOpen(t *testing.T) { // R12
	mem := &vfs.Mem{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err)
	for i := range 5 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
	}
	require.NoError(t, c.Close())
	log := filepath.Join("db", local.LogName(0))
	whole := fileBytes(t, mem, log)
	ends := groupEnds(t, whole)

	bad := slices.Clone(whole)
	bad[ends[1]+12] ^= 0xff // inside the third group; two whole groups follow
	setFile(t, mem, log, bad)
	_, err = openDurable(t, mem, "db", clk, Options{})
	require.ErrorIs(t, err, ErrCorrupt)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, log, ce.File)
	require.Equal(t, ends[1], ce.Offset)
	require.Contains(t, err.Error(), log)
	require.Equal(t, bad, fileBytes(t, mem, log), "a refused open changes nothing")

	setFile(t, mem, log, bad[:ce.Offset]) // the documented repair
	c, err = openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err)
	require.Equal(t, uint64(2), c.LastLSN(), "the changes before the damage")
	require.NoError(t, c.Close())

	snap := filepath.Join("db", local.SnapName(0))
	sb := fileBytes(t, mem, snap)
	sb[len(sb)-3] ^= 1
	setFile(t, mem, snap, sb)
	_, err = openDurable(t, mem, "db", clk, Options{})
	require.ErrorAs(t, err, &ce)
	require.Equal(t, snap, ce.File)

	setFile(t, mem, snap, sb[:len(sb)-10])
	_, err = openDurable(t, mem, "db", clk, Options{})
	require.ErrorAs(t, err, &ce)
	require.Contains(t, ce.Reason, "the snapshot ends early")

	require.NoError(t, mem.Remove(snap))
	_, err = openDurable(t, mem, "db", clk, Options{})
	require.ErrorAs(t, err, &ce)
	require.Contains(t, ce.Reason, "no snapshot")
}

// TestWriteAndSyncFailures: a write or a sync of the log that fails makes
// the call fail with ErrClosed, wrapping the failure; the collection is
// then closed, never ahead of its disk, and a reopen finds every change
// acknowledged before (R12).
func TestWriteAndSyncFailures(t *testing.T) { // R12
	for _, policy := range []SyncPolicy{SyncAlways, SyncEverySecond} {
		for _, what := range []string{"write", "sync"} {
			if what == "sync" && policy != SyncAlways {
				continue // only SyncAlways syncs in the call
			}
			mem := &vfs.Mem{}
			clk := &fakeClock{t: time.Unix(1_000_000, 0)}
			c, err := openDurable(t, mem, "db", clk, Options{Sync: policy})
			require.NoError(t, err)
			mustCreate(t, c, `{"id":"a","pk":"p"}`)
			before := durableState(c)
			boom := errors.New("disk on fire")
			fail := func(string) error { return boom }
			if what == "write" {
				mem.FailWrite = fail
			} else {
				mem.FailSync = fail
			}
			_, err = c.Create(bg, []byte(`{"id":"b","pk":"p"}`))
			require.ErrorIs(t, err, ErrClosed, "%v %s", policy, what)
			require.ErrorIs(t, err, boom)
			_, err = c.Get(bg, StringKey("p"), "a")
			require.ErrorIs(t, err, ErrClosed, "the collection is closed")
			require.ErrorIs(t, err, boom, "and says why")
			require.ErrorIs(t, c.Close(), boom, "Close reports the failure, every time")
			require.ErrorIs(t, c.Close(), ErrClosed)
			mem.FailWrite, mem.FailSync = nil, nil
			if policy == SyncAlways {
				mem.Crash() // even a power failure keeps what was acknowledged
			} else {
				mem.Kill()
			}
			c, err = openDurable(t, mem, "db", clk, Options{Sync: policy})
			require.NoError(t, err)
			require.Equal(t, before, durableState(c), "%v %s: the acknowledged change, not the failed one", policy, what)
			require.NoError(t, c.Close())
		}
	}
}

// TestDurableCloseAndCompact: Close stops a Compact in progress and waits
// for it, and no Compact runs after Close, so that nothing touches the
// directory once Close has returned; a Compact cancelled by its context
// says so (R12, R15).
func TestDurableCloseAndCompact(t *testing.T) { // R12, R15, R16 (Compact stops when its context is done)
	mem := &vfs.Mem{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err)
	for i := range 10_000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, c.Compact(ctx), context.Canceled)

	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	var closeReturned, lateWrite atomic.Bool
	mem.FailWrite = func(name string) error {
		if closeReturned.Load() {
			lateWrite.Store(true)
		}
		if strings.HasSuffix(name, local.TmpSuffix) {
			once.Do(func() { close(entered); <-release })
		}
		return nil
	}
	done := make(chan error)
	go func() { done <- c.Compact(context.Background()) }()
	<-entered // the snapshot is being written
	closed := make(chan []string)
	go func() {
		require.NoError(t, c.Close())
		closeReturned.Store(true)
		names, _ := mem.List("db")
		closed <- names
	}()
	for !c.closed.Load() { // Close has begun
		runtime.Gosched()
	}
	close(release)
	require.ErrorIs(t, <-done, ErrClosed, "Close stopped it")
	names := <-closed
	require.False(t, lateWrite.Load(), "nothing is written once Close has returned")
	for _, n := range names {
		require.False(t, strings.HasSuffix(n, local.TmpSuffix), "the stopped snapshot is removed before Close returns: %v", names)
	}
	mem.FailWrite = nil
	require.ErrorIs(t, c.Compact(context.Background()), ErrClosed)
	c, err = openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err)
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, 10_000, n)
	require.NoError(t, c.Close())
}

// TestDurableLiveBytes: the size of the documents that decides when to
// compact follows writes, overwrites, deletes and creates over expired
// documents, so that compaction neither runs for nothing nor never runs.
func TestDurableLiveBytes(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, &vfs.Mem{}, "db", clk, Options{DefaultTTL: TTLSeconds(5)})
	require.NoError(t, err)
	defer c.Close()
	for i := range 100 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","v":%q}`, i%10, strings.Repeat("x", i)))
		if i%3 == 0 {
			require.NoError(t, c.Delete(bg, StringKey("p"), fmt.Sprint(i%10)))
		} else {
			clk.Advance(6 * time.Second) // expired: the next create of the id writes over it
		}
		_, _ = c.Upsert(bg, []byte(`{"id":"u","pk":"p"}`))
	}
	counted, want := c.fast.LiveBytes()
	require.Equal(t, want, counted)
}

// TestDurableFailureWakesWatchers: a failing log ends WatchFeed's waits
// with ErrClosed, wrapping the failure.
func TestDurableFailureWakesWatchers(t *testing.T) { // R11, R12
	mem := &vfs.Mem{}
	c, err := NewCollection("test", "/pk", &Options{Dir: "db", fs: mem, Sync: SyncAlways, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	got := make(chan error, 1)
	go func() {
		for _, err := range c.WatchFeed(context.Background(), FeedQuery{FromNow: true}) {
			if err != nil {
				got <- err
				return
			}
		}
	}()
	for !c.fast.WatcherWaiting() { // the watcher waits for the next change
		runtime.Gosched()
	}
	boom := errors.New("disk on fire")
	mem.FailWrite = func(string) error { return boom }
	_, err = c.Create(bg, []byte(`{"id":"a","pk":"p"}`))
	require.ErrorIs(t, err, boom)
	select {
	case err := <-got:
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, err, boom)
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher still waits")
	}
}

// TestDurableSpaceComesBack: after a mass expiry is swept, the background
// compaction gives the disk space back: the files shrink to about the
// live documents (R12).
func TestDurableSpaceComesBack(t *testing.T) { // R12
	mem := &vfs.Mem{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, mem, "db", clk, Options{DefaultTTL: TTLNoDefault(), compactAt: 64 << 10})
	require.NoError(t, err)
	defer c.Close()
	pad := strings.Repeat("x", 200)
	for i := range 5000 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p","ttl":10,"pad":%q}`, i, pad))
	}
	mustCreate(t, c, `{"id":"stays","pk":"p"}`)
	require.NoError(t, c.Compact(context.Background()))
	before := dirBytes(t, mem, "db")
	require.Greater(t, before, int64(5000*200))

	clk.Advance(11 * time.Second)
	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 5000, n)
	deadline := time.Now().Add(time.Minute) // a bound on a failure, not a wait: the loop yields
	for c.fast.CheckCompaction(); dirBytes(t, mem, "db") > 64<<10; c.fast.CheckCompaction() {
		require.True(t, time.Now().Before(deadline), "the compactor never gave the space back")
		runtime.Gosched() // the compactor, woken as the journal's goroutine wakes it every second
	}
	after := dirBytes(t, mem, "db")
	require.Less(t, after, int64(64<<10), "from %d bytes", before)
	_, err = c.Get(bg, StringKey("p"), "stays")
	require.NoError(t, err)
}

// dirBytes is the size of the files in dir.
func dirBytes(t *testing.T, mem *vfs.Mem, dir string) int64 {
	t.Helper()
	names, err := mem.List(dir)
	require.NoError(t, err)
	var n int64
	for _, name := range names {
		f, err := mem.Open(filepath.Join(dir, name))
		if err != nil {
			continue // removed meanwhile
		}
		size, err := f.Size()
		require.NoError(t, err)
		n += size
	}
	return n
}

// TestZeroTails: the zeros a log is grown ahead by (internal/vfs) never
// stop an open, wherever a crash leaves them: a last log of zeros only (its
// creation interrupted before its header), and zeros after the whole groups
// of a log that is not the last (a cut whose length a power failure lost).
func TestZeroTails(t *testing.T) { // R12
	mem := &vfs.Mem{}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	want := durableState(c)
	require.NoError(t, c.Close())

	// A second log begun, whose header never came: zeros only.
	setFile(t, mem, filepath.Join("db", local.LogName(1)), make([]byte, 1<<20))
	c, err = openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err, "the last log, zeros only, is a creation interrupted")
	require.Equal(t, want, durableState(c))
	require.Empty(t, c.Recovery().Truncated, "zeros are not a torn write")
	mustCreate(t, c, `{"id":"b","pk":"p"}`)
	want = durableState(c)
	require.NoError(t, c.Close())

	// Zeros after the first log's groups, with a later log after it.
	first := filepath.Join("db", local.LogName(0))
	setFile(t, mem, first, append(fileBytes(t, mem, first), make([]byte, 4096)...))
	c, err = openDurable(t, mem, "db", clk, Options{})
	require.NoError(t, err, "zeros after a log that is not the last")
	require.Equal(t, want, durableState(c))
	require.NoError(t, c.Close())
}
