package conformance

// The TTL matrix's sales-order walk-through (R3, R6, R7).

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// The sales-order walk-through.

// R3 R6 R7: orders expire 90 days after their last write unless they say
// otherwise; an order with a ttl of 30 days is gone at 30 days, not 90; a
// write extends an order; removing its ttl makes it inherit the 90 days from
// that write; turning TTL off keeps the live orders forever, and the orders
// that had already expired stay gone.
func mxR3R6R7MatrixSalesOrders(t *testing.T, eng Harness) {
	mxTest(t, eng, func(t *testing.T) {
		const day = int64(24 * 60 * 60)
		c, err := mxOpen(t, "orders", "/customerId", &ttldb.Options{DefaultTTL: ttldb.TTLSeconds(90 * day)})
		require.NoError(t, err)
		start := mxNow(t)
		order := func(id string, ttl mxTTL) []byte {
			b := fmt.Sprintf(`{"id":%q,"customerId":"c1","total":42.5`, id)
			if ttl.raw != "" {
				b += `,"ttl":` + ttl.raw
			}
			return []byte(b + "}")
		}
		days30 := mxTTL{"30 days", strconv.FormatInt(30*day, 10)}
		write := func(op func(context.Context, any, ...ttldb.WriteOption) (ttldb.Document, error), id string, ttl mxTTL) {
			t.Helper()
			_, err := op(bg, order(id, ttl))
			require.NoError(t, err, "write %s", id)
		}
		create := func(ctx context.Context, doc any, _ ...ttldb.WriteOption) (ttldb.Document, error) {
			return c.Create(ctx, doc)
		}
		at := func(days int64, offset int64) { mxSleepUntil(t, start+days*day+offset) }
		all := []string{"A", "B", "C", "D"}
		visible := func(when string, want ...string) {
			t.Helper()
			mxRequireVisible(t, c, all, want, when)
		}

		write(create, "A", days30)   // own ttl 30 days: gone at day 30
		write(create, "B", days30)   // extended at day 20: gone at day 50
		write(create, "C", days30)   // extended, then ttl removed at day 40
		write(create, "D", mxAbsent) // inherits 90 days: gone at day 90
		visible("day 0", "A", "B", "C", "D")

		at(20, 0)
		write(c.Replace, "B", days30) // R6: the write restarts the 30 days
		write(c.Replace, "C", days30)

		at(30, -1)
		visible("day 30 - 1s", "A", "B", "C", "D")
		at(30, 0)
		visible("day 30: A's own 30 days are over, not 90", "B", "C", "D")

		at(40, 0)
		write(c.Replace, "C", mxAbsent) // R6: no ttl, inherits 90 days from day 40

		at(50, -1)
		visible("day 50 - 1s", "B", "C", "D")
		at(50, 0)
		visible("day 50: B's extension is over; C now inherits", "C", "D")

		at(90, 0)
		visible("day 90: D's inherited 90 days are over", "C")

		at(100, 0)
		require.NoError(t, c.SetDefaultTTL(bg, ttldb.TTLOff())) // R7
		visible("day 100, TTL off: the expired orders stay gone", "C")

		at(130, 0)
		visible("day 130, when C would have expired: TTL is off", "C")
		mxSleepUntil(t, start+mxFar)
		visible("ten years later", "C")

		require.NoError(t, c.SetDefaultTTL(bg, ttldb.TTLSeconds(90*day))) // R7: at once
		visible("TTL back on, C's 90 days from day 40 are long over")
	})
}
