package main

import (
	"strings"
	"testing"
)

// fakeReport is a file as report writes it, reduced to what keepRuns reads.
func fakeReport(cpu, figure string) string {
	return "# ttldb benchmarks\n\nintro\n\n| | |\n|---|---|\n| date | d-" + cpu + " |\n| machine | " + cpu + ", 2 CPUs (GOMAXPROCS 2) |\n\n" +
		"![chart](bench/chart.svg)\n\n## Targets\n\n| t |\n|---|\n| " + figure + " |\n\n## Medians\n\n| m " + figure + " |\n\n" +
		"## Spread\n\nspread " + figure + "\n\n## Context\n\nctx\n"
}

// A file keeps the latest run of each CPU it has seen (issue 31): a run on
// another CPU moves the old run's tables into a section of their own, and a
// run on a CPU replaces that CPU's section.
func TestKeepRuns(t *testing.T) {
	epyc1 := fakeReport("AMD EPYC", "e1")
	xeon := fakeReport("Intel Xeon", "x1")
	got := keepRuns(epyc1, xeon, "Intel Xeon")
	for _, want := range []string{
		"<!-- section run on AMD EPYC -->\n## The latest run on AMD EPYC\n",
		"| date | d-AMD EPYC |\n| machine | AMD EPYC, 2 CPUs (GOMAXPROCS 2) |\n",
		"### Targets\n\n| t |\n|---|\n| e1 |\n\n### Medians\n\n| m e1 |\n<!-- /section run on AMD EPYC -->\n\n## Context\n",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("kept run lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "spread e1") || strings.Count(got, "![chart]") != 1 || runCPU(got) != "Intel Xeon" {
		t.Fatalf("kept more than the old run's tables, or the top run is not the new one:\n%s", got)
	}

	// A later run on the EPYC: its section goes (the run is on top now),
	// the Xeon's run is kept.
	got2 := keepRuns(got, fakeReport("AMD EPYC", "e2"), "AMD EPYC")
	if strings.Contains(got2, "run on AMD EPYC -->") || strings.Contains(got2, "e1") {
		t.Fatalf("the EPYC's older run stayed:\n%s", got2)
	}
	if !strings.Contains(got2, "<!-- section run on Intel Xeon -->\n## The latest run on Intel Xeon\n") || !strings.Contains(got2, "| x1 |") {
		t.Fatalf("the Xeon's run was not kept:\n%s", got2)
	}

	// A second run on the same CPU keeps no copy of the first.
	if got3 := keepRuns(xeon, fakeReport("Intel Xeon", "x2"), "Intel Xeon"); strings.Contains(got3, "x1") {
		t.Fatalf("a run on the same CPU kept the one it replaced:\n%s", got3)
	}
	// A file without a run (new, or another's) adds nothing.
	if got4 := keepRuns("# notes\n", xeon, "Intel Xeon"); got4 != xeon {
		t.Fatalf("a file without a run changed the report:\n%s", got4)
	}
}

// The CPU's name may hold commas, a kept run placed above the top one is
// not taken for it, and a raw run read again names its own machine.
func TestRunCPU(t *testing.T) {
	withComma := fakeReport("Vendor CPU, rev 2", "v1")
	if got := runCPU(withComma); got != "Vendor CPU, rev 2" {
		t.Fatalf("runCPU = %q", got)
	}
	if got := keepRuns(withComma, fakeReport("Vendor CPU, rev 2", "v2"), "Vendor CPU, rev 2"); strings.Contains(got, "v1") {
		t.Fatalf("a second run on a CPU with a comma in its name kept the first as another CPU's:\n%s", got)
	}
	kept := keepRuns(fakeReport("AMD EPYC", "e1"), fakeReport("Intel Xeon", "x1"), "Intel Xeon")
	i := strings.Index(kept, "<!-- section run on AMD EPYC -->")
	j := strings.Index(kept, "<!-- /section run on AMD EPYC -->\n")
	moved := kept[i:j+len("<!-- /section run on AMD EPYC -->\n")] + "\n" + kept[:i] + kept[j+len("<!-- /section run on AMD EPYC -->\n"):]
	if got := runCPU(moved); got != "Intel Xeon" {
		t.Fatalf("runCPU took a kept run above the top one for it: %q", got)
	}
	if strings.Contains(kept[i:j], "Intel Xeon") {
		t.Fatalf("the kept run names the CPU of the run above it, which a later run changes:\n%s", kept[i:j])
	}
	if got := rawCPU("goos: linux\ncpu: AMD EPYC\nBenchmarkX 1 1 ns/op\n"); got != "AMD EPYC" {
		t.Fatalf("rawCPU = %q", got)
	}
}
