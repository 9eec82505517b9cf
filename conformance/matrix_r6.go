package conformance

// The TTL matrix of R6: a write restarts the countdown and sets the ttl.

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ttldb/ttldb"
)

// ---------------------------------------------------------------------------
// R6: a write restarts the countdown and sets the ttl.

// mxWriteAt is when the R6 tests rewrite the document: before any of the
// original ttls run out.
const mxWriteAt = 20

// mxRequireLifetime checks that the document id, written at ts, lives life
// seconds (or never): alive at ts + life - 1, gone at ts + life; or alive
// ten years later.
func mxRequireLifetime(t *testing.T, c *ttldb.Collection, id string, ts, life int64) {
	t.Helper()
	if life == mxNever {
		mxSleepUntil(t, ts+mxFar)
		mxRequireVisible(t, c, []string{id}, []string{id}, "ten years after the write")
		return
	}
	mxSleepUntil(t, ts+life-1)
	mxRequireVisible(t, c, []string{id}, []string{id}, fmt.Sprintf("_ts+%d", life-1))
	mxSleepUntil(t, ts+life)
	mxRequireVisible(t, c, []string{id}, nil, fmt.Sprintf("_ts+%d", life))
}

// R6: adding, changing and removing a document's ttl, setting it to -1 or
// null, by Replace and by Upsert: the write restarts the countdown from its
// _ts, and the new ttl (or the default it now inherits) applies.
func mxR6MatrixDocumentTTLChanges(t *testing.T, eng Harness) {
	cases := []struct {
		name          string
		def           mxSetting
		before, after mxTTL
		life          int64 // effective TTL after the write, from its _ts
	}{
		{"ttl added", mxDefN, mxAbsent, mxOwn30, 30},
		{"ttl added, above the default", mxDefN, mxAbsent, mxOwn250, 250},
		{"ttl rewritten unchanged, countdown restarts", mxDefN, mxOwn30, mxOwn30, 30},
		{"ttl shortened", mxDefN, mxOwn250, mxOwn30, 30},
		{"ttl lengthened", mxDefN, mxOwn30, mxOwn250, 250},
		{"ttl removed, inherits n", mxDefN, mxOwn30, mxAbsent, 100},
		{"ttl set to null, inherits n", mxDefN, mxOwn30, mxNull, 100},
		{"ttl set to -1", mxDefN, mxOwn30, mxMinus1, mxNever},
		{"ttl -1 removed, inherits n", mxDefN, mxMinus1, mxAbsent, 100},
		{"ttl -1 replaced by m", mxDefN, mxMinus1, mxOwn30, 30},
		{"no ttl rewritten, countdown restarts", mxDefN, mxAbsent, mxAbsent, 100},
		{"ttl removed under -1, never expires", mxNoDef, mxOwn30, mxAbsent, mxNever},
		{"ttl set to null under -1, never expires", mxNoDef, mxOwn30, mxNull, mxNever},
		{"ttl added under -1", mxNoDef, mxAbsent, mxOwn30, 30},
		{"ttl added under off, ignored", mxOff, mxAbsent, mxOwn30, mxNever},
	}
	writes := []struct {
		name  string
		write func(c *ttldb.Collection, body []byte, old ttldb.Document) (ttldb.Document, error)
	}{
		{"Replace", func(c *ttldb.Collection, body []byte, _ ttldb.Document) (ttldb.Document, error) {
			return c.Replace(bg, body)
		}},
		{"Upsert", func(c *ttldb.Collection, body []byte, _ ttldb.Document) (ttldb.Document, error) {
			return c.Upsert(bg, body)
		}},
		{"Replace/IfMatch", func(c *ttldb.Collection, body []byte, old ttldb.Document) (ttldb.Document, error) {
			return c.Replace(bg, body, ttldb.IfMatch(old.ETag()))
		}},
	}
	for _, tc := range cases {
		for _, w := range writes {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				mxTest(t, eng, func(t *testing.T) {
					c := mxNewCollection(t, tc.def.def, false)
					old := mxCreate(t, c, mxID, "c1", tc.before)
					mxSleepUntil(t, old.TS()+mxWriteAt)
					got, err := w.write(c, mxDoc(mxID, "c1", tc.after), old)
					require.NoError(t, err)
					require.Equal(t, old.TS()+mxWriteAt, got.TS(), "the write sets _ts anew")
					require.Equal(t, tc.after.raw, mxTTLMember(t, got), "the new ttl is stored as written")
					require.Equal(t, tc.life, mxLifetime(tc.def, tc.after), "table agrees with R3")
					mxRequireLifetime(t, c, mxID, got.TS(), tc.life)
				})
			})
		}
	}
}

// R6: Touch renews _ts and _etag and keeps the ttl as written, so the
// document lives its effective TTL again from the touch, in every cell of
// R3.
func mxR6MatrixTouch(t *testing.T, eng Harness) {
	for _, cell := range mxR3Cells() {
		t.Run(cell.String(), func(t *testing.T) {
			mxTest(t, eng, func(t *testing.T) {
				c := mxNewCollection(t, cell.set.def, false)
				old := mxCreate(t, c, mxID, "c1", cell.ttl)
				mxSleepUntil(t, old.TS()+mxWriteAt)
				got, err := c.Touch(bg, mxC1, mxID)
				require.NoError(t, err)
				require.Equal(t, old.TS()+mxWriteAt, got.TS(), "Touch sets _ts anew")
				require.NotEqual(t, old.ETag(), got.ETag(), "Touch sets _etag anew")
				require.Equal(t, cell.ttl.raw, mxTTLMember(t, got), "Touch keeps the ttl as written")
				wantSecs, wantOK := old.TTL()
				secs, ok := got.TTL()
				require.Equal(t, wantOK, ok)
				require.Equal(t, wantSecs, secs)
				mxRequireLifetime(t, c, mxID, got.TS(), cell.want)
			})
		})
	}
}
