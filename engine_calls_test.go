package ttldb

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestEngineWriteConditions: the in-process engine refuses a write by R10's
// conditions at the interface itself, whatever the API would let through:
// a Create with IfMatch finds no live document to match, whether there is
// none or an expired one with that very etag, and never panics (R4, R10,
// R16).
func TestEngineWriteConditions(t *testing.T) { // R4, R10, R16
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	old := mustCreate(t, c, `{"id":"a","pk":"p"}`)
	var kb keyBuffer
	key, err := c.lookupKey(kb[:0], StringKey("p"), "a")
	require.NoError(t, err)
	create := func(etag string) error {
		d := engine.NewDoc(key, old.d.Layout, `{"id":"a","pk":"p"}`, 0, 0, 0)
		_, err := c.eng.Write(bg, key, engine.Write{Op: engine.Create, Doc: d, IfMatch: etag, HasIfMatch: true})
		return err
	}
	require.ErrorIs(t, create(old.ETag()), engine.ErrConflict, "a live document: Create conflicts first")
	clk.Advance(10 * time.Second)
	require.NotPanics(t, func() { err = create(old.ETag()) })
	require.ErrorIs(t, err, engine.ErrNotFound, "expired, with the etag asked for: nothing live to match")
	require.NotPanics(t, func() { err = create("x") })
	require.ErrorIs(t, err, engine.ErrNotFound)
	_, err = c.eng.Batch(bg, []engine.Step{{Key: string(key), Write: engine.Write{Op: engine.Create, Doc: engine.NewDoc(key, old.d.Layout, `{"id":"a","pk":"p"}`, 0, 0, 0), IfMatch: "x", HasIfMatch: true}}})
	require.ErrorIs(t, err, engine.ErrNotFound, "a batch decides alike")
}

// TestEngineCallsLookAtTheirContext: every call of the in-process engine's
// interface that takes a context refuses a done one, also those the API
// guards itself (R16).
func TestEngineCallsLookAtTheirContext(t *testing.T) { // R16
	c, _ := newTestCollection(t, "/pk", TTLOff())
	mustCreate(t, c, `{"id":"a","pk":"p"}`)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	var kb keyBuffer
	key, _ := c.lookupKey(kb[:0], StringKey("p"), "a")
	_, err := c.eng.Get(ctx, key)
	require.ErrorIs(t, err, context.Canceled, "Get")
	_, err = c.eng.Write(ctx, key, engine.Write{Op: engine.Touch})
	require.ErrorIs(t, err, context.Canceled, "Write")
	_, err = c.eng.Sweep(ctx)
	require.ErrorIs(t, err, context.Canceled, "Sweep")
	_, err = c.eng.Stats(ctx)
	require.ErrorIs(t, err, context.Canceled, "Stats")
	_, err = c.eng.Snapshot(ctx, nil, true)
	require.ErrorIs(t, err, context.Canceled, "Snapshot")
}

// silentFeed is an engine whose FeedChanged never closes, not even at
// Close: as an engine that forgot the duty would be.
type silentFeed struct {
	engine.Engine
	never chan struct{}
}

func (e silentFeed) FeedChanged() <-chan struct{} { return e.never }

// TestWatchFeedEndsAtCloseWhateverTheEngine: WatchFeed waiting for a
// change ends with ErrClosed when its collection is closed, even over an
// engine that does not wake it (R11, R15, R16).
func TestWatchFeedEndsAtCloseWhateverTheEngine(t *testing.T) { // R11, R15, R16
	synctest.Test(t, func(t *testing.T) {
		inner, err := NewCollection("w", "/pk", &Options{ManualSweep: true})
		require.NoError(t, err)
		c, err := FromEngine(silentFeed{inner.eng, make(chan struct{})})
		require.NoError(t, err)
		ended := make(chan error, 1)
		go func() {
			for _, err := range c.WatchFeed(bg, FeedQuery{FromNow: true}) {
				if err != nil {
					ended <- err
					return
				}
			}
			ended <- nil
		}()
		synctest.Wait() // the watcher waits for a change
		require.NoError(t, c.Close())
		require.ErrorIs(t, <-ended, ErrClosed)
	})
}
