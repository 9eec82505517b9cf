// Command report runs ttldb's benchmark suite against its peers and writes
// BENCHMARKS.md (medians, ratios to the best peer, targets met) and a chart.
//
// Run it from the bench directory:
//
//	cd bench && go run ./cmd/report                  # the full run
//	cd bench && go run ./cmd/report -quick           # -count 3 -benchtime 300ms
//	cd bench && go run ./cmd/report -from out/raw.txt # re-render a saved run
//
// It builds the benchmark binary once and runs it in rounds: each round runs,
// for each store in turn (the order rotates), the fast group (Heap, whose
// fill makes the full store that Write, Read, ReadScale, Mixed and
// RemovalNone then share, FeedRead, DefaultTTL, Batch and Patch on a
// store of their own, and Query, QueryIndex and QueryWrite on another, of -items
// documents with secondary indexes) with -benchtime, the size group
// (WriteSize: writes into stores of a hundredth and five times -items) with
// -benchtime, and the slow group (Removal10k, Stall, Lag, Reopen,
// FirstList), whose operations build their own stores or wait on real
// time, with -slowtime, and the disk
// group (Durable: writes to stores on disk, ttldb and buntdb only) with
// -benchtime; each group
// in its own process, so that a process holds one store's heap at a time. A
// figure is the median over the rounds. ttldb's variants (ttldb_feed_off:
// the change feed off; ttldb_listed: the key order built, as in a
// collection that is listed) are stores of their own here, with Heap,
// Write and WriteSize only (and Removal10k, for ttldb_listed). -bench runs
// some workloads only:
//
//	cd bench && go run ./cmd/report -bench '^(Heap|Write|WriteSize|FeedRead)$/^ttldb' -md /tmp/feed.md -chart /tmp/feed.svg -raw /tmp/feed.txt
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

var (
	count     = flag.Int("count", 5, "rounds: each figure is the median of this many runs")
	benchtime = flag.String("benchtime", "1s", "-benchtime of the fast group (Heap, Write, Read, ReadScale, Mixed, RemovalNone, FeedRead, DefaultTTL, Batch, Patch, Query, QueryIndex, QueryWrite) and of the size group (WriteSize)")
	slowtime  = flag.String("slowtime", "1x", "-benchtime of the slow group (Removal10k, Stall, Lag), whose operations build their own stores or wait on real time")
	items     = flag.Int("items", 1_000_000, "items in a full store")
	storeList = flag.String("stores", strings.Join(benchrun.Stores, ","), "stores to run, comma-separated (ttldb_feed_off: ttldb with the change feed off, in Heap, Write and WriteSize only; ttldb_listed: ttldb with its key order built, in Heap, Write, WriteSize and Removal10k only; ttldb_mem: ttldb in memory, in Durable only)")
	benchRE   = flag.String("bench", "", "run only the workloads this regular expression matches, as go test -bench would (^BenchmarkWrite$ or ^Write$), each in its group; after a slash, only the stores it matches (^Write$/^ttldb): the filters of -stores too")
	quick     = flag.Bool("quick", false, "a quick run: -count 3 -benchtime 300ms, unless given")
	from      = flag.String("from", "", "render the report from this saved raw output instead of running")
	md        = flag.String("md", "../BENCHMARKS.md", "the report to write")
	chart     = flag.String("chart", "chart.svg", "the chart to write")
	rawOut    = flag.String("raw", "out/raw.txt", "where to save the raw benchmark output")
	ttldbDir  = flag.String("ttldb", "..", "the ttldb checkout to measure (another than .. is used through a copy of go.mod in out/ with its replace pointing there)")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("report: ")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["count"] {
			*count = 3
		}
		if !set["benchtime"] {
			*benchtime = "300ms"
		}
	}
	if why := partialRun(set); why != "" && *from == "" && !set["md"] {
		log.Fatalf("%s would replace this CPU's full run in %s with a partial one: give -md FILE (with -chart and -raw) to write it elsewhere, or -md %s to replace it on purpose", why, *md, *md)
	}
	if _, err := os.Stat("go.mod"); err != nil || !strings.Contains(benchrun.ReadFile("go.mod"), "module github.com/ttldb/ttldb/bench") {
		log.Fatal("run me from the bench directory: cd bench && go run ./cmd/report")
	}

	var raw string
	run := runInfo{
		Count: *count, Benchtime: *benchtime, Slowtime: *slowtime, Items: *items,
		Quick: *quick, Args: strings.Join(os.Args[1:], " "),
	}
	if *from != "" {
		raw = benchrun.ReadFile(*from)
		run = runInfoFromRaw(raw)
	} else {
		run.Start = time.Now()
		run.LoadBefore = strings.TrimSpace(benchrun.ReadFile("/proc/loadavg"))
		run.TTLDB = version(*ttldbDir)
		stores, err := benchrun.SelectStores(strings.Split(*storeList, ","), *benchRE)
		if err != nil {
			log.Fatal(err)
		}
		raw = runAll(stores)
		run.End = time.Now()
		run.LoadAfter = strings.TrimSpace(benchrun.ReadFile("/proc/loadavg"))
		raw = run.header() + raw
		if err := os.MkdirAll(filepath.Dir(*rawOut), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*rawOut, []byte(raw), 0o644); err != nil {
			log.Fatal(err)
		}
		log.Printf("raw output saved to %s", *rawOut)
	}

	res := parse(raw)
	m := machine()
	if cpu := rawCPU(raw); *from != "" && cpu != "" {
		m.CPU = cpu // the run's machine, not this one
	}
	// The sections other commands wrote (cmd/pgreport's PostgreSQL
	// figures, notes written by hand) stay in the file, and so does the
	// latest run of each other CPU (prior.go).
	out := keepRuns(benchrun.ReadFile(*md), renderMarkdown(res, run, m), m.CPU)
	if err := os.WriteFile(*md, []byte(out), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*chart, []byte(renderSVG(res, run)), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s and %s", *md, *chart)
}

// partialRun says why a run with the flags set (flag.Visit's names) and
// the values the flags hold is not a full run, whose figures the report
// keeps as its CPU's: a -quick run, one narrowed by -bench or -stores, of
// another store size (-items), or of fewer rounds (-count under 5); empty
// for a full run (longer -benchtime and more rounds are full runs too).
func partialRun(set map[string]bool) string {
	switch {
	case *quick:
		return "a -quick run"
	case set["bench"] && *benchRE != "":
		return "a run narrowed by -bench"
	case set["stores"] && *storeList != strings.Join(benchrun.Stores, ","):
		return "a run narrowed by -stores"
	case *items != 1_000_000:
		return fmt.Sprintf("a run of -items %d", *items)
	case *count < 5:
		return fmt.Sprintf("a run of -count %d", *count)
	}
	return ""
}

// runAll builds the benchmark binary and runs the rounds, returning their
// output.
func runAll(stores []string) string {
	bin, err := filepath.Abs(filepath.Join("out", "bench.test"))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		log.Fatal(err)
	}
	args := []string{"test", "-c", "-o", bin}
	if *ttldbDir != ".." {
		args = append(args, "-modfile", altModfile(*ttldbDir))
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		log.Fatalf("building the benchmarks: %v", err)
	}
	var all bytes.Buffer
	for r := range *count {
		for i := range stores {
			store := stores[(i+r)%len(stores)]
			for _, g := range benchrun.Groups {
				group, err := benchrun.SelectGroup(g.Workloads, store, *benchRE)
				if err != nil {
					log.Fatal(err)
				}
				if group == "" {
					continue
				}
				t := *benchtime
				if g.Slow {
					t = *slowtime
				}
				log.Printf("round %d/%d, %s: %s", r+1, *count, store, group)
				all.WriteString(runBench(bin, store, group, t))
			}
		}
	}
	return all.String()
}

// altModfile writes a copy of go.mod (and go.sum) in out/ whose replace
// points at dir, and returns its path.
func altModfile(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		log.Fatal(err)
	}
	mod := strings.Replace(benchrun.ReadFile("go.mod"), "=> ../", "=> "+abs, 1)
	if !strings.Contains(mod, "=> "+abs) {
		log.Fatal("go.mod has no replace of github.com/ttldb/ttldb => ../")
	}
	name, _ := filepath.Abs(filepath.Join("out", "alt.mod"))
	if err := os.WriteFile(name, []byte(mod), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(name, ".mod")+".sum", []byte(benchrun.ReadFile("go.sum")), 0o644); err != nil {
		log.Fatal(err)
	}
	return name
}

// version describes the ttldb checkout in dir: its commit, and whether its
// files differ from it, as the benchmark binary is built.
func version(dir string) string {
	abs, _ := filepath.Abs(dir)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return abs + " (not a git checkout)"
	}
	v := "commit " + strings.TrimSpace(string(out))
	top, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil || strings.TrimSpace(string(top)) != abs {
		return abs + " (not a git checkout)"
	}
	dirty, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", "*.go", "go.mod", "go.sum", ":!bench").Output()
	var files []string
	for _, l := range strings.Split(string(dirty), "\n") {
		if len(l) > 3 {
			files = append(files, l[3:])
		}
	}
	if err == nil && len(files) > 0 {
		v += " with uncommitted changes to " + strings.Join(files, ", ")
	}
	return v
}

func runBench(bin, store, group, benchtime string) string {
	cmd := exec.Command(bin, benchrun.Args(store, group, benchtime, *items)...)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, os.Stderr)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Printf("%s %s: %v (its figures are missing from this round)", store, group, err)
	}
	return out.String()
}

// ---- parsing ----

// results holds every sample: bench -> store -> metric -> values. A
// benchmark with a level below the store's, such as WriteSize/ttldb/n=10000,
// is filed as bench WriteSize/n=10000, store ttldb.
type results map[string]map[string]map[string][]float64

func (r results) values(bench, store, metric string) []float64 {
	return r[bench][store][metric]
}

// median returns the median of bench/store's metric, ok false when there is
// no sample.
func (r results) median(bench, store, metric string) (float64, bool) {
	return benchrun.Median(r.values(bench, store, metric))
}

func (r results) spread(bench, store, metric string) (lo, hi float64, n int) {
	v := r.values(bench, store, metric)
	if len(v) == 0 {
		return 0, 0, 0
	}
	lo, hi = v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi, len(v)
}

// parse reads the lines of `go test -bench` output:
//
//	BenchmarkWrite/ttldb-2   123456   2291 ns/op   512 B/op   4 allocs/op
//	BenchmarkReadScale/ttldb/g=8-2   123456   1290 ns/op   5012 ns/read   775000 reads/s
func parse(raw string) results {
	res := results{}
	sc := bufio.NewScanner(strings.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		bench, store, m, ok := parseLine(sc.Text())
		if !ok {
			continue
		}
		if res[bench] == nil {
			res[bench] = map[string]map[string][]float64{}
		}
		if res[bench][store] == nil {
			res[bench][store] = map[string][]float64{}
		}
		for k, v := range m {
			res[bench][store][k] = append(res[bench][store][k], v)
		}
	}
	return res
}

// parseLine reads a line of benchmark output as benchrun.ParseLine does,
// and files its name as parse does.
func parseLine(line string) (bench, store string, metrics map[string]float64, ok bool) {
	name, metrics, ok := benchrun.ParseLine(line)
	if !ok {
		return "", "", nil, false
	}
	parts := strings.Split(name, "/")
	if len(parts) < 2 || parts[1] == "" {
		return "", "", nil, false
	}
	return strings.Join(append(parts[:1:1], parts[2:]...), "/"), parts[1], metrics, true
}

// ---- the run and the machine ----

type runInfo struct {
	Count                 int
	Benchtime, Slowtime   string
	Items                 int
	Quick                 bool
	Args                  string
	Start, End            time.Time
	LoadBefore, LoadAfter string
	TTLDB                 string // the version measured
}

// header records the run's settings at the top of the raw output, so that
// -from can render it again.
func (r runInfo) header() string {
	return fmt.Sprintf("# report: count=%d benchtime=%s slowtime=%s items=%d quick=%t start=%s end=%s load-before=%q load-after=%q args=%q\n",
		r.Count, r.Benchtime, r.Slowtime, r.Items, r.Quick, r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339),
		r.LoadBefore, r.LoadAfter, r.Args) + "# ttldb: " + r.TTLDB + "\n"
}

func runInfoFromRaw(raw string) runInfo {
	var r runInfo
	line, _, _ := strings.Cut(raw, "\n")
	if !strings.HasPrefix(line, "# report: ") {
		log.Print("the raw output has no report header; the run's settings are unknown")
		return r
	}
	var start, end string
	_, err := fmt.Sscanf(strings.TrimPrefix(line, "# report: "),
		"count=%d benchtime=%s slowtime=%s items=%d quick=%t start=%s end=%s load-before=%q load-after=%q args=%q",
		&r.Count, &r.Benchtime, &r.Slowtime, &r.Items, &r.Quick, &start, &end, &r.LoadBefore, &r.LoadAfter, &r.Args)
	if err != nil {
		log.Printf("reading the raw output's header: %v", err)
	}
	r.Start, _ = time.Parse(time.RFC3339, start)
	r.End, _ = time.Parse(time.RFC3339, end)
	for _, l := range strings.SplitN(raw, "\n", 3)[1:] {
		if v, ok := strings.CutPrefix(l, "# ttldb: "); ok {
			r.TTLDB = v
		}
	}
	return r
}

type machineInfo struct {
	CPU, Mem, Kernel, Go string
	NumCPU               int
	Peers                []string
}

func machine() machineInfo {
	m := machineInfo{CPU: benchrun.CPU(), NumCPU: runtime.NumCPU()}
	for _, l := range strings.Split(benchrun.ReadFile("/proc/meminfo"), "\n") {
		if v, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64); err == nil {
				m.Mem = fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	m.Kernel = strings.TrimSpace(benchrun.ReadFile("/proc/sys/kernel/osrelease"))
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		m.Go = strings.TrimSpace(string(out))
	} else {
		m.Go = runtime.Version()
	}
	for _, l := range strings.Split(benchrun.ReadFile("go.mod"), "\n") {
		f := strings.Fields(l)
		for _, p := range []string{"github.com/tidwall/buntdb", "github.com/patrickmn/go-cache", "github.com/jellydator/ttlcache/v3", "github.com/hashicorp/golang-lru/v2"} {
			if len(f) >= 2 && f[0] == p {
				m.Peers = append(m.Peers, f[0]+" "+f[1])
			}
		}
	}
	return m
}
