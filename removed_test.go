package ttldb

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// requireFailedRemoved checks that err is the failure of a collection
// whose directory was removed: ErrClosed, wrapping the cause.
func requireFailedRemoved(t *testing.T, err error, msg string) {
	t.Helper()
	require.ErrorIs(t, err, ErrClosed, msg)
	require.ErrorIs(t, err, fs.ErrNotExist, msg)
	require.ErrorContains(t, err, "removed", msg)
}

// TestRemovedDirectoryFails: issue 27's directory removed (rm -rf) under an
// open collection, on real files and in vfs.Mem. Under SyncAlways the
// first write after fails with ErrClosed, wrapping the cause, and so does
// every later call and Close: nothing is acknowledged as on stable storage
// that a reopen cannot find (R12). Under SyncEverySecond and SyncNever,
// whose writes are acknowledged once written, Close reports it.
func TestRemovedDirectoryFails(t *testing.T) { // R12
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	for _, policy := range []SyncPolicy{SyncAlways, SyncEverySecond, SyncNever} {
		for _, fsName := range []string{"os", "mem"} {
			msg := fmt.Sprintf("%v on %s", policy, fsName)
			var fsys vfs.FS
			dir := filepath.Join(t.TempDir(), "db")
			removeAll := func() { require.NoError(t, os.RemoveAll(dir)) }
			if fsName == "mem" {
				mem := &vfs.Mem{}
				fsys, removeAll = mem, func() { mem.RemoveAll(dir) }
			}
			c, err := openDurable(t, fsys, dir, clk, Options{Sync: policy})
			require.NoError(t, err, msg)
			writeN(t, c, 0, 10)
			removeAll()
			acked := 0
			for i := range 50 {
				if _, err = c.Create(bg, []byte(fmt.Sprintf(`{"id":"after%d","pk":"p"}`, i))); err != nil {
					break
				}
				acked++
			}
			if policy == SyncAlways {
				require.Zero(t, acked, msg+": nothing acknowledged after the removal")
				requireFailedRemoved(t, err, msg+": the first write after")
				_, err = c.Get(bg, StringKey("p"), "0")
				requireFailedRemoved(t, err, msg+": every later call")
				_, err = c.Create(bg, []byte(`{"id":"later","pk":"p"}`))
				requireFailedRemoved(t, err, msg+": every later call")
			} else {
				require.Equal(t, 50, acked, msg+": written, as the policy says")
			}
			requireFailedRemoved(t, c.Close(), msg+": Close")
			requireFailedRemoved(t, c.Close(), msg+": Close, again")
		}
	}
}

// TestRemovedDirectoryFailsWithinASecond: under SyncEverySecond the sync
// of the second finds the directory removed and closes the collection:
// the next write fails, rather than be acknowledged for a file no reopen
// will find (R12). Real files, in a bubble whose clock the test moves.
func TestRemovedDirectoryFailsWithinASecond(t *testing.T) { // R12
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "db")
		c, err := NewCollection("test", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err)
		writeN(t, c, 0, 10)
		require.NoError(t, os.RemoveAll(dir))
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		_, err = c.Get(bg, StringKey("p"), "0")
		requireFailedRemoved(t, err, "a read after the sync of the second: the collection is closed")
		_, err = c.Create(bg, []byte(`{"id":"after","pk":"p"}`))
		requireFailedRemoved(t, err, "a write")
		requireFailedRemoved(t, c.Close(), "Close")
	})
}

// R12: an idle collection, its log synced, finds its directory removed by
// the sync of the second too, with nothing written since.
func TestRemovedDirectoryFailsWithinASecondWhenIdle(t *testing.T) { // R12
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "db")
		c, err := NewCollection("test", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err)
		writeN(t, c, 0, 10)
		time.Sleep(1500 * time.Millisecond) // the sync of the second: nothing left to sync
		synctest.Wait()
		require.NoError(t, os.RemoveAll(dir))
		time.Sleep(time.Second)
		synctest.Wait()
		_, err = c.Get(bg, StringKey("p"), "0")
		requireFailedRemoved(t, err, "a read after the next sync of the second: the collection is closed")
		requireFailedRemoved(t, c.Close(), "Close")
	})
}

// writeN creates the documents "first" to "first+n-1" in partition "p".
func writeN(t *testing.T, c *Collection, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
	}
}
