package main

import (
	"regexp"
	"strings"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

// A run per CPU kind. Figures measured on one CPU do not carry to another
// (issue 31 found several that held on an AMD EPYC and not on an Intel
// Xeon), so BENCHMARKS.md keeps the latest run of each CPU it has
// seen: the run report writes now on top, and, for each other CPU, the
// header, targets and medians of its latest run in a section of its own
// (benchrun's sections), which later runs on other CPUs keep and a run on
// that CPU replaces (keepRuns).

// runSectionKey is the key of the section that holds cpu's latest run.
func runSectionKey(cpu string) string { return "run on " + cpu }

// keepRuns returns doc, the file report has just made for a run on cpu,
// with what it keeps of old, the file it replaces: old's sections
// (benchrun.KeepSections: other commands' figures, notes written by hand,
// the runs of other CPUs), and old's own run as its CPU's section when that
// CPU is another; but no section for cpu, whose latest run doc now shows
// on top.
func keepRuns(old, doc, cpu string) string {
	doc = benchrun.RemoveSection(benchrun.KeepSections(old, doc), runSectionKey(cpu))
	prev := runCPU(old)
	if prev == "" || prev == cpu {
		return doc
	}
	body, ok := runTables(old)
	if !ok {
		return doc
	}
	key := runSectionKey(prev)
	text := "## The latest run on " + prev + "\n\n" +
		"Kept by `cmd/report` when a run on another CPU replaced it at the top of this file: the targets and medians " +
		"of the latest run on " + prev + " (its settings say how long it ran); the chart and the other tables of this file " +
		"are the top run's. Compare within a run, not across runs.\n\n" + body
	return benchrun.PutSection(doc, key, benchrun.Section(key, text))
}

// runCPU returns the CPU of the run at the top of a file report wrote: the
// CPU of the first machine line outside the sections (a kept run's is
// another's, wherever it sits), or "" when there is none.
func runCPU(doc string) string {
	if m := machineLine.FindStringSubmatch(benchrun.WithoutSections(doc)); m != nil {
		return m[1]
	}
	return ""
}

// machineLine is renderMarkdown's machine line; the CPU's name may hold
// commas, the count of CPUs that follows it does not.
var machineLine = regexp.MustCompile(`(?m)^\| machine \| (.+?), \d+ CPUs \(`)

// rawCPU returns the CPU that go test's output names ("cpu: ..."), or ""
// when it names none: the machine of a run read again with -from.
func rawCPU(raw string) string {
	for _, l := range strings.Split(raw, "\n") {
		if v, ok := strings.CutPrefix(l, "cpu: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// runTables returns the top run's header table, targets and medians from a
// file report wrote (from the header table to the heading of the spread,
// outside the sections), their headings one level down and the chart left
// out; ok is false when doc has no such part.
func runTables(doc string) (body string, ok bool) {
	doc = benchrun.WithoutSections(doc)
	start := strings.Index(doc, "\n| | |\n")
	end := strings.Index(doc, "\n## Spread")
	if start < 0 || end < start {
		return "", false
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(doc[start+1:end+1], "\n") {
		switch {
		case strings.HasPrefix(l, "!["):
			continue
		case strings.HasPrefix(l, "## "):
			l = "#" + l
		}
		b.WriteString(l)
	}
	return strings.TrimRight(b.String(), "\n") + "\n", true
}
