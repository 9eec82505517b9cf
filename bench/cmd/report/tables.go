package main

import (
	"fmt"
	"strings"
)

// cell returns the median of bench/store's metric and its text, with the
// spread of the runs when there is more than one; ok is false (text "—")
// for no figure.
func (res results) cell(bench, store, metric string, u unit) (v float64, ok bool, text string) {
	v, ok = res.median(bench, store, metric)
	if !ok {
		return 0, false, "—"
	}
	text = format(v, u)
	if lo, hi, n := res.spread(bench, store, metric); n > 1 && lo != hi {
		text += fmt.Sprintf(" (%s – %s)", format(lo, u), format(hi, u))
	}
	return v, true, text
}

// writeVariant writes a table of rows for ttldb and its variant side by
// side, headed by their names, and each ttldb figure over the variant's
// (for the heap, their difference), or the variant's over ttldb's when
// variantFirst is set, as last says.
func writeVariant(b *strings.Builder, res results, items int, rows []row, variant string, variantFirst bool, ttldbName, variantName, last string) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("| figure | %s | %s | %s |\n|---|---|---|---|\n", ttldbName, variantName, last)
	for _, r := range rows {
		r = r.at(items)
		t, ok1, a := res.cell(r.bench, "ttldb", r.metric, r.unit)
		v, ok2, z := res.cell(r.bench, variant, r.metric, r.unit)
		w("| %s | %s | %s |", r.title, a, z)
		if variantFirst {
			t, v = v, t
		}
		switch {
		case !ok1 || !ok2:
			w(" |\n")
		case r.unit == bytesPerItem: // the bytes the difference adds, rather
			w(" %+.0f B |\n", t-v)
		case v != 0:
			w(" %s |\n", ratio(t/v))
		default:
			w(" |\n")
		}
	}
}
