package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress writes a line with a count and a rate, redrawn in place, to a
// terminal: at most every 200ms, and once at the end (done). Off, it
// writes nothing.
type progress struct {
	w          io.Writer
	on         bool
	verb       string
	start, due time.Time
	n          int
}

// newProgress is on when force is set or w is a terminal.
func newProgress(w io.Writer, force bool, verb string) *progress {
	now := time.Now()
	return &progress{w: w, on: force || isTerminal(w), verb: verb, start: now, due: now}
}

// isTerminal reports whether w is a character device, as a terminal is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// add counts n more documents.
func (p *progress) add(n int) {
	p.n += n
	if !p.on || p.n%1024 != 0 {
		return
	}
	if now := time.Now(); now.After(p.due) {
		p.due = now.Add(200 * time.Millisecond)
		p.line(now, "\r")
	}
}

// done writes the last line.
func (p *progress) done() {
	if p.on {
		p.line(time.Now(), "\r")
		fmt.Fprintln(p.w)
	}
}

func (p *progress) line(now time.Time, prefix string) {
	el := now.Sub(p.start)
	rate := 0.0
	if el > 0 {
		rate = float64(p.n) / el.Seconds()
	}
	fmt.Fprintf(p.w, "%s%s %d documents in %v, %.0f documents/s ", prefix, p.verb, p.n, el.Round(time.Millisecond), rate)
}
