package main

import (
	"fmt"
	"math"
	"strings"
)

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
		r = r.at(run.Items)
		v, ok := res.median(r.bench, "ttldb", r.metric)
		p, pv, pok := bestPeer(res, r.bench, r.metric)
		if !ok || !pok || v <= 0 || pv <= 0 {
			continue
		}
		bars = append(bars, bar{r.title, display(p), v / pv})
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
