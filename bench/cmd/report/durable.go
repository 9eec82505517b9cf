package main

import (
	"fmt"
	"strings"
)

// durableRows are the figures of the durability table (R12,
// bench/zdurable_test.go).
var durableRows = []row{
	{bench: "Durable/everysecond", metric: "ns/op", title: "Write, sync every second (per write)", unit: nanos},
	{bench: "Durable/always/g=1", metric: "ns/op", title: "Write, sync always, 1 writer (per write)", unit: nanos},
	{bench: "Durable/always/g=16", metric: "ns/op", title: "Write, sync always, 16 writers (per write, all of them)", unit: nanos},
	{bench: "Durable/everysecond", metric: "allocs/op", title: "Write, sync every second: allocations per write", unit: plain},
	{bench: "Reopen/log", metric: "ns/op", title: "Reopen {N} documents: from the log", unit: nanos},
	{bench: "Reopen/snapshot", metric: "ns/op", title: "Reopen {N} documents: from a snapshot (ttldb)", unit: nanos},
}

// writeDurable writes the durability table: ttldb on disk, ttldb in
// memory (the same writes) and buntdb on disk, medians and the runs'
// spread.
func writeDurable(b *strings.Builder, res results, items int) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("Stores on disk (a directory under bench/out, on the machine's disk): ttldb with `Options.Dir` and buntdb with a file, "+
		"each filled with a tenth of the run's items (%s) under its fastest policy, closed and opened again with the policy measured; "+
		"writes overwrite a random item, TTL an hour. *ttldb in memory* is the same workload on a collection without `Dir`. "+
		"*Reopen*: the time for a store of %s items that a previous process wrote and closed to open and serve a read. "+
		"Medians, and the lowest – highest of the runs.\n\n", thousands(max(items/10, 1)), thousands(items))
	w("| figure | ttldb | ttldb in memory | buntdb | ttldb ÷ buntdb |\n|---|---|---|---|---|\n")
	for _, r := range durableRows {
		r = r.at(items)
		w("| %s |", r.title)
		var t, p float64
		var tok, pok bool
		for _, store := range []string{"ttldb", inMemory, "buntdb"} {
			v, ok := res.median(r.bench, store, r.metric)
			if !ok {
				w(" — |")
				continue
			}
			s := format(v, r.unit)
			if lo, hi, n := res.spread(r.bench, store, r.metric); n > 1 && lo != hi {
				s += fmt.Sprintf(" (%s – %s)", format(lo, r.unit), format(hi, r.unit))
			}
			w(" %s |", s)
			switch store {
			case "ttldb":
				t, tok = v, true
			case "buntdb":
				p, pok = v, true
			}
		}
		if tok && pok && p != 0 {
			w(" %s |\n", ratio(t/p))
		} else {
			w(" |\n")
		}
	}
}
