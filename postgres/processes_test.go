package postgres

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// Several real OS processes sharing one collection (issue 29, R16): the
// test binary runs itself again as children (TestSharingProcess, told its
// role by procEnv), each opening the collection by URL. The children print
// what they did and saw as lines of JSON (procLine) on stdout; the parent
// coordinates them through their stdin (a line per phase: no sleeps) and
// judges what they printed, and the collection they leave.

// procEnv names the environment variable that makes TestSharingProcess a
// child: a procConfig in JSON.
const procEnv = "TTLDB_TEST_PROC"

// procMark starts every line a child prints for its parent, so that the
// testing package's own output ("PASS") is ignored.
const procMark = "TTLDBPROC "

// procT0 is the second the children's clock reads until told to advance:
// every child uses the same clock (Options.Now), so they agree on expiry
// whatever the server's clock says, and the parent moves it.
const procT0 = 2_000_000_000

// procAdvance is how far the clock moves at "advance": past every ttl the
// children write (procTTL).
const (
	procAdvance = 1000
	procTTL     = 10
)

// procBound bounds a child's whole run and each wait of the parent: a
// failure's bound, not a wait.
const procBound = 60 * time.Second

// procConfig tells a child what to do.
type procConfig struct {
	Role string // "share", "batch" or "restart"
	URL  string // the collection's server, with its search_path
	N    int    // the child's number, which names its keys
	Seed uint64 // the sharing child's draws (which documents it deletes)
}

// procLine is one line a child prints.
type procLine struct {
	Ev    string   // "ack", "read", "xread" (another's document), "feed", "sweep", "phase", "batch", "werr" (a write failed), "drained", "error"
	ID    string   `json:",omitempty"` // the document's; batch: the partition's
	Op    string   `json:",omitempty"` // ack: create, upsert, delete; feed: the change's op
	LSN   uint64   `json:",omitempty"`
	Found bool     `json:",omitempty"` // read: the Get found a document
	TTL   bool     `json:",omitempty"` // feed: timeToLiveExpired; ack: written with a ttl that expires
	N     int      `json:",omitempty"` // sweep: documents swept; phase: its number; batch: its number
	LSNs  []uint64 `json:",omitempty"` // batch: its documents' LSNs
	Err   string   `json:",omitempty"`
}

// TestSharingProcess is not a test of its own: it is the body of the
// children that TestProcesses* start, and skips when procEnv is unset.
func TestSharingProcess(t *testing.T) { // R16
	raw := os.Getenv(procEnv)
	if raw == "" {
		t.Skip("the body of TestProcesses' child processes: runs only as one, with " + procEnv + " set")
	}
	var cfg procConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		t.Fatalf("%s: %v", procEnv, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), procBound)
	defer cancel()
	out := &procOut{w: bufio.NewWriter(os.Stdout)}
	defer out.flush()
	var err error
	switch cfg.Role {
	case "share":
		err = shareChild(ctx, cfg, out)
	case "batch":
		err = batchChild(ctx, cfg, out)
	case "restart":
		err = restartChild(ctx, cfg, out) // processes_restart_test.go
	default:
		err = fmt.Errorf("unknown role %q", cfg.Role)
	}
	if err != nil {
		out.print(procLine{Ev: "error", Err: err.Error()})
		out.flush()
		t.Fatal(err)
	}
}

// procOut prints a child's lines, from any goroutine.
type procOut struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *procOut) print(l procLine) {
	b, _ := json.Marshal(l)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.WriteString(procMark)
	o.w.Write(b)
	o.w.WriteByte('\n')
}

// flush sends what was printed: before each phase line, which the parent waits for.
func (o *procOut) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.Flush()
}

// procClock is the children's shared clock: procT0, then procT0+procAdvance.
type procClock struct{ s atomic.Int64 }

func (c *procClock) now() time.Time { return time.Unix(c.s.Load(), 0) }

// openChild opens the collection by URL (R16) with the clock c, its
// background goroutine on: it sweeps and numbers too.
func openChild(ctx context.Context, cfg procConfig, c *procClock) (*ttldb.Collection, error) {
	return ttldb.Open(ctx, cfg.URL, &ttldb.Options{Name: "shared", Now: c.now})
}

// feedReader reads the all-versions feed from the start in a goroutine of
// its own, printing each change (R11).
type feedReader struct {
	mu     sync.Mutex
	last   uint64
	err    error
	moved  chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

func startFeedReader(ctx context.Context, c *ttldb.Collection, out *procOut) *feedReader {
	ctx, cancel := context.WithCancel(ctx)
	f := &feedReader{moved: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for ch, err := range c.WatchFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Limit: 1000}) {
			f.mu.Lock()
			if err != nil {
				if ctx.Err() == nil {
					f.err = err
				}
			} else {
				f.last = ch.LSN
				out.print(procLine{Ev: "feed", ID: ch.ID, Op: ch.Op.String(), LSN: ch.LSN, TTL: ch.TimeToLiveExpired})
			}
			f.mu.Unlock()
			select {
			case f.moved <- struct{}{}:
			default:
			}
		}
	}()
	return f
}

// waitFor waits until the reader has read the change of LSN lsn.
func (f *feedReader) waitFor(ctx context.Context, lsn uint64) error {
	for {
		f.mu.Lock()
		last, err := f.last, f.err
		f.mu.Unlock()
		if err != nil {
			return fmt.Errorf("WatchFeed: %w", err)
		}
		if last >= lsn {
			return nil
		}
		select {
		case <-f.moved:
		case <-ctx.Done():
			return fmt.Errorf("the feed reader read up to %d of %d: %w", last, lsn, ctx.Err())
		}
	}
}

func (f *feedReader) stop() { f.cancel(); <-f.done }

// child is a child process the parent started.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan procLine // closed at the end of its stdout
	all    []procLine    // every line, once lines is closed
	stderr bytes.Buffer
}

// startChild runs the test binary again as a child of role and number n.
func startChild(t *testing.T, cfg procConfig) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(cfg)
	ch := &child{cmd: exec.Command(exe, "-test.run=^TestSharingProcess$", "-test.count=1"), lines: make(chan procLine, 4096)}
	ch.cmd.Env = append(os.Environ(), procEnv+"="+string(raw))
	ch.cmd.Stderr = &ch.stderr
	if ch.stdin, err = ch.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := ch.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(ch.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			text, ok := strings.CutPrefix(sc.Text(), procMark)
			if !ok {
				continue
			}
			var l procLine
			if err := json.Unmarshal([]byte(text), &l); err != nil {
				l = procLine{Ev: "error", Err: "unreadable line " + text}
			}
			ch.lines <- l
		}
	}()
	t.Cleanup(func() { // a test that failed early: end the child and the reader
		_ = ch.cmd.Process.Kill()
		for range ch.lines {
		}
		_ = ch.cmd.Wait()
	})
	return ch
}

// next returns the child's lines up to the next of event ev (included),
// failing t when the child ends or reports an error first.
func (ch *child) next(t *testing.T, ev string) procLine {
	t.Helper()
	timeout := time.NewTimer(procBound)
	defer timeout.Stop()
	for {
		select {
		case l, ok := <-ch.lines:
			if !ok {
				_ = ch.cmd.Wait()
				t.Fatalf("child %v ended before a line %q; its stderr:\n%s", ch.cmd.Args, ev, ch.stderr.String())
			}
			ch.all = append(ch.all, l)
			if l.Ev == "error" {
				t.Fatalf("a child failed: %s; its stderr:\n%s", l.Err, ch.stderr.String())
			}
			if l.Ev == ev {
				return l
			}
		case <-timeout.C:
			t.Fatalf("no line %q from a child within %v", ev, procBound)
		}
	}
}

// finish reads the child's remaining lines and waits for its exit, which
// must be a success unless killed.
func (ch *child) finish(t *testing.T, killed bool) {
	t.Helper()
	for l := range ch.lines {
		ch.all = append(ch.all, l)
		if l.Ev == "error" {
			t.Errorf("a child failed: %s", l.Err)
		}
	}
	if err := ch.cmd.Wait(); err != nil && !(killed && !ch.cmd.ProcessState.Exited()) {
		t.Errorf("child: %v; its stderr:\n%s", err, ch.stderr.String())
	}
}

func (ch *child) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(ch.stdin, line+"\n"); err != nil {
		t.Fatalf("writing to a child: %v", err)
	}
}

// procCollection makes the collection the children share, TTL on without
// a default, and returns its server and the URL that opens it.
func procCollection(t *testing.T) (*server, string) {
	t.Helper()
	s := newServer(t)
	u := s.schemaURL(t, "postgres")
	c, err := ttldb.Open(t.Context(), u, &ttldb.Options{Name: "shared", PartitionKeyPath: "/pk", DefaultTTL: ttldb.TTLNoDefault(), ManualSweep: true,
		Now: func() time.Time { return time.Unix(procT0, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return s, u
}
