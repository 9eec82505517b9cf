package ttldb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// backupOf backs c up into a buffer.
func backupOf(t *testing.T, c *Collection) ([]byte, BackupInfo) {
	t.Helper()
	var b bytes.Buffer
	info, err := c.Backup(bg, &b)
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), info.Bytes)
	return b.Bytes(), info
}

// restoreAndOpen restores b into a new directory and opens it on clk.
func restoreAndOpen(t *testing.T, b []byte, clk *fakeClock) *Collection {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "restored")
	_, err := Restore(bg, bytes.NewReader(b), dir)
	require.NoError(t, err)
	r, err := Open(bg, "file://"+dir, &Options{Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// restoredState is durableState(c) of a collection restored from a backup
// of LastLSN last, with the seq it checks: a restore numbers its own
// changes from last plus a jump of 2^44 to 2^45 (R17, R8), so its last LSN
// is not the original's.
func restoredState(t *testing.T, c *Collection, last uint64) string {
	t.Helper()
	require.GreaterOrEqual(t, c.LastLSN(), last+1<<44, "a restore's LSNs jump")
	require.Less(t, c.LastLSN(), last+1<<45, "a restore's LSNs jump")
	return seqField.ReplaceAllString(durableState(c), "seq=(restored)")
}

// seqField is the last LSN in durableState's dump.
var seqField = regexp.MustCompile(`seq=[0-9]+`)

// originalState is durableState(c) with the seq restoredState leaves out.
func originalState(c *Collection) string {
	return seqField.ReplaceAllString(durableState(c), "seq=(restored)")
}

// TestBackupRestoresTheCollection: a restore of a backup is the collection
// backed up (R17): its documents (bodies, _ts, _etag, LSNs, ttl, expired
// ones not yet swept), DefaultTTL and R7's cut-offs, indexing mode,
// indexes, last LSN and latest-version feed; in memory or on a directory.
// The all-versions feed starts after the backup's last LSN.
func TestBackupRestoresTheCollection(t *testing.T) { // R17, R12, R7, R11
	for _, durable := range []bool{false, true} {
		t.Run(fmt.Sprintf("durable=%v", durable), func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(1_000_000, 0)}
			o := Options{DefaultTTL: TTLSeconds(100), Now: clk.Now, ManualSweep: true}
			if durable {
				o.Dir = t.TempDir()
			}
			c, err := NewCollection("test", "/pk", &o)
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.CreateIndex(bg, "/n"))
			mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
			mustCreate(t, c, `{"id":"b","pk":"p","ttl":50,"nested":{"x":[1,2,{"y":null}]}}`)
			mustCreate(t, c, `{"id":"c","pk":7,"ttl":-1}`)
			mustCreate(t, c, `{"id":"gone","pk":"p","ttl":5}`)
			clk.Advance(10 * time.Second) // "gone" expired, not swept
			_, err = c.Upsert(bg, []byte(`{"id":"a","pk":"p","n":2}`))
			require.NoError(t, err)
			require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(300))) // a cut-off (R7)
			require.NoError(t, c.Delete(bg, NumberKey(7), "c"))
			mustCreate(t, c, `{"id":"d","pk":"q"}`)

			b, info := backupOf(t, c)
			require.Equal(t, c.LastLSN(), info.LastLSN)
			require.Equal(t, 4, info.Documents, "expired and not swept: in the backup")
			require.Equal(t, "test", info.Name)
			require.Equal(t, "/pk", info.PartitionKeyPath)

			r := restoreAndOpen(t, b, clk)
			require.Equal(t, originalState(c), restoredState(t, r, info.LastLSN))
			require.Equal(t, c.DefaultTTL(), r.DefaultTTL())
			require.Equal(t, []string{"/n"}, r.Indexes())
			checkInvariants(t, r)

			_, err = r.ReadFeed(bg, FeedQuery{Mode: AllVersionsAndDeletes})
			require.ErrorIs(t, err, ErrFeedTrimmed, "the all-versions history is not in a backup")
			d, err := r.Upsert(bg, []byte(`{"id":"e","pk":"q"}`))
			require.NoError(t, err)
			require.Greater(t, d.LSN(), info.LastLSN+1<<44, "the restore numbers its own changes after a jump")
		})
	}
}

// TestBackupUnderWriters: a backup taken while writers go on, some of them
// writing between two writes of the backup itself, restores to exactly
// the collection as of the backup's last LSN: each key's last write at or
// before it (R17, R13).
func TestBackupUnderWriters(t *testing.T) { // R17, R13, R5
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", "/pk", &Options{Dir: t.TempDir(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	type write struct {
		key string
		doc Document
	}
	var mu sync.Mutex
	var log []write // every write's outcome
	upsert := func(i, v int) {
		d, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"k%d","pk":"p","v":%d}`, i, v))
		require.NoError(t, err)
		mu.Lock()
		log = append(log, write{fmt.Sprint("k", i), d})
		mu.Unlock()
	}
	const n = 9000 // three groups of the backup
	for i := range n {
		upsert(i, 0)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a writer of its own
		defer wg.Done()
		for v := 1; ; v++ {
			select {
			case <-stop:
				return
			default:
			}
			upsert(v%(n+500), v) // replaces, and creates keys beyond n
		}
	}()
	holds := 0
	defer local.SetWalkHook(func(int) { // between two holds of the backup's walk
		holds++
		for i := range 50 {
			upsert(n-1-i*3, -holds)
		}
		c.Delete(bg, StringKey("p"), fmt.Sprint("k", holds))
	})()
	var b bytes.Buffer
	info, err := c.Backup(bg, writerFunc(func(p []byte) (int, error) {
		for i := range 50 { // between two writes of the backup
			upsert(i*7, -len(p))
		}
		return b.Write(p)
	}))
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	require.Greater(t, holds, 1, "the walk took the lock more than once")
	require.Greater(t, c.LastLSN(), info.LastLSN+100, "writes went on during the backup")

	want := map[string]Document{}
	for _, w := range log {
		if w.doc.LSN() <= info.LastLSN {
			if old, ok := want[w.key]; !ok || old.LSN() < w.doc.LSN() {
				want[w.key] = w.doc
			}
		}
	}
	r := restoreAndOpen(t, b.Bytes(), clk)
	restoredState(t, r, info.LastLSN)
	got := 0
	for d, err := range r.All(bg, Query{}) {
		require.NoError(t, err)
		w, ok := want[d.ID()]
		require.True(t, ok, "%s is not in the collection as of LSN %d", d.ID(), info.LastLSN)
		require.Equal(t, w.JSON(), d.JSON())
		require.Equal(t, w.LSN(), d.LSN())
		got++
	}
	require.Equal(t, len(want), got)
	checkInvariants(t, r)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// smallBackup is the backup of a collection of three documents.
func smallBackup(t *testing.T) []byte {
	t.Helper()
	c, _ := newTestCollection(t, "/pk", TTLSeconds(60))
	mustCreate(t, c, `{"id":"a","pk":"p","n":1}`)
	mustCreate(t, c, `{"id":"b","pk":"p","ttl":5}`)
	mustCreate(t, c, `{"id":"c","pk":2}`)
	b, _ := backupOf(t, c)
	return b
}

// requireRefused checks that a restore of b is refused as damaged, naming
// an offset within it, and leaves no file of a collection.
func requireRefused(t *testing.T, dir string, b []byte, what string) {
	t.Helper()
	_, err := Restore(bg, bytes.NewReader(b), dir)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce, what)
	require.ErrorIs(t, err, ErrCorrupt)
	require.True(t, ce.Offset >= 0 && ce.Offset <= int64(len(b)), "%s: offset %d of %d bytes", what, ce.Offset, len(b))
	names, _ := os.ReadDir(dir)
	for _, e := range names {
		require.Equal(t, "LOCK", e.Name(), "%s: a refused restore left a file", what)
	}
}

// requireRefusedInMem is requireRefused on a file system in memory: the
// code of Restore but the disk's, without its syncs.
func requireRefusedInMem(t *testing.T, b []byte, what string) {
	t.Helper()
	mem := &vfs.Mem{}
	_, err := local.Restore(bg, bytes.NewReader(b), local.RestoreConfig{Dir: "db", Documents: documents, FS: mem})
	var ce *CorruptError
	require.ErrorAs(t, err, &ce, what)
	require.True(t, ce.Offset >= 0 && ce.Offset <= int64(len(b)), "%s: offset %d of %d bytes", what, ce.Offset, len(b))
	names, err := mem.List("db")
	require.NoError(t, err)
	for _, n := range names {
		require.Equal(t, "LOCK", n, "%s: a refused restore left a file", what)
	}
}

// TestBackupDamageRefused: a backup cut at any offset, with any byte
// changed, or followed by more bytes, is refused with ErrCorrupt naming
// the offset, never restored as whole (R17). Each offset on a file system
// in memory, some on the disk.
func TestBackupDamageRefused(t *testing.T) { // R17
	b := smallBackup(t)
	dir := t.TempDir()
	for off := range len(b) {
		requireRefusedInMem(t, b[:off], fmt.Sprintf("cut at %d", off))
	}
	for off := range len(b) {
		bad := bytes.Clone(b)
		bad[off] ^= 0x5a
		requireRefusedInMem(t, bad, fmt.Sprintf("byte %d changed", off))
	}
	for _, off := range []int{0, 1, len(b) / 3, len(b) / 2, len(b) - 1} {
		requireRefused(t, dir, b[:off], fmt.Sprintf("cut at %d", off))
		bad := bytes.Clone(b)
		bad[off] ^= 0x5a
		requireRefused(t, dir, bad, fmt.Sprintf("byte %d changed", off))
	}
	requireRefused(t, dir, append(bytes.Clone(b), 0), "a byte more")
	requireRefused(t, dir, append(bytes.Clone(b), b...), "twice")
	_, err := Restore(bg, bytes.NewReader(b), dir) // and the whole one is taken
	require.NoError(t, err)
}

// TestBackupInterrupted: a backup that stops midway (its writer fails, its
// context ends, the collection closes) returns the error, and what it
// wrote is refused by Restore (R17, R16).
func TestBackupInterrupted(t *testing.T) { // R17, R16
	c, _ := newTestCollection(t, "/pk", TTLOff())
	for i := range 9000 { // three groups
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%d","pk":"p"}`, i))
	}
	whole, _ := backupOf(t, c)

	failing := errors.New("disk full")
	for _, after := range []int{0, 16, len(whole) / 2, len(whole) - 1} {
		var b bytes.Buffer
		_, err := c.Backup(bg, writerFunc(func(p []byte) (int, error) {
			if b.Len()+len(p) > after {
				n, _ := b.Write(p[:after-b.Len()])
				return n, failing
			}
			return b.Write(p)
		}))
		require.ErrorIs(t, err, failing, "after %d bytes", after)
		requireRefused(t, t.TempDir(), b.Bytes(), fmt.Sprintf("killed after %d bytes", after))
	}

	ctx, cancel := context.WithCancel(bg)
	var b bytes.Buffer
	_, err := c.Backup(ctx, writerFunc(func(p []byte) (int, error) {
		cancel() // after the first group
		return b.Write(p)
	}))
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, b.Len(), len(whole))
	requireRefused(t, t.TempDir(), b.Bytes(), "cancelled")

	b.Reset()
	_, err = c.Backup(bg, writerFunc(func(p []byte) (int, error) {
		c.Close() // waits for no backup, which holds no lock as it writes
		return b.Write(p)
	}))
	require.ErrorIs(t, err, ErrClosed)
	requireRefused(t, t.TempDir(), b.Bytes(), "closed")
}

// TestRestoreRefusals: a restore never merges with or replaces a
// directory's files, nor writes into a directory a collection has open;
// an engine without the capability refuses Backup (R17, R16).
func TestRestoreRefusals(t *testing.T) { // R17, R16
	b := smallBackup(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	_, err := Restore(bg, bytes.NewReader(b), dir)
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, "notes.txt")

	dir = t.TempDir()
	_, err = Restore(bg, bytes.NewReader(b), dir)
	require.NoError(t, err)
	_, err = Restore(bg, bytes.NewReader(b), dir)
	require.ErrorIs(t, err, ErrInvalidOption, "a restore over a restore")

	open := filepath.Join(t.TempDir(), "open")
	c, err := NewCollection("x", "/pk", &Options{Dir: open, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	_, err = Restore(bg, bytes.NewReader(b), open)
	require.ErrorIs(t, err, ErrLocked)

	var none context.Context // a nil ctx is refused
	_, err = Restore(none, bytes.NewReader(b), t.TempDir())
	require.ErrorIs(t, err, ErrInvalidOption)

	o, err := ThroughInterface(c)
	require.NoError(t, err)
	_, err = o.Backup(bg, &bytes.Buffer{})
	require.ErrorIs(t, err, ErrInvalidOption)
}

// TestVerify: Verify reads a directory without writing to it, reports a
// torn tail an open would cut, and refuses damage naming the file and the
// offset, and a directory in use (R17, R12).
func TestVerify(t *testing.T) { // R17, R12
	dir := t.TempDir()
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, dir, clk, Options{})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	mustCreate(t, c, `{"id":"b","pk":"p"}`)
	_, err = Verify(bg, dir)
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, c.Close())

	rep, err := Verify(bg, dir)
	require.NoError(t, err)
	require.Equal(t, "test", rep.Name)
	require.Equal(t, uint64(2), rep.LastLSN)
	require.Equal(t, 2, rep.Live)
	require.Empty(t, rep.Torn)

	log := filepath.Join(dir, "log-0000000000000000")
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(log, append(bytes.Clone(b), 1, 2, 3), 0o644)) // a torn write
	rep, err = Verify(bg, dir)
	require.NoError(t, err)
	require.Equal(t, log, rep.Torn)
	require.Equal(t, int64(len(b)), rep.TornAt)
	after, _ := os.ReadFile(log)
	require.Len(t, after, len(b)+3, "Verify cuts nothing")

	snap := filepath.Join(dir, "snap-0000000000000000")
	s, err := os.ReadFile(snap)
	require.NoError(t, err)
	s[len(s)-3] ^= 1
	require.NoError(t, os.WriteFile(snap, s, 0o644))
	_, err = Verify(bg, dir)
	var ce *CorruptError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, snap, ce.File)
	require.GreaterOrEqual(t, ce.Offset, int64(16))

	_, err = Verify(bg, t.TempDir())
	require.ErrorIs(t, err, ErrInvalidOption)
}

// TestBackupBesideCompaction: a compaction started during a backup's walk
// of the key map, while documents are deleted, waits for that walk (both
// note the removals in the one walk the map keeps), and the backup
// restores whole; so do backups beside compactions in a loop (R17, R12).
func TestBackupBesideCompaction(t *testing.T) { // R17, R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := openDurable(t, nil, t.TempDir(), clk, Options{})
	require.NoError(t, err)
	defer c.Close()
	const n = 40000
	for i := range n {
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%d","pk":"p"}`, i))
	}
	compacted := make(chan error, 1)
	holds := 0
	restore := local.SetWalkHook(func(int) {
		if holds++; holds == 1 {
			go func() { compacted <- c.Compact(bg) }()
		}
		for i := range 20 { // removals during the walk
			c.Delete(bg, StringKey("p"), fmt.Sprint("k", n-1-(holds*20+i)))
		}
	})
	b, info := backupOf(t, c)
	require.NoError(t, <-compacted) // its walk calls the hook too: restore it after
	restore()
	require.Greater(t, holds, 2)
	require.Equal(t, n, info.Documents)
	r := restoreAndOpen(t, b, clk)
	count := 0
	for _, err := range r.All(bg, Query{}) {
		require.NoError(t, err)
		count++
	}
	require.Equal(t, n, count)

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 10 {
			if err := c.Compact(bg); err != nil {
				t.Error(err)
				return
			}
			c.Delete(bg, StringKey("p"), fmt.Sprint("k", i))
		}
	}()
	for range 3 {
		b, info := backupOf(t, c)
		r := restoreAndOpen(t, b, clk)
		restoredState(t, r, info.LastLSN)
		r.Close()
	}
	wg.Wait()
}
