package ttldb

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReadsDoNotAllocate(t *testing.T) {
	c, _ := newTestCollection(t, "/id", TTLNoDefault())
	want := `{"id":"k","ttl":60,"v":"` + strings.Repeat("x", 200) + `"}`
	mustCreate(t, c, want)
	var body string
	require.Zero(t, testing.AllocsPerRun(100, func() {
		d, err := c.Get(bg, StringKey("k"), "k")
		if err != nil {
			panic(err)
		}
		body = d.Body()
	}), "Get and Body")
	require.Equal(t, want, body)
	d, _ := c.Get(bg, StringKey("k"), "k")
	buf := make([]byte, 0, 512)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = d.AppendJSON(buf[:0]) }), "AppendJSON into room")
	require.Equal(t, d.JSON(), string(buf))
	tag := d.ETag()
	other := "1" + tag[1:]
	if tag[0] == '1' {
		other = "2" + tag[1:]
	}
	require.Zero(t, testing.AllocsPerRun(100, func() {
		if !d.d.HasETag(tag) || d.d.HasETag(other) || d.d.HasETag(tag[1:]) {
			panic("hasETag")
		}
	}), "etag comparison")
}

// hookClock is a clock at a set second that runs a hook once, at its next
// reading, in the middle of the call that reads it.
type hookClock struct {
	now  atomic.Int64
	hook atomic.Pointer[func()]
}

func (c *hookClock) Now() time.Time {
	if h := c.hook.Swap(nil); h != nil {
		(*h)()
	}
	return time.Unix(c.now.Load(), 0)
}

// TestGetIsLinearizable: Get, which takes no collection lock, never judges
// a document by a later instant than the one it was found at: a Touch or a
// longer DefaultTTL at the last second of a document's life, while Get runs,
// never makes it report a document live at every instant as not found (R4,
// R6, R7).
func TestGetIsLinearizable(t *testing.T) { // R4, R6, R7
	for _, tc := range []struct {
		name   string
		def    DefaultTTL
		doc    string
		change func(c *Collection) error
	}{
		{"Touch", TTLNoDefault(), `{"id":"a","pk":"p","ttl":10}`, func(c *Collection) error { _, err := c.Touch(bg, StringKey("p"), "a"); return err }},
		{"SetDefaultTTL", TTLSeconds(10), `{"id":"a","pk":"p"}`, func(c *Collection) error { return c.SetDefaultTTL(bg, TTLSeconds(100)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := new(hookClock)
			clk.now.Store(1000)
			c, err := NewCollection("c", "/pk", &Options{ManualSweep: true, Now: clk.Now, DefaultTTL: tc.def})
			require.NoError(t, err)
			defer c.Close()
			_, err = c.UpsertJSON(bg, []byte(tc.doc))
			require.NoError(t, err)
			clk.now.Store(1009) // live until 1010
			var changed error
			hook := func() { // while Get runs: the change, at 1009, then the second ticks
				done := make(chan error)
				go func() { done <- tc.change(c) }()
				changed = <-done
				clk.now.Store(1010)
			}
			clk.hook.Store(&hook)
			_, err = c.Get(bg, StringKey("p"), "a")
			require.NoError(t, changed)
			require.NoError(t, err, "live at every instant of the call: renewed at 1009, due after 1010")
		})
	}
}
