package ttldb

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBatchIsAtomicToGet checks that readers see all of a batch or none of
// it, Get included, which takes no collection lock: each batch writes X
// and then Y with the same number, so a reader that reads X and then Y can
// never find Y older than X.
func TestBatchIsAtomicToGet(t *testing.T) { // R14
	c, _ := newTestCollection(t, "/pk", TTLOff())
	pk := StringKey("p")
	mustCreate(t, c, `{"id":"X","pk":"p","v":0}`)
	mustCreate(t, c, `{"id":"Y","pk":"p","v":0}`)
	var stop atomic.Bool
	var wg sync.WaitGroup
	var bad atomic.Value
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				x, err1 := c.Get(bg, pk, "X")
				y, err2 := c.Get(bg, pk, "Y")
				if err := errors.Join(err1, err2); err != nil {
					bad.Store(err.Error())
					return
				}
				if vx, vy := x.Body(), y.Body(); len(vy) < len(vx) || (len(vy) == len(vx) && vy[len(vy)-8:] < vx[len(vx)-8:]) {
					bad.Store(fmt.Sprintf("read X %s and then Y %s: half a batch", vx, vy))
					return
				}
			}
		}()
	}
	for i := 1; i <= 3000 && bad.Load() == nil; i++ {
		b := NewBatch(pk)
		v := fmt.Sprintf(`%08d`, i)
		b.Replace([]byte(`{"id":"X","pk":"p","v":"` + v + `"}`))
		b.Replace([]byte(`{"id":"Y","pk":"p","v":"` + v + `"}`))
		_, err := c.ExecuteBatch(bg, b)
		require.NoError(t, err)
	}
	stop.Store(true)
	wg.Wait()
	require.Nil(t, bad.Load())
}
