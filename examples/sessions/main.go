// Sessions shows the production setup: a session store with sliding expiry
// on the real clock, whose expired sessions the background sweeper deletes
// without any call.
//
// Each request Touches its session, which renews its _ts and so restarts
// its countdown: an active session lives on, an idle one expires DefaultTTL
// after its last request. DefaultTTL is 2 seconds here so that the program
// ends in about 3 seconds; a web service would use 30 minutes. _ts counts
// whole seconds, so a session expires between 1 and 2 seconds after its
// last request.
//
//	go run ./examples/sessions
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/ttldb/ttldb"
)

// session is a login session, in the partition of its user.
type session struct {
	ID     string `json:"id"`
	UserID string `json:"userId"`
}

// idle is how long a session lives after its last request.
const idle = 2 * time.Second

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run writes what happens to w. It prints planned offsets from the start,
// never clock readings, so its output is the same on every run.
func run(ctx context.Context, w io.Writer) (err error) {
	// No Options.Now and no ManualSweep: the wall clock and the background
	// sweeper, as in production.
	c, err := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
		DefaultTTL: ttldb.TTLDuration(idle),
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }() // Close stops the sweeper
	p := &printer{w: w}

	for _, user := range []string{"alice", "bob"} {
		if _, err := c.Create(ctx, session{ID: "s-" + user, UserID: user}); err != nil {
			return err
		}
		p.printf("%s logs in: session s-%s, DefaultTTL %v\n", user, user, idle)
	}
	if err := p.stats(ctx, c); err != nil {
		return err
	}

	// alice makes a request every half second, for 3 seconds; bob makes none.
	const every, requests = idle / 4, 6
	for i := 1; i <= requests; i++ {
		time.Sleep(every)
		// What the server does on each request with a session: Touch
		// renews it (ErrNotFound: it expired, and the user must log in).
		if _, err := c.Touch(ctx, ttldb.StringKey("alice"), "s-alice"); err != nil {
			return err
		}
		p.printf("+%v: alice's request: Touch renews her session\n", every*time.Duration(i))
	}

	// bob's session has now been idle for longer than its DefaultTTL, and
	// the sweeper deleted it at its expiry second.
	for _, user := range []string{"alice", "bob"} {
		_, err := c.Get(ctx, ttldb.StringKey(user), "s-"+user)
		switch {
		case err == nil:
			p.printf("+%v: %s's session is there\n", requests*every, user)
		case errors.Is(err, ttldb.ErrNotFound):
			p.printf("+%v: %s's session is gone (ErrNotFound): %s must log in again\n", requests*every, user, user)
		default:
			return err
		}
	}
	if err := p.stats(ctx, c); err != nil {
		return err
	}
	p.printf("the background sweeper deleted bob's session: no call to Sweep\n")
	return p.err
}

// printer writes lines to w and keeps the first write error, like
// bufio.Writer.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// stats prints the counts of Stats that do not depend on timing.
func (p *printer) stats(ctx context.Context, c *ttldb.Collection) error {
	st, err := c.Stats(ctx)
	if err == nil {
		p.printf("Stats: Live %d, Expired %d, Swept %d\n", st.Live, st.Expired, st.Swept)
	}
	return err
}
