package main

import (
	"fmt"
	"strings"
)

// listed is the variant of ttldb whose key order is built from the start
// (bench/stores.go), as in a collection that is listed or queried.
const listed = "ttldb_listed"

// keyOrderRows are the figures the key order's table shows for ttldb, never
// listed, and the variant listed.
var keyOrderRows = []row{
	{bench: "WriteSize/n={S}", metric: "ns/op", title: "Write with a TTL into a full store of {S}", unit: nanos},
	{bench: "Write", metric: "ns/op", title: "Write with a TTL into a full store of {N}", unit: nanos},
	{bench: "WriteSize/n={L}", metric: "ns/op", title: "Write with a TTL into a full store of {L}", unit: nanos},
	{bench: "Removal10k", metric: "ns/sweep", title: "Remove {M} expired of {N}", unit: nanos},
	{bench: "Heap", metric: "B/item", title: "Heap per item beyond key and value, {N} items", unit: bytesPerItem},
	{bench: "Heap", metric: "fill-ns/item", title: "Heap: time to fill, per item (creates)", unit: nanos},
}

// writeKeyOrder writes the key order's table: ttldb never listed and
// listed, side by side, and the first listing's time, which builds it.
func writeKeyOrder(b *strings.Builder, res results, items int) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("ttldb keeps the order of keys that listings, queries that scan and index builds read (a compaction reads the key map) only once one of them "+
		"has needed it: the first builds it. The stores above are never listed; the store `%s` is listed once as it opens, "+
		"so it keeps the order from the start, in the same rounds. Medians, and the lowest – highest of the runs.\n\n", listed)
	writeVariant(b, res, items, keyOrderRows, listed, true, "never listed", "listed", "listed ÷ never (heap: listed − never)")
	r := row{bench: "FirstList", metric: "ns/list", title: "The first listing of a full store of {N}, which builds the order (a page of one document)", unit: nanos}.at(items)
	_, _, s := res.cell(r.bench, "ttldb", r.metric, r.unit)
	w("| %s | %s | | |\n", r.title, s)
}
