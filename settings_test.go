package ttldb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// dirFiles returns the name and contents of every file in dir.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	return files
}

// changes returns the String of each change of r.Changed.
func changes(r Recovery) []string {
	var s []string
	for _, ch := range r.Changed {
		s = append(s, ch.String())
	}
	return s
}

// TestReopenChangesDefaultTTL: a reopen with another DefaultTTL applies it
// as SetDefaultTTL would right after the open (R12), with R7's cut-off at
// the open's instant: a document written before expires by the new
// setting from then on, one that had expired by the old stays gone. The
// change is logged (the next reopen keeps it) and listed in Recovery.
// (The open ignored the options' DefaultTTL, silently.)
func TestReopenChangesDefaultTTL(t *testing.T) { // R12, R7
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(3600)})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"old","pk":"p"}`) // expires at +3600 by the old setting
	clk.Advance(30 * time.Minute)
	mustCreate(t, c, `{"id":"young","pk":"p"}`) // at +5400 by the old, +9000 by the new
	clk.Advance(3700*time.Second - 30*time.Minute)
	require.NoError(t, c.Close()) // "old" expired, and is not swept
	clk.Advance(300 * time.Second)

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(7200)})
	require.NoError(t, err)
	require.Equal(t, []string{"DefaultTTL: 3600 → 7200"}, changes(c.Recovery()))
	require.Equal(t, TTLSeconds(7200), c.DefaultTTL())
	_, err = c.Get(bg, StringKey("p"), "old")
	require.ErrorIs(t, err, ErrNotFound, "expired by the old setting: stays gone (R7)")
	clk.Advance(2000 * time.Second) // +6000: past the old setting's expiry of "young"
	_, err = c.Get(bg, StringKey("p"), "young")
	require.NoError(t, err, "the new setting applies from the open on")
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(7200)})
	require.NoError(t, err)
	require.Empty(t, c.Recovery().Changed, "the change was logged: the directory has it")
	at, ok := c.ExpiresAt(mustGet(t, c, StringKey("p"), "young"))
	require.True(t, ok)
	require.Equal(t, int64(1_000_000+1800+7200), at.Unix())
	clk.Advance(3000 * time.Second) // +9000
	_, err = c.Get(bg, StringKey("p"), "young")
	require.ErrorIs(t, err, ErrNotFound)
	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.NoError(t, c.Close())
}

// TestReopenTurnsTTLOn: a reopen with TTL on, where it was off, applies to
// every document written before (R7, R12): those older than the new
// DefaultTTL are expired at once, and the sweeper deletes them as expiries.
// Back off again, nothing expires.
func TestReopenTurnsTTLOn(t *testing.T) { // R12, R7
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	clk.Advance(100 * time.Second)
	mustCreate(t, c, `{"id":"b","pk":"p"}`)
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(60)})
	require.NoError(t, err)
	require.Equal(t, []string{"DefaultTTL: off → 60"}, changes(c.Recovery()))
	_, err = c.Get(bg, StringKey("p"), "a")
	require.ErrorIs(t, err, ErrNotFound, "written 100 s ago, and TTL is 60")
	mustGet(t, c, StringKey("p"), "b")
	n, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.NoError(t, c.Close())

	clk.Advance(30 * time.Second) // "b" expires in 30 s
	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	require.Equal(t, []string{"DefaultTTL: 60 → off"}, changes(c.Recovery()))
	clk.Advance(time.Hour)
	mustGet(t, c, StringKey("p"), "b")
	require.NoError(t, c.Close())
}

// TestReopenChangesIndexingMode: a reopen applies the indexing mode of its
// options, and with it those of R8's order: mode consistent before TTL on,
// TTL off before mode none; Options.Indexes are made once the mode allows
// them. A reopen in mode none where the directory has secondary indexes is
// refused, as SetIndexingMode refuses it, and changes nothing in the
// directory. (The open ignored the options' mode, and refused
// Options.Indexes on a directory in mode none.)
func TestReopenChangesIndexingMode(t *testing.T) { // R12, R8, R13
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{Indexing: IndexingNone})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(60), Indexes: []string{"/n"}})
	require.NoError(t, err)
	require.Equal(t, []string{"Indexing: none → consistent", "DefaultTTL: off → 60", "Indexes: [] → [/n]"}, changes(c.Recovery()))
	require.Equal(t, IndexingConsistent, c.IndexingMode())
	require.Equal(t, []string{"/n"}, c.Indexes())
	require.NoError(t, c.Close())

	before := dirFiles(t, dir)
	_, err = openDurable(t, nil, dir, clk, Options{Indexing: IndexingNone})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, "Options.Indexing none")
	require.ErrorContains(t, err, `indexing mode consistent with the secondary indexes ["/n"]`)
	require.ErrorContains(t, err, "DropIndex")
	require.Equal(t, before, dirFiles(t, dir), "a refused open changes nothing")

	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(60)})
	require.NoError(t, err)
	require.NoError(t, c.DropIndex(bg, "/n"))
	require.NoError(t, c.Close())
	c, err = openDurable(t, nil, dir, clk, Options{Indexing: IndexingNone})
	require.NoError(t, err)
	require.Equal(t, []string{"DefaultTTL: 60 → off", "Indexing: consistent → none"}, changes(c.Recovery()))
	require.Equal(t, IndexingNone, c.IndexingMode())
	require.Equal(t, TTLOff(), c.DefaultTTL())
	require.NoError(t, c.Close())
}

// TestReopenFeedRetention: the feed's retention is not stored: every open
// keeps the feed its options say (R11, R12), off included.
func TestReopenFeedRetention(t *testing.T) { // R12, R11
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		mustCreate(t, c, `{"id":"`+id+`","pk":"p"}`)
	}
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{Feed: FeedOptions{MaxRecords: 2}})
	require.NoError(t, err)
	require.Empty(t, c.Recovery().Changed, "not a stored setting")
	st, err := c.FeedStats(bg)
	require.NoError(t, err)
	require.Equal(t, int64(2), st.Records)
	require.Equal(t, uint64(4), st.Oldest)
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{Feed: FeedOptions{Off: true}})
	require.NoError(t, err)
	_, err = c.ReadFeed(bg, FeedQuery{})
	require.ErrorIs(t, err, ErrInvalidOption)
	require.NoError(t, c.Close())

	c, err = openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	st, err = c.FeedStats(bg)
	require.NoError(t, err)
	require.Equal(t, int64(5), st.Records, "the log holds them all")
	require.NoError(t, c.Close())
}

// TestReopenRefusesAnotherIdentity: what cannot change, the collection's
// name and partition-key path, refuses the open with ErrInvalidOption
// naming the stored and the given values and the likely mistake, and the
// refused open changes nothing in the directory (R12).
func TestReopenRefusesAnotherIdentity(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(60)})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	require.NoError(t, c.Close())
	before := dirFiles(t, dir)

	for _, o := range []struct{ name, path string }{{"test", "/tenant"}, {"other", "/pk"}} {
		_, err = NewCollection(o.name, o.path, &Options{Dir: dir, DefaultTTL: TTLSeconds(120), Now: clk.Now, ManualSweep: true})
		require.ErrorIs(t, err, ErrInvalidOption)
		require.ErrorContains(t, err, `holds collection "test" partitioned by /pk, not "`+o.name+`" partitioned by `+o.path)
		require.ErrorContains(t, err, "cannot change")
		require.Equal(t, before, dirFiles(t, dir), "a refused open changes nothing")
	}
	c, err = openDurable(t, nil, dir, clk, Options{DefaultTTL: TTLSeconds(60)})
	require.NoError(t, err)
	require.Empty(t, c.Recovery().Changed)
	require.Equal(t, TTLSeconds(60), c.DefaultTTL(), "the refused open with 120 changed nothing")
	require.NoError(t, c.Close())
}

// TestReopenSameOptionsLogsNothing: a reopen whose options ask for the
// settings the directory has changes none, lists none in Recovery, and
// logs no record: the next reopen replays as many as before (R12).
func TestReopenSameOptionsLogsNothing(t *testing.T) { // R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	o := Options{DefaultTTL: TTLDuration(time.Hour), Indexes: []string{"/n"}}
	c, err := openDurable(t, nil, dir, clk, o)
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	require.NoError(t, c.Compact(context.Background()))
	mustCreate(t, c, `{"id":"b","pk":"p","n":2}`)
	require.NoError(t, c.Close())
	reopen := func(o Options) Recovery {
		c, err := openDurable(t, nil, dir, clk, o)
		require.NoError(t, err)
		require.NoError(t, c.Close())
		return c.Recovery()
	}

	first := reopen(o)
	require.Empty(t, first.Changed)
	require.Equal(t, 1, first.Changes, "the create of b")
	require.Equal(t, first.Changes, reopen(o).Changes, "the reopen logged nothing")

	changed := reopen(Options{DefaultTTL: TTLSeconds(3601), Indexes: []string{"/n"}})
	require.Equal(t, []string{"DefaultTTL: 3600 → 3601"}, changes(changed))
	require.Equal(t, first.Changes+1, reopen(Options{DefaultTTL: TTLSeconds(3601)}).Changes, "a change is logged")
}
