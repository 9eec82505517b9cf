package main

import (
	"fmt"
	"strings"
)

// queryRows are the figures of the queries' table (R13, issue 15,
// bench/query_test.go, BenchmarkQuery): ttldb's, buntdb's where it runs
// the same read (peer), and ttldb's as a ratio to its own figure of the
// benchmark vs (vsTitle says what it is).
var queryRows = []struct {
	row
	peer        bool
	vs, vsTitle string
}{
	{row{bench: "Query/get", metric: "ns/op", title: "Point Get of a random document, the baseline", unit: nanos}, true, "", ""},
	{row{bench: "Query/eq", metric: "ns/op", title: "Indexed equality, 10 documents of {N}: `WHERE c.status = @status`", unit: nanos}, true, "Query/get", "a point Get"},
	{row{bench: "Query/range", metric: "ns/op", title: "Indexed range: `WHERE c.total >= @min ORDER BY c.total OFFSET 0 LIMIT 20`", unit: nanos}, true, "Query/get", "a point Get"},
	{row{bench: "Query/scan", metric: "ns/op", title: "Unindexed filter over {N}: `SELECT VALUE COUNT(1) FROM c WHERE c.user = @user AND c.qty > @qty`", unit: nanos}, false, "Query/decode", "decoding into maps"},
	{row{bench: "Query/decode", metric: "ns/op", title: "The same count without a query: `All`, each `Body` decoded into a `map[string]any`, the filter in Go", unit: nanos}, false, "", ""},
	{row{bench: "Query/get", metric: "allocs/op", title: "Point Get: allocations", unit: plain}, true, "", ""},
	{row{bench: "Query/eq", metric: "allocs/op", title: "Indexed equality: allocations per query", unit: plain}, true, "", ""},
	{row{bench: "Query/range", metric: "allocs/op", title: "Indexed range: allocations per query", unit: plain}, true, "", ""},
	{row{bench: "Query/scan", metric: "allocs/op", title: "Unindexed filter: allocations per query", unit: plain}, false, "Query/decode", "decoding into maps"},
	{row{bench: "Query/decode", metric: "allocs/op", title: "Decoding into maps: allocations per count", unit: plain}, false, "", ""},
	{row{bench: "Query/eq", metric: "examined/op", title: "Indexed equality: documents examined per query", unit: plain}, false, "", ""},
	{row{bench: "Query/range", metric: "examined/op", title: "Indexed range: documents examined per query", unit: plain}, false, "", ""},
	{row{bench: "Query/scan", metric: "examined/op", title: "Unindexed filter: documents examined per query", unit: plain}, false, "", ""},
}

// indexWriteBase is the write without a secondary index, which the
// writes with indexes compare with.
const indexWriteBase = "QueryIndex/idx=0"

// indexRows are the figures of the indexes' costs (BenchmarkQueryIndex),
// ttldb only; perIndex is the number of indexes of a write, whose cost
// beyond the write without any the table shows per index.
var indexRows = []struct {
	row
	perIndex int
}{
	{row{bench: indexWriteBase, metric: "ns/op", title: "UpsertJSON over a random document, its indexed values changed: no secondary index", unit: nanos}, 0},
	{row{bench: "QueryIndex/idx=1", metric: "ns/op", title: "The same writes, 1 index (`/status`)", unit: nanos}, 1},
	{row{bench: "QueryIndex/idx=3", metric: "ns/op", title: "The same writes, 3 indexes (`/status`, `/total`, `/createdAt`)", unit: nanos}, 3},
	{row{bench: indexWriteBase, metric: "allocs/op", title: "Write, no index: allocations", unit: plain}, 0},
	{row{bench: "QueryIndex/idx=1", metric: "allocs/op", title: "Write, 1 index: allocations", unit: plain}, 1},
	{row{bench: "QueryIndex/idx=3", metric: "allocs/op", title: "Write, 3 indexes: allocations", unit: plain}, 3},
	{row{bench: "QueryIndex/build", metric: "B/doc", title: "Heap of one index (`/status`) per document: the store with it minus without", unit: bytesPerItem}, -1},
	{row{bench: "QueryIndex/build", metric: "ns/op", title: "CreateIndex of `/status` on {N} documents", unit: nanos}, -1},
	{row{bench: "QueryIndex/build-total", metric: "ns/op", title: "CreateIndex of `/total` (numbers) on {N} documents", unit: nanos}, -1},
	{row{bench: "QueryIndex/build-createdAt", metric: "ns/op", title: "CreateIndex of `/createdAt` (dates) on {N} documents", unit: nanos}, -1},
}

// writeQuery writes the queries' tables: ttldb's and buntdb's reads on the
// same documents, and what an index costs ttldb's writes and heap;
// medians and the runs' spread.
func writeQuery(b *strings.Builder, res results, items int) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	cell := res.cell
	n, _, _, _, _ := sizes(items)
	w("In the fast group, a store of its own of %s documents of about 200 bytes, partitioned by `/pk`, "+
		"with secondary indexes on `/status` (10 documents a status, spread over the store) and `/total` "+
		"(a number spread over 0 – 999,999): ttldb with `Options.Indexes`, buntdb with `IndexJSON` indexes on the same documents. "+
		"ttldb's queries are prepared once (`Prepare`) and run with `Query` and a parameter drawn at random for each; "+
		"buntdb's reads are `AscendEqual` on its status index and `AscendGreaterOrEqual` on its total index, stopped at the 20th value. "+
		"ttldb's results are the documents' JSON with `_ts` and `_etag`, copied into the page; buntdb's are its stored strings, kept in a slice. "+
		"The last column is ttldb's figure as a ratio to another of its own. Medians, and the lowest – highest of the runs.\n\n", thousands(n))
	w("| figure | ttldb | buntdb | ttldb ÷ buntdb | ttldb ÷ its baseline |\n|---|---|---|---|---|\n")
	for _, r := range queryRows {
		r.row = r.at(items)
		v, ok, a := cell(r.bench, "ttldb", r.metric, r.unit)
		w("| %s | %s |", r.title, a)
		p, pok, z := cell(r.bench, "buntdb", r.metric, r.unit)
		switch {
		case !r.peer: // buntdb has no such read
			w(" | |")
		case ok && pok && p != 0:
			w(" %s | %s |", z, ratio(v/p))
		default:
			w(" %s | |", z)
		}
		if base, bok := res.median(r.vs, "ttldb", r.metric); r.vs != "" && ok && bok && base != 0 {
			w(" %s of %s |\n", ratio(v/base), r.vsTitle)
		} else {
			w(" |\n")
		}
	}
	w("\nWhat a secondary index costs ttldb, on the same store: the same random overwrites (`UpsertJSON`, each changing the " +
		"document's values at `/status`, `/total` and `/createdAt`) with no index, one and three; the heap one index adds per " +
		"document (the live heap after two GCs, with the index minus without, as *Heap* measures it); and the time to build it.\n\n")
	w("| figure | ttldb | ratio to no index (beyond it, per index) |\n|---|---|---|\n")
	for _, r := range indexRows {
		r.row = r.at(items)
		v, ok, a := cell(r.bench, "ttldb", r.metric, r.unit)
		w("| %s | %s |", r.title, a)
		base, bok := res.median(indexWriteBase, "ttldb", r.metric)
		switch {
		case r.perIndex <= 0 || !ok || !bok:
			w(" |\n")
		case base == 0:
			w(" %s per index |\n", signed((v-base)/float64(r.perIndex), r.unit))
		default:
			w(" %s (%s per index) |\n", ratio(v/base), signed((v-base)/float64(r.perIndex), r.unit))
		}
	}
	writeQueryWrite(b, res, items)
}

// queryWriteRows are the figures of a write right after a query
// (BenchmarkQueryWrite), ttldb only, each compared with the write alone.
var queryWriteRows = []row{
	{bench: "QueryWrite/write", metric: "write-ns/op", title: "UpsertJSON over a random document, both indexed values changed: the write alone", unit: nanos},
	{bench: "QueryWrite/eq+write", metric: "write-ns/op", title: "The same write right after an indexed equality (`WHERE c.status = @status`, 10 documents)", unit: nanos},
	{bench: "QueryWrite/write", metric: "B/op", title: "Write alone: bytes allocated", unit: plain},
	{bench: "QueryWrite/eq+write", metric: "B/op", title: "Query and write: bytes allocated", unit: plain},
}

// writeQueryWrite writes the table of a write right after a query.
func writeQueryWrite(b *strings.Builder, res results, items int) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("\nWhat a query costs the write that follows it, on the same store with its two indexes: the same random overwrites, " +
		"alone and each right after an indexed equality; the time of the write alone, read around it.\n\n")
	w("| figure | ttldb | ratio to the write alone |\n|---|---|---|\n")
	for _, r := range queryWriteRows {
		r = r.at(items)
		v, ok, a := res.cell(r.bench, "ttldb", r.metric, r.unit)
		w("| %s | %s |", r.title, a)
		if base, bok := res.median(queryWriteRows[0].bench, "ttldb", r.metric); r.bench != queryWriteRows[0].bench && ok && bok && base != 0 {
			w(" %s |\n", ratio(v/base))
		} else {
			w(" |\n")
		}
	}
}

// signed formats v with its sign.
func signed(v float64, u unit) string {
	if v < 0 {
		return "−" + format(-v, u)
	}
	return "+" + format(v, u)
}
