package ttldb

// Edge cases of R14 (patch and transactional batch), each found by a
// review of the first version, which failed it.

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tickingClock is a settable clock safe for the sweeper goroutine to read;
// with tick set it advances one second every time it is read, so that two
// reads of "now" in one call see two different seconds.
type tickingClock struct {
	mu   sync.Mutex
	t    time.Time
	tick bool
}

func (c *tickingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	if c.tick {
		c.t = c.t.Add(time.Second)
	}
	return t
}

func (c *tickingClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestPatchReadsTheClockOnce: Patch decides that the document is live and
// stamps the patched document at one reading of the clock. Read twice, a
// second boundary between the readings would patch a document expired at
// the patch's own _ts (R4), back to life without the delete record every
// life ends with (R11).
func TestPatchReadsTheClockOnce(t *testing.T) { // R4, R14
	clk := &tickingClock{t: time.Unix(1_000_000, 0), tick: true}
	c, err := NewCollection("tick", "/pk", &Options{DefaultTTL: TTLNoDefault(), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	old, err := c.Create(bg, []byte(`{"id":"x","pk":"p","ttl":2}`))
	require.NoError(t, err)
	d, err := c.Patch(bg, StringKey("p"), "x", []PatchOp{PatchSet("/n", 1)})
	if err == nil {
		require.Less(t, d.TS(), old.TS()+2,
			"the patch was stamped at %d, when the document it patched (_ts %d, ttl 2) had expired (R4)", d.TS(), old.TS())
	} else {
		require.ErrorIs(t, err, ErrNotFound)
	}
}

// TestBatchHelpsTheSweeperPerWrite: R5 bounds the sweeper's backlog by
// making every write delete two expired documents; a batch of k writes
// deletes 2k, at its end, as its writes alone would.
func TestBatchHelpsTheSweeperPerWrite(t *testing.T) { // R5, R14
	clk := &tickingClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("help", "/pk", &Options{DefaultTTL: TTLSeconds(3600), Now: clk.Now})
	require.NoError(t, err)
	defer c.Close()
	for i := range 300 {
		mustCreate(t, c, fmt.Sprintf(`{"id":"old%d","pk":"p"}`, i))
	}
	clk.Advance(2 * time.Hour) // the sweeper sleeps on a real timer of an hour: a backlog of 300
	b := NewBatch(StringKey("p"))
	for i := range 50 {
		b.Upsert([]byte(fmt.Sprintf(`{"id":"new%d","pk":"p"}`, i)))
	}
	_, err = c.ExecuteBatch(bg, b)
	require.NoError(t, err)
	st, err := c.Stats(bg)
	require.NoError(t, err)
	require.GreaterOrEqual(t, st.Swept, uint64(2*50), "50 writes in a batch helped the sweeper as %d writes", st.Swept/2)
}

// TestReadOnlyBatchChangesNothing: a batch of reads is no write, and
// deletes nothing for the sweeper (no LSN, no feed record, no journal
// group, no sync to wait for), as a Get would not.
func TestReadOnlyBatchChangesNothing(t *testing.T) { // R5, R14
	clk := &tickingClock{t: time.Unix(1_000_000, 0)}
	c, err := NewCollection("ro", "/pk", &Options{DefaultTTL: TTLSeconds(3600), Now: clk.Now})
	require.NoError(t, err)
	defer c.Close()
	mustCreate(t, c, `{"id":"r","pk":"p","ttl":-1}`)
	mustCreate(t, c, `{"id":"old","pk":"p"}`)
	// The sweeper's token, held: the background sweeper, which may plan
	// its sleep after the clock moves, must not delete "old" itself, nor
	// make the batch look innocent (it was, 1 run in 40).
	release := c.fast.HoldSweeps()
	clk.Advance(2 * time.Hour)
	lsn := c.LastLSN()
	b := NewBatch(StringKey("p"))
	b.Read("r")
	_, err = c.ExecuteBatch(bg, b)
	st, serr := c.Stats(bg)
	after := c.LastLSN() // before the token goes back: the sweeper, waiting for it, then deletes "old"
	release()
	require.NoError(t, err)
	require.Equal(t, lsn, after, "a batch of reads deleted documents")
	require.NoError(t, serr)
	require.Equal(t, 1, st.Expired, "the expired document is left to the sweeper")
}
