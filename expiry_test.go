package ttldb

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExpiresAtThroughSeveralChanges: a document keeps the instant it expired
// at through any number of later changes of DefaultTTL, each cut of the
// inherit tree remembering the setting it was made under (R7).
func TestExpiresAtThroughSeveralChanges(t *testing.T) { // R7
	for _, last := range []DefaultTTL{TTLSeconds(20), TTLNoDefault(), TTLOff(), TTLSeconds(5000)} {
		t.Run(last.String(), func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(1000, 0)}
			c, err := NewCollection("t", "/pk", &Options{DefaultTTL: TTLSeconds(100), Now: clk.Now, ManualSweep: true})
			require.NoError(t, err)
			defer c.Close()
			a := mustCreate(t, c, `{"id":"a"}`) // expires at 1100 under 100
			clk.t = time.Unix(1150, 0)
			require.NoError(t, c.SetDefaultTTL(TTLSeconds(30)))
			b := mustCreate(t, c, `{"id":"b"}`) // expires at 1180 under 30
			clk.t = time.Unix(1200, 0)
			require.NoError(t, c.SetDefaultTTL(TTLSeconds(10)))
			require.NoError(t, c.SetDefaultTTL(last))
			for _, want := range []struct {
				d  Document
				at int64
			}{{a, 1100}, {b, 1180}} {
				at, ok := c.ExpiresAt(want.d)
				require.True(t, ok, want.d.ID())
				require.Equal(t, time.Unix(want.at, 0), at, "ExpiresAt(%s): the instant it expired at", want.d.ID())
				_, err := c.Get(NoPartitionKey(), want.d.ID())
				require.ErrorIs(t, err, ErrNotFound, "R7: expired stays gone")
			}
			if last.on {
				// Once the documents are swept, the cuts they were under go.
				n, err := c.Sweep()
				require.NoError(t, err)
				require.Equal(t, 2, n)
				require.Len(t, c.exp.cuts, 1, "only the last cut, the limit itself, is kept")
			}
		})
	}
}
