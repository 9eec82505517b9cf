package ttldb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWatchFeedWaits: WatchFeed yields what there is, then waits for the
// next change, until its context is done or the collection is closed; the
// goroutine that ranges over it never outlives either (synctest.Test fails
// on a goroutine left blocked).
func TestWatchFeedWaits(t *testing.T) { // R11, R15, R16 (a call that waits stops when its context is done)
	for _, end := range []string{"cancel", "close"} {
		t.Run(end, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, err := NewCollection("watch", "/pk", &Options{DefaultTTL: TTLSeconds(60)})
				require.NoError(t, err)
				defer c.Close()
				mustCreate(t, c, `{"id":"before","pk":"p"}`)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				seen := make(chan Change, 16)
				var last error
				done := make(chan struct{})
				go func() {
					defer close(done)
					for ch, err := range c.WatchFeed(ctx, FeedQuery{Mode: AllVersionsAndDeletes}) {
						if err != nil {
							last = err
							return
						}
						seen <- ch
					}
				}()
				require.Equal(t, "before", (<-seen).ID)
				synctest.Wait() // the consumer waits for a change
				select {
				case ch := <-seen:
					t.Fatalf("a change without a write: %+v", ch)
				default:
				}
				mustCreate(t, c, `{"id":"after","pk":"p"}`)
				require.Equal(t, "after", (<-seen).ID, "a write wakes the consumer")
				time.Sleep(61 * time.Second) // both expire; the sweeper deletes them
				expired := map[string]bool{}
				for range 2 {
					ch := <-seen
					require.True(t, ch.TimeToLiveExpired)
					expired[ch.ID] = true
				}
				require.Equal(t, map[string]bool{"before": true, "after": true}, expired)
				synctest.Wait()
				if end == "cancel" {
					cancel()
					<-done
					require.ErrorIs(t, last, context.Canceled)
				} else {
					require.NoError(t, c.Close())
					<-done
					require.ErrorIs(t, last, ErrClosed)
				}
			})
		})
	}
}

// TestFeedStoppedReader: a reader that stops in the middle of its loop for
// a million writes holds up none of them; the feed keeps no more than its
// retention meanwhile; and the reader, going on, is told what it lost.
func TestFeedStoppedReader(t *testing.T) { // R11
	writes := 1_000_000
	if raceDetector() || !LongTests() {
		writes = 100_000
	}
	const keep = 10_000
	c, err := NewCollection("stopped", "/pk", &Options{ManualSweep: true, Feed: FeedOptions{MaxRecords: keep}})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"first","pk":"p"}`)
	n := 0
	var last error
	for ch, err := range c.WatchFeed(t.Context(), FeedQuery{Mode: AllVersionsAndDeletes}) {
		if err != nil {
			last = err
			break
		}
		n++
		require.Equal(t, "first", ch.ID)
		// The reader stops here, in its loop body, while a million writes go by.
		var buf []byte
		for i := range writes {
			buf = fmt.Appendf(buf[:0], `{"id":"k%d","pk":"p%d"}`, i%50_000, i%7)
			_, err := c.UpsertJSON(bg, buf)
			require.NoError(t, err)
		}
		st, err := c.FeedStats(bg)
		require.NoError(t, err)
		require.Equal(t, int64(keep), st.Records, "the feed keeps its retention, no more")
		checkInvariants(t, c) // and frees the memory of what it trimmed
	}
	require.Equal(t, 1, n)
	var te *TrimmedError
	require.True(t, errors.As(last, &te), "%v", last)
	require.Equal(t, uint64(1), te.After)
	require.Equal(t, uint64(writes+1-keep+1), te.Oldest)
}

// TestFeedConcurrent: writers, the background sweeper and several readers
// at once, under -race: every all-versions reader sees the same changes,
// LSNs 1, 2, 3 ... without a gap or a repeat; a change is never visible
// to a reader before Get shows it; the latest-version reader's LSNs only
// increase.
func TestFeedConcurrent(t *testing.T) { // R11, R5
	synctest.Test(t, func(t *testing.T) {
		c, err := NewCollection("concurrent", "/pk", &Options{DefaultTTL: TTLSeconds(3)})
		require.NoError(t, err)
		defer c.Close()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()

		const readers = 3
		got := make([][]uint64, readers)
		errs := make([]error, readers+1)
		var wg sync.WaitGroup
		for r := range readers {
			wg.Go(func() {
				for ch, err := range c.WatchFeed(ctx, FeedQuery{Mode: AllVersionsAndDeletes, Limit: 1 + r*7}) {
					if err != nil {
						if !errors.Is(err, context.Canceled) {
							errs[r] = err
						}
						return
					}
					got[r] = append(got[r], ch.LSN)
					if ch.Op == OpDelete {
						continue
					}
					d, err := c.Get(bg, ch.PartitionKey, ch.ID)
					if err == nil && d.LSN() < ch.LSN {
						errs[r] = fmt.Errorf("the feed shows LSN %d of %s before Get, which returns LSN %d", ch.LSN, ch.ID, d.LSN())
						return
					}
				}
			})
		}
		wg.Go(func() { // the latest-version reader
			var prev uint64
			for ch, err := range c.WatchFeed(ctx, FeedQuery{Limit: 5}) {
				if err != nil {
					if !errors.Is(err, context.Canceled) {
						errs[readers] = err
					}
					return
				}
				if ch.LSN <= prev {
					errs[readers] = fmt.Errorf("latest version: LSN %d after %d", ch.LSN, prev)
					return
				}
				prev = ch.LSN
			}
		})
		var writers sync.WaitGroup
		for w := range 2 {
			writers.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for i := range 2000 {
					id := fmt.Sprintf("k%d", rng.IntN(200))
					pk := StringKey(fmt.Sprint("p", rng.IntN(3)))
					switch rng.IntN(4) {
					case 0:
						_ = c.Delete(bg, pk, id)
					case 1:
						_, _ = c.Touch(bg, pk, id)
					default:
						_, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":%q,"pk":%q,"i":%d}`, id, pk.s, i))
						require.NoError(t, err)
					}
					if i%100 == 0 {
						time.Sleep(time.Second) // some expire; the sweeper runs
					}
				}
			})
		}
		writers.Wait()
		time.Sleep(10 * time.Second) // the rest expire and are swept
		synctest.Wait()              // the readers have read everything and wait
		cancel()
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		last := c.LastLSN()
		require.Greater(t, last, uint64(2000), "the writes, and the sweeper's deletes")
		for r := range readers {
			require.Equal(t, int(last), len(got[r]), "reader %d read every change", r)
			for i, lsn := range got[r] {
				if lsn != uint64(i+1) {
					t.Fatalf("reader %d: change %d has LSN %d: a gap or a repeat", r, i, lsn)
				}
			}
		}
		checkInvariants(t, c)
	})
}
