package local

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// TestBackupCanceledInItsWalk: a backup whose context ends while it walks
// the key map stops at the walk's next hold of the lock, returns the
// context's error and writes nothing, so nothing it leaves looks whole;
// the next backup walks again (R17, R16).
func TestBackupCanceledInItsWalk(t *testing.T) { // R17, R16
	c, _ := newTestCollection(t, "/pk", engine.DefaultTTL{})
	for i := range 20_000 { // holds of the walk: several
		mustCreate(t, c, fmt.Sprintf(`{"id":"k%d","pk":"p"}`, i))
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	holds := 0
	walkHook = func(*collection, int) {
		holds++
		cancel()
	}
	t.Cleanup(func() { walkHook = nil })
	var b bytes.Buffer
	_, err := c.x.Backup(ctx, &b)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 1, holds, "the walk stops at its next hold")
	require.Zero(t, b.Len(), "nothing written")

	walkHook = nil
	info, err := c.x.Backup(bg, &b)
	require.NoError(t, err)
	require.Equal(t, 20_000, info.Documents)
}
