package main

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// stores are the stores in report order, ttldb first.
var stores = []struct{ name, display string }{
	{"ttldb", "ttldb"},
	{"buntdb", "buntdb"},
	{"gocache", "go-cache"},
	{"ttlcache", "ttlcache"},
	{"expirable", "golang-lru expirable"},
}

func display(store string) string {
	for _, s := range stores {
		if s.name == store {
			return s.display
		}
	}
	return store
}

type unit int

const (
	nanos unit = iota
	bytesPerItem
	plain
	millis
)

// A row is one figure of the report: a benchmark's metric.
type row struct {
	bench, metric, title string
	unit                 unit
	chart                bool
}

// rows are the report's main figures, one per workload, lower is better.
var rows = []row{
	{"Write", "ns/op", "1. Write with a TTL into a full store", nanos, true},
	{"Read", "ns/op", "2. Point read of a live item", nanos, true},
	{"Read", "allocs/op", "2. Point read: allocations per read", plain, false},
	{"Mixed", "ns/op", "3. 90% read / 10% write, all cores (per op)", nanos, true},
	{"Removal10k", "ns/sweep", "4. Remove {M} expired of {N}", nanos, true},
	{"RemovalNone", "ns/op", "4. Removal pass, nothing expired", nanos, true},
	{"Stall", "max-stall-ns", "5. Longest read stall, {N} expiring at once", nanos, true},
	{"Heap", "B/item", "6. Heap per item beyond key and value", bytesPerItem, true},
	{"DefaultTTL", "ns/op", "7. Change DefaultTTL on {N} documents", nanos, false},
	{"Lag", "lag-ns", "8. Expiry lag when idle (mean of the probes)", nanos, true},
}

// details are secondary figures, shown for context.
var details = []row{
	{"Write", "B/op", "Write: bytes allocated per write", plain, false},
	{"Write", "allocs/op", "Write: allocations per write", plain, false},
	{"Mixed", "allocs/op", "Mixed: allocations per op", plain, false},
	{"Stall", "quiet-max-ns", "Stall: longest read in the quiet second before (noise floor)", nanos, false},
	{"Stall", "slow-reads/s", "Stall: reads over 1 ms per second, after the expiry", plain, false},
	{"Stall", "quiet-slow-reads/s", "Stall: reads over 1 ms per second, in the quiet second", plain, false},
	{"Stall", "sweep-ms", "Stall: expiry to all removed (100 ms polls)", millis, false},
	{"Stall", "reads", "Stall: reads during the removal", plain, false},
	{"Heap", "fill-ns/item", "Heap: time to fill, per item", nanos, false},
	{"Lag", "max-lag-ns", "Lag: worst probe", nanos, false},
}

// notApplicable explains the empty cells.
var notApplicable = map[string]string{
	"RemovalNone/buntdb":    "no synchronous removal: one background pass a second",
	"RemovalNone/expirable": "no public removal call: a goroutine removes one bucket per TTL/100",
	"Removal10k/expirable":  "no public removal call: a goroutine removes one bucket per TTL/100",
	"DefaultTTL/buntdb":     "no default TTL",
	"DefaultTTL/gocache":    "default expiration fixed at New",
	"DefaultTTL/ttlcache":   "default TTL fixed at New",
	"DefaultTTL/expirable":  "one TTL fixed at NewLRU",
}

// A target is one of the goals for ttldb.
type target struct {
	label         string
	bench, metric string
	peer          string  // compare with this peer's median; "" for an absolute limit
	limit         float64 // the ratio, or the absolute value
	strict        bool    // below the limit, not at it
	unit          unit
}

var targets = []target{
	{"Write with TTL at most 0.5x buntdb", "Write", "ns/op", "buntdb", 0.5, false, nanos},
	{"Write with TTL within 2x go-cache", "Write", "ns/op", "gocache", 2, false, nanos},
	{"Point read at most 0.5x buntdb", "Read", "ns/op", "buntdb", 0.5, false, nanos},
	{"Point read no slower than 1.2x go-cache", "Read", "ns/op", "gocache", 1.2, false, nanos},
	{"Point read with zero allocations (raw document)", "Read", "allocs/op", "", 0, false, plain},
	{"Remove {M} expired of {N} at most 0.5x buntdb", "Removal10k", "ns/sweep", "buntdb", 0.5, false, nanos},
	{"Removal pass with nothing expired under 1 µs", "RemovalNone", "ns/op", "", 1e3, true, nanos},
	{"Longest read stall during a mass expiry under 1 ms", "Stall", "max-stall-ns", "", 1e6, true, nanos},
	{"Heap per item beyond key and value at most 150 B", "Heap", "B/item", "", 150, false, bytesPerItem},
	{"DefaultTTL change on {N} documents under 10 µs", "DefaultTTL", "ns/op", "", 1e4, true, nanos},
	{"Expiry lag when idle under 10 ms", "Lag", "lag-ns", "", 1e7, true, nanos},
}

func format(v float64, u unit) string {
	switch u {
	case nanos:
		switch {
		case v >= 1e9:
			return fmt.Sprintf("%.2f s", v/1e9)
		case v >= 1e6:
			return fmt.Sprintf("%.3g ms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.3g µs", v/1e3)
		default:
			return fmt.Sprintf("%.3g ns", v)
		}
	case millis:
		return fmt.Sprintf("%.0f ms", v)
	case bytesPerItem:
		return fmt.Sprintf("%.0f B", v)
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func ratio(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0fx", x)
	case x >= 10:
		return fmt.Sprintf("%.1fx", x)
	case x >= 0.1:
		return fmt.Sprintf("%.2fx", x)
	default:
		return fmt.Sprintf("%.2gx", x)
	}
}

// bestPeer returns the peer with the lowest median of bench/metric.
func bestPeer(res results, bench, metric string) (name string, v float64, ok bool) {
	for _, s := range stores[1:] {
		if m, found := res.median(bench, s.name, metric); found && (!ok || m < v) {
			name, v, ok = s.name, m, true
		}
	}
	return name, v, ok
}

// check evaluates a target: the figure shown, the comparison, and whether
// it is met; known is false when a figure is missing.
func (t target) check(res results) (shown, against string, met, known bool) {
	v, ok := res.median(t.bench, "ttldb", t.metric)
	if !ok {
		return "missing", "", false, false
	}
	shown = format(v, t.unit)
	limit := t.limit
	if t.peer != "" {
		p, ok := res.median(t.bench, t.peer, t.metric)
		if !ok || p == 0 {
			return shown, display(t.peer) + " missing", false, false
		}
		shown = fmt.Sprintf("%s = %s of %s (%s)", shown, ratio(v/p), display(t.peer), format(p, t.unit))
		against = "≤ " + ratio(t.limit)
		v, limit = v/p, t.limit
	} else {
		op := "≤ "
		if t.strict {
			op = "< "
		}
		against = op + format(t.limit, t.unit)
	}
	if t.strict {
		return shown, against, v < limit, true
	}
	return shown, against, v <= limit, true
}

// sized replaces {N} and {M} in a title with the run's store size and its
// hundredth.
func sized(s string, items int) string {
	if items == 0 {
		items = 1_000_000
	}
	return strings.NewReplacer("{N}", thousands(items), "{M}", thousands(items/100)).Replace(s)
}

func renderMarkdown(res results, run runInfo, m machineInfo) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# ttldb benchmarks\n\n")
	if run.Quick {
		w("> **A quick run** (-count %d, -benchtime %s): a first look, not figures to quote. "+
			"The full run is `cd bench && go run ./cmd/report`.\n\n", run.Count, run.Benchtime)
	}
	date := run.Start
	if date.IsZero() {
		date = time.Now()
	}
	w("ttldb against its peers, in one run on one machine, with the same workloads: %s items, keys like `key:0000000042`, "+
		"values a 200-byte JSON document (for ttldb, a document whose `id` is the key, in a collection partitioned by `/id`; "+
		"for the peers the same bytes as an opaque value). Each figure is the **median of %d runs**; lower is better everywhere. "+
		"The ratio column is ttldb's figure divided by the best peer's. Produced by `cd bench && go run ./cmd/report%s`; "+
		"the harness is described in [bench/README.md](bench/README.md).\n\n",
		thousands(run.Items), run.Count, argsSuffix(run.Args))

	w("| | |\n|---|---|\n")
	w("| date | %s |\n", date.UTC().Format("2006-01-02 15:04 MST"))
	if !run.End.IsZero() {
		w("| duration | %s |\n", run.End.Sub(run.Start).Round(time.Second))
	}
	w("| machine | %s, %d CPUs (GOMAXPROCS %d), %s, Linux %s; shared with other work, so figures are noisy |\n", m.CPU, m.NumCPU, m.NumCPU, m.Mem, m.Kernel)
	if run.LoadBefore != "" {
		w("| load average | before: %s; after: %s |\n", run.LoadBefore, run.LoadAfter)
	}
	if run.TTLDB != "" {
		w("| ttldb measured | %s |\n", run.TTLDB)
	}
	w("| Go | %s |\n", m.Go)
	w("| peers | %s |\n", strings.Join(m.Peers, ", "))
	w("| settings | -count %d, -benchtime %s (fast group: Heap, Write, Read, Mixed, RemovalNone, DefaultTTL), %s (slow group: Removal10k, Stall, Lag) |\n\n", run.Count, run.Benchtime, run.Slowtime)

	w("![ttldb relative to the best peer](bench/chart.svg)\n\n")

	w("## Targets\n\n")
	w("| target | ttldb (median) | goal | met |\n|---|---|---|---|\n")
	metN, knownN := 0, 0
	for _, t := range targets {
		shown, against, met, known := t.check(res)
		mark := "**no**"
		switch {
		case !known:
			mark = "unknown"
		case met:
			mark = "yes"
			metN++
		}
		if known {
			knownN++
		}
		w("| %s | %s | %s | %s |\n", sized(t.label, run.Items), shown, against, mark)
	}
	w("\n%d of %d targets met (%d measured).\n\n", metN, len(targets), knownN)

	// head writes a table's header: a first column, one per store, and an
	// optional last one.
	head := func(first, last string) {
		w("| %s | %s |", first, joinDisplays(" | "))
		if last != "" {
			w(" %s |", last)
		}
		w("\n|---|")
		for range stores {
			w("---|")
		}
		if last != "" {
			w("---|")
		}
		w("\n")
	}

	w("## Medians\n\n")
	head("workload", "ttldb / best peer")
	for _, r := range rows {
		writeRow(&b, res, r, run.Items)
	}
	w("\nn/a: the store cannot do the workload (see the notes); —: no figure in this run.\n\n")

	w("## Spread (lowest – highest of the runs)\n\n")
	head("workload", "")
	for _, r := range rows {
		w("| %s |", sized(r.title, run.Items))
		for _, s := range stores {
			lo, hi, n := res.spread(r.bench, s.name, r.metric)
			if n == 0 {
				w(" |")
				continue
			}
			w(" %s – %s (%d) |", format(lo, r.unit), format(hi, r.unit), n)
		}
		w("\n")
	}

	w("\n## Context\n\n")
	head("figure", "")
	for _, r := range details {
		w("| %s |", r.title)
		for _, s := range stores {
			if v, ok := res.median(r.bench, s.name, r.metric); ok {
				w(" %s |", format(v, r.unit))
			} else {
				w(" |")
			}
		}
		w("\n")
	}

	w("\n## Notes\n\n")
	for _, n := range notes {
		w("- %s\n", n)
	}
	w("\nWhere a store cannot do a workload:\n\n")
	for _, r := range []string{"RemovalNone", "Removal10k", "DefaultTTL"} {
		for _, s := range stores[1:] {
			if why, ok := notApplicable[r+"/"+s.name]; ok {
				w("- %s, %s: %s.\n", r, s.display, why)
			}
		}
	}
	return b.String()
}

func writeRow(b *strings.Builder, res results, r row, items int) {
	fmt.Fprintf(b, "| %s |", sized(r.title, items))
	for _, s := range stores {
		if v, ok := res.median(r.bench, s.name, r.metric); ok {
			fmt.Fprintf(b, " %s |", format(v, r.unit))
		} else if _, na := notApplicable[r.bench+"/"+s.name]; na {
			b.WriteString(" n/a |")
		} else {
			b.WriteString(" — |")
		}
	}
	v, ok := res.median(r.bench, "ttldb", r.metric)
	p, pv, pok := bestPeer(res, r.bench, r.metric)
	switch {
	case !ok || !pok:
		b.WriteString(" |\n")
	case pv == 0:
		fmt.Fprintf(b, " best peer %s: %s |\n", display(p), format(pv, r.unit))
	default:
		fmt.Fprintf(b, " %s (vs %s) |\n", ratio(v/pv), display(p))
	}
}

var notes = []string{
	"Every store gets the same keys and the same 200-byte values. ttldb keeps `_ts` and `_etag` as numbers in each document's header, which counts as its overhead in the heap figure.",
	"ttldb: a collection partitioned by `/id` (the id is the partition key, as Cosmos DB advises for key-value use: a point read needs only the key, and ttldb then keys the document by the id alone), DefaultTTL -1 and a `ttl` in each document, so that each item carries its own TTL like the peers'. Reads call `Get` and take `Document.Body()`, the stored text as written (the peers' values are the same bytes); every store's reads look the key up with a string of their own and copy the value out, as a server does.",
	"buntdb: `:memory:`, each item set with `SetOptions{Expires: true, TTL: ttl}`; its background pass runs once a second and cannot be triggered. For *Remove 10,000 expired* its pass is timed from inside: an `OnExpiredSync` callback deletes each item as the pass itself does and notes the first and last deletion, which leaves out the pass's collection of the expired keys (in buntdb's favour).",
	"go-cache: `New(NoExpiration, 1s)` (a one-second janitor, the period of buntdb's pass); *Remove 10,000 expired* uses a cache without a janitor and calls `DeleteExpired`. The janitor scans the whole map every second, which the foreground figures include.",
	"ttlcache: `New` with `WithDisableTouchOnHit` (reads do not extend the TTL, as in every other store) and `go Start()`; *Remove 10,000 expired* leaves it unstarted and calls `DeleteExpired`.",
	"golang-lru expirable: `NewLRU(0, nil, ttl)`, unlimited size; one TTL for the whole cache, an hour here. Its cleanup goroutine cannot be stopped. In *Stall* its items expire over the time it took to write them, not at once, and in *Lag* its TTL is the probe's second.",
	"*Write* overwrites a random item of a full store; *Read* reads a random one; *Mixed* runs `b.RunParallel` with one goroutine per CPU, 90% reads and 10% writes.",
	"*Remove 10,000 expired*: 990,000 live items plus 10,000 (every hundredth key) written again each operation with a short TTL (the peers: 1 ns real time; ttldb: `ttl` 1 s and a simulated clock moved on by 2 s), then removed by the store's removal call (ttldb: `Sweep` on a `ManualSweep` collection). The figure is the time of that call alone.",
	"*Removal pass, nothing expired*: the same call on the full store of the foreground workloads, in which nothing has expired.",
	"*Stall*: 1,000,000 items that all expire at the same whole second D and 10,000 live ones; a goroutine reads the live ones in a loop from D-1 s, timing each read, until the store's own removal (ttldb: its background sweeper) has removed the expired items. On a shared 2-core machine the operating system also deschedules the reader: compare with the quiet second's longest read and rate of slow reads in the context table (for go-cache the quiet second also holds its janitor's scan of the whole map). If a store's fill runs too late to leave the quiet second, it is tried once more with the fill rate it showed, then given up (no figure).",
	"*Heap*: the growth of the live heap (after two GCs) from an empty store to a full one, less the bytes of the keys and the values, per item.",
	"*DefaultTTL*: a ttldb collection of 1,000,000 documents without their own `ttl`, its DefaultTTL switched between one and two hours.",
	"*Lag*: an item with a one-second TTL written at a random phase into an empty store; the time from its expiry (the store's own, where it says) to its physical removal, which the harness polls without sleeping from 20 ms before the expiry to 20 ms after it, then every 100 µs (so the figure is an upper bound).",
}

func joinDisplays(sep string) string {
	var d []string
	for _, s := range stores {
		d = append(d, s.display)
	}
	return strings.Join(d, sep)
}

func argsSuffix(args string) string {
	if args == "" {
		return ""
	}
	return " " + args
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ---- the chart ----

// renderSVG draws, for each workload the peers also run, ttldb's figure as
// a ratio to the best peer's on a log scale: bars to the left of 1x are
// workloads where ttldb beats every peer.
func renderSVG(res results, run runInfo) string {
	type bar struct {
		label, peer string
		ratio       float64
	}
	var bars []bar
	for _, r := range rows {
		if !r.chart {
			continue
		}
		v, ok := res.median(r.bench, "ttldb", r.metric)
		p, pv, pok := bestPeer(res, r.bench, r.metric)
		if !ok || !pok || v <= 0 || pv <= 0 {
			continue
		}
		bars = append(bars, bar{sized(r.title, run.Items), display(p), v / pv})
	}
	const (
		width   = 900
		left    = 380 // where the plot starts
		right   = 860
		top     = 70
		rowH    = 34
		barH    = 20
		fontCSS = `font-family="Helvetica, Arial, sans-serif"`
	)
	// The scale: whole decades around the ratios, at least 0.1x to 10x, at
	// most 0.0001x to 10000x.
	minDec, maxDec := -1.0, 1.0
	for _, br := range bars {
		d := math.Log10(br.ratio)
		minDec, maxDec = math.Min(minDec, math.Floor(d)), math.Max(maxDec, math.Ceil(d))
	}
	minDec, maxDec = math.Max(minDec, -4), math.Min(maxDec, 4)
	height := top + rowH*len(bars) + 60
	x := func(r float64) float64 {
		d := math.Log10(r)
		d = math.Max(minDec, math.Min(maxDec, d))
		return left + (d-minDec)/(maxDec-minDec)*(right-left)
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="13">`+"\n", width, height, width, height, fontCSS)
	w(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	title := "ttldb ÷ best peer, median of the runs (log scale; left of 1x: ttldb is ahead)"
	w(`<text x="20" y="28" font-size="16" font-weight="bold">%s</text>`+"\n", esc(title))
	sub := fmt.Sprintf("%s items, %d runs", thousands(run.Items), run.Count)
	if run.Quick {
		sub += ", quick run"
	}
	if !run.Start.IsZero() {
		sub += ", " + run.Start.UTC().Format("2006-01-02")
	}
	w(`<text x="20" y="48" fill="#555">%s</text>`+"\n", esc(sub))
	// Grid: one line per decade.
	for d := minDec; d <= maxDec; d++ {
		gx := x(math.Pow(10, d))
		stroke, sw := "#ddd", 1
		if d == 0 {
			stroke, sw = "#333", 2
		}
		w(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="%d"/>`+"\n", gx, top-8, gx, top+rowH*len(bars), stroke, sw)
		w(`<text x="%.1f" y="%d" text-anchor="middle" fill="#555" font-size="11">%s</text>`+"\n", gx, top+rowH*len(bars)+16, decade(d))
	}
	for i, br := range bars {
		y := top + i*rowH
		w(`<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-10, y+barH/2+5, esc(br.label))
		x0, x1 := x(1), x(br.ratio)
		color := "#2e7d32" // ahead
		if br.ratio > 1 {
			color = "#c62828"
		}
		lo, hi := math.Min(x0, x1), math.Max(x0, x1)
		w(`<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", lo, y, math.Max(hi-lo, 1), barH, color)
		label := ratio(br.ratio) + " " + br.peer
		if br.ratio <= 1 {
			w(`<text x="%.1f" y="%d" text-anchor="start" font-size="11">%s</text>`+"\n", x0+6, y+barH/2+4, esc(label))
		} else {
			w(`<text x="%.1f" y="%d" text-anchor="end" font-size="11">%s</text>`+"\n", x0-6, y+barH/2+4, esc(label))
		}
	}
	w(`<text x="20" y="%d" fill="#555" font-size="11">%s</text>`+"\n", height-14,
		esc("Lower is better in every workload; green: ttldb ahead of every peer, red: behind the best one. Source: BENCHMARKS.md, made by bench/cmd/report."))
	w("</svg>\n")
	return b.String()
}

func decade(d float64) string { return fmt.Sprintf("%gx", math.Pow(10, d)) }

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
