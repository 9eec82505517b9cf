// Expirylog is a service that logs every expiry with its reason, and
// misses none across its restarts: a consumer goroutine watches the change
// feed in AllVersionsAndDeletes mode (R11) and logs each create and
// replace, and each delete with why it happened: expired (the sweeper
// deleted it: TimeToLiveExpired) or deleted by a caller.
//
// The sessions live in a directory (R12), and the logger keeps a
// checkpoint in a small file beside it: the LSN of the last change it
// logged. The service stops for 45 minutes, during which sessions expire;
// as it opens again, its sweep deletes them, before any watch can start.
// A WatchFeed from now would miss those deletes; the logger resumes after
// its checkpoint (FeedQuery.AfterLSN) and logs each of them once. On its
// first start, with no checkpoint, it reads from the oldest change the
// feed keeps (FeedQuery.FromOldest).
//
// Sessions expire 30 minutes after their last write. The program spans
// two hours, so it runs on a simulated clock (Options.Now) and deletes
// with Sweep (ManualSweep). An expired session appears in the feed when it
// is deleted, not at its expiry second, as in Cosmos DB.
//
//	go run ./examples/expirylog
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	base, err := os.MkdirTemp("", "ttldb-expirylog-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := run(context.Background(), os.Stdout, base); err != nil {
		log.Fatal(err)
	}
}

// run runs the service twice in base, with 45 minutes of downtime between:
// the sessions live in base/sessions, the logger's checkpoint in
// base/expirylog.lsn.
func run(ctx context.Context, w io.Writer, base string) error {
	clk := &clock{}
	clk.unix.Store(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Unix())
	s := &story{w: w, clk: clk}
	dir, checkpoint := filepath.Join(base, "sessions"), filepath.Join(base, "expirylog.lsn")

	// The first run: a new directory, no checkpoint.
	svc, err := open(s, dir, clk)
	if err != nil {
		return err
	}
	from, err := svc.startLogger(checkpoint)
	s.step(err, "the service starts on a new directory; the logger %s", from)
	_, err = svc.c.Create(ctx, session{ID: "s-carol", UserID: "carol"})
	s.step(err, "carol logs in")
	clk.Advance(10 * time.Minute)
	_, err = svc.c.Create(ctx, session{ID: "s-alice", UserID: "alice"})
	s.step(err, "alice logs in")
	_, err = svc.c.Create(ctx, session{ID: "s-bob", UserID: "bob"})
	s.step(err, "bob logs in")
	clk.Advance(10 * time.Minute)
	_, err = svc.c.Touch(ctx, ttldb.StringKey("alice"), "s-alice")
	s.step(err, "alice makes a request: Touch renews her session, till 09:50")
	clk.Advance(5 * time.Minute)
	s.step(svc.c.Delete(ctx, ttldb.StringKey("bob"), "s-bob"), "bob logs out: Delete")
	clk.Advance(15 * time.Minute)
	_, err = svc.c.Create(ctx, session{ID: "s-dave", UserID: "dave"})
	s.step(err, "dave logs in, till 10:10")
	clk.Advance(5 * time.Minute)
	n, err := svc.c.Sweep(ctx)
	s.step(err, "Sweep deleted %d: carol's session, expired since 09:30", n)
	s.step(svc.stop(), "the service stops; the logger's checkpoint: %s", readFile(checkpoint))

	// Downtime: alice's session expires at 09:50, dave's at 10:10.
	clk.Advance(45 * time.Minute)
	if svc, err = open(s, dir, clk); err != nil {
		return err
	}
	s.step(nil, "the service starts again: %d changes replayed, up to LSN %d", svc.c.Recovery().Changes, svc.c.Recovery().LastLSN)
	n, err = svc.c.Sweep(ctx) // what the background sweeper does as the collection opens
	s.step(err, "its sweep deletes %d sessions, which expired while it was down", n)
	now, err := svc.c.ReadFeed(ctx, ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes, FromNow: true})
	s.step(err, "a WatchFeed from now would start after LSN %d, and miss them", now.LSN)
	from, err = svc.startLogger(checkpoint)
	s.step(err, "the logger %s", from)
	s.step(svc.stop(), "the service stops; the logger's checkpoint: %s", readFile(checkpoint))
	return s.err
}

// service is one run of the service: its collection, and its logger.
type service struct {
	s           *story
	c           *ttldb.Collection
	cancel      context.CancelFunc
	stopped     chan struct{} // closed once the logger has returned; nil before it starts
	consumerErr error         // what it returned: read it after stopped
}

// open opens the collection in dir.
func open(s *story, dir string, clk *clock) (*service, error) {
	c, err := ttldb.NewCollection("sessions", "/userId", &ttldb.Options{
		Dir:         dir,
		DefaultTTL:  ttldb.TTLDuration(30 * time.Minute),
		Now:         clk.Now,
		ManualSweep: true, // the background sweeper sleeps on real time
	})
	if err != nil {
		return nil, err
	}
	svc := &service{s: s, c: c}
	s.svc = svc
	return svc, nil
}

// startLogger starts the logger from its checkpoint, the LSN of the last
// change it logged, or from the oldest change kept when it has none, and
// says where it started.
func (svc *service) startLogger(checkpoint string) (from string, err error) {
	q := ttldb.FeedQuery{Mode: ttldb.AllVersionsAndDeletes}
	b, err := os.ReadFile(checkpoint)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		q.FromOldest = true
		from = "has no checkpoint: it starts from the oldest change kept (FromOldest)"
	case err != nil:
		return "", err
	default:
		if q.AfterLSN, err = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err != nil {
			return "", fmt.Errorf("checkpoint %s: %w", checkpoint, err)
		}
		from = fmt.Sprintf("resumes after its checkpoint, LSN %d (AfterLSN)", q.AfterLSN)
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc.cancel, svc.stopped = cancel, make(chan struct{})
	svc.s.entries = make(chan entry)
	go func() {
		defer close(svc.stopped)
		svc.consumerErr = logChanges(ctx, svc.c, q, checkpoint, svc.s.entries)
	}()
	return from, nil
}

// stop stops the logger, waits for it to return, and closes the
// collection: whoever starts a goroutine stops it.
func (svc *service) stop() error {
	var err error
	if svc.stopped != nil {
		svc.cancel() // the logger's WatchFeed yields context.Canceled: it returns
		<-svc.stopped
		err = svc.consumerErr
	}
	return errors.Join(err, svc.c.Close())
}

// logChanges is the logger: it logs each change from q's start until ctx
// is done or the collection is closed, both of which are a clean stop,
// and keeps the LSN of the last change it logged in the file checkpoint.
// It saves the checkpoint after it logs: a crash between the two logs the
// change again at the next start (at least once), never loses it.
func logChanges(ctx context.Context, c *ttldb.Collection, q ttldb.FeedQuery, checkpoint string, out chan<- entry) error {
	for ch, err := range c.WatchFeed(ctx, q) {
		if errors.Is(err, context.Canceled) || errors.Is(err, ttldb.ErrClosed) {
			return nil
		}
		if err != nil {
			// ErrFeedTrimmed, say: the checkpoint is older than what the
			// feed keeps (FeedOptions); its *TrimmedError says what was
			// lost and where to resume.
			return err
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
		if err := saveCheckpoint(checkpoint, ch.LSN); err != nil {
			return err
		}
	}
	return nil
}

// saveCheckpoint replaces the checkpoint with lsn, whole: a crash leaves
// the old one or the new one.
func saveCheckpoint(path string, lsn uint64) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatUint(lsn, 10)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// readFile returns the text of a small file, for the story.
func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return "LSN " + strings.TrimSpace(string(b))
}

// story prints main's steps, each followed by the logger's lines up to
// the collection's last change. A real service would log from the
// logger; here main prints, so that the order is the same on every run.
// Like bufio.Writer, it keeps the first error.
type story struct {
	w       io.Writer
	clk     *clock
	svc     *service   // the run of the service
	entries chan entry // the logger's lines
	logged  uint64     // the LSN of the last line printed
	err     error
}

func (s *story) step(err error, format string, args ...any) {
	s.printf(err, s.clk.Now().Format("15:04 ")+format+"\n", args...)
	svc := s.svc
	if svc.stopped == nil {
		return // no logger yet
	}
	for s.err == nil && s.logged < svc.c.LastLSN() {
		select {
		case e := <-s.entries:
			s.printf(nil, "      log: %s\n", e.line)
			s.logged = e.lsn
		case <-svc.stopped:
			s.err = errors.Join(errors.New("the logger stopped early"), svc.consumerErr)
		}
	}
}

func (s *story) printf(err error, format string, args ...any) {
	if s.err = errors.Join(s.err, err); s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}
