package ttldb

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// killChildEnv makes the test binary a child of TestKillMinusNine: it
// writes to the directory the variable names, with the policy of
// killPolicyEnv, until it is killed.
const (
	killChildEnv  = "TTLDB_KILL_CHILD_DIR"
	killPolicyEnv = "TTLDB_KILL_CHILD_POLICY"
	killRunEnv    = "TTLDB_KILL_CHILD_RUN"
)

// TestMain runs the child of TestKillMinusNine, of TestRestoreKilled or
// of TestLockSurvivesRemovedLockFile when asked to, and the tests
// otherwise.
func TestMain(m *testing.M) {
	if dir := os.Getenv(lockChildEnv); dir != "" {
		lockChild(dir)
		return
	}
	if dir := os.Getenv(restoreChildEnv); dir != "" {
		restoreChild(dir, os.Getenv(restoreFromEnv))
		return
	}
	if dir := os.Getenv(killChildEnv); dir != "" {
		policy, _ := strconv.Atoi(os.Getenv(killPolicyEnv))
		run, _ := strconv.Atoi(os.Getenv(killRunEnv))
		killChild(dir, SyncPolicy(policy), uint64(run))
		return
	}
	os.Exit(m.Run())
}

// killChild writes, from four goroutines, documents of its own ids
// (run-w-i), deleting some it wrote before, compacting now and then; one
// write in six is a transactional batch that creates run-w-i and two to
// five more documents, run-w-i.1 and on (R14). It prints each change
// before it makes it ("try-put id n", "try-del id", "try-batch id n id n
// ...") and once the call that made it returned ("put id n", "del id",
// "batch id n id n ..."). It runs until it is killed.
func killChild(dir string, policy SyncPolicy, n uint64) {
	c, err := NewCollection("kill", "/pk", &Options{Dir: dir, Sync: policy, compactAt: 64 << 10})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	say := func(s string) { // one line a write, flushed before the next write
		mu.Lock()
		out.WriteString(s + "\n")
		out.Flush()
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(n, uint64(w)))
			for i := 0; ; i++ {
				id := fmt.Sprintf("%d-%d-%d", n, w, i)
				if r.IntN(6) == 0 { // R14
					b, what := NewBatch(StringKey("p")), ""
					for j := range 3 + r.IntN(4) {
						bid := id
						if j > 0 {
							bid = fmt.Sprintf("%s.%d", id, j)
						}
						v := strings.Repeat("x", r.IntN(500)) // a batch writes about what a Create does
						b.Create(fmt.Appendf(nil, `{"id":%q,"pk":"p","v":%q}`, bid, v))
						what += fmt.Sprintf(" %s %d", bid, len(v))
					}
					say("try-batch" + what)
					if _, err := c.ExecuteBatch(bg, b); err != nil {
						say("error " + err.Error())
						return
					}
					say("batch" + what)
				} else {
					v := strings.Repeat("x", r.IntN(2000))
					say(fmt.Sprintf("try-put %s %d", id, len(v)))
					if _, err := c.Create(bg, fmt.Appendf(nil, `{"id":%q,"pk":"p","v":%q}`, id, v)); err != nil {
						say("error " + err.Error())
						return
					}
					say(fmt.Sprintf("put %s %d", id, len(v)))
				}
				if i > 0 && r.IntN(4) == 0 {
					old := fmt.Sprintf("%d-%d-%d", n, w, r.IntN(i))
					say("try-del " + old)
					if err := c.Delete(bg, StringKey("p"), old); err == nil {
						say("del " + old)
					} else {
						say("nodel " + old) // deleted before
					}
				}
				if w == 0 && i%300 == 299 {
					c.Compact(context.Background())
				}
			}
		}()
	}
	wg.Wait()
	os.Exit(3)
}

// TestKillMinusNine: a child process writing to a durable collection is
// killed with SIGKILL at random points, again and again on the same
// directory, under every policy; after each kill the directory opens, and
// every change the child acknowledged (printed) is there, whole: every
// document it created and did not delete, with its body, and none it
// deleted (R12); of a batch in flight, all of its documents or none
// (R14).
func TestKillMinusNine(t *testing.T) { // R12, R14
	if os.Getenv(killChildEnv) != "" {
		t.Skip("the child")
	}
	kills := sized(9, 60) // three of each policy, or twenty (LongTests)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	live := map[string]int{}  // id: length of v, of every acknowledged document not deleted
	gone := map[string]bool{} // acknowledged deletes
	for k := range kills {
		policy := SyncPolicy(k % 3)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), killChildEnv+"="+dir, killPolicyEnv+"="+strconv.Itoa(int(policy)), killRunEnv+"="+strconv.Itoa(k))
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		lines := bufio.NewScanner(stdout)
		stopAt := 1 + r.IntN(400)
		maybe := map[string]string{}   // changes begun and not acknowledged: id: "put n" or "del"
		batch := map[string][]string{} // batches begun and not acknowledged: first id: every id
		for seen := 0; lines.Scan(); seen++ {
			f := strings.Fields(lines.Text())
			switch f[0] {
			case "try-put":
				maybe[f[1]] = "put " + f[2]
			case "try-batch":
				var ids []string
				for i := 1; i+1 < len(f); i += 2 {
					maybe[f[i]] = "put " + f[i+1]
					ids = append(ids, f[i])
				}
				batch[f[1]] = ids
			case "batch":
				for i := 1; i+1 < len(f); i += 2 {
					live[f[i]], _ = strconv.Atoi(f[i+1])
					delete(maybe, f[i])
				}
				delete(batch, f[1])
			case "try-del":
				maybe[f[1]] = "del"
			case "put":
				live[f[1]], _ = strconv.Atoi(f[2])
				delete(maybe, f[1])
			case "del":
				delete(live, f[1])
				gone[f[1]] = true
				delete(maybe, f[1])
			case "nodel":
				delete(maybe, f[1])
			default:
				t.Fatalf("kill %d: the child says %q", k, lines.Text())
			}
			if seen == stopAt { // and read on: what it printed before it died
				require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			}
		}
		cmd.Wait()

		c, err := NewCollection("kill", "/pk", &Options{Dir: dir, ManualSweep: true})
		require.NoError(t, err, "kill %d (%v): the directory opens", k, policy)
		inBatches := 0
		for _, ids := range batch {
			inBatches += len(ids) - 1
		}
		require.LessOrEqual(t, len(maybe)-inBatches, 4, "one change in flight per writer")
		// A batch in flight is all there or not at all (R14); an
		// acknowledged one is in live, all there (R12).
		for first, ids := range batch {
			there := 0
			for _, id := range ids {
				if _, err := c.Get(bg, StringKey("p"), id); err == nil {
					there++
				}
			}
			require.True(t, there == 0 || there == len(ids), "kill %d (%v): %d of the %d documents of the batch %s in flight are there", k, policy, there, len(ids), first)
		}
		for id, n := range live {
			d, err := c.Get(bg, StringKey("p"), id)
			if maybe[id] == "del" && err != nil {
				delete(live, id) // a delete in flight took effect
				continue
			}
			require.NoError(t, err, "kill %d (%v): acknowledged document %s", k, policy, id)
			var body struct{ V string }
			require.NoError(t, d.Decode(&body))
			require.Len(t, body.V, n, "kill %d: document %s whole", k, id)
		}
		// Whatever else is there is a create in flight, whole.
		for d, err := range c.All(bg, Query{}) {
			require.NoError(t, err)
			id := d.ID()
			require.False(t, gone[id], "kill %d (%v): %s was deleted, and is back", k, policy, id)
			if _, ok := live[id]; ok {
				continue
			}
			require.True(t, strings.HasPrefix(maybe[id], "put "), "kill %d: %s is there, and no create of it was begun", k, id)
			var body struct{ V string }
			require.NoError(t, d.Decode(&body))
			require.Equal(t, maybe[id], fmt.Sprint("put ", len(body.V)), "kill %d: an unacknowledged document is whole", k)
			live[id] = len(body.V) // it is there now: the next rounds keep it
		}
		require.NoError(t, c.Close())
	}
}
