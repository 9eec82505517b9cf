package ttldb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
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
// (R12), read from its insides so that it neither depends on the time nor
// fails once a crash closed the collection: every document as stored
// (body, _ts, _etag, LSN, ttl), expired or not, and when it expires; the
// DefaultTTL, R7's cut-offs and the indexing mode; the last LSN; the order
// of the latest-version feed.
func durableState(c *Collection) string {
	var b strings.Builder
	c.mu.RLock()
	defer c.mu.RUnlock()
	c.prim.tree.Ascend(func(e *entry) bool {
		d := e.doc()
		at, ok := c.exp.expiresAt(d, 0)
		fmt.Fprintf(&b, "%s lsn=%d ttl=%d expires=%d,%v\n", d.appendJSON(nil), c.seqOf(d), d.ttl, at, ok)
		return true
	})
	fmt.Fprintf(&b, "default=%v cuts=%d,%v mode=%v seq=%d\nlatest:", c.exp.def, c.exp.ownCut, c.exp.cuts, c.mode, c.seq)
	for e := c.feed.latest.head; e != nil; e = e.next {
		fmt.Fprintf(&b, " %d", c.seqOf(e.doc()))
	}
	return b.String()
}

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
	_, err = c.Upsert([]byte(`{"id":"a","pk":"p","n":2}`))
	require.NoError(t, err)
	_, err = c.Touch(StringKey("p"), "b")
	require.NoError(t, err)
	require.NoError(t, c.Delete(NumberKey(7), "c"))
	mustCreate(t, c, `{"id":"c","pk":7,"ttl":5}`)
	clk.Advance(95 * time.Second)                         // "old" expired at 1,000,100
	require.NoError(t, c.SetDefaultTTL(TTLSeconds(1000))) // R7: "old" stays expired, at 1,000,100
	require.NoError(t, c.SetDefaultTTL(TTLNoDefault()))   // and again
	require.NoError(t, c.SetIndexingMode(IndexingConsistent))
	mustCreate(t, c, `{"id":"d","pk":null}`)
	before := durableState(c)
	require.Contains(t, before, `"id":"old"`)
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, before, durableState(c))
	rec := c.Recovery()
	require.Equal(t, filepath.Join(dir, snapName(0)), rec.Snapshot)
	require.Equal(t, 1, rec.Logs)
	require.Equal(t, 12, rec.Changes, "9 writes and deletes, 3 settings")
	require.Equal(t, uint64(9), rec.LastLSN)
	require.Empty(t, rec.Truncated)

	d := mustCreate(t, c, `{"id":"e","pk":"p"}`)
	require.Equal(t, uint64(10), d.LSN(), "LSNs go on")
	n, err := c.Sweep()
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
	require.NoError(t, c.Delete(StringKey("p"), "3"))
	require.NoError(t, c.Compact(context.Background()))
	_, err = c.Touch(StringKey("p"), "5")
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
	require.Equal(t, []string{lockName, logName(2), snapName(2)}, files)

	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	defer c.Close()
	require.Equal(t, before, durableState(c))
	require.Equal(t, 49, c.Recovery().Documents, "expired ones too")
	st, err := c.FeedStats()
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
