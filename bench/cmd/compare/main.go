// Command compare measures a change's cost: it runs the benchmarks of two
// revisions of ttldb side by side, in one run, and prints their medians and
// the ratio of new to old.
//
// Run it from the bench directory:
//
//	cd bench && go run ./cmd/compare -old 54e54a3 -new HEAD
//	cd bench && go run ./cmd/compare -old HEAD -new .   # HEAD against the edits in the working tree
//	cd bench && go run ./cmd/compare -old HEAD~1 -new HEAD -bench '^(Write|Read|Mixed|RemovalNone|Durable)$/^ttldb$' -count 5 -benchtime 1s -md /tmp/compare.md
//
// For each revision it makes a temporary git worktree of the repository
// (git worktree add --detach), detached at that commit, and builds the
// benchmark test binary of its bench directory (go test -c), which uses
// the ttldb module of the same checkout through bench/go.mod's replace;
// the revision "." is the working tree as it is, uncommitted changes
// included, built in place. So it depends on no ttldb API, only on each
// revision's own benchmarks, whose names must be the same in both. The
// worktrees are removed when it ends, also on an error or an interrupt.
//
// It then runs the two binaries in rounds, as cmd/report runs one: in
// each round, for each store and each group of benchmarks that share a
// process (benchrun.Groups: a process holds one store's heap at a time),
// one process of each binary, -count 1 -benchmem, old first in one round
// and new first in the next (old, new, new, old, ...), so that a change in
// the machine's load does not fall on one side. Each process runs in its
// revision's bench directory (Durable writes under its out/).
//
// Per benchmark it takes the median over the rounds of ns/op, allocs/op,
// B/op and any metric of the benchmark's own, and prints them for old and
// new with the ratio new/old, the spread of the rounds, the CPU,
// GOMAXPROCS, the revisions (short hashes; "dirty" for a working tree with
// changes), the rounds and -benchtime. It flags a time ratio outside
// 0.97–1.03 and any change in allocs/op. -md also writes the table as
// Markdown, to paste into a note.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

var (
	oldRev    = flag.String("old", "HEAD", "the revision before the change: a commit (anything git rev-parse takes), or . for the working tree")
	newRev    = flag.String("new", ".", "the revision after the change: a commit, or . for the working tree as it is, uncommitted changes included")
	benchRE   = flag.String("bench", "^(Write|Read|Mixed|RemovalNone|Durable)$/^ttldb$", "the workloads to run, as cmd/report's -bench: a regular expression of the workloads (^Write$ or ^BenchmarkWrite$), after a slash one of the stores")
	count     = flag.Int("count", 5, "rounds: each figure is the median of this many runs of each revision")
	benchtime = flag.String("benchtime", "1s", "-benchtime of every group but the slow one")
	slowtime  = flag.String("slowtime", "1x", "-benchtime of the slow group (Removal10k, Stall, Lag, Reopen, FirstList)")
	items     = flag.Int("items", 1_000_000, "items in a full store")
	mdOut     = flag.String("md", "", "also write the table as Markdown to this file")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("compare: ")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("unexpected arguments %q: every setting is a flag (-old, -new, -bench, ...)", flag.Args())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// revision is one side of the comparison.
type revision struct {
	name  string // old or new
	spec  string // as given: a commit or "."
	label string // as printed: a short hash, "dirty" for a changed working tree
	dir   string // its bench directory
	bin   string // its benchmark test binary
	s     samples
}

func run(ctx context.Context) (err error) {
	if *count < 1 {
		return fmt.Errorf("-count %d: at least one round is needed", *count)
	}
	if *items < 1 {
		return fmt.Errorf("-items %d: a store needs at least one item", *items)
	}
	root, err := git(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("run me from the bench directory of a ttldb checkout (cd bench && go run ./cmd/compare): %v", err)
	}
	stores, err := benchrun.SelectStores(benchrun.Stores, *benchRE)
	if err != nil {
		return err
	}
	type process struct{ store, group, time string }
	var procs [][]process // per store, in the order of benchrun.Stores
	for _, store := range stores {
		var ps []process
		for _, g := range benchrun.Groups {
			group, err := benchrun.SelectGroup(g.Workloads, store, *benchRE)
			if err != nil {
				return err
			}
			if group != "" {
				ps = append(ps, process{store, group, map[bool]string{false: *benchtime, true: *slowtime}[g.Slow]})
			}
		}
		if ps != nil {
			procs = append(procs, ps)
		}
	}
	if len(procs) == 0 {
		return fmt.Errorf("-bench %q matches no workload of its stores", *benchRE)
	}

	tmp, err := os.MkdirTemp("", "ttldb-compare-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); rerr != nil {
			log.Printf("removing %s: %v", tmp, rerr)
		}
	}()
	before := &revision{name: "old", spec: *oldRev, s: samples{}}
	after := &revision{name: "new", spec: *newRev, s: samples{}}
	for _, r := range []*revision{before, after} {
		cleanup, err := r.checkout(ctx, root, tmp)
		defer cleanup()
		if err != nil {
			return err
		}
		if err := r.build(ctx, tmp); err != nil {
			return err
		}
	}

	c := &comparison{
		CPU: benchrun.CPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(),
		Old: before.label, New: after.label, Rounds: *count, Benchtime: *benchtime, Slowtime: *slowtime,
		Items: *items, Bench: *benchRE, Command: commandLine(os.Args[1:]),
		LoadBefore: loadavg(), old: before.s, new: after.s,
	}
	for r := range *count {
		sides := []*revision{before, after}
		if r%2 == 1 {
			sides[0], sides[1] = after, before
		}
		for i := range procs {
			for _, p := range procs[(i+r)%len(procs)] {
				for _, side := range sides {
					log.Printf("round %d/%d, %s (%s), %s: %s", r+1, *count, side.name, side.label, p.store, p.group)
					out, err := side.runBench(ctx, p.store, p.group, p.time)
					if ctx.Err() != nil {
						return ctx.Err()
					}
					if err != nil {
						log.Printf("%s %s %s: %v (its figures are missing from this round)", side.name, p.store, p.group, err)
					}
					side.s.add(out, &c.order)
				}
			}
		}
	}
	c.LoadAfter = loadavg()
	if len(c.order) == 0 {
		return errors.New("no benchmark gave a figure: see the output above")
	}
	fmt.Print("\n" + c.text())
	if *mdOut != "" {
		if err := os.WriteFile(*mdOut, []byte(c.markdown()), 0o644); err != nil {
			return err
		}
		log.Printf("wrote %s", *mdOut)
	}
	return nil
}

// checkout makes r's bench directory: a new worktree of root under tmp
// detached at r's commit, or root's own for ".". cleanup removes the
// worktree; it is to be called even when checkout fails.
func (r *revision) checkout(ctx context.Context, root, tmp string) (cleanup func(), err error) {
	cleanup = func() {}
	if r.spec == "." {
		head, err := git(ctx, root, "rev-parse", "--short", "HEAD")
		if err != nil {
			return cleanup, err
		}
		status, err := git(ctx, root, "status", "--porcelain")
		if err != nil {
			return cleanup, err
		}
		r.label = head + " (the working tree, no changes)"
		if status != "" {
			r.label = head + "-dirty (the working tree)"
		}
		r.dir = filepath.Join(root, "bench")
		return cleanup, nil
	}
	commit, err := git(ctx, root, "rev-parse", "--verify", "--quiet", r.spec+"^{commit}")
	if err != nil {
		return cleanup, fmt.Errorf("-%s %q: not a commit of %s (a hash, a branch, HEAD~1, or . for the working tree)", r.name, r.spec, root)
	}
	if r.label, err = git(ctx, root, "rev-parse", "--short", commit); err != nil {
		return cleanup, err
	}
	wt := filepath.Join(tmp, r.name)
	cleanup = func() {
		// Not ctx: it may be done (an interrupt), and the worktree must go.
		out, err := exec.Command("git", "-C", root, "worktree", "remove", "--force", wt).CombinedOutput()
		if err != nil {
			if _, serr := os.Stat(wt); serr == nil || !strings.Contains(string(out), "is not a working tree") {
				log.Printf("removing the worktree %s: %v: %s (git worktree prune clears what is left)", wt, err, strings.TrimSpace(string(out)))
			}
		}
	}
	log.Printf("%s: %s in %s", r.name, r.label, wt)
	if _, err := git(ctx, root, "worktree", "add", "--detach", wt, commit); err != nil {
		return cleanup, err
	}
	r.dir = filepath.Join(wt, "bench")
	if !strings.Contains(benchrun.ReadFile(filepath.Join(r.dir, "go.mod")), "module github.com/ttldb/ttldb/bench") {
		return cleanup, fmt.Errorf("-%s %s: the commit has no bench module (bench/go.mod)", r.name, r.label)
	}
	return cleanup, nil
}

// build compiles r's benchmark test binary into tmp.
func (r *revision) build(ctx context.Context, tmp string) error {
	r.bin = filepath.Join(tmp, r.name+".test")
	log.Printf("%s: building the benchmarks of %s", r.name, r.label)
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", r.bin, ".")
	cmd.Dir = r.dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the benchmarks of -%s %s in %s: %v", r.name, r.label, r.dir, err)
	}
	return nil
}

// runBench runs one process of r's binary and returns its output, which
// it also copies to stderr.
func (r *revision) runBench(ctx context.Context, store, group, benchtime string) (string, error) {
	cmd := exec.CommandContext(ctx, r.bin, benchrun.Args(store, group, benchtime, *items)...)
	cmd.Dir = r.dir
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, os.Stderr)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	return out.String(), err
}

// git runs git in dir and returns its output, trimmed; the error holds
// what git wrote to stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// commandLine is the command that runs compare with args, quoted for a
// shell where an argument needs it.
func commandLine(args []string) string {
	q := []string{"go", "run", "./cmd/compare"}
	for _, a := range args {
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@", r))
		}) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q = append(q, a)
	}
	return strings.Join(q, " ")
}

func loadavg() string { return strings.TrimSpace(benchrun.ReadFile("/proc/loadavg")) }
