package ttldb

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/local"
)

// countdown is a context that ends after its Err or Done has been asked n
// times: a way to end a call's context at a chosen point of its work,
// deterministically, where the test cannot run between two steps of it.
type countdown struct {
	context.Context
	mu   sync.Mutex
	n    int
	done chan struct{}
}

func newCountdown(n int) *countdown {
	return &countdown{Context: context.Background(), n: n, done: make(chan struct{})}
}

func (c *countdown) tick() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n > 0 {
		if c.n--; c.n == 0 {
			close(c.done)
		}
	}
	return c.n == 0
}

func (c *countdown) Done() <-chan struct{} {
	c.tick()
	return c.done
}

func (c *countdown) Err() error {
	if c.tick() {
		return context.Canceled
	}
	return nil
}

// TestLongReadsStopWithTheirContext: a listing, a count, an iteration, a
// query that scans, one that reads an index and a cursor's page stop
// within local.CtxCheckEvery documents of their context's end, and return its
// error, not a partial answer as if whole (R16).
func TestLongReadsStopWithTheirContext(t *testing.T) { // R16
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	const n = 5 * local.CtxCheckEvery
	for i := range n {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%04d","pk":"p","n":%d,"s":"x"}`, i, i))
	}
	require.NoError(t, c.CreateIndex(bg, "/s"))
	// A countdown of 3 passes the call's own check at its start and ends
	// during its reading.
	_, err := c.List(newCountdown(3), Query{})
	require.ErrorIs(t, err, context.Canceled, "List")
	_, err = c.Count(newCountdown(3), Query{Filter: func(Document) bool { return true }})
	require.ErrorIs(t, err, context.Canceled, "Count")

	seen := 0
	for _, err := range c.All(newCountdown(3), Query{}) {
		if err != nil {
			require.ErrorIs(t, err, context.Canceled, "All")
			break
		}
		seen++
	}
	require.Less(t, seen, n, "All ends before the last document")

	for _, text := range []string{
		`SELECT * FROM c WHERE c.n < 0`,                   // a scan that keeps nothing
		`SELECT * FROM c WHERE c.s = "x"`,                 // the index on /s
		`SELECT * FROM c WHERE c.s = "x" AND c.n < 0`,     // the index, keeping nothing
		`SELECT * FROM c WHERE c.n < 0 ORDER BY c.s`,      // the index in its order, keeping nothing
		`SELECT * FROM c WHERE c.n < 0 ORDER BY c.s DESC`, // and in reverse
	} {
		_, err := c.Query(newCountdown(3), SQL{Text: text})
		require.ErrorIs(t, err, context.Canceled, text)
		_, err = c.Query(bg, SQL{Text: text})
		require.NoError(t, err, text)
	}

	cur, err := c.OpenQuery(bg, SQL{Text: `SELECT * FROM c WHERE c.n < 0`})
	require.NoError(t, err)
	defer cur.Close()
	_, err = cur.Next(newCountdown(3), 10)
	require.ErrorIs(t, err, context.Canceled, "Cursor.Next")
}

// TestCursorPagesStopWithTheirOwnContext: each page of a Cursor reads by
// the context its Next was given, not by an earlier page's, though a scan
// goes on across pages; a page stopped by its context ends the cursor,
// and later pages say so with ErrClosed rather than with a context error
// the caller's live context could be mistaken for (R16).
func TestCursorPagesStopWithTheirOwnContext(t *testing.T) { // R13, R16
	c, _ := newTestCollection(t, "/pk", TTLNoDefault())
	const n = 3 * local.CtxCheckEvery
	for i := range n {
		mustCreate(t, c, fmt.Sprintf(`{"id":"%04d","pk":"p","n":%d}`, i, i))
	}
	for _, text := range []string{
		`SELECT * FROM c WHERE c.n >= 0`, // a scan, which runs on across pages
		// (A sorted query without an index reads every row on its first
		// page: its later pages read nothing a context could stop.)
	} {
		cur, err := c.OpenQuery(bg, SQL{Text: text})
		require.NoError(t, err)
		first, cancel := context.WithCancel(bg)
		page, err := cur.Next(first, 10)
		require.NoError(t, err, text)
		require.Len(t, page, 10)
		cancel() // as a deferred cancel of the first page's caller would
		page, err = cur.Next(bg, local.CtxCheckEvery)
		require.NoError(t, err, "%s: the second page reads by its own context", text)
		require.Len(t, page, local.CtxCheckEvery)
		_, err = cur.Next(newCountdown(2), n)
		require.ErrorIs(t, err, context.Canceled, text)
		require.ErrorContains(t, err, "Cursor.Next: context canceled")
		_, err = cur.Next(bg, 1)
		require.ErrorIs(t, err, ErrClosed, "%s: the cursor ended with that page", text)
		require.NotErrorIs(t, err, context.Canceled)
		require.NoError(t, cur.Close())
	}
}

// TestSweepStopsWithItsContext: Sweep stops between two batches once its
// context ends, returning what it deleted and the context's error; the
// next Sweep deletes the rest (R5, R16).
func TestSweepStopsWithItsContext(t *testing.T) { // R5, R16
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("sweep", "/pk", &Options{DefaultTTL: TTLSeconds(1), ManualSweep: true, SweepBatch: 10})
		require.NoError(t, err)
		defer c.Close()
		for i := range 100 {
			mustCreate(t, c, fmt.Sprintf(`{"id":"%d","pk":"p"}`, i))
		}
		synctest.Wait()
		time.Sleep(2 * time.Second) // the bubble's clock: at once
		n, err := c.Sweep(newCountdown(3))
		require.ErrorIs(t, err, context.Canceled)
		require.Less(t, n, 100)
		m, err := c.Sweep(bg)
		require.NoError(t, err)
		require.Equal(t, 100, n+m, "every expired document deleted once")

		// A Sweep waiting for another sweep stops waiting when its
		// context ends.
		release := c.fast.HoldSweeps() // as a sweep in progress holds it
		ctx, cancel := context.WithCancel(bg)
		waited := make(chan error, 1)
		go func() {
			_, err := c.Sweep(ctx)
			waited <- err
		}()
		synctest.Wait()
		require.Empty(t, waited, "it waits for the sweep in progress")
		cancel()
		require.ErrorIs(t, <-waited, context.Canceled)
		release()
	})
}
