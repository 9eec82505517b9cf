package main

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

// timeLimit is the change of a median ns/op, either way, that the table
// flags: outside 1 ± timeLimit.
const timeLimit = 0.03

// samples holds one revision's figures: benchmark name (Write/ttldb) ->
// metric (ns/op, allocs/op, B/op, a custom one) -> one value per round.
type samples map[string]map[string][]float64

// add reads the benchmark lines of go test -bench output into s, and
// appends to order the names not seen before.
func (s samples) add(out string, order *[]string) {
	for _, line := range strings.Split(out, "\n") {
		name, metrics, ok := benchrun.ParseLine(line)
		if !ok {
			continue
		}
		if s[name] == nil {
			s[name] = map[string][]float64{}
			if !contains(*order, name) {
				*order = append(*order, name)
			}
		}
		for k, v := range metrics {
			s[name][k] = append(s[name][k], v)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// figure is one metric of one benchmark on one revision: the median over
// the rounds and the spread, (max − min) / median, of the rounds.
type figure struct {
	median, spread float64
	n              int // rounds with a value; 0: none
}

func figureOf(v []float64) figure {
	m, ok := benchrun.Median(v)
	if !ok {
		return figure{}
	}
	f := figure{median: m, n: len(v)}
	if m != 0 {
		lo, hi := v[0], v[0]
		for _, x := range v {
			lo, hi = min(lo, x), max(hi, x)
		}
		f.spread = (hi - lo) / math.Abs(m)
	}
	return f
}

// ratio is the new median over the old, ok false when either is missing
// or the old is 0 and the new is not (both 0 is 1: no change).
func ratio(o, n figure) (float64, bool) {
	switch {
	case o.n == 0 || n.n == 0:
		return 0, false
	case o.median == 0 && n.median == 0:
		return 1, true
	case o.median == 0:
		return 0, false
	}
	return n.median / o.median, true
}

// comparison is what the tool prints: the run's settings and, per
// benchmark, the figures of both revisions.
type comparison struct {
	CPU                   string
	GOMAXPROCS            int
	Go                    string
	Old, New              string // the revisions as measured: short hashes, "dirty" for the working tree
	Rounds                int
	Benchtime, Slowtime   string
	Items                 int
	Bench                 string
	Command               string
	LoadBefore, LoadAfter string
	order                 []string // the benchmarks in the order they first ran
	old, new              samples
}

func (c *comparison) get(s samples, name, metric string) figure {
	return figureOf(s[name][metric])
}

// flags are the table's warnings for a benchmark: its time's ratio outside
// 1 ± timeLimit, any change in its median allocs/op, a side without
// figures.
func (c *comparison) flags(name string) []string {
	var fl []string
	ot, nt := c.get(c.old, name, "ns/op"), c.get(c.new, name, "ns/op")
	switch {
	case ot.n == 0 && nt.n == 0:
		return []string{"no figures"}
	case ot.n == 0:
		return []string{"only in new"}
	case nt.n == 0:
		return []string{"only in old"}
	}
	if r, ok := ratio(ot, nt); ok && math.Abs(r-1) > timeLimit {
		fl = append(fl, fmt.Sprintf("**time %+.1f%%**", (r-1)*100))
	}
	oa, na := c.get(c.old, name, "allocs/op"), c.get(c.new, name, "allocs/op")
	if oa.n > 0 && na.n > 0 && oa.median != na.median {
		fl = append(fl, fmt.Sprintf("**allocs %s → %s**", num(oa.median), num(na.median)))
	}
	return fl
}

// mainRows are the rows of the table of time and allocations.
func (c *comparison) mainRows() [][]string {
	rows := [][]string{{"benchmark", "old ns/op", "new ns/op", "new/old", "old spread", "new spread", "old allocs/op", "new allocs/op", "new/old", "flag"}}
	for _, name := range c.order {
		ot, nt := c.get(c.old, name, "ns/op"), c.get(c.new, name, "ns/op")
		oa, na := c.get(c.old, name, "allocs/op"), c.get(c.new, name, "allocs/op")
		rows = append(rows, []string{name, cell(ot), cell(nt), ratioCell(ot, nt), spreadCell(ot), spreadCell(nt),
			cell(oa), cell(na), ratioCell(oa, na), strings.Join(c.flags(name), ", ")})
	}
	return rows
}

// otherRows are the rows of the table of the other metrics: B/op, then
// the custom ones, by name.
func (c *comparison) otherRows() [][]string {
	rows := [][]string{{"benchmark", "metric", "old", "new", "new/old", "old spread", "new spread"}}
	for _, name := range c.order {
		seen := map[string]bool{}
		for _, s := range []samples{c.old, c.new} {
			for m := range s[name] {
				seen[m] = true
			}
		}
		var metrics []string
		for m := range seen {
			if m != "ns/op" && m != "allocs/op" {
				metrics = append(metrics, m)
			}
		}
		sort.Slice(metrics, func(i, j int) bool {
			if (metrics[i] == "B/op") != (metrics[j] == "B/op") {
				return metrics[i] == "B/op"
			}
			return metrics[i] < metrics[j]
		})
		for _, m := range metrics {
			o, n := c.get(c.old, name, m), c.get(c.new, name, m)
			rows = append(rows, []string{name, m, cell(o), cell(n), ratioCell(o, n), spreadCell(o), spreadCell(n)})
		}
	}
	return rows
}

func cell(f figure) string {
	if f.n == 0 {
		return "—"
	}
	return num(f.median)
}

func ratioCell(o, n figure) string {
	r, ok := ratio(o, n)
	if !ok {
		return "—"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

func spreadCell(f figure) string {
	if f.n < 2 {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", f.spread*100)
}

// num formats a figure: whole numbers and figures from 1,000 up with
// thousands separators and no decimals, smaller ones with 3 significant
// digits at most.
func num(v float64) string {
	if math.Abs(v) >= 1000 || v == math.Trunc(v) {
		s := strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		if v < 0 {
			s = "-" + s
		}
		return s
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// header is the run's description, one item a line.
func (c *comparison) header() []string {
	return []string{
		fmt.Sprintf("old: %s, new: %s", c.Old, c.New),
		fmt.Sprintf("CPU: %s, GOMAXPROCS %d, %s", c.CPU, c.GOMAXPROCS, c.Go),
		fmt.Sprintf("%d rounds (old and new alternating, each benchmark group in its own process, -count 1 -benchmem a round), -benchtime %s (slow group %s), -items %s, -bench %s",
			c.Rounds, c.Benchtime, c.Slowtime, num(float64(c.Items)), c.Bench),
		fmt.Sprintf("load average before: %s; after: %s", c.LoadBefore, c.LoadAfter),
		fmt.Sprintf("figures: medians over the rounds; spread: (max − min) / median of the rounds; flagged: a time ratio outside %.2f–%.2f, any change in allocs/op", 1-timeLimit, 1+timeLimit),
		"command: " + c.Command,
	}
}

// text renders the comparison for a terminal: the header, then both tables
// aligned in columns.
func (c *comparison) text() string {
	var b strings.Builder
	for _, l := range c.header() {
		b.WriteString(l + "\n")
	}
	for _, rows := range [][][]string{c.mainRows(), c.otherRows()} {
		if len(rows) == 1 {
			continue
		}
		b.WriteString("\n")
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintln(w, strings.ReplaceAll(strings.Join(r, "\t"), "**", ""))
		}
		w.Flush()
	}
	return b.String()
}

// markdown renders the comparison as Markdown, to paste into a note: the
// header as a list, then both tables.
func (c *comparison) markdown() string {
	var b strings.Builder
	b.WriteString("### Before and after\n\n")
	for _, l := range c.header() {
		if cmd, ok := strings.CutPrefix(l, "command: "); ok {
			l = "command: `" + cmd + "`"
		}
		b.WriteString("- " + l + "\n")
	}
	for i, rows := range [][][]string{c.mainRows(), c.otherRows()} {
		if len(rows) == 1 {
			continue
		}
		if i == 1 {
			b.WriteString("\nOther metrics:\n")
		}
		b.WriteString("\n")
		for j, r := range rows {
			b.WriteString("| " + strings.Join(r, " | ") + " |\n")
			if j == 0 {
				b.WriteString("|---" + strings.Repeat("|---:", len(r)-1) + "|\n")
			}
		}
	}
	return b.String()
}
