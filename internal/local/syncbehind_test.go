package local

// Tests of the journal's sync of the second under SyncEverySecond
// (syncbehind.go), in a testing/synctest bubble: the journal's
// ticker is the bubble's, and a file's sync is held by the test.

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// heldSyncs is a filesystem in memory whose next file sync, once armed,
// waits until released, and says which file it holds first.
type heldSyncs struct {
	*vfs.Mem
	armed   atomic.Bool
	fail    atomic.Bool // the held sync fails once released
	held    chan string // the name of the file whose sync is held
	release chan struct{}
	once    sync.Once
}

func newHeldSyncs() *heldSyncs {
	return &heldSyncs{Mem: &vfs.Mem{}, held: make(chan string, 1), release: make(chan struct{})}
}

// holdNext arms h, failing the held sync once released if fail is set,
// and lets the journal's round of the second run (in the bubble: a
// second of its time): it returns the name of the file whose sync the
// round made, held. It fails t when the round made none.
func (h *heldSyncs) holdNext(t *testing.T, fail bool) string {
	t.Helper()
	h.fail.Store(fail)
	h.armed.Store(true)
	time.Sleep(time.Second)
	synctest.Wait()
	select {
	case name := <-h.held:
		return name
	default:
		t.Fatal("the journal's round of the second made no sync")
		return ""
	}
}

// let releases the held sync, and every later one; it may be called again.
func (h *heldSyncs) let() { h.once.Do(func() { close(h.release) }) }

func (h *heldSyncs) OpenDir(dir string) (vfs.Dir, error) {
	d, err := h.Mem.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	return heldDir{d, h}, nil
}

type heldDir struct {
	vfs.Dir
	h *heldSyncs
}

func (d heldDir) Create(name string) (vfs.File, error) {
	f, err := d.Dir.Create(name)
	if err != nil {
		return nil, err
	}
	return heldFile{f, d.h, name}, nil
}

func (d heldDir) Open(name string) (vfs.File, error) {
	f, err := d.Dir.Open(name)
	if err != nil {
		return nil, err
	}
	return heldFile{f, d.h, name}, nil
}

type heldFile struct {
	vfs.File
	h    *heldSyncs
	name string
}

func (f heldFile) Sync() error {
	if f.h.armed.CompareAndSwap(true, false) {
		f.h.held <- f.name
		<-f.h.release
		if f.h.fail.Load() {
			return errors.New("input/output error (the held sync)")
		}
	}
	return f.File.Sync()
}

// openHeld opens a durable collection under SyncEverySecond on a
// heldSyncs, closed (and any held sync let go) when the test ends. Call it
// in a synctest bubble.
func openHeld(t *testing.T) (*heldSyncs, *Collection, *fakeClock) {
	t.Helper()
	h := newHeldSyncs()
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c, err := openDurable(t, h, "db", clk, Options{Sync: SyncEverySecond})
	require.NoError(t, err)
	t.Cleanup(func() {
		h.let()
		c.Close()
	})
	return h, c, clk
}

// R12: under SyncEverySecond the sync of the second is made without the
// lock that writers take to write their groups: a write made while the
// disk syncs returns at once (with the lock held through the sync, every
// write waited for it, 70-110 ms once a second under load), and the sync
// counts as synced only what was written before it began.
func TestSyncBehindLeavesWritersAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, c, clk := openHeld(t)
		j := c.local.j
		ctx := context.Background()
		_, err := c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"a"}`))
		require.NoError(t, err)
		before := j.written.Load()
		require.Less(t, j.synced.Load(), before, "a write under SyncEverySecond waits for no sync")

		require.Equal(t, LogName(0), h.holdNext(t, false), "the sync held is the log's")
		require.True(t, j.fmu.TryLock(), "the journal holds fmu through its sync: writers wait for the disk")
		j.fmu.Unlock()
		_, err = c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"b"}`))
		require.NoError(t, err, "a write while the log syncs")
		after := j.written.Load()
		require.Greater(t, after, before, "the write made during the sync is written")

		h.let()
		synctest.Wait()
		require.Equal(t, before, j.synced.Load(), "the sync counts what was written before it began, and no more")
		j.fmu.Lock()
		unsync := j.unsync
		j.fmu.Unlock()
		require.True(t, unsync, "what was written during the sync is still to sync")

		time.Sleep(time.Second) // the next round syncs it
		synctest.Wait()
		require.Equal(t, after, j.synced.Load())
		require.NoError(t, c.Close())

		// Both writes are in the log.
		r, err := openDurable(t, h.Mem, "db", clk, Options{Sync: SyncEverySecond})
		require.NoError(t, err)
		defer r.Close()
		for _, id := range []string{"a", "b"} {
			_, err := r.Get(ctx, StringKey("p"), id)
			require.NoError(t, err, id)
		}
	})
}

// R12: a compaction that rotates the log while the journal's sync of the
// second holds the log (next waits for that sync before it closes the
// file) loses nothing, and the files reopen whole.
func TestSyncBehindThenRotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, c, clk := openHeld(t)
		ctx := context.Background()
		ids := []string{}
		put := func(id string) {
			_, err := c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"`+id+`"}`))
			require.NoError(t, err, id)
			ids = append(ids, id)
		}
		for _, id := range []string{"a", "b", "c"} {
			put(id)
		}
		h.holdNext(t, false)
		// The compaction and a write race to write the rotation; whichever
		// does waits for the held sync before it closes the log.
		compacted, wrote := make(chan error, 1), make(chan error, 1)
		go func() { compacted <- c.Compact(ctx) }()
		go func() {
			_, err := c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"d"}`))
			wrote <- err
		}()
		h.let()
		require.NoError(t, <-compacted)
		require.NoError(t, <-wrote)
		ids = append(ids, "d")
		put("e")
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, uint64(1), c.local.j.rotated.Load(), "the compaction rotated the log")
		require.NoError(t, c.Close())

		r, err := openDurable(t, h.Mem, "db", clk, Options{Sync: SyncEverySecond})
		require.NoError(t, err)
		defer r.Close()
		for _, id := range ids {
			_, err := r.Get(ctx, StringKey("p"), id)
			require.NoError(t, err, id)
		}
		st, err := r.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, len(ids), st.Live)
	})
}

// R12: a failed sync of the second fails the rotation of the log that
// overlaps it. The operating system may report a failed writeback to one
// of several syncs in progress only: the rotation's own sync of the log,
// made while the failing one was in progress, could succeed, and the log
// then claim to be synced whole, the next one begun. The rotation waits
// for the sync in progress, and fails with it.
func TestSyncBehindFailureFailsTheRotation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, c, _ := openHeld(t)
		ctx := context.Background()
		for _, id := range []string{"a", "b"} {
			_, err := c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"`+id+`"}`))
			require.NoError(t, err, id)
		}
		h.holdNext(t, true)
		j := c.local.j
		compacted := make(chan error, 1)
		go func() { compacted <- c.Compact(ctx) }()
		// Until the compaction holds fmu to write its rotation (nothing
		// else takes it here), and a while more, for it to reach the sync.
		for j.fmu.TryLock() {
			j.fmu.Unlock()
			runtime.Gosched()
		}
		for range 1000 {
			runtime.Gosched()
		}
		h.let()
		require.Error(t, <-compacted, "a compaction whose rotation overlapped a failed sync")
		require.Zero(t, j.rotated.Load(), "no next log after a failed sync")
		require.True(t, c.x.Unusable(), "the collection fails with its log")
	})
}

// R12: a failed sync of the second fails the collection: no write is
// acknowledged after it.
func TestSyncBehindFailureFailsTheCollection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, c, _ := openHeld(t)
		ctx := context.Background()
		_, err := c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"a"}`))
		require.NoError(t, err)
		h.holdNext(t, true)
		h.let()
		synctest.Wait()
		require.True(t, c.x.Unusable(), "the collection fails with its log")
		_, err = c.UpsertJSON(ctx, []byte(`{"pk":"p","id":"b"}`))
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorContains(t, err, "input/output error (the held sync)")
	})
}
