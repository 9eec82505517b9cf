package ttldb

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// settingsOf is an engine whose Settings are s.
type settingsOf struct {
	engine.Engine
	s engine.Settings
}

func (e settingsOf) Settings() engine.Settings { return e.s }

// TestFromEngine: a collection over an engine takes its identity from the
// engine's settings, and refuses a nil engine or one whose name or
// partition-key path breaks NewCollection's rules (R10, R16).
func TestFromEngine(t *testing.T) { // R10, R16
	_, err := FromEngine(nil)
	require.ErrorIs(t, err, ErrInvalidOption)
	require.ErrorContains(t, err, "FromEngine(nil)")

	c, err := NewCollection("orders", "/tenant/id", &Options{ManualSweep: true})
	require.NoError(t, err)
	defer c.Close()
	for _, bad := range []engine.Settings{
		{Name: "", PartitionKeyPath: "/pk"},
		{Name: "a/b", PartitionKeyPath: "/pk"},
		{Name: "x", PartitionKeyPath: "pk"},
	} {
		_, err := FromEngine(settingsOf{c.eng, bad})
		require.ErrorIs(t, err, ErrInvalidOption, "%+v", bad)
	}

	on, err := FromEngine(settingsOf{c.eng, c.eng.Settings()})
	require.NoError(t, err)
	require.Equal(t, "orders", on.Name())
	require.Equal(t, "/tenant/id", on.PartitionKeyPath())
	d := mustCreate(t, on, `{"id":"a","tenant":{"id":"t"}}`)
	got, err := c.Get(bg, StringKey("t"), "a")
	require.NoError(t, err, "one engine under both")
	require.Equal(t, d.ETag(), got.ETag())
	require.Equal(t, d.LSN(), got.LSN(), "the etag base is the engine's")
}

// TestCompactOnAnEngineThatCompactsByItself: Compact on an engine without
// engine.Compacter does nothing and returns nil, so that a program that
// changes engine changes no other call (R16).
func TestCompactOnAnEngineThatCompactsByItself(t *testing.T) { // R16
	c, err := NewCollection("c", "/pk", nil)
	require.NoError(t, err)
	defer c.Close()
	through, err := ThroughInterface(c)
	require.NoError(t, err)
	require.NoError(t, through.Compact(bg))
	require.ErrorIs(t, c.Compact(bg), ErrInvalidOption, "the in-process engine in memory: not durable")
}
