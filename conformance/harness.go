package conformance

import (
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttldb/ttldb"
)

// Harness says how to open collections on the engine under test. Open is
// required; the other fields are capabilities an engine may lack, and the
// checks that need one skip, saying so, when it is nil. The zero value is
// not usable: Run fails at once without Open.
type Harness struct {
	// Open opens a new, empty collection named name, with the given
	// partition-key path and options, on the engine under test, and
	// arranges for it to be closed (and its storage removed) when t ends;
	// the suite may close it earlier itself, so Close must be idempotent,
	// as R15 asks. An error is the engine's refusal: the suite opens with
	// bad options on purpose (R1, R8, R10, R13) and checks the sentinel.
	//
	// opts is never nil, and the harness may add to it (a directory, a
	// connection) but must keep what the suite set: opts.Now is the
	// suite's clock, from which the engine takes its "now" (R4) and which
	// the suite alone moves, and opts.ManualSweep asks for no background
	// deletion, the suite calling Sweep where it needs it (R5). Open may
	// be called from several goroutines at once.
	Open func(t testing.TB, name, partitionKeyPath string, opts *ttldb.Options) (*ttldb.Collection, error)

	// Reopen opens again the collection that c was a handle on, with
	// opts, as a process starting again would (R12). The suite has closed
	// c already. Nil for an engine that keeps nothing once closed (the
	// in-process engine without Options.Dir): the durability checks and
	// the model's Reopen and Compact steps then do not run.
	Reopen func(t testing.TB, c *ttldb.Collection, opts *ttldb.Options) (*ttldb.Collection, error)

	// Second opens another handle on the collection c is a handle on, as
	// another process sharing the engine would, with the suite's clock.
	// The harness closes it when t ends. Nil for an engine that only one
	// process uses at a time (the in-process engine): the checks of R16's
	// sharing (a write through one handle read at once through the other,
	// each change seen once by every feed reader, each expired document
	// swept once) then skip.
	Second func(t testing.TB, c *ttldb.Collection) (*ttldb.Collection, error)
}

// LongEnv names the environment variable that turns on the long forms of
// the suite's randomized checks (more model sequences, more steps, every
// fixture of the matrices), as it does for the root package's own tests:
//
//	TTLDB_LONG_TESTS=1 go test -run TestConformance ./...
const LongEnv = "TTLDB_LONG_TESTS"

// Long reports whether the long forms run: LongEnv is set to anything but
// "" or "0", the run is not -short, and the test binary is not built with
// the race detector. The long forms search more inputs, which the race
// detector makes five to ten times slower; the quick forms, which run
// under it, exercise every path, so CI runs the long forms without it
// (.ci/run). Call it from a test.
func Long() bool {
	v := os.Getenv(LongEnv)
	return v != "" && v != "0" && !testing.Short() && !raceEnabled()
}

// clock is the time the suite gives an engine: it moves only when the
// suite moves it, so that no check sleeps. Its zero value reads the Unix
// epoch; it is safe for concurrent use.
type clock struct{ ns atomic.Int64 }

// newClock returns a clock reading t.
func newClock(t time.Time) *clock {
	c := &clock{}
	c.Set(t)
	return c
}

// Now reads the clock; it is what Options.Now is given.
func (c *clock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// Set puts the clock at t, backward too (R4 says what a collection makes
// of that).
func (c *clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Advance moves the clock by d.
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// Sec is the clock's Unix second.
func (c *clock) Sec() int64 { return c.Now().Unix() }
