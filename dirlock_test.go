package ttldb

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
	"github.com/ttldb/ttldb/internal/vfs"
)

// lockChildEnv makes the test binary a child of TestLockSurvivesRemovedLockFile:
// it opens the directory the variable names and, if it can, writes 100
// documents of its own and closes it. It prints what happened: "locked",
// "opened", or the error.
const lockChildEnv = "TTLDB_LOCK_CHILD_DIR"

// lockChild is the child process of TestLockSurvivesRemovedLockFile.
func lockChild(dir string) {
	c, err := NewCollection("orders", "/pk", &Options{Dir: dir})
	switch {
	case errors.Is(err, ErrLocked):
		fmt.Println("locked")
		return
	case err != nil:
		fmt.Println("open:", err)
		return
	}
	err = writeOrders(c, "child")
	if err = errors.Join(err, c.Close()); err != nil {
		fmt.Println("write:", err)
		return
	}
	fmt.Println("opened")
}

// writeOrders creates 100 documents, ids prefix-0 to prefix-99.
func writeOrders(c *Collection, prefix string) error {
	for i := range 100 {
		if _, err := c.Create(bg, fmt.Appendf(nil, `{"id":"%s-%d","pk":"p"}`, prefix, i)); err != nil {
			return err
		}
	}
	return nil
}

// runLockChild runs the test binary as the child that opens dir, and
// returns what it printed.
func runLockChild(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// TestLockSurvivesRemovedLockFile: the directory of an open durable
// collection stays locked when its LOCK file is removed, by a person or a
// cleanup script: another process that opens it gets ErrLocked, where it
// used to open it too, and the two writers lost half of the 200 documents
// they both acknowledged. Once the first closes, the other opens it, and
// every document of both is there (R12).
func TestLockSurvivesRemovedLockFile(t *testing.T) { // R12
	dir := t.TempDir()
	a, err := NewCollection("orders", "/pk", &Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, local.LockName)))
	require.Equal(t, "locked", runLockChild(t, dir), "another process, after LOCK was removed")
	require.NoError(t, writeOrders(a, "parent"))
	require.NoError(t, a.Close())

	require.Equal(t, "opened", runLockChild(t, dir), "another process, once the first closed")
	c, err := NewCollection("orders", "/pk", &Options{Dir: dir})
	require.NoError(t, err)
	defer c.Close()
	n, err := c.Count(bg, Query{})
	require.NoError(t, err)
	require.Equal(t, 200, n, "the documents both processes acknowledged")
}

// TestLockSurvivesRemovedLockFileInProcess: within one process too, on the
// real filesystem and the crash filesystem, a second collection on the
// directory gets ErrLocked after LOCK's removal and changes nothing; once
// the first is closed, it opens (R12).
func TestLockSurvivesRemovedLockFileInProcess(t *testing.T) { // R12
	for _, fsys := range []struct {
		name string
		mem  bool
	}{{"os", false}, {"mem", true}} {
		t.Run(fsys.name, func(t *testing.T) {
			o := &Options{Dir: t.TempDir()}
			remove := func() error { return os.Remove(filepath.Join(o.Dir, local.LockName)) }
			if fsys.mem {
				m := &vfs.Mem{}
				o.fs, o.Dir = m, "db"
				remove = func() error { return m.Remove("db/" + local.LockName) }
			}
			a, err := NewCollection("orders", "/pk", o)
			require.NoError(t, err)
			mustCreate(t, a, `{"id":"a","pk":"p"}`)
			require.NoError(t, remove())
			_, err = NewCollection("orders", "/pk", o)
			require.ErrorIs(t, err, ErrLocked)
			mustCreate(t, a, `{"id":"b","pk":"p"}`)
			require.NoError(t, a.Close())
			b, err := NewCollection("orders", "/pk", o)
			require.NoError(t, err)
			defer b.Close()
			n, err := b.Count(bg, Query{})
			require.NoError(t, err)
			require.Equal(t, 2, n)
		})
	}
}
