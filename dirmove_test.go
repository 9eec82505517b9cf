package ttldb

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// orderIDs returns the ids writeOrders writes for each prefix, sorted.
func orderIDs(prefixes ...string) []string {
	var ids []string
	for _, p := range prefixes {
		for i := range 100 {
			ids = append(ids, fmt.Sprintf("%s-%d", p, i))
		}
	}
	slices.Sort(ids)
	return ids
}

// TestRenamedDirKeepsItsFiles: the directory of an open durable
// collection A is renamed (mv db db.old), and another collection B opens a
// new directory made at the old path (the lock followed the renamed
// directory, so it may). A's writes, its log rotation and its compaction
// then go to its own directory, where its lock is, not to the path: A
// used to write its new log and snapshot into B's directory and remove B's
// files by name, and the two corrupted each other in silence. Reopened,
// db.old holds all of A's documents and nothing of B's; db exactly B's,
// and none of A's files. On the real filesystem and the crash filesystem,
// under SyncAlways and SyncEverySecond (R12).
func TestRenamedDirKeepsItsFiles(t *testing.T) { // R12
	for _, fsys := range []string{"os", "mem"} {
		for _, policy := range []SyncPolicy{SyncAlways, SyncEverySecond} {
			t.Run(fmt.Sprintf("%s/%v", fsys, policy), func(t *testing.T) {
				o := Options{Sync: policy}
				dir := filepath.Join(t.TempDir(), "db")
				rename := func() error { return os.Rename(dir, dir+".old") }
				list := func(dir string) ([]string, error) {
					entries, err := os.ReadDir(dir)
					var names []string
					for _, e := range entries {
						names = append(names, e.Name())
					}
					return names, err
				}
				if fsys == "mem" {
					m := &vfs.Mem{}
					dir, o.fs = "db", m
					rename = func() error { return m.RenameDir(dir, dir+".old") }
					list = m.List
				}
				open := func(dir string) *Collection {
					t.Helper()
					o := o
					o.Dir = dir
					c, err := NewCollection("orders", "/pk", &o)
					require.NoError(t, err)
					return c
				}

				a := open(dir)
				require.NoError(t, writeOrders(a, "a"))
				require.NoError(t, rename())
				b := open(dir)
				require.NoError(t, writeOrders(b, "b"))
				require.NoError(t, writeOrders(a, "a2"))
				require.NoError(t, a.Compact(t.Context())) // a new log, a snapshot, the old files removed
				require.NoError(t, writeOrders(a, "a3"))
				require.NoError(t, b.Close())
				require.NoError(t, a.Close())

				names, err := list(dir)
				require.NoError(t, err)
				require.Equal(t, []string{local.LockName, local.LogName(0), local.SnapName(0)}, names, "B's directory holds B's files only")
				names, err = list(dir + ".old")
				require.NoError(t, err)
				require.Equal(t, []string{local.LockName, local.LogName(1), local.SnapName(1)}, names, "A's directory, compacted")

				a = open(dir + ".old")
				require.Equal(t, orderIDs("a", "a2", "a3"), slices.Sorted(slices.Values(listIDs(t, a))), "A's documents, and nothing of B's")
				require.NoError(t, a.Close())
				b = open(dir)
				require.Equal(t, orderIDs("b"), slices.Sorted(slices.Values(listIDs(t, b))), "B's documents, and nothing of A's")
				require.NoError(t, b.Close())
			})
		}
	}
}

// TestRenamedDirKeepsItsFilesAcrossProcesses: as TestRenamedDirKeepsItsFiles,
// with another process as B: once A's directory is renamed, a real second
// process opens a new directory at the old path, writes 100 documents and
// closes it; A's writes and compaction that follow stay in the renamed
// directory, and each directory reopens with exactly its own documents
// (R12). On the old code, A's compaction removed the child's log by name.
func TestRenamedDirKeepsItsFilesAcrossProcesses(t *testing.T) { // R12
	dir := filepath.Join(t.TempDir(), "db")
	a, err := NewCollection("orders", "/pk", &Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, writeOrders(a, "a"))
	require.NoError(t, os.Rename(dir, dir+".old"))
	require.Equal(t, "opened", runLockChild(t, dir), "another process, on a new directory at the old path")
	require.NoError(t, writeOrders(a, "a2"))
	require.NoError(t, a.Compact(t.Context()))
	require.NoError(t, a.Close())

	for d, want := range map[string][]string{dir + ".old": orderIDs("a", "a2"), dir: orderIDs("child")} {
		c, err := NewCollection("orders", "/pk", &Options{Dir: d})
		require.NoError(t, err, d)
		require.Equal(t, want, slices.Sorted(slices.Values(listIDs(t, c))), d)
		require.NoError(t, c.Close())
	}
}

// TestCloseClosesTheDirectory: a durable collection holds its directory
// open (the Dir its files are named in) and its lock; Close closes them,
// with its log: after a warm-up, opening, writing, compacting and closing
// a collection leaves the process with the descriptors it had (R12). On
// Linux, where /proc/self/fd lists them.
func TestCloseClosesTheDirectory(t *testing.T) { // R12
	fds := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(entries)
	}
	cycle := func() {
		c, err := NewCollection("orders", "/pk", &Options{Dir: t.TempDir()})
		require.NoError(t, err)
		mustCreate(t, c, `{"id":"a","pk":"p"}`)
		require.NoError(t, c.Compact(t.Context()))
		require.NoError(t, c.Close())
	}
	cycle()
	before := fds()
	for range 3 {
		cycle()
	}
	require.Equal(t, before, fds(), "descriptors left open by three collections closed")
}

// listIDs lists the ids of c's documents, in key order, page by page.
func listIDs(t *testing.T, c *Collection) []string {
	t.Helper()
	var ids []string
	for d, err := range c.All(bg, Query{}) {
		require.NoError(t, err)
		ids = append(ids, d.ID())
	}
	return ids
}
