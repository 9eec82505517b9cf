// Expirylog is a service that logs every expiry with its reason: a consumer
// goroutine watches the change feed in AllVersionsAndDeletes mode (R11) and
// logs each create and replace, and each delete with why it happened:
// expired (the sweeper deleted it: TimeToLiveExpired) or deleted by a caller.
//
// Sessions expire 30 minutes after their last write. The program spans an
// hour, so it runs on a simulated clock (Options.Now) and deletes with Sweep
// (ManualSweep). An expired session appears in the feed when it is deleted,
// not at its expiry second, as in Cosmos DB.
//
//	go run ./examples/expirylog
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync/atomic"
	"time"

	"github.com/ttldb/ttldb"
)

// session is a login session, in the partition of its user.
type session struct {
	ID     string `json:"id"`
	UserID string `json:"userId"`
}

// clock is a simulated clock. The collection calls Options.Now from every
// goroutine that calls it, the consumer's too, so it is atomic.
type clock struct{ unix atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Unix(c.unix.Load(), 0).UTC() }
func (c *clock) Advance(d time.Duration) { c.unix.Add(int64(d / time.Second)) }

// entry is a line of the log, and the LSN of the change it logs.
type entry struct {
	lsn  uint64
	line string
}

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(w io.Writer) (err error) {
	clk := &clock{}
	clk.unix.Store(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Unix())
	c, err := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
		DefaultTTL:  ttldb.TTLDuration(30 * time.Minute),
		Now:         clk.Now,
		ManualSweep: true, // the background sweeper sleeps on real time
	})
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }() // deferred first: runs after the consumer stops

	if _, err := c.Create(session{ID: "s-carol", UserID: "carol"}); err != nil {
		return err
	}
	// Start from now. WatchFeed with FromNow would start where its first read
	// happens to fall, perhaps after main's next write; an empty page read
	// now marks the present in its Continuation.
	now, err := c.ReadFeed(ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromNow: true})
	if err != nil {
		return err
	}
	q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, Continuation: now.Continuation}
	s := &story{w: w, c: c, clk: clk, entries: make(chan entry), stopped: make(chan struct{}), logged: c.LastLSN()}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(s.stopped)
		s.consumerErr = logChanges(ctx, c, q, s.entries)
	}()
	// Whoever starts a goroutine stops it: on every return, cancel, wait for
	// it to return, then Close (the defer above).
	defer func() { cancel(); <-s.stopped }()
	s.step(nil, "carol logged in; then the logger starts, after LSN %d: it will log her expiry, not her login", s.logged)

	clk.Advance(10 * time.Minute)
	_, err = c.Create(session{ID: "s-alice", UserID: "alice"})
	s.step(err, "alice logs in")
	_, err = c.Create(session{ID: "s-bob", UserID: "bob"})
	s.step(err, "bob logs in")
	clk.Advance(10 * time.Minute)
	_, err = c.Touch(ttldb.StringKey("alice"), "s-alice")
	s.step(err, "alice makes a request: Touch renews her session, till 09:50")
	clk.Advance(5 * time.Minute)
	s.step(c.Delete(ttldb.StringKey("bob"), "s-bob"), "bob logs out: Delete")
	clk.Advance(20 * time.Minute)
	n, err := c.Sweep()
	s.step(err, "Sweep deleted %d: carol's session, expired since 09:30", n)
	clk.Advance(15 * time.Minute)
	n, err = c.Sweep()
	s.step(err, "Sweep deleted %d: alice's session, expired since 09:50", n)

	cancel() // the consumer's WatchFeed yields context.Canceled: it returns
	<-s.stopped
	s.step(s.consumerErr, "the logger has stopped; Close follows")
	return s.err
}

// story prints main's steps, each followed by the consumer's lines up to
// the collection's last change. A real service would log from the
// consumer; here main prints, so that the order is the same on every run.
// Like bufio.Writer, it keeps the first error.
type story struct {
	w           io.Writer
	c           *ttldb.Collection
	clk         *clock
	entries     chan entry    // the consumer's lines
	stopped     chan struct{} // closed once the consumer has returned
	consumerErr error         // what it returned: read it after stopped
	logged      uint64        // the LSN of the last line printed
	err         error
}

func (s *story) step(err error, format string, args ...any) {
	s.printf(err, s.clk.Now().Format("15:04 ")+format+"\n", args...)
	for s.err == nil && s.logged < s.c.LastLSN() {
		select {
		case e := <-s.entries:
			s.printf(nil, "      log: %s\n", e.line)
			s.logged = e.lsn
		case <-s.stopped:
			s.err = errors.Join(errors.New("the logger stopped early"), s.consumerErr)
		}
	}
}

func (s *story) printf(err error, format string, args ...any) {
	if s.err = errors.Join(s.err, err); s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

// logChanges is the consumer: it logs each change from q's start until ctx
// is done or the collection is closed, both of which are a clean stop.
func logChanges(ctx context.Context, c *ttldb.Collection, q ttldb.FeedQuery, out chan<- entry) error {
	for ch, err := range c.WatchFeed(ctx, q) {
		if errors.Is(err, context.Canceled) || errors.Is(err, ttldb.ErrClosed) {
			return nil
		}
		if err != nil {
			return err // ErrFeedTrimmed, say: it fell behind the retention
		}
		what := ch.Op.String()
		switch {
		case ch.Op == ttldb.OpDelete && ch.TimeToLiveExpired:
			what = "expired: deleted by the sweeper (TimeToLiveExpired)"
		case ch.Op == ttldb.OpDelete:
			what = "deleted by a caller"
		}
		at := time.Unix(ch.TS, 0).UTC().Format("15:04")
		line := fmt.Sprintf("LSN %d at %s: %s (user %s) %s", ch.LSN, at, ch.ID, ch.PartitionKey, what)
		select {
		case out <- entry{ch.LSN, line}:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}
