// Command pgreport runs BenchmarkPG (the PostgreSQL engine beside the
// in-process one, issue 29) in one process and writes its medians, ops/s
// and the ratios PostgreSQL ÷ in-process as a section of BENCHMARKS.md,
// one per setting of the server's fsync (cmd/report keeps the sections
// when it rewrites the file). After it, it runs BenchmarkPGSweep,
// BenchmarkPGFeedLag and BenchmarkPGQuery (measures.go), whose tables
// follow BenchmarkPG's in the section.
//
// Run it from the bench directory, with a server:
//
//	cd bench && TTLDB_PG_FSYNC=on ../.ci/pg go run ./cmd/pgreport   # a durable server
//	cd bench && ../.ci/pg go run ./cmd/pgreport                     # fsync off, as the tests' server
//	cd bench && go run ./cmd/pgreport -from out/pg-raw.txt          # render a saved run again
//
// The server is TTLDB_BENCH_PG's, else TTLDB_TEST_PG's (which ../.ci/pg
// sets).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

var (
	count     = flag.Int("count", 3, "runs of each figure (go test -count): the table gives medians")
	benchtime = flag.String("benchtime", "1s", "go test -benchtime of each figure")
	from      = flag.String("from", "", "render the section from this saved raw output instead of running")
	md        = flag.String("md", "../BENCHMARKS.md", "the file whose PostgreSQL section to write")
	rawOut    = flag.String("raw", "out/pg-raw.txt", "where to save the raw benchmark output")
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("pgreport: ")
	flag.Parse()
	if !strings.Contains(benchrun.ReadFile("go.mod"), "module github.com/ttldb/ttldb/bench") {
		log.Fatal("run me from the bench directory: cd bench && ../.ci/pg go run ./cmd/pgreport")
	}
	raw := benchrun.ReadFile(*from)
	if *from == "" {
		raw = run()
	} else if raw == "" {
		log.Fatalf("-from %s: nothing to read", *from)
	}
	r := parseRun(raw)
	if r.server == "" {
		log.Fatal("the output has no pg figures (the server's line is missing): was TTLDB_BENCH_PG set?")
	}
	key := "postgres fsync=" + r.fsync
	doc := benchrun.PutSection(benchrun.ReadFile(*md), key, benchrun.Section(key, render(r)+renderMeasures(r)))
	if err := os.WriteFile(*md, []byte(doc), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote the section %q of %s", key, *md)
}

// run runs BenchmarkPG, then the measures (runMeasures), and returns their output, with a header of the run's
// facts, also saved to -raw.
func run() string {
	url := os.Getenv("TTLDB_BENCH_PG")
	if url == "" {
		url = os.Getenv("TTLDB_TEST_PG")
	}
	if url == "" {
		log.Fatal("no server: set TTLDB_BENCH_PG, or run me under ../.ci/pg (TTLDB_PG_FSYNC=on ../.ci/pg go run ./cmd/pgreport)")
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# pgreport start: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&head, "# pgreport load-before: %s\n", strings.TrimSpace(benchrun.ReadFile("/proc/loadavg")))
	fmt.Fprintf(&head, "# pgreport ttldb: %s\n", commit())
	fmt.Fprintf(&head, "# pgreport settings: -count %d -benchtime %s\n", *count, *benchtime)
	fmt.Fprintf(&head, "# pgreport gomaxprocs: %d\n", runtime.GOMAXPROCS(0))
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkPG$", "-benchmem", "-v",
		"-count", fmt.Sprint(*count), "-benchtime", *benchtime, "-timeout", "60m", ".")
	cmd.Env = append(os.Environ(), "TTLDB_BENCH_PG="+url)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, os.Stderr)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("go test: %v", err)
	}
	if err := runMeasures(url, &out); err != nil { // measures.go
		log.Fatal(err)
	}
	fmt.Fprintf(&out, "# pgreport end: %s\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(&out, "# pgreport load-after: %s\n", strings.TrimSpace(benchrun.ReadFile("/proc/loadavg")))
	raw := head.String() + out.String()
	if err := os.MkdirAll(filepath.Dir(*rawOut), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*rawOut, []byte(raw), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("raw output saved to %s", *rawOut)
	return raw
}

// commit names the ttldb commit measured (that of ..), and whether its Go
// files differ from it.
func commit() string {
	out, err := exec.Command("git", "-C", "..", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "(not a git checkout)"
	}
	c := "commit " + strings.TrimSpace(string(out))
	dirty, err := exec.Command("git", "-C", "..", "status", "--porcelain", "--", "*.go", "go.mod", "go.sum").Output()
	if err == nil && len(bytes.TrimSpace(dirty)) > 0 {
		c += ", with uncommitted changes"
	}
	return c
}
