package local

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWriteSequenceIsTotal: every write that takes effect gets a sequence
// number, stamped under the lock, which its etag carries: the numbers of a
// collection's writes are 1, 2, 3... with no gap and no repeat, in the order
// the writes took effect, whatever the concurrency; a refused write takes
// none. This is the part of R11's log sequence numbers that exists today
// (writes; deletes and the sweeper's get theirs with the change feed).
func TestWriteSequenceIsTotal(t *testing.T) { // R11
	c, _ := newTestCollection(t, "/pk", TTLSeconds(100))
	const writers, each = 8, 300
	seqs := make([][]uint64, writers)
	wrong := make([]error, writers) // a refusal that was not one, for the test's goroutine

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf(`"d%d"`, i%20)
				var d Document
				var err error
				switch i % 4 {
				case 0:
					d, err = c.UpsertJSON(bg, []byte(`{"id":`+id+`,"pk":"p","w":`+fmt.Sprint(w)+`}`))
				case 1:
					d, err = c.Touch(bg, StringKey("p"), id[1:len(id)-1])
				case 2:
					d, err = c.CreateJSON(bg, []byte(`{"id":"w`+fmt.Sprint(w, "-", i)+`","pk":"p"}`))
				case 3:
					_, err = c.UpsertJSON(bg, []byte(`{"id":`+id+`,"pk":"p","ttl":0}`)) // refused: takes no number
					if !errors.Is(err, ErrInvalidTTL) {
						wrong[w] = fmt.Errorf("ttl 0: %v, want ErrInvalidTTL", err)
					}
					continue
				}
				if err == nil {
					seqs[w] = append(seqs[w], c.local.seqOf(d.d))
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(wrong...))
	var all []uint64
	for w, s := range seqs {
		require.True(t, slices.IsSorted(s), "writer %d: its writes' numbers grow in the order it made them", w)
		all = append(all, s...)
	}
	slices.Sort(all)
	for i, s := range all {
		require.Equal(t, uint64(i+1), s, "the numbers are 1..n, each once")
	}
	c.local.mu.RLock()
	defer c.local.mu.RUnlock()
	require.Equal(t, uint64(len(all)), c.local.seq, "one number per write that took effect")
}
