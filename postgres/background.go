package postgres

import (
	"cmp"
	"context"
	"sync"
	"time"
)

// The background goroutine (R5; DESIGN.md, "LSNs", point 4). Unless
// Options.ManualSweep, Open starts one per handle, which every
// backgroundPeriod sweeps (sweep.go) and runs a pass of the sequencer when
// records wait for one: the records of a writer that died between its
// commit and its pass, which no reader met. Close stops it and waits for
// it: nothing of a handle outlives its Close.
//
// The sweeper of the in-process engine sleeps until the next expiry and
// wakes early on a write; other processes' writes cannot wake this one, so
// it polls, and the backlog's deletes lag by up to a period (R4 hides the
// documents meanwhile). Its errors (a server gone, a statement that
// failed) are dropped: the next round tries again, and the calls of the
// handle's user report the server's state.

// backgroundPeriod is the time between two rounds of the background
// goroutine.
const backgroundPeriod = time.Second

// background is a handle's background goroutine.
type background struct {
	sweeps bool               // rounds every period: false with Options.ManualSweep
	cancel context.CancelFunc // ends the round in progress, and the loop
	done   chan struct{}      // closed when the goroutine has returned
	kick   chan chan<- error  // a test's request for a round now, and where its error goes
	gauges chan struct{}      // Metrics's request for a reading of the gauges (metrics.go)
	stop   sync.Once          // Close's
}

// startBackground starts the handle's background goroutine: with sweeps,
// it runs a round every period; without (Options.ManualSweep), it only
// reads the gauges when Metrics asks.
func (e *Engine) startBackground(sweeps bool) {
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{sweeps: sweeps, cancel: cancel, done: make(chan struct{}),
		kick: make(chan chan<- error), gauges: make(chan struct{}, 1)}
	e.bg = b
	go e.runBackground(ctx, b)
}

// runBackground is the background goroutine: a round every period (with
// sweeps), a reading of the gauges when Metrics asks, a round when a test
// asks, until ctx ends.
func (e *Engine) runBackground(ctx context.Context, b *background) {
	defer close(b.done)
	var tick <-chan time.Time
	if b.sweeps {
		ticker := time.NewTicker(backgroundPeriod)
		defer ticker.Stop()
		tick = ticker.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			e.logRound(ctx, e.round(ctx))
		case <-b.gauges:
			e.logRound(ctx, e.refreshGauges(ctx))
		case reply := <-b.kick:
			reply <- e.round(ctx)
		}
	}
}

// round, with sweeps, checks whether the sweepers are behind (when a
// Logger is set), numbers what waits for a pass, sweeps (Sweep does both),
// and stores the latest now the handle was given (clock.go); then, if
// Metrics asked for them, it reads the gauges (so that a test that asked,
// then kicks a round, finds them read). A step that fails does not keep
// the others from their turn: it returns the first error.
func (e *Engine) round(ctx context.Context) error {
	var errs [4]error
	if e.bg.sweeps {
		errs[0] = e.checkBehind(ctx)
		if _, errs[1] = e.Sweep(ctx); errs[1] == nil {
			errs[2] = e.storeNow(ctx)
		}
	}
	select {
	case <-e.bg.gauges:
		errs[3] = e.refreshGauges(ctx)
	default:
	}
	return cmp.Or(errs[0], errs[1], errs[2], errs[3])
}

// pendingSQL reports whether a feed record waits for an LSN, from the
// index of those that do.
const pendingSQL = `SELECT EXISTS (SELECT 1 FROM {s}.ttldb_feed_{n} WHERE lsn IS NULL)`

// passIfPending runs a pass of the sequencer when a record waits for one:
// with none, it costs a statement, and takes no lock.
func (e *Engine) passIfPending(ctx context.Context) error {
	if err := e.usable(ctx, "sequencing"); err != nil {
		return err
	}
	var pending bool
	err := e.retry(ctx, func() error { // a lost connection: again (failure.go)
		return e.pool.QueryRow(ctx, e.sql(pendingSQL)).Scan(&pending)
	})
	if err != nil {
		return e.serverError("looking for records without an LSN", err)
	}
	if !pending {
		return nil
	}
	_, err = e.sequence(ctx, 0)
	return err
}

// stopBackground stops the background goroutine, if the handle has one,
// and waits for it: for the round in progress, whose batch in progress is
// abandoned, or committed and numbered if it was committing.
func (e *Engine) stopBackground() {
	b := e.bg
	if b == nil {
		return
	}
	b.stop.Do(func() {
		b.cancel()
		<-b.done
	})
}
