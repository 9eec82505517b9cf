// Sessionstore is a session store that survives a restart (R12): its
// collection lives in a directory, and each run opens it again and finds
// the sessions of the runs before, minus those that expired in between,
// even while it was not running.
//
// A session lives 2 seconds after login if the user did not tick "remember
// me", and 30 days if they did. Run it twice, a few seconds apart: the
// second run finds the first run's remembered sessions, and not the others.
//
//	go run ./examples/sessionstore                 # in the system's temporary directory
//	go run ./examples/sessionstore -dir /tmp/sess  # or in a directory of your choice
//	go run ./examples/sessionstore -reset          # start again from nothing
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/ttldb/ttldb"
)

// session is a login session, in the partition of its user. TTL is the
// document's own ttl in seconds: how long the session lives after its last
// write.
type session struct {
	ID     string `json:"id"`
	UserID string `json:"userId"`
	TTL    int    `json:"ttl"`
}

const (
	shortLived = 2                    // seconds, without "remember me"
	remembered = 30 * 24 * 60 * 60    // seconds, with it
	users      = "alice bob carol"    // who logs in, one session each per run
	dirName    = "ttldb-sessionstore" // in the temporary directory by default
)

func main() {
	dir := flag.String("dir", filepath.Join(os.TempDir(), dirName), "the directory the sessions live in")
	reset := flag.Bool("reset", false, "remove the directory first")
	flag.Parse()
	if *reset {
		if err := os.RemoveAll(*dir); err != nil {
			log.Fatal(err)
		}
	}
	if err := run(context.Background(), os.Stdout, *dir, 0); err != nil {
		log.Fatal(err)
	}
}

// run is one run of the service: it opens the store in dir, reports what
// it found, logs the users in (run number n names their sessions, or the
// number of sessions found when n is 0), and closes the store.
func run(ctx context.Context, w io.Writer, dir string, n int) (err error) {
	c, err := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
		Dir:        dir,                   // durable: a log and snapshots in dir
		DefaultTTL: ttldb.TTLNoDefault(),  // TTL on; each session has its own ttl
		Sync:       ttldb.SyncEverySecond, // the default: a crash loses nothing acknowledged
	})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.Close(); err == nil {
			err = cerr // Close writes and syncs what is pending: its error matters
		}
	}()

	rec := c.Recovery()
	if rec.Snapshot == "" {
		fmt.Fprintln(w, "a new store")
	} else {
		fmt.Fprintf(w, "reopened: %d changes replayed, up to change %d\n", rec.Changes, rec.LastLSN)
	}
	if rec.Truncated != "" { // the previous run crashed in the middle of a write
		fmt.Fprintf(w, "cut %d bytes of an interrupted write off %s\n", rec.Dropped, filepath.Base(rec.Truncated))
	}

	// The live sessions: expired ones never appear, even those that
	// expired while no process had the store open (R4).
	found := 0
	for d, err := range c.All(ctx, ttldb.Query{}) {
		if err != nil {
			return err
		}
		var s session
		if err := d.Decode(&s); err != nil {
			return err
		}
		at, _ := c.ExpiresAt(d)
		fmt.Fprintf(w, "  found %s's session %s, %s\n", s.UserID, s.ID, lifetime(time.Until(at)))
		found++
	}
	if found == 0 {
		fmt.Fprintln(w, "  no live session")
	}
	if n == 0 {
		n = int(c.LastLSN()) // a name no earlier run used
	}

	// Log everybody in: one short session and one remembered session each.
	for _, u := range []string{"alice", "bob", "carol"} {
		for _, ttl := range []int{shortLived, remembered} {
			s := session{ID: fmt.Sprintf("%s-%d-%d", u, n, ttl), UserID: u, TTL: ttl}
			if _, err := c.Create(ctx, s); err != nil {
				return err
			}
		}
	}
	st, err := c.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "logged %s in: %d live sessions\n", users, st.Live)
	return nil
}

// lifetime says how long a session has left, in the coarse terms a user
// would read.
func lifetime(left time.Duration) string {
	switch {
	case left > 24*time.Hour:
		return fmt.Sprintf("%d days left", int(left.Round(24*time.Hour)/(24*time.Hour)))
	default:
		return fmt.Sprintf("%s left", left.Round(time.Second))
	}
}
