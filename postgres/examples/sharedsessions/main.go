// Sharedsessions shows two processes of one service sharing their login
// sessions through PostgreSQL, as two replicas behind a load balancer do:
// a session made by one is valid in the other at once, a request to either
// renews it (sliding expiry, R6), and a logout in one is seen by the other
// through the change feed, which every replica may watch.
//
// The program is replica "api-1"; it starts a second process of itself,
// replica "api-2", and talks to it through its standard input and output
// only to take turns, as requests would come: everything the replicas
// share goes through the collection. Each opens the collection by URL, the
// one line that differs from a program on the in-process engine.
//
//	cd postgres && ../.ci/pg go run ./examples/sharedsessions
//
// runs it against a throwaway server (TTLDB_TEST_PG); -url names another,
// whose search_path (a URL parameter) names the schema that holds the
// collection.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ttldb/ttldb"
	_ "github.com/ttldb/ttldb/postgres" // the postgres:// scheme of ttldb.Open
)

// roleEnv, set to the URL, makes the process replica api-2.
const roleEnv = "SHAREDSESSIONS_REPLICA_URL"

// session is a login session, in the partition of its user.
type session struct {
	ID   string `json:"id"`
	User string `json:"user"`
}

// options are the collection's: a session lives 30 minutes after its
// last request.
func options() *ttldb.Options {
	return &ttldb.Options{Name: "sessions", PartitionKeyPath: "/user", DefaultTTL: ttldb.TTLSeconds(30 * 60)}
}

func main() {
	url := flag.String("url", os.Getenv("TTLDB_TEST_PG"), "the PostgreSQL URL (default: $TTLDB_TEST_PG, which ../.ci/pg sets)")
	flag.Parse()
	ctx := context.Background()
	var err error
	if u := os.Getenv(roleEnv); u != "" {
		err = replica(ctx, u, os.Stdin, os.Stdout)
	} else if *url == "" {
		err = errors.New("no server: give -url, or run it as ../.ci/pg go run ./examples/sharedsessions")
	} else {
		err = run(ctx, *url, os.Stdout)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// run is replica api-1: it starts api-2, logs a user in, lets api-2 serve
// her requests, logs her out, and waits for api-2 to see it.
func run(ctx context.Context, url string, out io.Writer) error {
	c, err := ttldb.Open(ctx, url, options()) // makes the collection, or opens it
	if err != nil {
		return err
	}
	defer c.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.CommandContext(ctx, self)
	child.Env = append(os.Environ(), roleEnv+"="+url)
	child.Stderr = os.Stderr
	toChild, err := child.StdinPipe()
	if err != nil {
		return err
	}
	fromChild, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return err
	}
	defer func() { _ = child.Wait() }()
	defer toChild.Close()
	lines := bufio.NewScanner(fromChild)
	// await copies api-2's lines to out until one starts with want.
	await := func(want string) error {
		for lines.Scan() {
			fmt.Fprintln(out, lines.Text())
			if strings.HasPrefix(lines.Text(), want) {
				return nil
			}
		}
		return fmt.Errorf("api-2 ended before %q: %v", want, lines.Err())
	}

	if err := await("api-2: ready"); err != nil {
		return err
	}
	if _, err := c.Upsert(ctx, session{ID: "s-42", User: "ana"}); err != nil {
		return err
	}
	fmt.Fprintln(out, "api-1: ana logs in: session s-42")
	fmt.Fprintln(toChild, "request ana s-42")
	if err := await("api-2: served"); err != nil {
		return err
	}
	d, err := c.Get(ctx, ttldb.StringKey("ana"), "s-42")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "api-1: s-42 was last used at _ts %d (api-2's request renewed it)\n", d.TS())
	if err := c.Delete(ctx, ttldb.StringKey("ana"), "s-42"); err != nil {
		return err
	}
	fmt.Fprintln(out, "api-1: ana logs out")
	return await("api-2: saw")
}

// replica is api-2: it serves the request api-1 sends on in ("request
// USER ID", a session's), and reports on out what it did and the logouts its watch of
// the change feed saw, until it saw one.
func replica(ctx context.Context, url string, in io.Reader, out io.Writer) error {
	c, err := ttldb.Open(ctx, url, &ttldb.Options{Name: "sessions"}) // as stored: path, DefaultTTL
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// Where the feed is now: the watch starts after it, so that it misses
	// nothing that comes once this replica says it is ready.
	now, err := c.ReadFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromNow: true})
	if err != nil {
		return err
	}
	logouts := make(chan string, 1)
	go func() {
		defer close(logouts)
		q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, AfterLSN: now.LSN}
		for ch, err := range c.WatchFeed(ctx, q) {
			if err != nil {
				return
			}
			if ch.Op == ttldb.OpDelete {
				logouts <- ch.ID
				return
			}
		}
	}()
	fmt.Fprintln(out, "api-2: ready (watching the change feed for logouts)")
	requests := bufio.NewScanner(in)
	if !requests.Scan() {
		return fmt.Errorf("api-2: no request came: %v", requests.Err())
	}
	var user, id string
	if _, err := fmt.Sscanf(requests.Text(), "request %s %s", &user, &id); err != nil {
		return fmt.Errorf("api-2: a request %q: %w", requests.Text(), err)
	}
	// A request: the session must be valid, and the request renews it.
	d, err := c.Touch(ctx, ttldb.StringKey(user), id)
	if err != nil {
		return fmt.Errorf("api-2: session %s: %w", id, err)
	}
	fmt.Fprintf(out, "api-2: served a request of session %s, made by api-1 (renewed at _ts %d)\n", id, d.TS())
	ended, ok := <-logouts
	if !ok {
		return fmt.Errorf("api-2: the watch ended: %w", ctx.Err())
	}
	fmt.Fprintf(out, "api-2: saw session %s end in the change feed: logged out everywhere\n", ended)
	return nil
}
