package ttldb

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// restoreChildEnv makes the test binary a child of TestRestoreKilled: it
// restores the backup in the file restoreFromEnv names into the directory
// restoreChildEnv names, saying each read of the backup, until it is
// killed or done.
const (
	restoreChildEnv = "TTLDB_RESTORE_CHILD_DIR"
	restoreFromEnv  = "TTLDB_RESTORE_CHILD_FROM"
)

// sayingReader reads at most 64 KiB at a time, and prints "read" before
// each read and "eof" at the end.
type sayingReader struct{ r io.Reader }

func (s sayingReader) Read(p []byte) (int, error) {
	fmt.Println("read")
	n, err := s.r.Read(p[:min(len(p), 64<<10)])
	if err == io.EOF {
		fmt.Println("eof")
	}
	return n, err
}

// restoreChild restores the backup from into dir, and prints "done".
func restoreChild(dir, from string) {
	f, err := os.Open(from)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	if _, err := Restore(bg, sayingReader{f}, dir); err != nil {
		fmt.Println("restore:", err)
		os.Exit(2)
	}
	fmt.Println("done")
	os.Exit(0)
}

// TestRestoreKilled: a child process restoring a backup is killed with
// SIGKILL at a random read of the backup, or just after its last (as it
// checks and writes the collection); the directory it leaves is refused by
// an open with ErrCorrupt naming RESTORING, or holds nothing (killed
// before the mark), or is the whole restore; a restore into it again
// finishes (R17, R12).
func TestRestoreKilled(t *testing.T) { // R17, R12
	if os.Getenv(restoreChildEnv) != "" {
		t.Skip("the child")
	}
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("test", "/pk", &Options{Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	pad := strings.Repeat("x", 200)
	for i := range 10_000 { // about 2.5 MB: some 40 reads
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%d","pk":"p","v":%q}`, i, pad))
	}
	b, info := backupOf(t, c)
	want := originalState(c)
	from := filepath.Join(t.TempDir(), "backup")
	require.NoError(t, os.WriteFile(from, b, 0o644))
	reads := len(b)/(64<<10) + 2
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 2))
	for k := range sized(4, 20) {
		dir := filepath.Join(t.TempDir(), "restored")
		stopAt := 1 + r.IntN(reads+1) // the lines: the reads, then "eof"
		if k == 0 {
			stopAt = reads + 1 // "eof": as it checks and writes
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), restoreChildEnv+"="+dir, restoreFromEnv+"="+from)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		lines := bufio.NewScanner(stdout)
		said := 0
		for lines.Scan() {
			switch l := lines.Text(); l {
			case "read", "eof", "done":
			default:
				t.Fatalf("kill %d: the child says %q", k, l)
			}
			if said++; said == stopAt {
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			}
		}
		cmd.Wait()

		what := fmt.Sprintf("kill %d, at line %d", k, stopAt)
		names, _ := os.ReadDir(dir)
		if len(names) == 0 || len(names) == 1 && names[0].Name() == "LOCK" {
			t.Logf("%s: killed before the mark", what)
		} else if r, err := NewCollection("test", "/pk", &Options{Dir: dir, Now: clk.Now, ManualSweep: true}); err == nil {
			t.Logf("%s: the whole restore", what)
			require.Equal(t, want, restoredState(t, r, info.LastLSN), "%s: the directory opens: it is the whole restore", what)
			r.Close()
			continue
		} else {
			t.Logf("%s: refused: %v", what, err)
			require.ErrorIs(t, err, ErrCorrupt, what)
			require.ErrorContains(t, err, "RESTORING", what)
		}
		_, err = Restore(bg, strings.NewReader(string(b)), dir)
		require.NoError(t, err, "%s: a restore into it again", what)
		r, err := NewCollection("test", "/pk", &Options{Dir: dir, Now: clk.Now, ManualSweep: true})
		require.NoError(t, err, what)
		require.Equal(t, want, restoredState(t, r, info.LastLSN), what)
		r.Close()
	}
}
