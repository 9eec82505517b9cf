package local

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestExpiresAt(t *testing.T) { // R3, R7
	c, _ := newTestCollection(t, "/pk", TTLSeconds(100))
	inherit := mustCreate(t, c, `{"id":"a"}`)
	own := mustCreate(t, c, `{"id":"b","ttl":5}`)
	never := mustCreate(t, c, `{"id":"c","ttl":-1}`)
	ts := time.Unix(inherit.TS(), 0)
	check := func(d Document, want time.Time, wantOK bool) {
		t.Helper()
		at, ok := c.ExpiresAt(d)
		require.Equal(t, wantOK, ok, d.ID())
		require.Equal(t, want, at, d.ID())
	}
	check(inherit, ts.Add(100*time.Second), true)
	check(own, ts.Add(5*time.Second), true)
	check(never, time.Time{}, false)
	require.NoError(t, c.SetDefaultTTL(bg, TTLNoDefault()))
	check(inherit, time.Time{}, false)
	check(own, ts.Add(5*time.Second), true)
	require.NoError(t, c.SetDefaultTTL(bg, TTLOff()))
	check(own, time.Time{}, false)
}

// TestExpiresAtAfterExpiry: a document that expired keeps the instant it
// expired at, whatever DefaultTTL becomes (R7).
func TestExpiresAtAfterExpiry(t *testing.T) { // R7
	c, clk := newTestCollection(t, "/pk", TTLSeconds(10))
	inherit := mustCreate(t, c, `{"id":"a"}`)
	own := mustCreate(t, c, `{"id":"b","ttl":5}`)
	ts := time.Unix(inherit.TS(), 0)
	clk.Advance(15 * time.Second)
	for _, def := range []DefaultTTL{TTLNoDefault(), TTLSeconds(1000), TTLOff(), TTLSeconds(3)} {
		require.NoError(t, c.SetDefaultTTL(bg, def))
		at, ok := c.ExpiresAt(inherit)
		require.True(t, ok, def)
		require.Equal(t, ts.Add(10*time.Second), at, "DefaultTTL %v", def)
		at, ok = c.ExpiresAt(own)
		require.True(t, ok, def)
		require.Equal(t, ts.Add(5*time.Second), at, "DefaultTTL %v", def)
	}
	require.NoError(t, c.Close())
	_, ok := c.ExpiresAt(own)
	require.False(t, ok, "after Close")
}

// TestCutsMerge: changes back and forth between off and one setting keep
// one cut, not one per change, so that the cuts kept for ExpiresAt grow with
// the settings a collection has had, not with the changes (R7).
func TestCutsMerge(t *testing.T) { // R7
	clk := &fakeClock{t: time.Unix(1000, 0)}
	c, err := NewCollection("t", "/pk", &Options{DefaultTTL: TTLSeconds(100), Now: clk.Now, ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	a := mustCreate(t, c, `{"id":"a"}`)
	for i := range 50 {
		clk.Advance(100 * time.Second)
		require.NoError(t, c.SetDefaultTTL(bg, []DefaultTTL{TTLOff(), TTLSeconds(100)}[i%2]))
	}
	require.Len(t, c.local.exp.cuts, 1)
	at, ok := c.ExpiresAt(a)
	require.True(t, ok)
	require.Equal(t, time.Unix(1100, 0), at)
}

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
			require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(30)))
			b := mustCreate(t, c, `{"id":"b"}`) // expires at 1180 under 30
			clk.t = time.Unix(1200, 0)
			require.NoError(t, c.SetDefaultTTL(bg, TTLSeconds(10)))
			require.NoError(t, c.SetDefaultTTL(bg, last))
			for _, want := range []struct {
				d  Document
				at int64
			}{{a, 1100}, {b, 1180}} {
				at, ok := c.ExpiresAt(want.d)
				require.True(t, ok, want.d.ID())
				require.Equal(t, time.Unix(want.at, 0), at, "ExpiresAt(%s): the instant it expired at", want.d.ID())
				_, err := c.Get(bg, NoPartitionKey(), want.d.ID())
				require.ErrorIs(t, err, ErrNotFound, "R7: expired stays gone")
			}
			if last.On {
				// Swept, they keep the instants they expired at: a caller
				// may hold them.
				n, err := c.Sweep(bg)
				require.NoError(t, err)
				require.Equal(t, 2, n)
				for _, d := range []Document{a, b} {
					at, ok := c.ExpiresAt(d)
					require.True(t, ok)
					require.Equal(t, time.Unix(map[string]int64{"a": 1100, "b": 1180}[d.ID()], 0), at, "ExpiresAt(%s) after the sweep", d.ID())
				}
			}
			// Three cuts: _ts up to 1050 under 100 s, up to 1170 under 30 s,
			// up to 1190 under 10 s.
			require.Equal(t, []inheritCut{{1050, 100}, {1170, 30}, {1190, 10}}, c.local.exp.cuts)
		})
	}
}
