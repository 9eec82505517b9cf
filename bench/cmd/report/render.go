package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ttldb/ttldb/bench/internal/benchrun"
)

// stores are the stores in report order, ttldb first.
var stores = []struct{ name, display string }{
	{"ttldb", "ttldb"},
	{"buntdb", "buntdb"},
	{"gocache", "go-cache"},
	{"ttlcache", "ttlcache"},
	{"expirable", "golang-lru expirable"},
}

// variants are ttldb in other settings (bench/stores.go, Variants), run as
// stores of their own in the workloads that have them, which the report
// compares with ttldb, not with the peers.
var variants = []struct{ name, display string }{
	{feedOff, "ttldb, feed off"},
	{listed, "ttldb, listed"},
	{inMemory, "ttldb in memory"},
}

func display(store string) string {
	for _, s := range stores {
		if s.name == store {
			return s.display
		}
	}
	for _, s := range variants {
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
	fraction // of 1, shown as a percentage
	perSec   // a count per second
)

// A row is one figure of the report: a benchmark's metric. Titles and
// bench names hold the run's sizes as {N}, {M}, {S}, {L} and {T} (see
// sized).
type row struct {
	bench, metric, title string
	unit                 unit
	chart                bool
}

// at returns the row with the run's sizes in its bench name and title.
func (r row) at(items int) row {
	r.bench, r.title = benchName(r.bench, items), sized(r.title, items)
	return r
}

// rows are the report's main figures, one per workload, lower is better.
var rows = []row{
	{"Write", "ns/op", "1. Write with a TTL into a full store of {N}", nanos, true},
	{"WriteSize/n={S}", "ns/op", "1. Write with a TTL into a full store of {S}", nanos, true},
	{"WriteSize/n={L}", "ns/op", "1. Write with a TTL into a full store of {L}", nanos, true},
	{"Read", "ns/op", "2. Point read of a live item", nanos, true},
	{"Read", "allocs/op", "2. Point read: allocations per read", plain, false},
	{"Mixed", "ns/op", "3. 90% read / 10% write, all cores (per op)", nanos, true},
	{"Removal10k", "ns/sweep", "4. Remove {M} expired of {N}", nanos, true},
	{"RemovalNone", "ns/op", "4. Removal pass, nothing expired", nanos, true},
	{"Stall", "max-stall-ns", "5. Longest read stall, {N} expiring at once", nanos, true},
	{"Stall", "blocked-frac", "5. Reader's time blocked, {N} expiring at once", fraction, false},
	{"Heap", "B/item", "6. Heap per item beyond key and value", bytesPerItem, true},
	{"DefaultTTL", "ns/op", "7. Change DefaultTTL on {N} documents", nanos, false},
	{"Lag", "lag-ns", "8. Expiry lag when idle (mean of the probes)", nanos, true},
}

// details are secondary figures, shown for context.
var details = []row{
	{"Write", "B/op", "Write: bytes allocated per write", plain, false},
	{"Write", "allocs/op", "Write: allocations per write", plain, false},
	{"WriteSize/n={S}", "allocs/op", "Write at {S}: allocations per write", plain, false},
	{"WriteSize/n={L}", "allocs/op", "Write at {L}: allocations per write", plain, false},
	{"WriteSize/n={L}", "gc-cycles", "Write at {L}: collections during the timed writes", plain, false},
	{"Mixed", "allocs/op", "Mixed: allocations per op", plain, false},
	{"Stall", "quiet-max-ns", "Stall: longest read in the quiet second before (noise floor)", nanos, false},
	{"Stall", "slow-reads/s", "Stall: reads over 1 ms per second, after the expiry", perSec, false},
	{"Stall", "quiet-slow-reads/s", "Stall: reads over 1 ms per second, in the quiet second", perSec, false},
	{"Stall", "quiet-p50-ns", "Stall: median read in the quiet second", nanos, false},
	{"Stall", "quiet-blocked-frac", "Stall: the quiet second's reads beyond their median (noise left out of the time blocked)", fraction, false},
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
	case fraction:
		return fmt.Sprintf("%.2g%%", v*100)
	case perSec:
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.3g M/s", v/1e6)
		case v >= 1e4:
			return fmt.Sprintf("%.3g k/s", v/1e3)
		default:
			return fmt.Sprintf("%.3g/s", v)
		}
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
	w("| settings | -count %d, -benchtime %s (fast group: %s; size group: %s; disk group: %s), %s (slow group: %s) |\n\n",
		run.Count, run.Benchtime, groupList(benchrun.FastGroup), groupList(benchrun.SizeGroup), groupList(benchrun.DiskGroup), run.Slowtime, groupList(benchrun.SlowGroup))

	w("![ttldb relative to the best peer](bench/chart.svg)\n\n")

	w("## Targets\n\n")
	w("| target | ttldb (median) | goal | met |\n|---|---|---|---|\n")
	metN, knownN := 0, 0
	for _, t := range targets {
		shown, against, met, known := t.check(res, run.Items)
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
		writeRow(&b, res, r.at(run.Items))
	}
	w("\nn/a: the store cannot do the workload (see the notes); —: no figure in this run.\n\n")

	w("## Spread (lowest – highest of the runs)\n\n")
	head("workload", "")
	for _, r := range rows {
		r = r.at(run.Items)
		w("| %s |", r.title)
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

	w("\n## Read scaling\n\n")
	writeReadScale(&b, res)

	w("\n## Change feed\n\n")
	writeFeed(&b, res, run.Items)

	w("\n## Key order\n\n")
	writeKeyOrder(&b, res, run.Items)

	w("\n## Durability\n\n")
	writeDurable(&b, res, run.Items)

	w("\n## Patch and batch\n\n")
	writePatchBatch(&b, res, run.Items)

	w("\n## Queries and secondary indexes\n\n")
	writeQuery(&b, res, run.Items)

	w("\n## Context\n\n")
	head("figure", "")
	for _, r := range details {
		r = r.at(run.Items)
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
		w("- %s\n", sized(n, run.Items))
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

// writeRow writes a row of the medians table; r has the run's sizes (at).
func writeRow(b *strings.Builder, res results, r row) {
	fmt.Fprintf(b, "| %s |", r.title)
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

// feedWrites are the figures the change feed's table shows for ttldb with
// the feed on (its default) and off (the variant feedOff).
var feedWrites = []row{
	{bench: "WriteSize/n={S}", metric: "ns/op", title: "Write with a TTL into a full store of {S}", unit: nanos},
	{bench: "Write", metric: "ns/op", title: "Write with a TTL into a full store of {N}", unit: nanos},
	{bench: "WriteSize/n={L}", metric: "ns/op", title: "Write with a TTL into a full store of {L}", unit: nanos},
	{bench: "Write", metric: "allocs/op", title: "Write at {N}: allocations per write", unit: plain},
	{bench: "Write", metric: "B/op", title: "Write at {N}: bytes allocated per write", unit: plain},
	{bench: "WriteSize/n={L}", metric: "gc-cycles", title: "Write at {L}: collections during the timed writes", unit: plain},
	{bench: "Heap", metric: "B/item", title: "Heap per item beyond key and value, {N} items", unit: bytesPerItem},
	{bench: "Heap", metric: "fill-ns/item", title: "Heap: time to fill, per item", unit: nanos},
}

// feedReads are the figures of the feed's reads, each at the two sizes of
// FeedRead: the bench names hold the size as {n}.
var feedReads = []row{
	{bench: "FeedRead/n={n}/latest", metric: "ns/doc", title: "Latest version: time per document", unit: nanos},
	{bench: "FeedRead/n={n}/latest", metric: "allocs/doc", title: "Latest version: allocations per document", unit: plain},
	{bench: "FeedRead/n={n}/latest", metric: "B/doc", title: "Latest version: bytes allocated per document", unit: plain},
	{bench: "FeedRead/n={n}/all", metric: "ns/change", title: "All versions and deletes: time per change", unit: nanos},
	{bench: "FeedRead/n={n}/all", metric: "allocs/change", title: "All versions and deletes: allocations per change", unit: plain},
	{bench: "FeedRead/n={n}/all", metric: "changes", title: "All versions and deletes: changes read (the records the retention keeps)", unit: plain},
}

// writeFeed writes the change feed's tables: ttldb's writes and heap with
// the feed on and off, and the reads of the whole feed at two sizes.
func writeFeed(b *strings.Builder, res results, items int) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	cell := res.cell
	w("ttldb with the change feed in its default setting (on, keeping 64 MiB of all-versions records) and off "+
		"(`Options.Feed.Off`, the store `%s`), in the same rounds; medians, and the lowest – highest of the runs.\n\n", feedOff)
	writeVariant(b, res, items, feedWrites, feedOff, false, "feed on", "feed off", "on ÷ off (heap: on − off)")
	_, _, _, _, small := sizes(items)
	large := items
	if large == 0 {
		large = 1_000_000
	}
	at := func(r row, n int) string { return strings.ReplaceAll(r.bench, "{n}", strconv.Itoa(n)) }
	w("\nReads of the whole feed from its beginning, pages of 1,000 changes following the continuations, "+
		"on full stores of %s and %s documents (the feed on); an operation is the whole feed.\n\n", thousands(small), thousands(large))
	w("| figure | %s | %s | %s ÷ %s |\n|---|---|---|---|\n", thousands(small), thousands(large), thousands(large), thousands(small))
	for _, r := range feedReads {
		lo, ok1, a := cell(at(r, small), "ttldb", r.metric, r.unit)
		hi, ok2, z := cell(at(r, large), "ttldb", r.metric, r.unit)
		w("| %s | %s | %s |", r.title, a, z)
		if ok1 && ok2 && lo != 0 {
			w(" %s |\n", ratio(hi/lo))
		} else {
			w(" |\n")
		}
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
	"*Write … of {S}* and *of {L}* (`WriteSize`): the writes of *Write* on full stores of a hundredth and five times the run's size, each filled once per process (the size group: its own process per store); the small one is then written into, untimed, until it has taken {N} writes in all, as many as the fill of *Write*'s store has when its timing starts. Without these writes its figure would include the one-time growth of ttldb's change feed to its retention (64 MiB of older versions by default), and the operating system's first touch of the heap's new pages, which costs 12-17 µs per 4 KiB page on this shared virtual machine. In a large heap a collection comes only every few million writes, so a run may catch none: see the collections counted in the context table.",
	"*Read scaling* (`ReadScale`): the reads of *Read* by 1, 2, 4 and 8 goroutines at once on the full store, all reads; each goroutine times its own share of the reads. On a machine with fewer cores than goroutines the time per read grows at least with goroutines/cores even when nothing is shared: compare the growth with go-cache's.",
	"*Remove 10,000 expired*: 990,000 live items plus 10,000 (every hundredth key) written again each operation with a short TTL (the peers: 1 ns real time; ttldb: `ttl` 1 s and a simulated clock moved on by 2 s), then removed by the store's removal call (ttldb: `Sweep` on a `ManualSweep` collection). The figure is the time of that call alone.",
	"*Removal pass, nothing expired*: the same call on the full store of the foreground workloads, in which nothing has expired.",
	"*Stall*: 1,000,000 items that all expire at the same whole second D and 10,000 live ones; a goroutine reads the live ones in a loop from D-1 s, timing each read, until the store's own removal (ttldb: its background sweeper) has removed the expired items. On a shared 2-core machine the operating system also deschedules the reader: compare with the quiet second's longest read and rate of slow reads in the context table (for go-cache the quiet second also holds its janitor's scan of the whole map). *Reader's time blocked*: with m the median read of the quiet second, the time each read after the expiry took beyond m, less what as many reads took beyond m in the quiet second (reads vary about their median when nothing blocks them), divided by the time from the expiry to the reader's last read (which ends when a 100 ms poll sees the items gone); 0 when reads took as long as when idle. *Slow reads … within 2x of the quiet second* compares ttldb's median slow-reads/s with twice its median quiet-slow-reads/s, the latter taken as at least 1/s (a quiet second often has none). If a store's fill runs too late to leave the quiet second, it is tried once more with the fill rate it showed, then given up (no figure).",
	"*Heap*: the growth of the live heap (after two GCs) from an empty store to a full one, less the bytes of the keys and the values, per item.",
	"*DefaultTTL*: a ttldb collection of 1,000,000 documents without their own `ttl`, its DefaultTTL switched between one and two hours.",
	"*Lag*: an item with a one-second TTL written at a random phase into an empty store; the time from its expiry (the store's own, where it says) to its physical removal, which the harness polls without sleeping from 20 ms before the expiry to 20 ms after it, then every 100 µs (so the figure is an upper bound).",
	"*Durability*: the disk group, ttldb, ttldb in memory (`ttldb_mem`) and buntdb only, its own process per store. *Write, sync always, 16 writers*: 16 goroutines share the writes; ns/op is the time per write of the whole (ttldb's writers share one sync: group commit). *Reopen* (in the slow group): ttldb/log replays the log of the fill (no compaction ran), ttldb/snapshot loads the snapshot `Compact` wrote; buntdb loads its file, a log of its commands.",
	"*Key order*: the store `ttldb_listed` is ttldb listed once (`List` of one document) right after `NewCollection`, which builds its key order; it keeps it from then on. It runs *Heap*, *Write*, *WriteSize* and *Remove 10,000 expired* only, in the same rounds as ttldb, which no workload of the peers' lists. *FirstList* (ttldb only, in the slow group) fills a new store of {N} per operation, untimed, and times its first `List`.",
	"*Change feed*: the store `ttldb_feed_off` is ttldb with `Options.Feed` `{Off: true}`, measured in *Heap*, *Write* and *WriteSize* only, in the same rounds as ttldb, whose feed is in its default setting (on, 64 MiB of all-versions records). *FeedRead* (ttldb only) reads the whole feed of a full store of {T} and one of {N} documents, filled once per process as *WriteSize*'s are: the latest-version feed (each document once) and the all-versions-and-deletes feed (the records the retention keeps of the fill's writes).",
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

// groupList writes a benchmark group's regular expression as a list.
func groupList(g string) string { return strings.ReplaceAll(g, "|", ", ") }
