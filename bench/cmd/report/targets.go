package main

import (
	"fmt"
	"strconv"
	"strings"
)

// A target is one of the goals for ttldb: ttldb's median of
// bench/metric against an absolute limit, against a ratio of a peer's
// median (or of the best peer's, or of a variant's such as ttldb with the
// change feed off), against a ratio of another of ttldb's own metrics of
// the same benchmark, or against a ratio of its own median of the metric
// in another benchmark (a batch of writes against the same writes one by
// one).
type target struct {
	label             string
	bench, metric     string
	peer              string  // compare with this peer's or variant's median (bestPeerName: the best peer's); "" otherwise
	base              string  // or compare with ttldb's own median of this metric of bench,
	floor             float64 // taken as at least floor
	other, otherTitle string  // or with ttldb's own median of metric in the benchmark other (otherTitle says what it is)
	limit             float64 // the ratio, or the absolute value
	strict            bool    // below the limit, not at it
	unit              unit
}

// bestPeerName in target.peer compares with the peer with the lowest median.
const bestPeerName = "*"

// vsPeer: ttldb's median at most limit times peer's.
func vsPeer(label, bench, metric, peer string, limit float64, u unit) target {
	return target{label: label, bench: bench, metric: metric, peer: peer, limit: limit, unit: u}
}

// absolute: ttldb's median at most (strict: under) limit.
func absolute(label, bench, metric string, limit float64, strict bool, u unit) target {
	return target{label: label, bench: bench, metric: metric, limit: limit, strict: strict, unit: u}
}

// vsOwn: ttldb's median at most limit times max(its median of base, floor).
func vsOwn(label, bench, metric, base string, floor, limit float64, u unit) target {
	return target{label: label, bench: bench, metric: metric, base: base, floor: floor, limit: limit, unit: u}
}

// vsBench: ttldb's median at most limit times its median of the same
// metric in the benchmark other, which otherTitle names in the report.
func vsBench(label, bench, metric, other, otherTitle string, limit float64, u unit) target {
	return target{label: label, bench: bench, metric: metric, other: other, otherTitle: otherTitle, limit: limit, unit: u}
}

// feedOff is the variant of ttldb with the change feed off
// (bench/stores.go), which the feed's targets compare with.
const feedOff = "ttldb_feed_off"

// inMemory is ttldb in memory in the durability workloads
// (bench/zdurable_test.go), which a durable write compares with.
const inMemory = "ttldb_mem"

// targets are in the order of the workloads. {N}, {M}, {S} and {L} are the
// run's sizes (see sized); in bench names, plain digits.
var targets = []target{
	vsPeer("Write with TTL at most 0.35x buntdb at {N}", "Write", "ns/op", "buntdb", 0.35, nanos),
	vsPeer("Write with TTL within 2x go-cache at {N}", "Write", "ns/op", "gocache", 2, nanos),
	vsPeer("Write with TTL at most 0.35x buntdb at {S}", "WriteSize/n={S}", "ns/op", "buntdb", 0.35, nanos),
	vsPeer("Write with TTL within 2x go-cache at {S}", "WriteSize/n={S}", "ns/op", "gocache", 2, nanos),
	vsPeer("Write with TTL at most 0.35x buntdb at {L}", "WriteSize/n={L}", "ns/op", "buntdb", 0.35, nanos),
	vsPeer("Write with TTL within 2x go-cache at {L}", "WriteSize/n={L}", "ns/op", "gocache", 2, nanos),
	vsPeer("Write with the change feed on at most 1.15x the write with it off at {S}", "WriteSize/n={S}", "ns/op", feedOff, 1.15, nanos),
	vsPeer("Write with the change feed on at most 1.15x the write with it off at {N}", "Write", "ns/op", feedOff, 1.15, nanos),
	vsPeer("Write with the change feed on at most 1.15x the write with it off at {L}", "WriteSize/n={L}", "ns/op", feedOff, 1.15, nanos),
	absolute("A write of raw JSON allocates once", "Write", "allocs/op", 1, false, plain),
	vsPeer("Point read at most 0.5x buntdb", "Read", "ns/op", "buntdb", 0.5, nanos),
	vsPeer("Point read no slower than 1.2x go-cache", "Read", "ns/op", "gocache", 1.2, nanos),
	absolute("Point read with zero allocations (raw document)", "Read", "allocs/op", 0, false, plain),
	vsPeer("Mixed 90/10 on all cores within 1.2x go-cache", "Mixed", "ns/op", "gocache", 1.2, nanos),
	vsPeer("Remove {M} expired of {N} at most 0.5x the best peer", "Removal10k", "ns/sweep", bestPeerName, 0.5, nanos),
	absolute("Removal pass with nothing expired under 1 µs", "RemovalNone", "ns/op", 1e3, true, nanos),
	absolute("Longest read stall during a mass expiry under 1 ms", "Stall", "max-stall-ns", 1e6, true, nanos),
	absolute("Reads blocked by the sweeper during a mass expiry under 5% of the reader's time", "Stall", "blocked-frac", 0.05, true, fraction),
	vsOwn("Slow reads per second during the sweep within 2x of the quiet second", "Stall", "slow-reads/s", "quiet-slow-reads/s", 1, 2, perSec),
	absolute("Heap per item beyond key and value at most 150 B", "Heap", "B/item", 150, false, bytesPerItem),
	absolute("DefaultTTL change on {N} documents under 10 µs", "DefaultTTL", "ns/op", 1e4, true, nanos),
	absolute("Expiry lag when idle under 10 ms", "Lag", "lag-ns", 1e7, true, nanos),
	absolute("Latest-version feed read of {N} documents: under 0.01 allocations per document", "FeedRead/n={N}/latest", "allocs/doc", 0.01, true, plain),
	vsBench("Batch of 100 upserts of one partition key within 2x 100 single writes, in a store of {T}", "Batch/batch", "ns/op", "Batch/singles", "100 single writes", 2, nanos),
	vsBench("Indexed equality returning 10 documents of {N} within 20x a point Get", "Query/eq", "ns/op", "Query/get", "a point Get", 20, nanos),
	absolute("Indexed range with ORDER BY and LIMIT 20 on {N} documents under 50 µs", "Query/range", "ns/op", 50e3, true, nanos),
	vsBench("A write right after an indexed query within 1.1x a write alone, on {N} documents with 2 indexes", "QueryWrite/eq+write", "write-ns/op", "QueryWrite/write", "a write alone", 1.1, nanos),
	vsBench("Unindexed filter over {N} documents at least 2x faster than decoding each into a map", "Query/scan", "ns/op", "Query/decode", "decoding into maps", 0.5, nanos),
	vsPeer("Durable write, sync every second: within 1.5x ttldb in memory", "Durable/everysecond", "ns/op", inMemory, 1.5, nanos),
	vsPeer("Durable write, sync every second: faster than buntdb's", "Durable/everysecond", "ns/op", "buntdb", 1, nanos),
	vsPeer("Durable write, sync always, 1 writer: at least buntdb's rate", "Durable/always/g=1", "ns/op", "buntdb", 1, nanos),
	vsPeer("Durable write, sync always, 16 writers: at least 3x buntdb's rate", "Durable/always/g=16", "ns/op", "buntdb", 1.0/3, nanos),
	absolute("Reopen of {N} documents from a snapshot under 2 s", "Reopen/snapshot", "ns/op", 2e9, true, nanos),
	absolute("Reopen of {N} documents from the log under 2 s", "Reopen/log", "ns/op", 2e9, true, nanos),
	// That the read is O(n) is checked by counting the documents it visits
	// (TestFeedLatestVersionIsLinear), not by comparing times at two sizes,
	// which differ by the caches: a 100,000-document store fits much of
	// the last-level cache, a 1,000,000-document one does not.
}

// check evaluates a target: the figure shown, the comparison, and whether
// it is met; known is false when a figure is missing.
func (t target) check(res results, items int) (shown, against string, met, known bool) {
	bench := benchName(t.bench, items)
	v, ok := res.median(bench, "ttldb", t.metric)
	if !ok {
		return "missing", "", false, false
	}
	shown = format(v, t.unit)
	limit := t.limit
	switch {
	case t.peer != "":
		peer, p := t.peer, 0.0
		if peer == bestPeerName {
			peer, p, ok = bestPeer(res, bench, t.metric)
		} else {
			p, ok = res.median(bench, peer, t.metric)
		}
		if !ok || p == 0 {
			if t.peer == bestPeerName {
				return shown, "peers missing", false, false
			}
			return shown, display(peer) + " missing", false, false
		}
		of := display(peer)
		if t.peer == bestPeerName {
			of += ", the best peer"
		}
		shown = fmt.Sprintf("%s = %s of %s (%s)", shown, ratio(v/p), of, format(p, t.unit))
		against = "≤ " + ratio(t.limit)
		v = v / p
	case t.other != "":
		p, ok := res.median(benchName(t.other, items), "ttldb", t.metric)
		if !ok || p == 0 {
			return shown, t.otherTitle + " missing", false, false
		}
		shown = fmt.Sprintf("%s = %s of %s (%s)", shown, ratio(v/p), t.otherTitle, format(p, t.unit))
		against = "≤ " + ratio(t.limit)
		v = v / p
	case t.base != "":
		p, ok := res.median(bench, "ttldb", t.base)
		if !ok {
			return shown, t.base + " missing", false, false
		}
		shown = fmt.Sprintf("%s = %s of %s (%s)", shown, ratio(v/max(p, t.floor)), t.base, format(p, t.unit))
		against = fmt.Sprintf("≤ %s of max(%s, %s)", ratio(t.limit), t.base, format(t.floor, t.unit))
		v = v / max(p, t.floor)
	default:
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

// The run's sizes: {N} is -items (1,000,000 when unknown), {M} its
// hundredth (Removal10k's expired items), {S} and {L} the sizes of
// WriteSize, as the benchmarks compute them (bench/writesize_test.go): a
// hundredth of -items (at least 1) and five times it; {T} the smaller size
// of FeedRead (bench/foreground_test.go), a tenth of -items (at least 1).
func sizes(items int) (n, m, s, l, t int) {
	if items == 0 {
		items = 1_000_000
	}
	return items, items / 100, max(items/100, 1), 5 * items, max(items/10, 1)
}

// sized replaces {N}, {M}, {S}, {L} and {T} in a title with the run's
// sizes, written with thousands separators.
func sized(s string, items int) string {
	n, m, sm, l, t := sizes(items)
	return strings.NewReplacer("{N}", thousands(n), "{M}", thousands(m), "{S}", thousands(sm), "{L}", thousands(l), "{T}", thousands(t)).Replace(s)
}

// benchName replaces the sizes in a benchmark's name with plain digits, as
// the benchmarks write them (WriteSize/n=10000).
func benchName(s string, items int) string {
	n, m, sm, l, t := sizes(items)
	i := strconv.Itoa
	return strings.NewReplacer("{N}", i(n), "{M}", i(m), "{S}", i(sm), "{L}", i(l), "{T}", i(t)).Replace(s)
}
