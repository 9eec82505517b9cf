// Package benchrun holds what the commands of the bench module (report and
// compare) share about running its benchmark test binary: the groups of
// benchmarks that share a process, the arguments of one process, and the
// reading of go test -bench output. It depends on no ttldb API, only on the
// benchmarks' names and flags.
package benchrun

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The groups of workloads that run in one process: a process holds one
// store's heap at a time (see bench_test.go), so that no figure pays for
// collecting another store's. Each group is a list of workloads joined by
// "|", in the order go test runs them.
const (
	// FastGroup runs with -benchtime: Heap, whose fill makes the full store
	// that Write, Read, ReadScale, Mixed and RemovalNone then share, and the
	// workloads on stores of their own.
	FastGroup = "Heap|Write|Read|ReadScale|Mixed|RemovalNone|FeedRead|DefaultTTL|Batch|Patch|Query|QueryIndex|QueryWrite"
	// SizeGroup runs with -benchtime: writes into stores of a hundredth and
	// five times -items.
	SizeGroup = "WriteSize"
	// SlowGroup runs with -slowtime: operations that build their own stores
	// or wait on real time.
	SlowGroup = "Removal10k|Stall|Lag|Reopen|FirstList"
	// DiskGroup runs with -benchtime: writes to stores on disk.
	DiskGroup = "Durable"
)

// Group is one of the groups of workloads that share a process, and whether
// it runs with -slowtime rather than -benchtime.
type Group struct {
	Workloads string
	Slow      bool
}

// Groups are the groups in the order a round runs them for a store.
var Groups = []Group{{FastGroup, false}, {SizeGroup, false}, {SlowGroup, true}, {DiskGroup, false}}

// Stores are all the stores the benchmarks know, in the report's order.
var Stores = []string{"ttldb", "ttldb_feed_off", "ttldb_listed", "ttldb_mem", "buntdb", "gocache", "ttlcache", "expirable"}

// variantWorkloads are the workloads of ttldb's variants (ttldb_feed_off,
// bench/stores.go; ttldb_mem, bench/zdurable_test.go), the only ones that
// have a sub-benchmark for them.
var variantWorkloads = map[string]map[string]bool{
	"ttldb_feed_off": {"Heap": true, "Write": true, "WriteSize": true},
	"ttldb_listed":   {"Heap": true, "Write": true, "WriteSize": true, "Removal10k": true},
	"ttldb_mem":      {"Durable": true},
}

// diskStores are the stores of the workloads on disk (R12).
var diskStores = map[string]bool{"ttldb": true, "ttldb_mem": true, "buntdb": true}

// SplitBench splits a -bench expression at its first slash: the workloads'
// part and the stores'.
func SplitBench(expr string) (workloads, stores string) {
	workloads, stores, _ = strings.Cut(expr, "/")
	return workloads, stores
}

// SelectStores returns the stores that the stores' part of the -bench
// expression matches, all of them when it has none. The error says that
// the expression does not compile or matches none of them.
func SelectStores(stores []string, expr string) ([]string, error) {
	_, pat := SplitBench(expr)
	if pat == "" {
		return stores, nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, fmt.Errorf("-bench %q: %v", expr, err)
	}
	var kept []string
	for _, s := range stores {
		if re.MatchString(s) {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("-bench %q matches none of the stores %s", expr, strings.Join(stores, ","))
	}
	return kept, nil
}

// SelectGroup returns the workloads of group ("Heap|Write|...") that store
// has and the workloads' part of the -bench expression matches, with or
// without their Benchmark prefix, joined as group is; "" for none. The
// error says that the expression does not compile.
func SelectGroup(group, store, expr string) (string, error) {
	pat, _ := SplitBench(expr)
	var re *regexp.Regexp
	if pat != "" {
		var err error
		if re, err = regexp.Compile(pat); err != nil {
			return "", fmt.Errorf("-bench %q: %v", expr, err)
		}
	}
	var kept []string
	for _, w := range strings.Split(group, "|") {
		if strings.HasPrefix(store, "ttldb_") && !variantWorkloads[store][w] {
			continue
		}
		if (w == "Durable" || w == "Reopen") && !diskStores[store] {
			continue
		}
		if re == nil || re.MatchString(w) || re.MatchString("Benchmark"+w) {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, "|"), nil
}

// Args are the arguments of the benchmark test binary for one process: the
// workloads of group (as SelectGroup returns them) on store, -count 1, with
// -benchmem, on full stores of items.
func Args(store, group, benchtime string, items int) []string {
	return []string{
		"-test.run", "^$",
		"-test.bench", "^Benchmark(" + group + ")$/^" + store + "$",
		"-test.benchtime", benchtime,
		"-test.count", "1",
		"-test.benchmem",
		"-test.timeout", "60m",
		"-items", strconv.Itoa(items),
	}
}
