package local

import (
	"context"
	"errors"
	"time"

	"github.com/ttldb/ttldb/engine"
)

// defaultCompactSlack is how far a durable collection's files may grow
// beyond twice its documents' size before the background compaction
// writes a new snapshot: 16 MiB.
const defaultCompactSlack = 16 << 20

// Compact implements [engine.Compacter].
func (x *Engine) Compact(ctx context.Context) error {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.ContextError(ctx, "Compact")
	}
	if c.readOnly {
		return c.errReadOnly("Compact")
	}
	if c.j == nil {
		return errorf(engine.ErrInvalidOption, "Compact: collection %q is not durable (Options.Dir)", c.name)
	}
	select {
	case c.compacting <- struct{}{}:
	case <-ctx.Done():
		return engine.ContextError(ctx, "Compact")
	case <-c.stop:
		return c.errClosed("Compact")
	}
	defer func() { <-c.compacting }()
	stop := make(chan struct{})
	defer context.AfterFunc(ctx, func() { close(stop) })()
	err := c.compact(stop)
	switch {
	case errors.Is(err, errStopped) && ctx.Err() != nil:
		return engine.ContextError(ctx, "Compact")
	case errors.Is(err, errStopped):
		return c.errClosed("Compact")
	}
	return err
}

// compactor is the goroutine that compacts the files once they grow too
// large for the documents they hold.
func (c *collection) compactor() {
	defer c.bg.Done()
	for {
		select {
		case <-c.stop:
			return
		case <-c.compactCheck:
		}
		if !c.j.oversized(c.slack) {
			continue
		}
		select {
		case c.compacting <- struct{}{}:
		case <-c.stop:
			return
		}
		c.compact(c.stop) // a failure leaves the files as they were; the next check tries again
		<-c.compacting
	}
}

// checkCompaction asks the compactor to look at the files' size.
func (c *collection) checkCompaction() {
	select {
	case c.compactCheck <- struct{}{}:
	default:
	}
}

// oversized reports whether the files are over twice the documents' size,
// plus slack.
func (j *journal) oversized(slack int64) bool {
	return j.snap.Load()+j.logs.Load() > 2*max(j.live.Load(), 0)+slack
}

// compact writes a snapshot and removes the files before it; stop
// abandons it. Call holding the compacting token. It logs its start and
// its end (logs.go).
func (c *collection) compact(stop <-chan struct{}) error {
	j := c.j
	start, before := time.Now(), j.snap.Load()+j.logs.Load()
	c.logCompaction(true, before, max(j.live.Load(), 0), 0, 0, nil)
	err := c.compactFiles(stop)
	if errors.Is(err, errStopped) || err != nil && c.unusable() && c.failure.Load() == nil {
		return err // stopped, or closed meanwhile: nothing failed
	}
	c.logCompaction(false, before, 0, j.snap.Load()+j.logs.Load(), time.Since(start), err)
	return err
}

// compactFiles is compact, but for its logs.
func (c *collection) compactFiles(stop <-chan struct{}) error {
	j := c.j
	select {
	case c.walking <- struct{}{}: // a backup's walk first
	case <-stop:
		return errStopped
	case <-c.stop:
		return errStopped
	}
	c.lock()
	if c.unusable() {
		c.mu.Unlock()
		<-c.walking
		return c.errClosed("Compact")
	}
	s := c.openView()
	w := c.startWalk()
	st := c.savedState()
	epoch := j.rotated.Load() + 1 // rotations happen here only, one at a time
	j.rotate(epoch)
	c.mu.Unlock()

	docs, err := c.snapshotDocs(context.Background(), "Compact", s, w, st.docs)
	s.release()
	<-c.walking
	if err != nil {
		return err
	}
	if err := j.force(); err != nil { // the log of the new epoch exists, durable
		return c.fail(err)
	}
	size, err := writeSnapshot(j.dir, epoch, st, docs, c.etagBase, stop, c.stop)
	if err != nil {
		if !errors.Is(err, errStopped) {
			err = errorf(engine.ErrClosed, "Compact: collection %q: %w; the log still holds every change", c.name, err)
		}
		return err
	}
	j.snap.Store(size)
	snaps, logs, err := listFiles(j.dir)
	if err == nil {
		removeBefore(j.dir, epoch, snaps, logs)
	}
	return nil
}
