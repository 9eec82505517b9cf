package local

import (
	"context"

	"github.com/ttldb/ttldb/engine"
)

// LastLSN implements [engine.Engine].
func (x *Engine) LastLSN() uint64 {
	c := (*collection)(x)
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.visible()
}

// FeedStats implements [engine.Engine].
func (x *Engine) FeedStats(ctx context.Context) (engine.FeedStats, error) {
	c := (*collection)(x)
	if !ctxLive(ctx) {
		return engine.FeedStats{}, engine.ContextError(ctx, "FeedStats")
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	switch {
	case c.unusable():
		return engine.FeedStats{}, c.errClosed("FeedStats")
	case !c.feed.on:
		return engine.FeedStats{}, errorf(engine.ErrInvalidOption, "FeedStats: the change feed is off (Options.Feed.Off)")
	}
	l := &c.feed.log
	return engine.FeedStats{LastLSN: c.visible(), Oldest: l.first, Records: int64(l.last + 1 - l.first), Bytes: l.bytes}, nil
}

// FeedChanged implements [engine.Engine].
func (x *Engine) FeedChanged() <-chan struct{} { return x.feed.next() }
