package main

import (
	"fmt"
	"strconv"
	"strings"
)

// readScaleGoroutines are BenchmarkReadScale's numbers of goroutines
// (bench/foreground_test.go).
var readScaleGoroutines = []int{1, 2, 4, 8}

// writeReadScale writes the read-scaling table: a row per store, a column
// per number of goroutines, each cell the time a read takes as a goroutine
// sees it and all the goroutines' reads per second; then the growth from
// one goroutine to the most, and ttldb's figures as ratios to go-cache's.
func writeReadScale(b *strings.Builder, res results) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	bench := func(g int) string { return "ReadScale/g=" + strconv.Itoa(g) }
	gs := readScaleGoroutines
	w("Point reads of a random live item by 1 to %d goroutines at once on the full store, all reads: "+
		"the time per read in each goroutine (ns/read), and in brackets all the goroutines' reads per second.\n\n", gs[len(gs)-1])
	w("| store |")
	for _, g := range gs {
		if g == 1 {
			w(" 1 goroutine |")
		} else {
			w(" %d goroutines |", g)
		}
	}
	w(" per read, %d ÷ 1 |\n|---|", gs[len(gs)-1])
	for range gs {
		w("---|")
	}
	w("---|\n")
	growth := func(store string) (float64, bool) {
		a, ok1 := res.median(bench(gs[0]), store, "ns/read")
		z, ok2 := res.median(bench(gs[len(gs)-1]), store, "ns/read")
		return z / a, ok1 && ok2 && a > 0
	}
	for _, s := range stores {
		w("| %s |", s.display)
		for _, g := range gs {
			v, ok := res.median(bench(g), s.name, "ns/read")
			if !ok {
				w(" — |")
				continue
			}
			w(" %s", format(v, nanos))
			if t, ok := res.median(bench(g), s.name, "reads/s"); ok {
				w(" (%s)", format(t, perSec))
			}
			w(" |")
		}
		if x, ok := growth(s.name); ok {
			w(" %s |\n", ratio(x))
		} else {
			w(" |\n")
		}
	}
	w("| ttldb ÷ go-cache |")
	for _, g := range gs {
		v, ok1 := res.median(bench(g), "ttldb", "ns/read")
		p, ok2 := res.median(bench(g), "gocache", "ns/read")
		if ok1 && ok2 && p > 0 {
			w(" %s |", ratio(v/p))
		} else {
			w(" |")
		}
	}
	x, ok1 := growth("ttldb")
	y, ok2 := growth("gocache")
	if ok1 && ok2 && y > 0 {
		w(" %s |\n", ratio(x/y))
	} else {
		w(" |\n")
	}
}
