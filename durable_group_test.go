package ttldb

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/internal/vfs"
)

// TestSyncAlwaysGroupCommitKeepsEveryAck: under SyncAlways, 16 writers
// share the log's syncs (group commit), and a crash in the middle of their
// writes (a power failure: what was not synced is lost) keeps every write
// acknowledged before it, at its LSN; each document holds its last
// acknowledged version or a later one it was given. The crash comes either
// right after an acknowledgement, or after a sync that fails (which closes
// the collection): the writers whose groups that sync would have made
// durable, written and waiting for it, are not acknowledged (R12).
func TestSyncAlwaysGroupCommitKeepsEveryAck(t *testing.T) { // R12
	const writers, docs, crashAt, failAt = 16, 5, 1200, 300
	boom := errors.New("the disk fails a sync")
	for round := range 6 {
		failing := round%2 == 1
		mem := &vfs.Mem{}
		var syncs atomic.Int64
		mem.FailSync = func(name string) error {
			if !strings.Contains(name, "log-") {
				return nil // a directory's, a snapshot's
			}
			if syncs.Add(1) == failAt && failing {
				return boom
			}
			return nil
		}
		clk := &fakeClock{t: time.Unix(1_000_000, 0)}
		c, err := openDurable(t, mem, "db", clk, Options{Sync: SyncAlways})
		require.NoError(t, err)
		type ack struct {
			n   int
			lsn uint64
		}
		acked := make([][docs]ack, writers) // the last acknowledged write of each document
		tried := make([][docs]int, writers) // the last write of each document given to Upsert
		var count atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				for i := 1; ; i++ {
					k := i % docs
					tried[w][k] = i
					d, err := c.Upsert(bg, fmt.Appendf(nil, `{"id":"w%d-%d","pk":"p","n":%d}`, w, k, i))
					if err != nil {
						errs[w] = err
						return
					}
					acked[w][k] = ack{i, d.LSN()}
					if count.Add(1) == crashAt && !failing {
						mem.Crash()
					}
				}
			})
		}
		wg.Wait()
		for w, err := range errs {
			require.ErrorIs(t, err, ErrClosed, "writer %d after the crash", w)
		}
		t.Logf("round %d (a sync fails: %v): %d writes acknowledged with %d syncs of the log", round, failing, count.Load(), syncs.Load())
		_ = c.Close()
		if failing {
			mem.Crash()
		}

		c, err = openDurable(t, mem, "db", clk, Options{Sync: SyncAlways})
		require.NoError(t, err)
		for w := range writers {
			for k := range docs {
				a := acked[w][k]
				d, err := c.Get(bg, StringKey("p"), fmt.Sprintf("w%d-%d", w, k))
				if a.n == 0 {
					continue // none acknowledged: it may be there or not
				}
				require.NoError(t, err, "w%d-%d, acknowledged at n %d", w, k, a.n)
				var body struct{ N int }
				require.NoError(t, json.Unmarshal([]byte(d.Body()), &body))
				n := body.N
				require.True(t, n >= a.n && n <= tried[w][k], "w%d-%d: n %d after the crash; acknowledged %d, tried up to %d", w, k, n, a.n, tried[w][k])
				if n == a.n {
					require.Equal(t, a.lsn, d.LSN(), "w%d-%d at n %d", w, k, n)
				}
			}
		}
		require.NoError(t, c.Close())
	}
}
