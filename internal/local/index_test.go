package local

import (
	"fmt"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestMemoryGivenBack: after a mass expiry is swept, the live heap returns
// near its level before the documents were written (R5), but for the
// change feed's records, which its retention bounds (R11).
func TestMemoryGivenBack(t *testing.T) { // R5, R11, R15
	for _, tc := range []struct {
		name string
		feed FeedOptions
		kept int64 // what the feed may keep
		long bool  // only in the long form: the default feed keeps more than the quick form writes
	}{
		{"feed off", FeedOptions{Off: true}, 0, false},
		{"feed of 1,000 records", FeedOptions{MaxRecords: 1000}, 1000 * 300, false},
		{"feed by default", FeedOptions{}, DefaultFeedBytes * 11 / 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && !LongTests() {
				t.Skipf("the default feed keeps 64 MiB: its check needs the long form's 200,000 documents (%s=1)", LongTestsEnv)
			}
			memoryGivenBack(t, tc.feed, tc.kept)
		})
	}
}

func memoryGivenBack(t *testing.T, feed FeedOptions, kept int64) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("mem", "/pk", &Options{DefaultTTL: TTLSeconds(10), Now: clk.Now, ManualSweep: true, Feed: feed})
	require.NoError(t, err)
	defer c.Close()
	keep := mustCreate(t, c, `{"id":"keep","pk":"p","ttl":-1}`)

	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	before := heap()
	n := sized(50_000, 200_000)
	pad := fmt.Sprintf("%0150d", 0)
	for i := range n {
		_, err := c.Create(bg, []byte(fmt.Sprintf(`{"id":"key:%010d","pk":"p%d","v":%q}`, i, i%100, pad)))
		require.NoError(t, err)
	}
	full := heap()
	clk.Advance(10 * time.Second)
	swept, err := c.Sweep(bg)
	require.NoError(t, err)
	require.Equal(t, n, swept)
	after := heap()
	grew := full - before
	t.Logf("heap: before %d MB, full %d MB (+%d B/document), after sweep %d MB", before>>20, full>>20, grew/int64(n), after>>20)
	require.Greater(t, grew, int64(n*200), "the documents took memory")
	// Without the map's move the map alone keeps about 8% of it.
	require.Less(t, after-before, grew/50+kept, "at least 98%% of it is given back, but for the feed's retention")
	_, err = c.Get(bg, StringKey("p"), keep.ID())
	require.NoError(t, err)
	checkInvariants(t, c)
}

// TestMapShrinks: after most documents are deleted, the key map's tables
// are rebuilt smaller, one at a time, and lookups stay right throughout.
func TestMapShrinks(t *testing.T) { // R15
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	const n = 20_000
	for i := range n {
		ttl := -1
		if i%16 != 0 {
			ttl = 5 // 15 in 16 expire
		}
		mustCreate(t, c, fmt.Sprintf(`{"id":"d%05d","pk":"p","ttl":%d}`, i, ttl))
	}
	c.local.mu.RLock()
	full := c.local.prim.keys.slotCount()
	c.local.mu.RUnlock()
	clk.Advance(5 * time.Second)
	for {
		n, _, _, err := c.local.sweepBatch()
		require.NoError(t, err)
		require.LessOrEqual(t, n, DefaultSweepBatch)
		c.local.mu.RLock()
		c.local.prim.keys.check(t)
		c.local.mu.RUnlock()
		if n == 0 {
			break
		}
	}
	checkInvariants(t, c)
	c.local.mu.RLock()
	after := c.local.prim.keys.slotCount()
	c.local.mu.RUnlock()
	t.Logf("slots: %d for %d keys, %d for %d", full, n, after, n/16)
	// A table shrinks by half once under an eighth full: 1,250 keys in the
	// 32 tables that held 20,000 leave each of them 256 slots, or 128 for
	// one that the hash left under 32 keys.
	require.LessOrEqual(t, after, full/4, "the tables shrank with the keys")
	for i := range n {
		_, err := c.Get(bg, StringKey("p"), fmt.Sprintf("d%05d", i))
		if i%16 == 0 {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, ErrNotFound)
		}
	}
}

// TestEngineSizes: the in-process engine's own sizes: a document's header,
// and an entry with the links of the order of last writes (R11). (The
// limits of R10 are the conformance suite's, R10/Limits*.)
func TestEngineSizes(t *testing.T) {
	require.Equal(t, 32, engine.HeaderSize, "a document's header")
	require.Equal(t, 32, int(unsafe.Sizeof(entry{})), "an entry, with the links of the order of last writes (R11)")
}
