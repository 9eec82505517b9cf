package main

import (
	"fmt"
	"strings"
)

// patchBatchRows are the figures of the patch and batch table (R14,
// bench/patchbatch_test.go), ttldb only; vs is the benchmark of the same
// metric that the last column divides by, vsTitle what it is.
var patchBatchRows = []struct {
	row
	vs, vsTitle string
}{
	{row{bench: "Batch/batch", metric: "ns/op", title: "Batch of 100 upserts of one partition key (NewBatch, 100 Upsert, ExecuteBatch), per batch", unit: nanos}, "Batch/singles", "100 singles"},
	{row{bench: "Batch/singles", metric: "ns/op", title: "100 single UpsertJSON of the same documents, per 100", unit: nanos}, "", ""},
	{row{bench: "Batch/batch", metric: "allocs/op", title: "Batch of 100: allocations per batch", unit: plain}, "Batch/singles", "100 singles"},
	{row{bench: "Batch/singles", metric: "allocs/op", title: "100 single UpsertJSON: allocations per 100", unit: plain}, "", ""},
	{row{bench: "Batch/batch", metric: "B/op", title: "Batch of 100: bytes allocated per batch", unit: plain}, "Batch/singles", "100 singles"},
	{row{bench: "Patch/set", metric: "ns/op", title: "Patch of one member: set /status", unit: nanos}, "Patch/replace", "replace"},
	{row{bench: "Patch/incr", metric: "ns/op", title: "Patch of one member: incr /count", unit: nanos}, "Patch/replace", "replace"},
	{row{bench: "Patch/replace", metric: "ns/op", title: "ReplaceJSON of the whole document (about 200 bytes)", unit: nanos}, "", ""},
	{row{bench: "Patch/set", metric: "allocs/op", title: "Patch, set /status: allocations per call", unit: plain}, "Patch/replace", "replace"},
	{row{bench: "Patch/incr", metric: "allocs/op", title: "Patch, incr /count: allocations per call", unit: plain}, "Patch/replace", "replace"},
	{row{bench: "Patch/replace", metric: "allocs/op", title: "ReplaceJSON: allocations per call", unit: plain}, "", ""},
}

// writePatchBatch writes the patch and batch table: ttldb's medians and the
// runs' spread, and each as a ratio to the alternative it replaces.
func writePatchBatch(b *strings.Builder, res results, items int) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	_, _, _, _, t := sizes(items)
	w("ttldb only, in the fast group: a collection of %s documents of about 200 bytes partitioned by `/pk`, 100 documents a partition key. "+
		"*Batch*: the 100 documents of a random partition written again as one transactional batch of 100 upserts, "+
		"against 100 calls of `UpsertJSON` with the same documents. *Patch*: a random document patched in one member "+
		"(`PatchSet` of `/status`, `PatchIncrement` of `/count`), against a `ReplaceJSON` of the whole document. "+
		"Medians, and the lowest – highest of the runs.\n\n", thousands(t))
	w("| figure | ttldb | ratio |\n|---|---|---|\n")
	for _, r := range patchBatchRows {
		r.row = r.at(items)
		v, ok := res.median(r.bench, "ttldb", r.metric)
		if !ok {
			w("| %s | — | |\n", r.title)
			continue
		}
		s := format(v, r.unit)
		if lo, hi, n := res.spread(r.bench, "ttldb", r.metric); n > 1 && lo != hi {
			s += fmt.Sprintf(" (%s – %s)", format(lo, r.unit), format(hi, r.unit))
		}
		w("| %s | %s |", r.title, s)
		if p, ok := res.median(r.vs, "ttldb", r.metric); r.vs != "" && ok && p != 0 {
			w(" %s of %s |\n", ratio(v/p), r.vsTitle)
		} else {
			w(" |\n")
		}
	}
}
