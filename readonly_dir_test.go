package ttldb

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestVerifyAndReadOnlyOnADirectoryNotWritable: Verify and the read-only
// open read a directory they cannot write (chmod 0500, its files 0400),
// as a backup copy or a mount read-only is (R17, R12). Root writes
// whatever the modes say: the test skips as root.
func TestVerifyAndReadOnlyOnADirectoryNotWritable(t *testing.T) { // R17, R12
	if os.Geteuid() == 0 {
		t.Skip("running as root, which writes a directory of mode 0500: run as another user to check this")
	}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	dir := t.TempDir()
	c, err := NewCollection("test", "/pk", &Options{Dir: dir, Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	mustCreate(t, c, `{"id":"b","pk":"p"}`)
	require.NoError(t, c.Close())
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range names {
		require.NoError(t, os.Chmod(filepath.Join(dir, e.Name()), 0o400))
	}
	require.NoError(t, os.Chmod(dir, 0o500))
	t.Cleanup(func() { os.Chmod(dir, 0o700) })

	rep, err := Verify(bg, dir)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Live)
	r, err := Open(bg, "file://"+dir, &Options{ReadOnly: true, Now: clk.Now})
	require.NoError(t, err)
	defer r.Close()
	mustGet(t, r, StringKey("p"), "a")
}
