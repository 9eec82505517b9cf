package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Watchers (FeedChanged; DESIGN.md, "LSNs", 5). Every sequencer pass that
// numbered something sends one NOTIFY on the collection's channel when it
// commits (retention.go), never one per write: a notifying commit takes a
// server-wide lock (POSTGRES.md §7), which a pass already serializes.
// Each handle keeps one connection of its own, taken from its pool and
// hijacked, that LISTENs on the channel; a goroutine, started by Open and
// stopped by Close, waits on it and closes the channel that FeedChanged
// gave out at each notification. As the fallback, every pollPeriod
// without one it reads the collection's last LSN and wakes the watchers
// when it grew (a notification lost, or a pass of a ttldb that does not
// notify); when it has no connection, it wakes them every pollPeriod,
// unable to tell, and connects again.

// pollPeriod is how long the listener waits for a notification before it
// looks at the last LSN itself.
const pollPeriod = time.Second

// watcher is a handle's listener and the channel of its watchers.
type watcher struct {
	mu     sync.Mutex
	ch     chan struct{} // closed at the next change, then replaced
	closed bool          // Close closed ch for good

	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned

	// listening is closed once the listener first LISTENs; noPoll, set by
	// a test, turns the poll off, so that only a NOTIFY wakes.
	listening chan struct{}
	listened  sync.Once
	noPoll    atomic.Bool
	pid       atomic.Uint32 // the listening connection's server process
}

// channel returns the name of the collection's NOTIFY channel: a hash of
// its schema and number, since a channel's name is an identifier of at
// most 63 bytes and a schema's name alone may be that long.
func (e *Engine) channel() string {
	h := sha256.Sum256([]byte(e.schema + " " + strconv.FormatInt(e.no, 10)))
	return "ttldb_feed_" + hex.EncodeToString(h[:12])
}

// startWatch starts the handle's listener. Open calls it once the handle
// is made.
func (e *Engine) startWatch() {
	ctx, cancel := context.WithCancel(context.Background())
	w := &watcher{ch: make(chan struct{}), cancel: cancel, done: make(chan struct{}), listening: make(chan struct{})}
	e.watch = w
	go func() {
		defer close(w.done)
		e.listen(ctx)
	}()
}

// stopWatch stops the listener, waits for it to return, and closes the
// watchers' channel for good. It is idempotent.
func (e *Engine) stopWatch() {
	w := e.watch
	if w == nil {
		return
	}
	w.cancel()
	<-w.done
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
	w.mu.Unlock()
}

// wake closes the watchers' channel and makes the next.
func (w *watcher) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		close(w.ch)
		w.ch = make(chan struct{})
	}
}

// closedChan is a channel closed from the start.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// FeedChanged implements [engine.Engine]: a channel closed when a change
// may have become readable since the call (a pass of any process numbered
// something; at most pollPeriod late when a notification is lost), and at
// Close. A watcher takes it before it reads the feed, and waits on it once
// it has read all there was. It does not wait, and costs a lock; on the
// zero Engine, and after Close, the channel is closed already.
func (e *Engine) FeedChanged() <-chan struct{} {
	w := e.watch
	if w == nil {
		return closedChan
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

// listen is the listener's loop, until ctx ends.
func (e *Engine) listen(ctx context.Context) {
	tick := time.NewTicker(pollPeriod)
	defer tick.Stop()
	for ctx.Err() == nil {
		conn := e.listenConn(ctx)
		if conn == nil { // no connection: wake every period, and try again
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				e.watch.wake()
			}
			continue
		}
		e.watch.wake() // what was missed while not listening
		e.watch.listened.Do(func() { close(e.watch.listening) })
		e.waitNotifications(ctx, conn)
		closeCtx, cancel := context.WithTimeout(context.Background(), pollPeriod)
		_ = conn.Close(closeCtx)
		cancel()
	}
}

// listenConn takes a connection from the pool for the handle alone, and
// LISTENs on the collection's channel; nil when it cannot.
// A connection of the pool that the server ended too (a restart ends them
// all) is dropped, and another taken at once (failure.go).
func (e *Engine) listenConn(ctx context.Context) *pgx.Conn {
	var conn *pgx.Conn
	err := e.retry(ctx, func() error {
		c, err := e.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		conn = c.Hijack()
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{e.channel()}.Sanitize()); err != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), pollPeriod)
			_ = conn.Close(closeCtx)
			cancel()
			return err
		}
		return nil
	})
	if err != nil {
		return nil
	}
	e.watch.pid.Store(conn.PgConn().PID())
	return conn
}

// waitNotifications wakes the watchers at each notification on conn, and
// when a poll finds the last LSN grown, until ctx ends or conn fails.
func (e *Engine) waitNotifications(ctx context.Context, conn *pgx.Conn) {
	last := e.lastLSN.Load()
	for ctx.Err() == nil {
		wctx, cancel := context.WithTimeout(ctx, pollPeriod)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			e.watch.wake()
			continue
		case ctx.Err() != nil || conn.IsClosed():
			return
		case e.watch.noPoll.Load():
			continue
		}
		var lsn int64 // the poll
		err = conn.QueryRow(ctx, e.sql(`SELECT lsn FROM {s}.ttldb_collections WHERE no = $1`), e.no).Scan(&lsn)
		if err != nil {
			return
		}
		if uint64(lsn) > last {
			last = uint64(lsn)
			e.seen(lsn, 0)
			e.watch.wake()
		}
	}
}
