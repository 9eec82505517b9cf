// Command examples runs the ttldb walk-throughs: short stories that show how
// documents expire, on a simulated clock so that they run at once and print
// the same output every time.
//
//	go run ./examples             # every walk-through, in turn
//	go run ./examples salesorder  # one of them
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ttldb/ttldb"
)

// walkthrough is one runnable story, which writes its output to w.
type walkthrough struct {
	name string
	run  func(w io.Writer) error
}

// walkthroughs lists the stories in the order `go run ./examples` runs them.
var walkthroughs = []walkthrough{
	{"salesorder", salesOrder},
	{"sessions", sessions},
}

// main runs the walk-throughs named on the command line, or all of them.
func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the walk-throughs named in args (all of them when args is
// empty), writing their stories to stdout and problems to stderr, and
// returns the exit status: 0, 1 when a walk-through failed, or 2 for an
// unknown name.
func dispatch(args []string, stdout, stderr io.Writer) int {
	byName := make(map[string]walkthrough)
	var names []string
	for _, wt := range walkthroughs {
		byName[wt.name] = wt
		names = append(names, wt.name)
	}
	todo := walkthroughs
	if len(args) > 0 {
		todo = nil
		for _, a := range args {
			wt, ok := byName[a]
			if !ok {
				fmt.Fprintf(stderr, "unknown walk-through %q; the walk-throughs are: %s\n", a, strings.Join(names, ", "))
				return 2
			}
			todo = append(todo, wt)
		}
	}
	for i, wt := range todo {
		sep := "\n"
		if i == 0 {
			sep = ""
		}
		_, err := fmt.Fprintf(stdout, "%s=== %s\n", sep, wt.name)
		if err == nil {
			err = wt.run(stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", wt.name, err)
			return 1
		}
	}
	return 0
}

// day is 24 hours of simulated time.
const day = 24 * time.Hour

// start is the fixed instant at which every simulated clock starts.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// clock is a simulated clock. Pass its Now method as ttldb.Options.Now, and
// call Advance to let time pass.
type clock struct{ now time.Time }

// Now returns the simulated time.
func (c *clock) Now() time.Time { return c.now }

// Advance moves the clock forward by d.
func (c *clock) Advance(d time.Duration) { c.now = c.now.Add(d) }

// Elapsed returns the simulated time passed since start.
func (c *clock) Elapsed() time.Duration { return c.now.Sub(start) }

// story writes a walk-through, one line per step, each line prefixed with
// the simulated time as label formats it. Like bufio.Writer it keeps the
// first write error, which err returns.
type story struct {
	w     io.Writer
	clock *clock
	label func(time.Duration) string
	err   error
}

// say writes one step.
func (s *story) say(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, s.label(s.clock.Elapsed())+": "+format+"\n", args...)
	}
}

// stats writes the collection's Count and the Stats that do not depend on
// the wall clock.
func (s *story) stats(c *ttldb.Collection) error {
	n, err := c.Count(ttldb.Query{})
	if err != nil {
		return err
	}
	st, err := c.Stats()
	if err != nil {
		return err
	}
	s.say("Count %d; Stats: Live %d, Expired %d, Swept %d", n, st.Live, st.Expired, st.Swept)
	return nil
}

// life describes a document's ttl and when it expires in c.
func (s *story) life(c *ttldb.Collection, d ttldb.Document) string {
	what := "no ttl"
	n, own := d.TTL()
	switch def, on := c.DefaultTTL().Seconds(); {
	case own && n > 0:
		what = "ttl " + describe(n)
	case own:
		what = "ttl -1"
	case on && def > 0:
		what += ", inherits " + describe(int(def))
	}
	if at, ok := c.ExpiresAt(d); ok {
		return what + ", expires " + s.label(at.Sub(start))
	}
	return what + ", never expires"
}

// gone returns nil when the document is not found, as an expired document
// is not (R4), and an error otherwise.
func gone(c *ttldb.Collection, pk, id string) error {
	_, err := c.Get(ttldb.StringKey(pk), id)
	switch {
	case err == nil:
		return fmt.Errorf("%s is still readable, want ttldb.ErrNotFound", id)
	case !errors.Is(err, ttldb.ErrNotFound):
		return err
	}
	return nil
}

// describe says how long a TTL of the given seconds is, in whole days or
// minutes.
func describe(seconds int) string {
	d := time.Duration(seconds) * time.Second
	if d%day == 0 {
		return fmt.Sprintf("%d days", d/day)
	}
	return fmt.Sprintf("%d minutes", d/time.Minute)
}

// seconds returns a pointer to the number of seconds in d, for a document's
// ttl field.
func seconds(d time.Duration) *int {
	n := int(d / time.Second)
	return &n
}
