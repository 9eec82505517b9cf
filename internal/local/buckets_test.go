package local

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuckets drives the expiry buckets with random adds, removes and pops
// against a plain model (each entry's second), and checks after every step
// that each entry sits at its slot in the bucket of its second, that no
// bucket is empty, that the counts agree, and that pop takes the earliest
// seconds first, whatever the seconds (the extremes of int64 too).
func TestBuckets(t *testing.T) {
	seconds := []int64{math.MinInt64 / 2, -5, 0, 1, 2, 3, 1000, math.MaxInt64 / 2}
	bs := newBuckets()
	at := map[*entry]int64{} // the model
	r := rand.New(rand.NewPCG(5, 6))
	mostChunks := 0
	check := func(step int) {
		t.Helper()
		require.Equal(t, len(at), bs.n, "step %d", step)
		n := 0
		bs.tree.Ascend(func(b *bucket) bool {
			require.Positive(t, b.n, "step %d: an empty bucket at %d", step, b.at)
			for k, c := range b.chunks {
				require.True(t, len(c) == chunkSize || k == len(b.chunks)-1 && (len(c) > 0 || k > 0), "step %d: every chunk but the last is full; the last is empty only as a spare after a full one", step)
			}
			for i := range int32(b.n) {
				e := b.entryAt(i)
				require.Equal(t, i, e.slot, "step %d", step)
				require.Equal(t, at[e], b.at, "step %d", step)
			}
			n += b.n
			mostChunks = max(mostChunks, len(b.chunks))
			return true
		})
		require.Equal(t, len(at), n, "step %d", step)
		if bs.hot != nil {
			b, ok := bs.tree.Get(bs.hot)
			require.True(t, ok && b == bs.hot, "step %d: the hot bucket is in the tree", step)
		}
	}
	for step := range sized(6000, 20000) {
		k := r.IntN(10)
		if step < 3000 && k >= 6 && k < 9 {
			k = 0 // a growth phase first: buckets fill several chunks
		}
		switch {
		case k < 6 || len(at) == 0: // add, often to one second, as writes do
			e := &entry{}
			s := seconds[r.IntN(len(seconds))]
			if k < 4 {
				s = 1 // one busy second, which fills several chunks
			}
			bs.add(e, s)
			at[e] = s
		case k < 9: // remove a random entry
			es := make([]*entry, 0, len(at))
			for e := range at {
				es = append(es, e)
			}
			slices.SortFunc(es, func(a, b *entry) int { return int(a.slot) - int(b.slot) }) // a stable pick
			e := es[r.IntN(len(es))]
			bs.remove(e, at[e])
			require.Equal(t, int32(-1), e.slot)
			delete(at, e)
		default: // pop up to 7 at or before a limit
			limit := seconds[r.IntN(len(seconds))]
			want := 0
			for _, s := range at {
				if s <= limit {
					want++
				}
			}
			require.Equal(t, want, bs.count(limit), "step %d: count", step)
			var got []int64
			n := bs.pop(limit, 7, func(e *entry) {
				got = append(got, at[e])
				require.Equal(t, int32(-1), e.slot)
				delete(at, e)
			})
			require.Equal(t, min(want, 7), n)
			require.True(t, slices.IsSorted(got), "step %d: pop takes the earliest first: %v", step, got)
			for _, s := range at {
				if len(got) > 0 && s < got[len(got)-1] {
					require.Greater(t, s, limit, "step %d: pop left an earlier entry at or before the limit", step)
				}
			}
		}
		if len(at) < 300 || step%25 == 0 {
			check(step)
		}
	}
	check(-1)
	require.GreaterOrEqual(t, mostChunks, 3, "a bucket grew to several chunks")
}
